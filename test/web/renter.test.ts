// Renter journeys in a real browser against the real local stack: connect and sign in, search, rent
// per-task, run a streamed task, top up; API keys created with a wallet signature and revoked; a
// wallet that refuses a signature and a transaction.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { createPublicClient, http, type Hex } from "viem";
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

const key = (i: number) => DEV_ACCOUNTS[i]!.privateKey as Hex;

describe("renter journeys", () => {
  it("connects, signs in, searches, rents per-task for 3 runs, streams a run, sees 2 runs left, tops up", async () => {
    const d = await openDashboard(browser, stack, key(6));
    const { page } = d;
    await page.goto(stack.info.dashboard_url);
    await d.shot("j1-01-signed-out");
    await connectAndSignIn(d);
    await page.getByRole("searchbox", { name: "Search agents" }).fill("unit tests");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe("unit tests");
    const card = page.getByTestId("listing-card").filter({ hasText: "Unit Test Writer" });
    await card.waitFor();
    await d.shot("j1-02-search");
    await card.getByRole("link", { name: "Unit Test Writer" }).click();
    await page.getByRole("heading", { name: "Unit Test Writer", level: 1 }).waitFor();
    await page.getByLabel("Number of runs").fill("3");
    const cost = page.getByTestId("exact-cost");
    await expect.poll(() => cost.textContent()).toMatch(/ETH$/);
    await d.shot("j1-03-listing");
    await page.getByRole("button", { name: /^Rent for / }).click();
    await page.getByText("✓ Credential active").waitFor({ timeout: 30_000 });
    await d.shot("j1-04-rented");

    await page.getByRole("link", { name: "Run a task" }).first().click();
    await page.getByLabel("Task").fill("Write unit tests for this function");
    // The form generated from the agent's input schema: {source: string} required.
    await page.getByLabel("source").fill("export const add = (a: number, b: number) => a + b;");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const summary = page.getByTestId("run-summary");
    await summary.waitFor({ timeout: 30_000 });
    await d.shot("j1-05-run");
    expect(await page.getByTestId("run-output").textContent()).not.toBe("");
    await expect.poll(() => summary.textContent()).toMatch(/completed/);

    await page.getByRole("link", { name: "My rentals", exact: true }).click();
    const row = page.getByRole("article").filter({ hasText: "Unit Test Writer" });
    await expect.poll(() => row.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toMatch(/^2 runs left/);
    await d.shot("j1-06-rentals");
    await row.getByRole("button", { name: "Top up" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Number of runs").fill("5");
    await dialog.getByRole("button", { name: /^Top up for / }).click();
    await dialog.locator("li.done", { hasText: "Balance updated" }).waitFor({ timeout: 30_000 });
    await d.shot("j1-07-topped-up");
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => row.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toMatch(/^7 runs left/);
    expect(d.errors).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("creates an API key with a wallet signature, shows it once, and after revoking it in the page the key gets 401", async () => {
    const d = await openDashboard(browser, stack, key(7));
    const { page } = d;
    await page.goto(`${stack.info.dashboard_url}keys`);
    await connectAndSignIn(d);
    await page.getByText("No API keys yet").waitFor();
    await page.getByRole("button", { name: "New API Key" }).click();
    await page.getByLabel("Label").fill("ci runner");
    const signaturesBefore = d.wallet.calls.filter((c) => c === "personal_sign").length;
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-api-key");
    await shown.waitFor();
    expect(d.wallet.calls.filter((c) => c === "personal_sign").length).toBe(signaturesBefore + 1);
    const apiKey = (await shown.textContent())!.trim();
    expect(apiKey).toMatch(/^svc_test_/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText())).toBe(apiKey);
    await d.shot("j2-01-key-shown");
    await page.getByRole("button", { name: "I stored it" }).click();
    await expect.poll(() => page.getByTestId("new-api-key").count()).toBe(0);

    const call = () => fetch(`${stack.info.api_url}/v1/credentials`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await call()).status).toBe(200);
    const row = page.getByRole("row").filter({ hasText: "ci runner" });
    await row.waitFor();
    expect(await row.textContent()).toContain(apiKey.slice(0, 13));
    await d.shot("j2-02-key-listed");
    await row.getByRole("button", { name: "Revoke ci runner" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
    await row.getByText("revoked").waitFor();
    await d.shot("j2-03-key-revoked");
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect(d.errors).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("a wallet that rejects the sign-in signature and then a rental transaction leaves everything as it was, and the page says why", async () => {
    const d = await openDashboard(browser, stack, key(8));
    const { page } = d;
    const chain = createPublicClient({ transport: http(stack.info.rpc_url) });
    await page.goto(stack.info.dashboard_url);
    await page.getByRole("button", { name: "Connect wallet" }).first().click();
    await page.getByRole("dialog").getByRole("button", { name: "Test Wallet" }).click();
    d.wallet.rejectNext("personal_sign");
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByText("You rejected the sign-in signature in your wallet. You are not signed in, and nothing changed.").waitFor();
    expect(await page.getByLabel("Signed in").count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem("agent-market.session"))).toBeNull();
    await d.shot("j5-01-signature-rejected");

    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    const listing = (stack.info.demo.listings as { listing_id: string; rental_model: string }[]).find((l) => l.rental_model === "one_time")!;
    await page.goto(`${stack.info.dashboard_url}listings/${listing.listing_id}`);
    const rent = page.getByRole("button", { name: /^Rent for \d/ });
    await rent.waitFor();
    const balanceBefore = await chain.getBalance({ address: d.wallet.address });
    d.wallet.rejectNext("eth_sendTransaction");
    await rent.click();
    await page.getByText("You rejected the request in your wallet. Nothing was signed or sent, and nothing changed.").waitFor();
    await d.shot("j5-02-transaction-rejected");
    expect(await chain.getBalance({ address: d.wallet.address })).toBe(balanceBefore);
    const verify = await page.evaluate(async (id) => {
      const s = JSON.parse(sessionStorage.getItem("agent-market.session")!) as { token: string };
      return (await fetch(`/v1/credentials/${id}`, { headers: { authorization: `Bearer ${s.token}` } })).json();
    }, listing.listing_id);
    expect(verify).toMatchObject({ status: "not_found", valid: false });
    expect(await page.getByRole("button", { name: /^Rent for \d/ }).isEnabled()).toBe(true);
    expect(d.errors).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("asks a wallet on another chain to switch, adding the marketplace's chain when the wallet does not know it", async () => {
    const d = await openDashboard(browser, stack, key(9), { walletChainId: 1 });
    const { page } = d;
    await page.goto(stack.info.dashboard_url);
    await page.getByRole("button", { name: "Connect wallet" }).first().click();
    await page.getByRole("dialog").getByRole("button", { name: "Test Wallet" }).click();
    const banner = page.getByRole("alert").filter({ hasText: "Your wallet is on chain 1" });
    await banner.waitFor();
    await d.shot("j5-03-wrong-chain");
    await banner.getByRole("button", { name: "Switch to Local chain" }).click();
    await banner.waitFor({ state: "detached" });
    expect(d.wallet.addedChains).toEqual([{ chainId: stack.info.chain_id, rpcUrls: [stack.info.rpc_url] }]);
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    await page.getByTestId("listing-card").first().waitFor();
    expect(d.errors).toEqual([]);
    await d.context.close();
  }, 60_000);
});
