// The creator console's My listings for listings priced in a token, in a real browser: the demo's USDC
// per-task listing is read from the TokenMarketplace (not "not on-chain yet"), its price and escrow in
// USDC, and it is paused then resumed there (checked on the TokenMarketplace). The demo's RENT
// subscription listing, rented a day before, shows its escrow and withdrawable earnings in RENT, and
// the vested part is withdrawn from the TokenMarketplace. The USDC listing's price is then updated in
// USDC, and it is closed with its escrow withdrawn in USDC, on the TokenMarketplace.
import { describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, formatUnits, http, parseEventLogs, parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { chainFor } from "../../src/chain/client.ts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { purchaseInToken, viemTokenPurchasePort } from "@agent-rental/core/tokens";
import { connectAndSignIn, openDashboard, webSuite } from "./support.ts";
import { demoListings, type DemoListing } from "./seed.ts";

const web = webSuite({ timeoutMs: 420_000 });

const demo = (name: string) => demoListings(web.stack).find((l) => l.name === name)!;
const keyOf = (listing: DemoListing) => DEV_ACCOUNTS.find((a) => a.address.toLowerCase() === listing.creator.toLowerCase())!.privateKey as Hex;
const idOf = (listingId: string) => `0x${listingId.slice(4)}` as Hex;

/** The demo's USDC listing in My listings, signed in as its creator: its row, and its TokenMarketplace
 * listing read from the chain. */
async function openUsdcListing() {
  const listing = demo("sales-email-writer");
  const market = web.stack.info.contracts.token_marketplace as Hex;
  const chain = createPublicClient({ chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });
  const onChain = () => chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "listings", args: [idOf(listing.listing_id)] });
  const d = await openDashboard(web.browser, web.stack, keyOf(listing));
  const { page } = d;
  await page.goto(`${web.stack.info.dashboard_url}creator`);
  await connectAndSignIn(d);
  const row = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Sales Email Writer" }) });
  await expect.poll(() => row.getByTestId("price").textContent(), { timeout: 30_000 }).toBe("Price 0.25 USDC");
  return { listing, market, chain, onChain, d, page, row };
}

describe("My listings for listings priced in a token", () => {
  it("shows the USDC listing's price and escrow in USDC and pauses and resumes it on the TokenMarketplace", async () => {
    const { market, chain, onChain, d, row } = await openUsdcListing();
    expect(await row.getByText("not on-chain yet").count()).toBe(0);
    const [, escrow] = await onChain();
    expect(await row.getByTestId("escrow").textContent()).toBe(`Escrow ${formatUnits(escrow, 6)} USDC`);
    await expect.poll(() => row.getByTestId("withdrawable").textContent()).toMatch(/^Withdrawable [\d.]+ USDC$/);
    await row.getByText("Manage").click();
    expect(await row.getByLabel("Price (USDC)").inputValue()).toBe("0.25");
    await d.shot("ct-01-usdc-listing");

    expect((await onChain())[3]).toBe(1);
    const sent = d.wallet.sent.length;
    await row.getByRole("button", { name: "Pause listing" }).click();
    await row.getByRole("button", { name: "Resume listing" }).waitFor({ timeout: 30_000 });
    expect((await onChain())[3]).toBe(2);
    expect((await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! })).to?.toLowerCase()).toBe(market.toLowerCase());
    await d.shot("ct-02-usdc-paused");
    await row.getByRole("button", { name: "Resume listing" }).click();
    await row.getByRole("button", { name: "Pause listing" }).waitFor({ timeout: 30_000 });
    expect((await onChain())[3]).toBe(1);
    expect(d.wallet.sent.length - sent).toBe(2);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 180_000);

  it("shows a rented RENT subscription listing's escrow and withdrawable earnings in RENT and withdraws the vested part", async () => {
    const listing = demo("blog-post-outliner");
    const market = web.stack.info.contracts.token_marketplace as Hex;
    const chainInfo = chainFor(web.stack.info.chain_id, web.stack.info.rpc_url);
    const chain = createPublicClient({ chain: chainInfo, transport: http(web.stack.info.rpc_url) });
    const renter = createWalletClient({ account: privateKeyToAccount(DEV_ACCOUNTS[5]!.privateKey as Hex), chain: chainInfo, transport: http(web.stack.info.rpc_url) });
    await purchaseInToken(viemTokenPurchasePort(renter as never, chain as never), { tokenMarketplace: market, listingId: idOf(listing.listing_id), kind: "subscription", arg: 30n * 86_400n });
    const escrowOf = async () => (await chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "listings", args: [idOf(listing.listing_id)] }))[1];
    const escrowBefore = await escrowOf();
    expect(escrowBefore).toBeGreaterThan(0n);
    // A day of the 30 the renter paid for passes: that day's part of the payment has vested.
    for (const [method, params] of [["evm_increaseTime", [86_400]], ["evm_mine", []]] as const) {
      const res = await fetch(web.stack.info.rpc_url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
      expect(((await res.json()) as { error?: unknown }).error).toBeUndefined();
    }

    const d = await openDashboard(web.browser, web.stack, keyOf(listing));
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}creator`);
    await connectAndSignIn(d);
    const row = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Blog Post Outliner" }) });
    await expect.poll(() => row.getByTestId("price").textContent(), { timeout: 30_000 }).toBe("Price 20 RENT");
    expect(await row.getByTestId("escrow").textContent()).toBe(`Escrow ${formatUnits(escrowBefore, 18)} RENT`);
    await row.getByText("Manage").click();
    const withdraw = row.getByRole("button", { name: /^Withdraw [\d.]+ RENT$/ });
    await withdraw.waitFor({ timeout: 15_000 });
    const offered = parseUnits((await withdraw.textContent())!.replace(/^Withdraw | RENT$/g, ""), 18);
    expect(offered).toBeGreaterThan(0n);
    expect(offered).toBeLessThan(escrowBefore);
    await d.shot("ct-03-rent-listing");
    await withdraw.click();
    await row.getByText(/Confirmed/).first().waitFor({ timeout: 30_000 });
    const receipt = await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! });
    expect(receipt.to?.toLowerCase()).toBe(market.toLowerCase());
    const withdrawn = parseEventLogs({ abi: tokenMarketplaceAbi, eventName: "EarningsWithdrawn", logs: receipt.logs });
    expect(withdrawn[0]!.args.amount).toBe(offered);
    expect(await escrowOf()).toBe(escrowBefore - offered);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 180_000);

  it("updates the USDC listing's price in USDC, then withdraws its escrow in USDC and closes it, on the TokenMarketplace", async () => {
    const { listing, market, chain, onChain, d, page, row } = await openUsdcListing();
    const usdc = web.stack.info.contracts.tokens.usdc.address as Hex;
    await row.getByText("Manage").click();

    // A price with more decimals than USDC has is refused on the page; 0.3 USDC is sent in its units.
    await row.getByLabel("Price (USDC)").fill("0.3000001");
    expect(await row.getByRole("button", { name: "Update listing" }).isDisabled()).toBe(true);
    await row.getByLabel("Price (USDC)").fill("0.3");
    await row.getByRole("button", { name: "Update listing" }).click();
    await row.getByText(/Confirmed/).first().waitFor({ timeout: 30_000 });
    expect((await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! })).to?.toLowerCase()).toBe(market.toLowerCase());
    expect((await onChain())[0]).toBe(300_000n);
    await expect.poll(() => row.getByTestId("price").textContent(), { timeout: 30_000 }).toBe("Price 0.3 USDC");

    // Close: the page offers the escrow in USDC and closes in one transaction; the creator's USDC rises by
    // exactly the escrow.
    const [, escrow] = await onChain();
    const creator = listing.creator as Hex;
    const balance = () => chain.readContract({ address: usdc, abi: [{ type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "a", type: "address" }], outputs: [{ name: "", type: "uint256" }] }] as const, functionName: "balanceOf", args: [creator] });
    const before = await balance();
    await row.getByRole("button", { name: "Close listing" }).click();
    const ask = page.getByRole("alertdialog");
    await ask.getByRole("button", { name: escrow > 0n ? `Withdraw ${formatUnits(escrow, 6)} USDC and close` : "Close for good" }).click();
    await row.getByText("closed", { exact: true }).waitFor({ timeout: 30_000 });
    const closing = parseEventLogs({ abi: tokenMarketplaceAbi, logs: (await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! })).logs });
    expect(closing.map((e) => e.eventName)).toContain("ListingClosed");
    const closed = await onChain();
    expect([closed[1], closed[3]]).toEqual([0n, 3]);
    expect((await balance()) - before).toBe(escrow);
    await d.shot("ct-04-usdc-closed");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 180_000);
});
