// Rental journeys in a real browser: a one-time and a subscription rental, a renewal, and a rental of a
// paused listing refused by the simulation before anything is sent (no ETH spent, the contract's
// error in plain words).
import { describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, formatEther, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { connectAndSignIn, openDashboard, webSuite } from "./support.ts";
import { demoListings } from "./seed.ts";

const web = webSuite();

describe("rentals", () => {
  it("rents one-time and subscription listings, renews the subscription, and is refused a paused listing before anything is sent", async () => {
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[6]!.privateKey as Hex);
    const { page } = d;
    const listings = demoListings(web.stack);
    const oneTime = listings.find((l) => l.rental_model === "one_time")!;
    const subscription = listings.find((l) => l.rental_model === "subscription")!;
    const perQuery = listings.find((l) => l.rental_model === "per_query" && l.name === "market-researcher")!;
    const chain = createPublicClient({ chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });

    await page.goto(`${web.stack.info.dashboard_url}listings/${oneTime.listing_id}`);
    await connectAndSignIn(d);
    await page.getByRole("button", { name: "Rent for 0.01 ETH" }).click();
    await page.getByText("✓ Credential active").waitFor({ timeout: 30_000 });
    await d.shot("j3-01-one-time");

    await page.goto(`${web.stack.info.dashboard_url}listings/${subscription.listing_id}`);
    await page.getByRole("radio", { name: "90 days" }).check();
    const cost = page.getByTestId("exact-cost");
    const subscriptionCost = await chain.readContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "subscriptionPrice", args: [`0x${subscription.listing_id.slice(4)}`, 90n * 86_400n] });
    await expect.poll(() => cost.textContent()).toBe(`${formatEther(subscriptionCost)} ETH`);
    await page.getByRole("button", { name: /^Rent for / }).click();
    await page.getByText("✓ Credential active").waitFor({ timeout: 30_000 });
    await d.shot("j3-02-subscription");

    await page.getByRole("link", { name: "My rentals", exact: true }).click();
    const row = page.getByRole("article").filter({ hasText: "Earnings Summarizer" });
    await row.getByText(/in (89|90) days/).waitFor();
    const before = await chain.readContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "credentials", args: [`0x${subscription.listing_id.slice(4)}`, d.wallet.address] });
    await row.getByRole("button", { name: "Renew" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("radio", { name: "30 days" }).check();
    await dialog.getByRole("button", { name: /^Renew for / }).click();
    await dialog.locator("li.done", { hasText: "Credential active until" }).waitFor({ timeout: 30_000 });
    // "Active" is said only once the API reports the new expiry the contract holds.
    const after = await chain.readContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "credentials", args: [`0x${subscription.listing_id.slice(4)}`, d.wallet.address] });
    expect(after[2] - before[2]).toBe(30 * 86_400);
    const listed = await page.evaluate(async (id) => {
      const s = JSON.parse(sessionStorage.getItem("agent-market.session")!) as { token: string };
      const list = (await (await fetch("/v1/credentials?limit=100", { headers: { authorization: `Bearer ${s.token}` } })).json()) as { credentials: { listing_id: string; expires_at: string }[] };
      return list.credentials.find((c) => c.listing_id === id)!.expires_at;
    }, subscription.listing_id);
    expect(Date.parse(listed) / 1000).toBe(after[2]);
    await d.shot("j3-03-renewed");
    await dialog.getByRole("button", { name: "Close" }).click();
    await row.getByText(/in 1(19|20) days/).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("article").count()).toBe(2);

    // The creator pauses a listing; renting it is refused by the simulation, before the wallet is asked.
    const creatorKey = DEV_ACCOUNTS.find((a) => a.address.toLowerCase() === perQuery.creator.toLowerCase())!.privateKey as Hex;
    const creator = createWalletClient({ account: privateKeyToAccount(creatorKey), chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });
    await chain.waitForTransactionReceipt({ hash: await creator.writeContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "setListingActive", args: [`0x${perQuery.listing_id.slice(4)}`, false] }) });
    // The API learns the pause from the chain (its indexer); the page is opened once it has.
    const apiStatus = () =>
      page.evaluate(async (id) => {
        const s = JSON.parse(sessionStorage.getItem("agent-market.session")!) as { token: string };
        return ((await (await fetch(`/v1/listings/${id}`, { headers: { authorization: `Bearer ${s.token}` } })).json()) as { status: string }).status;
      }, perQuery.listing_id);
    await expect.poll(apiStatus, { timeout: 30_000, interval: 500 }).toBe("paused");
    await page.goto(`${web.stack.info.dashboard_url}listings/${perQuery.listing_id}`);
    await page.getByText(/This listing is paused: it takes no new rentals/).first().waitFor({ timeout: 15_000 });
    const sent = d.wallet.calls.filter((c) => c === "eth_sendTransaction").length;
    const balance = await chain.getBalance({ address: d.wallet.address });
    await page.getByRole("button", { name: /^Rent for / }).click();
    const refusal = page.getByRole("status").getByText("This listing is paused: it takes no new rentals right now. Nothing was charged.");
    await refusal.waitFor();
    await page.getByText("ListingNotActive").waitFor();
    await d.shot("j3-04-paused-refused");
    expect(d.wallet.calls.filter((c) => c === "eth_sendTransaction").length).toBe(sent);
    expect(await chain.getBalance({ address: d.wallet.address })).toBe(balance);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);
});
