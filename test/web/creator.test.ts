// The creator and review journey in a real browser: a creator applies, the protocol authority
// approves in the review console, the creator registers an agent (an invalid manifest first: errors
// on screen, nothing submitted), creates the listing through the wallet, the authority approves it,
// and renters find it in browse.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { Hex } from "viem";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import type { RunningStack } from "../../local/stack.ts";
import { connectAndSignIn, launchBrowser, openDashboard, startWebStack } from "./support.ts";

let stack: RunningStack & { dataDir: string };
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startWebStack(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

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
    // The creator's console may answer 404 for "no application yet": an answer, not a fault.
    const creator = await openDashboard(browser, stack, DEV_ACCOUNTS[7]!.privateKey as Hex, { expectedFailures: [/\/v1\/creators\/me$/] });
    const authority = await openDashboard(browser, stack, DEV_ACCOUNTS[0]!.privateKey as Hex);
    const c = creator.page;
    const a = authority.page;

    await c.goto(`${stack.info.dashboard_url}creator`);
    await connectAndSignIn(creator);
    await c.getByLabel("Display name").fill("Deck Doctors");
    await c.getByRole("button", { name: "Apply as a creator" }).click();
    await c.getByTestId("creator-status").getByText("pending").waitFor();
    await creator.shot("j4-01-applied");

    await a.goto(`${stack.info.dashboard_url}review`);
    await connectAndSignIn(authority);
    const application = a.getByRole("article", { name: "Deck Doctors" });
    await application.waitFor();
    await authority.shot("j4-02-review-application");
    await application.getByRole("button", { name: "Approve" }).click();
    await application.waitFor({ state: "detached" });

    await c.getByTestId("creator-status").getByText("approved").waitFor({ timeout: 15_000 });
    const editor = c.getByLabel("Manifest (JSON)");
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
    const jobsBefore = await stack.services.tables.doc.send(new (await import("@aws-sdk/lib-dynamodb")).ScanCommand({ TableName: stack.services.tables.name("jobs") }));

    await editor.fill(JSON.stringify(MANIFEST, null, 2));
    await c.getByText("The manifest is valid.").waitFor();
    await c.getByRole("button", { name: "Submit for registration" }).click();
    await c.getByText(/Registered as/).waitFor({ timeout: 30_000 });
    const jobsAfter = await stack.services.tables.doc.send(new (await import("@aws-sdk/lib-dynamodb")).ScanCommand({ TableName: stack.services.tables.name("jobs") }));
    expect((jobsAfter.Items ?? []).length).toBe((jobsBefore.Items ?? []).length + 1);
    await c.getByLabel("Rental model").selectOption("per_query");
    await c.getByLabel("Price (ETH)").first().fill("0.0015");
    await c.getByRole("button", { name: "Create listing" }).click();
    await c.getByText(/Confirmed: transaction/).waitFor({ timeout: 30_000 });
    await creator.shot("j4-04-listed");

    await a.reload();
    const pending = a.getByRole("article", { name: "Pitch Deck Critic" });
    await pending.getByText("Reads a pitch deck outline").waitFor({ timeout: 15_000 });
    await authority.shot("j4-05-review-listing");
    await pending.getByRole("button", { name: "Approve" }).click();
    await pending.waitFor({ state: "detached" });
    await c.getByTestId("listing-review").getByText("approved").or(c.getByRole("article").getByText("approved")).first().waitFor({ timeout: 15_000 });

    await c.goto(`${stack.info.dashboard_url}?q=pitch+deck`);
    const card = c.getByTestId("listing-card").filter({ hasText: "Pitch Deck Critic" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.textContent()).toContain("0.0015 ETH");
    await creator.shot("j4-06-in-browse");
    expect(creator.errors).toEqual([]);
    expect(authority.errors).toEqual([]);
    await creator.context.close();
    await authority.context.close();
  }, 150_000);
});
