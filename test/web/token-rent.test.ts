// Listings priced in tokens in a real browser: the demo's USDC per-task listing shows its price in USDC
// on its card (screenshot at 1280 px) and its page, and is rented with one EIP-3009 signature and one
// transaction (purchaseWithAuthorization): no approval. Checked on the TokenMarketplace and in the
// wallet's USDC balance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { createPublicClient, http, type Hex } from "viem";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import type { RunningStack } from "../../local/stack.ts";
import { chainFor } from "../../src/chain/client.ts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { connectAndSignIn, launchBrowser, openDashboard, SCREENSHOTS, startWebStack } from "./support.ts";

let stack: RunningStack & { dataDir: string };
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startWebStack(), launchBrowser()]);
}, 420_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("token listings in the dashboard", () => {
  it("shows the USDC listing's price in USDC and rents it with one signature and one transaction", async () => {
    // The second demo renter: it holds both tokens and rents nothing at start.
    const d = await openDashboard(browser, stack, DEV_ACCOUNTS[5]!.privateKey as Hex);
    const { page } = d;
    const listing = (stack.info.demo.listings as { listing_id: string; name: string }[]).find((l) => l.name === "sales-email-writer")!;
    const usdc = stack.info.contracts.tokens.usdc.address as Hex;
    const market = stack.info.contracts.token_marketplace as Hex;
    const chain = createPublicClient({ chain: chainFor(stack.info.chain_id, stack.info.rpc_url), transport: http(stack.info.rpc_url) });

    await page.goto(stack.info.dashboard_url);
    await connectAndSignIn(d);
    const card = page.getByTestId("listing-card").filter({ hasText: "Sales Email Writer" });
    await expect.poll(() => card.locator(".price").textContent()).toMatch(/^0\.25 USDC/);
    await card.screenshot({ path: join(SCREENSHOTS, "token-01-usdc-card.png") });

    await card.getByRole("link", { name: "Sales Email Writer" }).click();
    await page.waitForURL(`**/listings/${listing.listing_id}`);
    await expect.poll(() => page.locator("aside .price").first().textContent()).toBe("0.25 USDC");
    await expect.poll(() => page.getByTestId("exact-cost").textContent()).toBe("0.75 USDC");
    await expect.poll(() => page.getByTestId("payment-path").textContent()).toMatch(/^One signature \(EIP-3009\) and one transaction/);
    const before = await chain.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] });
    const sentBefore = d.wallet.sent.length;
    await page.getByRole("button", { name: "Rent for 0.75 USDC" }).click();
    // Once the API reports the credential, the listing page shows it in place of the purchase panel.
    await page.getByText("✓ Credential active").waitFor({ timeout: 60_000 });
    await d.shot("token-02-usdc-rented");

    expect(d.wallet.sent.length - sentBefore).toBe(1);
    expect(d.wallet.calls.filter((m) => m === "eth_signTypedData_v4")).toHaveLength(1);
    const receipt = await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! });
    expect(receipt.to?.toLowerCase()).toBe(market.toLowerCase());
    expect(await chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "credentialStatus", args: [`0x${listing.listing_id.slice(4)}` as Hex, d.wallet.address] })).toBe(1);
    expect(before - (await chain.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] }))).toBe(750_000n);
  }, 240_000);
});
