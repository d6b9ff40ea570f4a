// Sessions and streams in a real browser against the real local stack: the sign-in is renewed by a new
// signature two minutes before it lapses (the page's clock moved forward), dropped when the wallet
// switches account or disconnects; a run's stream that drops midway resumes from its last event,
// complete and without duplicates.
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { createPublicClient, createWalletClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { connectAndSignIn, openDashboard, webSuite } from "./support.ts";

const web = webSuite();

const key = (i: number) => DEV_ACCOUNTS[i]!.privateKey as Hex;
const stored = (page: Page) => page.evaluate(() => JSON.parse(sessionStorage.getItem("agent-market.session") ?? "null") as { wallet: string; token: string; expiresAt: number } | null);
const signatures = (calls: string[]) => calls.filter((c) => c === "personal_sign").length;

describe("sessions", () => {
  it("renews the sign-in with a new signature two minutes before it lapses, once", async () => {
    const d = await openDashboard(web.browser, web.stack, key(6));
    const { page } = d;
    await page.clock.install();
    await page.goto(web.stack.info.dashboard_url);
    await connectAndSignIn(d);
    await page.getByTestId("listing-card").first().waitFor();
    const first = (await stored(page))!;
    expect(signatures(d.wallet.calls)).toBe(1);

    // 57 minutes on: nothing yet. Past 58 (two minutes before the hour's end): a new signature.
    await page.clock.fastForward("57:00");
    expect(signatures(d.wallet.calls)).toBe(1);
    await page.clock.fastForward("01:30");
    await expect.poll(async () => (await stored(page))?.token, { timeout: 15_000 }).not.toBe(first.token);
    expect(signatures(d.wallet.calls)).toBe(2);
    const renewed = (await stored(page))!;
    expect(renewed.wallet).toBe(first.wallet);
    // The new session's end is an hour from now on the page's clock, so no second renewal follows.
    const pageNow = await page.evaluate(() => Date.now() / 1000);
    expect(renewed.expiresAt - pageNow).toBeGreaterThan(3500);
    await page.clock.fastForward("01:00");
    await page.getByRole("link", { name: "My rentals", exact: true }).click();
    await page.getByText("You have no rentals yet").waitFor();
    expect(signatures(d.wallet.calls)).toBe(2);
    await page.getByLabel("Signed in").waitFor();
    const accepted = await fetch(`${web.stack.info.api_url}/v1/credentials`, { headers: { authorization: `Bearer ${renewed.token}` } });
    expect(accepted.status).toBe(200);
    await d.shot("s1-01-renewed");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);

  it("drops the session when the wallet switches account, and when it disconnects", async () => {
    const d = await openDashboard(web.browser, web.stack, key(7));
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}keys`);
    await connectAndSignIn(d);
    await page.getByText("No API keys yet").waitFor();
    const before = (await stored(page))!;
    expect(before.wallet.toLowerCase()).toBe(DEV_ACCOUNTS[7]!.address.toLowerCase());

    await d.wallet.switchAccount(key(8));
    await page.getByText("Your wallet switched accounts, so you were signed out. Sign in again with the new account.").waitFor();
    expect(await page.getByLabel("Signed in").count()).toBe(0);
    expect(await stored(page)).toBeNull();
    // What the first account could read is not on screen for the second.
    expect(await page.getByText("No API keys yet").count()).toBe(0);
    await d.shot("s2-01-account-switched");
    await page.getByRole("button", { name: "Sign in" }).first().click();
    await page.getByLabel("Signed in").waitFor();
    expect((await stored(page))!.wallet.toLowerCase()).toBe(DEV_ACCOUNTS[8]!.address.toLowerCase());

    // The user disconnects the site in the wallet.
    await d.wallet.disconnectSite();
    await page.getByRole("button", { name: "Connect wallet" }).first().waitFor();
    expect(await page.getByLabel("Signed in").count()).toBe(0);
    expect(await stored(page)).toBeNull();
    await d.shot("s2-02-wallet-disconnected");

    // And with the page's own Disconnect button.
    await connectAndSignIn(d);
    await page.getByRole("button", { name: "Disconnect" }).click();
    await page.getByRole("button", { name: "Connect wallet" }).first().waitFor();
    expect(await stored(page)).toBeNull();
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);

  it("resumes a run's stream that dropped midway, or that the user stopped, from its last event: the output is complete and nothing repeats", async () => {
    const listing = (web.stack.info.demo.listings as { listing_id: string; name: string }[]).find((l) => l.name === "unit-test-writer")!;
    const chain = chainFor(web.stack.info.chain_id, web.stack.info.rpc_url);
    const pub = createPublicClient({ chain, transport: http(web.stack.info.rpc_url) });
    const renter = createWalletClient({ account: privateKeyToAccount(key(9)), chain, transport: http(web.stack.info.rpc_url) });
    const id = `0x${listing.listing_id.slice(4)}` as Hex;
    const [price] = await pub.readContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "listings", args: [id] });
    await pub.waitForTransactionReceipt({ hash: await renter.writeContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "purchasePerQuery", args: [id], value: price * 3n }) });

    const d = await openDashboard(web.browser, web.stack, key(9));
    const { page } = d;
    // The network drops the run's stream after its first output event: the page sees the connection end.
    let fullBody = "";
    await page.route("**/v1/execute/stream", async (route) => {
      const response = await route.fetch();
      fullBody = await response.text();
      const events = fullBody.split("\n\n");
      const firstOutput = events.findIndex((e) => e.includes("event: output"));
      await route.fulfill({ response, body: events.slice(0, firstOutput + 1).join("\n\n") + "\n\n" });
    });
    const resumed: (string | undefined)[] = [];
    page.on("request", (r) => void (r.url().includes("/events") && resumed.push(r.headers()["last-event-id"])));
    await page.goto(`${web.stack.info.dashboard_url}run?agent=${listing.listing_id}`);
    await connectAndSignIn(d);
    await page.getByLabel("Task").fill("Write unit tests for this function");
    await page.getByLabel("source").fill("export const add = (a: number, b: number) => a + b;");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const summary = page.getByTestId("run-summary");
    await summary.waitFor({ timeout: 30_000 });
    await expect.poll(() => summary.textContent()).toMatch(/completed/);
    await d.shot("s3-01-resumed");

    const deltas = fullBody
      .split("\n\n")
      .filter((e) => e.includes("event: output"))
      .map((e) => (JSON.parse(e.split("\n").find((l) => l.startsWith("data:"))!.slice(5)) as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(1);
    const firstId = fullBody.split("\n\n").find((e) => e.includes("event: output"))!.split("\n").find((l) => l.startsWith("id:"))!.slice(3).trim();
    // One resume, from the last event the page saw, and the output is every delta once, in order.
    expect(resumed).toEqual([firstId]);
    expect(await page.getByTestId("run-output").textContent()).toBe(deltas.join(""));
    expect(d.errors, d.errors.join("\n")).toEqual([]);

    // The connection drops and the browser is offline for a moment: the page waits for the network
    // instead of spending its retries, then resumes on its own.
    await page.unrouteAll();
    await page.route("**/v1/execute/stream", async (route) => {
      const response = await route.fetch();
      const events = (await response.text()).split("\n\n");
      const firstOutput = events.findIndex((e) => e.includes("event: output"));
      await d.context.setOffline(true);
      await route.fulfill({ response, body: events.slice(0, firstOutput + 1).join("\n\n") + "\n\n" });
    });
    const token = (await stored(page))!.token;
    const eventsBefore = resumed.length;
    const failed: string[] = [];
    // An attempt that met the dead network fails with a network error; the page's own close of a
    // finished stream's connection (after its done event, ERR_ABORTED) is not an attempt.
    page.on("requestfailed", (r) => void (r.url().includes("/events") && r.failure()?.errorText !== "net::ERR_ABORTED" && failed.push(r.url())));
    await page.getByLabel("Task").fill("Write unit tests for this function, again");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByText("Connection lost: reconnecting from the last event…").waitFor();
    await d.shot("s3-04-offline");
    await d.context.setOffline(false);
    await expect.poll(() => summary.textContent(), { timeout: 30_000 }).toMatch(/completed/);
    // Nothing was tried while offline (no attempt spent on a dead network); one resume once back.
    expect(failed).toEqual([]);
    expect(resumed.length).toBe(eventsBefore + 1);
    const againId = (await page.getByTestId("run-summary").locator("dd.mono").textContent())!.trim();
    const again = (await (await fetch(`${web.stack.info.api_url}/v1/runs/${againId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { output: unknown };
    expect(await page.getByTestId("run-output").textContent()).toBe(again.output);
    await d.shot("s3-05-resumed-after-offline");

    // Stopped by the user midway (the model answers slowly), then resumed with the button. It is the
    // last run the balance pays for: resumed once the API sees the balance spent, the page learns the
    // rental is no longer active, and the finished run stays on screen with a word about topping up.
    await page.unrouteAll();
    await page.getByLabel("Task").fill("Write unit tests for this function [[slow:250]]");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const output = page.getByTestId("run-output");
    await expect.poll(async () => ((await output.textContent()) ?? "").length, { timeout: 15_000 }).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Stream stopped: resume to get the rest").waitFor();
    const partial = (await output.textContent())!;
    await d.shot("s3-02-stopped");
    const credential = async () => ((await (await fetch(`${web.stack.info.api_url}/v1/credentials/${listing.listing_id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string }).status;
    // The chain first (the run's charge spends the balance), then the API, every 2 s: its rate limit
    // is per wallet, and the page shares it.
    await expect.poll(async () => (await pub.readContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "perQueryBalances", args: [id, d.wallet.address] }))[0], { timeout: 30_000 }).toBe(0n);
    await expect.poll(credential, { timeout: 30_000, interval: 2000 }).toBe("low_balance");
    await page.getByRole("button", { name: "Resume stream" }).click();
    await expect.poll(() => summary.textContent(), { timeout: 30_000 }).toMatch(/completed/);
    const runId = (await page.getByTestId("run-summary").locator("dd.mono").textContent())!.trim();
    const run = (await (await fetch(`${web.stack.info.api_url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { output: unknown };
    expect(typeof run.output).toBe("string");
    const final = (await output.textContent())!;
    expect(final.startsWith(partial)).toBe(true);
    expect(final.length).toBeGreaterThan(partial.length);
    expect(final).toBe(run.output);
    await page.getByRole("status").filter({ hasText: "Your rental of Unit Test Writer is low balance: runs need a top-up" }).waitFor({ timeout: 15_000 });
    expect(await summary.textContent()).toMatch(/completed/);
    expect(await output.textContent()).toBe(run.output);
    await d.shot("s3-03-resumed-after-stop");

    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);
});
