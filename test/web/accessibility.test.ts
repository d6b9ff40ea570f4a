// Accessibility in a real browser: axe-core finds no serious or critical violation on any page of the
// dashboard, in every state a user meets it, signed out and signed in, light and dark, at 375 px and
// 1440 px wide: the renter's pages, a completed run, the creator's registration editor (valid and with
// errors), and the review console of the authority with an application and a listing waiting.
import { describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { connectAndSignIn, openDashboard, seriousViolations, webSuite } from "./support.ts";
import { apiAs, approvedCreator, AUTHORITY_KEY, manifestOf, registeredListing } from "./seed.ts";

/** An approved creator with a listing awaiting review. */
const CREATOR_KEY = DEV_ACCOUNTS[8]!.privateKey as Hex;

const web = webSuite({
  timeoutMs: 180_000,
  seed: async (stack) => {
    // The review console's queues: an application waiting, and a listing on-chain awaiting review.
    await (await apiAs(stack, DEV_ACCOUNTS[7]!.privateKey as Hex)).post("/v1/creators", { display_name: "Waiting Applicant" });
    await approvedCreator(stack, CREATOR_KEY, "Pending Lister");
    await registeredListing(stack, CREATOR_KEY, manifestOf("pending-brief-writer"), { model: "per_query", priceEth: "0.001" });
  },
});

describe("accessibility", () => {
  it("at 375 px every destination of the header's navigation is on screen and reachable by keyboard", async () => {
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[5]!.privateKey as Hex, { viewport: { width: 375, height: 812 }, colorScheme: "dark" });
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
    const nav = page.getByRole("navigation", { name: "Main" });
    const links = nav.getByRole("link");
    const names = ["Browse", "My rentals", "Run a task", "API keys", "Connected apps", "Creator", "Analytics", "Review"];
    // The app renders after its script loads: allTextContents does not wait (it read none on a loaded
    // machine), so the links are polled until they are there.
    await expect.poll(() => links.allTextContents(), { timeout: 15_000 }).toEqual(names);
    for (const name of names) {
      const box = (await nav.getByRole("link", { name, exact: true }).boundingBox())!;
      expect({ name, left: box.x >= 0, right: box.x + box.width <= 375 }).toEqual({ name, left: true, right: true });
    }
    expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // Keyboard: from the brand, Tab walks the links in order, each with a visible focus ring.
    await page.getByRole("link", { name: "Agent Market home" }).focus();
    for (const name of names) {
      await page.keyboard.press("Tab");
      // The page's globals, typed for what this uses (the suite compiles without the DOM library).
      const focused = await page.evaluate(() => {
        const w = globalThis as unknown as { document: { activeElement: { textContent: string | null } | null }; getComputedStyle(e: unknown): { outlineStyle: string } };
        return { text: w.document.activeElement?.textContent, outline: w.getComputedStyle(w.document.activeElement).outlineStyle };
      });
      expect(focused).toEqual({ text: name, outline: expect.not.stringMatching(/^none$/) });
    }
    await page.keyboard.press("Enter");
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 10_000 }).toBe("/review");
    await page.getByText("Only the protocol authority reviews").or(page.getByRole("button", { name: "Connect wallet" })).first().waitFor();
    await d.shot("j6-dark-375-nav");
    expect(await seriousViolations(page)).toEqual([]);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);

  for (const [scheme, viewport] of [
    ["light", { width: 1440, height: 900 }],
    ["dark", { width: 375, height: 812 }],
  ] as const) {
    it(`has no serious or critical axe violations on any renter page (${scheme}, ${viewport.width} px)`, async () => {
      // The demo renter holds rentals; it also sees the review console as a wallet that is not the authority.
      const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex, { viewport, colorScheme: scheme });
      const { page } = d;
      const found: Record<string, string[]> = {};
      const check = async (name: string) => {
        found[name] = await seriousViolations(page);
        await d.shot(`j6-${scheme}-${viewport.width}-${name}`);
      };
      const listing = (web.stack.info.demo.listings as { listing_id: string }[])[0]!.listing_id;

      await page.goto(web.stack.info.dashboard_url);
      await page.getByRole("heading", { name: "Sign in to browse the marketplace" }).waitFor();
      await check("signed-out");
      await page.getByRole("button", { name: "Connect wallet" }).first().click();
      await page.getByRole("dialog").waitFor();
      await check("connect-dialog");
      await page.keyboard.press("Escape");
      await connectAndSignIn(d);
      await page.getByTestId("listing-card").first().waitFor();
      await check("browse");
      await page.goto(`${web.stack.info.dashboard_url}listings/${listing}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.getByText("Input schema").waitFor();
      await check("listing");
      await page.goto(`${web.stack.info.dashboard_url}rentals`);
      await page.getByTestId("runs-left").first().waitFor();
      await check("rentals");
      await page.getByRole("button", { name: "Top up" }).first().click();
      await page.getByRole("dialog").getByText("You pay").waitFor();
      await check("top-up-dialog");
      await page.keyboard.press("Escape");
      await page.goto(`${web.stack.info.dashboard_url}run`);
      await page.getByLabel("Task").waitFor();
      await check("run");
      await page.goto(`${web.stack.info.dashboard_url}keys`);
      await page.getByRole("button", { name: "New API Key" }).waitFor();
      await page.getByRole("table").or(page.getByText("No API keys yet")).first().waitFor();
      await check("keys");
      await page.getByRole("button", { name: "New API Key" }).click();
      await page.getByLabel("Label").waitFor();
      await check("new-key-dialog");
      await page.keyboard.press("Escape");
      await page.goto(`${web.stack.info.dashboard_url}apps`);
      await page.getByRole("heading", { name: "Connected apps" }).waitFor();
      await page.getByRole("table").or(page.getByText("No connected apps")).first().waitFor();
      await check("apps");
      // The consent page of a real sign-in request: a registered app sends the browser here.
      const origin = web.stack.info.dashboard_url.replace(/\/$/, "");
      const registered = (await (await fetch(`${origin}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Axe app", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }) })).json()) as { client_id: string };
      const authorize = new URL(`${origin}/oauth/authorize`);
      for (const [k, v] of Object.entries({ response_type: "code", client_id: registered.client_id, redirect_uri: "http://127.0.0.1:9/cb", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", scope: "tasks:run credentials:read" })) authorize.searchParams.set(k, v);
      await page.goto(authorize.href);
      await page.getByRole("heading", { name: /wants to use your account/ }).waitFor();
      await page.getByTestId("consent-agents").waitFor();
      await check("connect");
      await page.goto(`${web.stack.info.dashboard_url}creator`);
      await page.getByRole("button", { name: "Apply as a creator" }).waitFor();
      await check("creator");
      await page.goto(`${web.stack.info.dashboard_url}review`);
      await page.getByText("Only the protocol authority reviews").waitFor();
      await check("review");
      // An unknown path asked of the server is the API's 404 envelope (only the dashboard's own pages are
      // served as HTML); the app shows its not-found page for a path it is sent to inside the app.
      await page.evaluate(() => {
        // (The test's types have no DOM: the page's globals, typed as far as used.)
        const w = globalThis as unknown as { history: { pushState(state: object, unused: string, url: string): void }; dispatchEvent(event: unknown): void; PopStateEvent: new (type: string) => unknown };
        w.history.pushState({}, "", "/no-such-page");
        w.dispatchEvent(new w.PopStateEvent("popstate"));
      });
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
      await check("not-found");

      expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual({});
      // The renter never applied as a creator (GET /v1/creators/me answers profile null and the page
      // offers the application form): no console error on any page.
      expect(d.errors, d.errors.join("\n")).toEqual([]);
      await d.context.close();
    }, 240_000);

    it(`has no serious or critical axe violations in the playground after a completed run (${scheme}, ${viewport.width} px)`, async () => {
      const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex, { viewport, colorScheme: scheme });
      const { page } = d;
      // The one-time rental is unmetered, so the run spends nothing.
      const oneTime = (web.stack.info.demo.listings as { listing_id: string; rental_model: string }[]).find((l) => l.rental_model === "one_time")!;
      await page.goto(`${web.stack.info.dashboard_url}run?agent=${oneTime.listing_id}`);
      await connectAndSignIn(d);
      await page.getByLabel("Task").fill("Review this clause");
      // Narrow screens put the raw JSON editor on a tab of its own.
      if (viewport.width < 1200) await page.getByRole("tab", { name: "Raw JSON" }).click();
      await page.getByLabel("Input (JSON)").fill(JSON.stringify({ contract: "The supplier accepts unlimited liability." }));
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.getByTestId("run-summary").getByText("completed").waitFor({ timeout: 60_000 });
      await d.shot(`j6-${scheme}-${viewport.width}-run-completed`);
      // The run's id and output fit the screen: nothing scrolls sideways.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      expect(await seriousViolations(page)).toEqual([]);
      expect(d.errors, d.errors.join("\n")).toEqual([]);
      await d.context.close();
    }, 120_000);

    it(`has no serious or critical axe violations in the creator's editor and the authority's review console (${scheme}, ${viewport.width} px)`, async () => {
      const found: Record<string, string[]> = {};
      // The creator's registration editor, valid and then with the validator's errors on screen.
      const creator = await openDashboard(web.browser, web.stack, CREATOR_KEY, { viewport, colorScheme: scheme });
      const onCreator = async (name: string) => {
        found[name] = await seriousViolations(creator.page);
        await creator.shot(`j6-${scheme}-${viewport.width}-${name}`);
      };
      await creator.page.goto(`${web.stack.info.dashboard_url}creator`);
      await connectAndSignIn(creator);
      await creator.page.getByText("The manifest is valid.").waitFor();
      await creator.page.getByRole("heading", { name: "Pending Brief Writer" }).waitFor();
      await onCreator("register-editor");
      await creator.page.getByLabel("Manifest (JSON)").fill(JSON.stringify({ ...manifestOf("Not Kebab"), timeout_seconds: 900 }, null, 2));
      await creator.page.getByTestId("manifest-errors").waitFor();
      await onCreator("register-editor-errors");

      // The authority's review console with an application and a listing waiting.
      const authority = await openDashboard(web.browser, web.stack, AUTHORITY_KEY, { viewport, colorScheme: scheme });
      await authority.page.goto(`${web.stack.info.dashboard_url}review`);
      await connectAndSignIn(authority);
      await authority.page.getByRole("article", { name: "Waiting Applicant" }).waitFor();
      await authority.page.getByRole("article", { name: "Pending Brief Writer" }).getByTestId("review-samples").waitFor({ timeout: 15_000 });
      found["review-authority"] = await seriousViolations(authority.page);
      await authority.shot(`j6-${scheme}-${viewport.width}-review-authority`);

      expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual({});
      expect(creator.errors, creator.errors.join("\n")).toEqual([]);
      expect(authority.errors, authority.errors.join("\n")).toEqual([]);
      await Promise.all([creator.context.close(), authority.context.close()]);
    }, 120_000);
  }
});
