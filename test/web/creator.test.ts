// The creator and review journey in a real browser: a creator applies, the protocol authority
// approves in the review console, the creator registers an agent (an invalid manifest first: errors
// on screen, nothing submitted), creates the listing through the wallet, the authority approves it,
// and renters find it in browse.
import { describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { connectAndSignIn, openDashboard, webSuite } from "./support.ts";
import { apiAs, AUTHORITY_KEY, manifestOf, registeredListing } from "./seed.ts";

const web = webSuite();

const MANIFEST = {
  name: "pitch-deck-critic",
  category: "sales",
  description: "Reads a pitch deck outline and returns the three weakest slides with a fix for each.",
  model: { provider: "provider_a", model: "gpt-4o-mini" },
  system_prompt: "You critique pitch decks.",
  input_schema: { type: "object", properties: { outline: { type: "string" } }, required: ["outline"] },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"], examples: [{ findings: ["Slide 4: the market size has no source."] }] },
  timeout_seconds: 60,
};

describe("creator and review consoles", () => {
  it("a creator applies, is approved, registers an agent after fixing an invalid manifest, lists it on-chain, and once approved it appears in browse", async () => {
    const creator = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[7]!.privateKey as Hex);
    const authority = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[0]!.privateKey as Hex);
    const c = creator.page;
    const a = authority.page;

    await c.goto(`${web.stack.info.dashboard_url}creator`);
    await connectAndSignIn(creator);
    await c.getByLabel("Display name").fill("Deck Doctors");
    await c.getByRole("button", { name: "Apply as a creator" }).click();
    await c.getByTestId("creator-status").getByText("pending").waitFor();
    await creator.shot("j4-01-applied");

    await a.goto(`${web.stack.info.dashboard_url}review`);
    await connectAndSignIn(authority);
    const application = a.getByRole("article", { name: "Deck Doctors" });
    await application.waitFor();
    await authority.shot("j4-02-review-application");
    await application.getByRole("button", { name: "Approve" }).click();
    await application.waitFor({ state: "detached" });

    await c.getByTestId("creator-status").getByText("approved").waitFor({ timeout: 15_000 });
    const editor = c.getByLabel("Manifest (JSON)");
    const jobCount = async () => ((await web.stack.services.tables.doc.send(new ScanCommand({ TableName: web.stack.services.tables.name("jobs") }))).Items ?? []).length;
    const jobsBefore = await jobCount();
    // Invalid first: more than 10 tools, a timeout above 300 s, and no model. Nothing is submitted.
    const invalid = { ...MANIFEST, model: undefined, timeout_seconds: 900, tools: Array.from({ length: 11 }, (_, i) => ({ name: "http_fetch", scope: `https://example${i}.com` })) };
    await editor.fill(JSON.stringify(invalid, null, 2));
    const problems = c.getByTestId("manifest-errors");
    await problems.waitFor();
    const text = (await problems.textContent()) ?? "";
    expect(text).toMatch(/\/timeout_seconds/);
    expect(text).toMatch(/\/tools/);
    expect(text).toMatch(/\/model/);
    expect(await c.getByRole("button", { name: "Submit for registration" }).isDisabled()).toBe(true);
    await creator.shot("j4-03-invalid-manifest");
    // Nothing was submitted: no job exists for the invalid manifest.
    expect(await jobCount()).toBe(jobsBefore);

    await editor.fill(JSON.stringify(MANIFEST, null, 2));
    await c.getByText("The manifest is valid.").waitFor();
    await c.getByRole("button", { name: "Submit for registration" }).click();
    await c.getByText(/Registered as/).waitFor({ timeout: 30_000 });
    expect(await jobCount()).toBe(jobsBefore + 1);
    await c.getByLabel("Rental model").selectOption("per_query");
    await c.getByLabel("Price (ETH)").first().fill("0.0015");
    await c.getByRole("button", { name: "Create listing" }).click();
    await c.getByText(/Confirmed: transaction/).waitFor({ timeout: 30_000 });
    await creator.shot("j4-04-listed");

    await a.reload();
    const pending = a.getByRole("article", { name: "Pitch Deck Critic" });
    await pending.getByText("Reads a pitch deck outline").waitFor({ timeout: 15_000 });
    // What the reviewer decides on: the creator's display name and the sample outputs renters will see.
    await pending.getByTestId("review-creator-name").getByText("Deck Doctors").waitFor();
    await pending.getByTestId("review-samples").getByText("Slide 4: the market size has no source.").waitFor();
    await authority.shot("j4-05-review-listing");
    await pending.getByRole("button", { name: "Approve" }).click();
    await pending.waitFor({ state: "detached" });
    await c.getByTestId("listing-review").getByText("approved").or(c.getByRole("article").getByText("approved")).first().waitFor({ timeout: 15_000 });

    await c.goto(`${web.stack.info.dashboard_url}?q=pitch+deck`);
    const card = c.getByTestId("listing-card").filter({ hasText: "Pitch Deck Critic" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.textContent()).toContain("0.0015 ETH");
    await creator.shot("j4-06-in-browse");
    // A wallet that never applied has no creator profile (GET /v1/creators/me answers profile null) and
    // the page shows the application form: no console error.
    expect(creator.errors, creator.errors.join("\n")).toEqual([]);
    expect(authority.errors, authority.errors.join("\n")).toEqual([]);
    await creator.context.close();
    await authority.context.close();
  }, 150_000);

  it("the authority rejects an application and a listing with reasons the creator reads, and sees samples generated from the output schema exactly as the catalogue later shows them", async () => {
    const creatorKey = DEV_ACCOUNTS[8]!.privateKey as Hex;
    const creator = await openDashboard(web.browser, web.stack, creatorKey);
    const authority = await openDashboard(web.browser, web.stack, AUTHORITY_KEY);
    const c = creator.page;
    const a = authority.page;

    await c.goto(`${web.stack.info.dashboard_url}creator`);
    await connectAndSignIn(creator);
    await c.getByLabel("Display name").fill("Brief Works");
    await c.getByRole("button", { name: "Apply as a creator" }).click();
    await c.getByTestId("creator-status").getByText("pending").waitFor();

    // Rejecting needs a reason; the creator reads it and may apply again.
    await a.goto(`${web.stack.info.dashboard_url}review`);
    await connectAndSignIn(authority);
    const application = a.getByRole("article", { name: "Brief Works" });
    await application.waitFor();
    expect(await application.getByRole("button", { name: "Reject" }).isDisabled()).toBe(true);
    await application.getByLabel(/^Reason/).fill("Link a portfolio or a public profile so renters know who you are.");
    await application.getByRole("button", { name: "Reject" }).click();
    await application.waitFor({ state: "detached" });
    await c.getByTestId("creator-status").getByText("rejected").waitFor({ timeout: 15_000 });
    await c.getByText("Rejected: Link a portfolio or a public profile so renters know who you are.").waitFor();
    await creator.shot("r4-01-application-rejected");
    await c.getByLabel("Display name").fill("Brief Works (briefworks.example)");
    await c.getByRole("button", { name: "Apply again" }).click();
    await c.getByTestId("creator-status").getByText("pending").waitFor();
    await a.getByRole("article", { name: "Brief Works (briefworks.example)" }).getByRole("button", { name: "Approve" }).click();
    await c.getByTestId("creator-status").getByText("approved").waitFor({ timeout: 15_000 });

    // Two listings whose output schemas give no examples: the samples shown are generated from them.
    const rejected = await registeredListing(web.stack, creatorKey, manifestOf("thin-brief-writer"), { model: "per_query", priceEth: "0.001" });
    const approved = await registeredListing(web.stack, creatorKey, manifestOf("deep-brief-writer"), { model: "per_query", priceEth: "0.002" });
    await a.reload();
    const thin = a.getByRole("article", { name: "Thin Brief Writer" });
    const deep = a.getByRole("article", { name: "Deep Brief Writer" });
    await deep.getByTestId("review-samples").waitFor({ timeout: 15_000 });
    await thin.getByTestId("review-creator-name").getByText("Brief Works (briefworks.example)").waitFor();
    await deep.getByTestId("review-samples").getByText("generated from the output schema").waitFor();
    const shownSamples = await deep.getByTestId("review-samples").locator("pre").allTextContents();
    expect(shownSamples.length).toBeGreaterThan(0);
    await authority.shot("r4-02-review-generated-samples");

    await thin.getByLabel(/^Reason/).fill("The description promises more than the schema returns.");
    await thin.getByRole("button", { name: "Reject" }).click();
    await thin.waitFor({ state: "detached" });
    await deep.getByRole("button", { name: "Approve" }).click();
    await deep.waitFor({ state: "detached" });

    // The creator sees the rejection and its reason on the listing.
    await c.reload();
    const thinListing = c.getByRole("article").filter({ has: c.getByRole("heading", { name: "Thin Brief Writer" }) });
    await thinListing.getByText("rejected", { exact: true }).waitFor({ timeout: 15_000 });
    await thinListing.getByText("Reviewer: The description promises more than the schema returns.").waitFor();
    await creator.shot("r4-03-listing-rejected");

    // Published, the approved listing's sample_output is exactly what the reviewer was shown.
    const renter = await apiAs(web.stack, creatorKey);
    let published: { sample_output: string[] } | null = null;
    await expect.poll(async () => (published = await renter.get<{ sample_output: string[] }>(`/v1/listings/${approved}`).catch(() => null)) !== null, { timeout: 15_000, interval: 500 }).toBe(true);
    expect(published!.sample_output.map((text) => JSON.stringify(JSON.parse(text), null, 2))).toEqual(shownSamples);
    const found = (await renter.get<{ listings: { id: string }[] }>("/v1/listings?q=brief+writer&limit=100")).listings.map((l) => l.id);
    expect(found).toContain(approved);
    expect(found).not.toContain(rejected);

    expect(creator.errors, creator.errors.join("\n")).toEqual([]);
    expect(authority.errors, authority.errors.join("\n")).toEqual([]);
    await creator.context.close();
    await authority.context.close();
  }, 180_000);
});
