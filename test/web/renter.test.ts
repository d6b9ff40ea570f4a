// Renter journeys in a real browser against the real local stack: choose a wallet (EIP-6963, or
// window.ethereum), connect and sign in, search, rent per-task, run a streamed task and see its
// on-chain receipt, input as raw JSON, top up; API keys created with a wallet signature and revoked; a
// wallet that refuses a signature and a transaction, or signs with the wrong key.
import { describe, expect, it } from "vitest";
import { createPublicClient, http, type Hex } from "viem";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { connectAndSignIn, openDashboard, refusalLogged, walletIcon, webSuite, type DashboardPage } from "./support.ts";

/** When the run's output first showed a token, when its summary appeared, and when its receipt was
 * first awaited and then shown, on the page's clock: recorded in the page as the DOM changes. */
async function recordRunTimeline(d: DashboardPage): Promise<() => Promise<Record<"firstToken" | "summary" | "awaitingReceipt" | "receipt", number | undefined>>> {
  await d.page.evaluate(() => {
    // The page's globals, typed for what this uses (the suite compiles without the DOM library).
    const w = globalThis as unknown as {
      __timeline: Record<string, number>;
      document: { body: unknown; querySelector(s: string): { textContent: string | null } | null };
      performance: { now(): number };
      MutationObserver: new (cb: () => void) => { observe(target: unknown, options: Record<string, boolean>): void };
    };
    w.__timeline = {};
    const mark = (name: string, seen: boolean) => void (seen && w.__timeline[name] === undefined && (w.__timeline[name] = w.performance.now()));
    new w.MutationObserver(() => {
      const output = w.document.querySelector('[data-testid="run-output"]')?.textContent ?? "";
      const receipt = w.document.querySelector('[data-testid="run-receipt"]')?.textContent ?? "";
      mark("firstToken", output !== "" && !output.startsWith("The output appears here"));
      mark("summary", w.document.querySelector('[data-testid="run-summary"]') !== null);
      mark("awaitingReceipt", receipt.includes("Waiting for the next run-log batch"));
      mark("receipt", receipt.includes("Logged in run batch"));
    }).observe(w.document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => d.page.evaluate(() => (globalThis as unknown as { __timeline: Record<"firstToken" | "summary" | "awaitingReceipt" | "receipt", number | undefined> }).__timeline);
}

const web = webSuite();

const key = (i: number) => DEV_ACCOUNTS[i]!.privateKey as Hex;

describe("renter journeys", () => {
  it("connects, signs in, searches, rents per-task for 3 runs, streams a run, sees 2 runs left, tops up", async () => {
    const d = await openDashboard(web.browser, web.stack, key(6));
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
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
    // The model answers a word every 100 ms, so the stream has a beginning, a middle and an end.
    await page.getByLabel("Task").fill("Write unit tests for this function [[slow:100]]");
    // The form generated from the agent's input schema: {source: string} required.
    await page.getByLabel("source").fill("export const add = (a: number, b: number) => a + b;");
    const timeline = await recordRunTimeline(d);
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByText("Streaming…").waitFor();
    const summary = page.getByTestId("run-summary");
    await summary.waitFor({ timeout: 30_000 });
    await d.shot("j1-05-run");
    expect(await page.getByTestId("run-output").textContent()).not.toBe("");
    await expect.poll(() => summary.textContent()).toMatch(/completed/);
    // Tokens were on screen while the run was still going, before its summary.
    const streamed = await timeline();
    expect(streamed.firstToken).toBeDefined();
    expect(streamed.firstToken!).toBeLessThan(streamed.summary!);

    // The run's on-chain receipt: awaited at first, shown once the run log has batched it, and its
    // root is the one the contract stores for that batch.
    const receipt = page.getByTestId("run-receipt");
    await receipt.getByText(/Logged in run batch/).waitFor({ timeout: 45_000 });
    const logged = await timeline();
    expect(logged.awaitingReceipt).toBeDefined();
    expect(logged.awaitingReceipt!).toBeLessThan(logged.receipt!);
    const shown = JSON.parse((await receipt.locator("pre").textContent())!) as { batch_index: number; root: Hex; tx_hash: Hex };
    const chain = createPublicClient({ transport: http(web.stack.info.rpc_url) });
    expect(await chain.readContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "runBatchRoots", args: [BigInt(shown.batch_index)] })).toBe(shown.root);
    expect((await chain.getTransactionReceipt({ hash: shown.tx_hash })).status).toBe("success");
    await receipt.locator("summary").click();
    await d.shot("j1-05b-receipt");

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
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("creates an API key with a wallet signature, shows it once, and after revoking it in the page the key gets 401", async () => {
    const d = await openDashboard(web.browser, web.stack, key(7));
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}keys`);
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

    const call = () => fetch(`${web.stack.info.api_url}/v1/credentials`, { headers: { authorization: `Bearer ${apiKey}` } });
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
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("a wallet that rejects the sign-in signature and then a rental transaction leaves everything as it was, and the page says why", async () => {
    const d = await openDashboard(web.browser, web.stack, key(8));
    const { page } = d;
    const chain = createPublicClient({ transport: http(web.stack.info.rpc_url) });
    await page.goto(web.stack.info.dashboard_url);
    await page.getByRole("button", { name: "Connect wallet" }).first().click();
    await page.getByRole("dialog").getByRole("button", { name: "Test Wallet" }).click();
    d.wallet.rejectNext("personal_sign");
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByText("You rejected the sign-in signature in your wallet. You are not signed in, and nothing changed.").waitFor();
    expect(await page.getByLabel("Signed in").count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem("agent-market.session"))).toBeNull();
    await d.shot("j5-01-signature-rejected");

    // A wallet that signs with another key: the API refuses the sign-in, and the page shows its
    // message and request id.
    d.wallet.signWithOtherKeyNext();
    await page.getByRole("button", { name: "Sign in" }).first().click();
    const refused = page.getByRole("alert").filter({ hasText: "Sign-in failed" });
    await refused.getByText(/Request id/).waitFor();
    expect(await refused.textContent()).toMatch(/signature/i);
    expect(await page.getByLabel("Signed in").count()).toBe(0);
    await d.shot("j5-01b-sign-in-refused");

    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    expect(await refused.count()).toBe(0);
    const listing = (web.stack.info.demo.listings as { listing_id: string; rental_model: string }[]).find((l) => l.rental_model === "one_time")!;
    await page.goto(`${web.stack.info.dashboard_url}listings/${listing.listing_id}`);
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
    // The one refusal the journey provokes (the wrong key's signature), and no other console error.
    expect(d.errors).toEqual([refusalLogged(401, `${web.stack.info.api_url}/v1/auth/token`)]);
    await d.context.close();
  }, 120_000);

  it("asks a wallet on another chain to switch, adding the marketplace's chain when the wallet does not know it", async () => {
    const d = await openDashboard(web.browser, web.stack, key(9), { walletChainId: 1 });
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
    await page.getByRole("button", { name: "Connect wallet" }).first().click();
    await page.getByRole("dialog").getByRole("button", { name: "Test Wallet" }).click();
    const banner = page.getByRole("alert").filter({ hasText: "Your wallet is on chain 1" });
    await banner.waitFor();
    await d.shot("j5-03-wrong-chain");
    await banner.getByRole("button", { name: "Switch to Local chain" }).click();
    await banner.waitFor({ state: "detached" });
    expect(d.wallet.addedChains).toEqual([{ chainId: web.stack.info.chain_id, rpcUrls: [web.stack.info.rpc_url] }]);
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    await page.getByTestId("listing-card").first().waitFor();
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);

  it("runs a task from raw JSON: beside the form on a wide screen (the two kept in step, invalid JSON stopped before sending) and from its tab on a phone", async () => {
    const oneTime = (web.stack.info.demo.listings as { listing_id: string; rental_model: string }[]).find((l) => l.rental_model === "one_time")!;
    for (const viewport of [{ width: 1440, height: 900 }, { width: 375, height: 812 }]) {
      const d = await openDashboard(web.browser, web.stack, key(4), { viewport });
      const { page } = d;
      const sent: unknown[] = [];
      page.on("request", (r) => void (r.url().endsWith("/v1/execute/stream") && sent.push(r.postDataJSON())));
      await page.goto(`${web.stack.info.dashboard_url}run?agent=${oneTime.listing_id}`);
      await connectAndSignIn(d);
      await page.getByLabel("Task").fill("Review this clause");
      const raw = page.getByLabel("Input (JSON)");
      const contract = page.getByLabel("contract");
      if (viewport.width >= 1200) {
        // Both editors on screen; an edit in either shows in the other.
        await raw.fill(JSON.stringify({ contract: "The supplier accepts unlimited liability." }));
        await expect.poll(() => contract.inputValue()).toBe("The supplier accepts unlimited liability.");
        await contract.fill("Either party may terminate at will.");
        await expect.poll(async () => JSON.parse(await raw.inputValue()) as unknown).toEqual({ contract: "Either party may terminate at will." });
      } else {
        expect(await raw.count()).toBe(0);
        await page.getByRole("tab", { name: "Raw JSON" }).click();
      }
      // Invalid JSON is said, and nothing is sent.
      await raw.fill('{"contract": "unterminated');
      await page.getByText("Not valid JSON yet").waitFor();
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.getByText("The input is not valid JSON: fix it before running.").waitFor();
      await d.shot(`j1-raw-${viewport.width}-invalid`);
      expect(sent).toEqual([]);
      // The raw editor sends what the form cannot show: a field outside the schema's properties.
      const input = { contract: "The supplier accepts unlimited liability.", jurisdiction: "DE" };
      await raw.fill(JSON.stringify(input, null, 2));
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.getByTestId("run-summary").getByText("completed").waitFor({ timeout: 30_000 });
      expect(sent).toEqual([{ agent_id: oneTime.listing_id, task: "Review this clause", input }]);
      await d.shot(`j1-raw-${viewport.width}-completed`);
      // The finished run (its id, its output) fits the screen: nothing scrolls sideways.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      expect(d.errors, d.errors.join("\n")).toEqual([]);
      await d.context.close();
    }
  }, 120_000);

  it("lists every wallet that announces itself (EIP-6963) by its own name and icon, and connects the one chosen", async () => {
    const wallets = [
      { uuid: "2a9c1f0e-5b7d-4c3a-8e6f-1d2b3c4a5e60", name: "Aurora Wallet", icon: walletIcon("#e11d48"), rdns: "example.aurora" },
      { uuid: "7f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8", name: "Borealis Wallet", icon: walletIcon("#2563eb"), rdns: "example.borealis" },
    ];
    const d = await openDashboard(web.browser, web.stack, key(5), { wallets });
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
    await page.getByRole("button", { name: "Connect wallet" }).first().click();
    const dialog = page.getByRole("dialog");
    const choices = dialog.getByRole("listitem").getByRole("button");
    await expect.poll(() => choices.allTextContents()).toEqual(["Aurora Wallet", "Borealis Wallet"]);
    for (const w of wallets) expect(await dialog.getByRole("button", { name: w.name }).locator("img").getAttribute("src")).toBe(w.icon);
    expect(await dialog.getByRole("button", { name: "Browser wallet" }).count()).toBe(0);
    await d.shot("j5-04-two-wallets");
    await dialog.getByRole("button", { name: "Borealis Wallet" }).click();
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    // The header shows the chosen wallet's own icon beside the address.
    expect(await page.locator("header img").getAttribute("src")).toBe(wallets[1]!.icon);
    await page.getByTestId("listing-card").first().waitFor();
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);

  it("falls back to window.ethereum when no wallet announces itself", async () => {
    const d = await openDashboard(web.browser, web.stack, key(5), { wallets: [] });
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
    await page.getByRole("button", { name: "Connect wallet" }).first().click();
    const dialog = page.getByRole("dialog");
    const choices = dialog.getByRole("listitem").getByRole("button");
    await dialog.getByRole("button", { name: "Browser wallet", exact: true }).waitFor();
    expect(await choices.count()).toBe(1);
    await d.shot("j5-05-window-ethereum");
    await dialog.getByRole("button", { name: "Browser wallet" }).click();
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    await page.getByTestId("listing-card").first().waitFor();
    expect(d.wallet.calls).toContain("eth_requestAccounts");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);
});
