// The creator's analytics page in a real browser against the real local stack: after a renter's
// per-task rental and runs of a demo listing, the demo creator opens Analytics and sees the charts
// (revenue, runs, latency, each with its range), the renter in the top renters table by wallet address
// only, and the figures reconciled with the chain ("Matches the chain as of block N"); the runs axis in
// whole numbers and a latency series of one point drawn as a dot; at 1280 px and at 375 px. For a
// listing priced in USDC, its revenue is charted in USDC, its renter's spend shown in USDC, and the
// per-currency tables exported as CSV. Screenshots: .build/screenshots/analytics-*.png.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createPublicClient, createWalletClient, formatUnits, http, parseEther, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { connectAndSignIn, openDashboard, webSuite } from "./support.ts";
import { apiAs, chainAs, demoListings, fundedWallet, onChainId } from "./seed.ts";
import { chainFor } from "../../src/chain/client.ts";
import { purchaseInToken, viemTokenPurchasePort } from "@agent-rental/core/tokens";
import { FINISHED_RUN_STATUSES } from "@agent-rental/core/vocabulary";

const web = webSuite();

const CREATOR_KEY = DEV_ACCOUNTS[3]!.privateKey as Hex;

describe("the creator's analytics page", () => {
  it("after a renter's runs the demo creator sees charts, the renter by wallet, and the figures matching the chain, at 1280 px and 375 px", async () => {
    const listing = (web.stack.info.demo.listings as { listing_id: string; name: string }[]).find((l) => l.name === "unit-test-writer")!;
    const renterKey = await fundedWallet(web.stack);
    const renterWallet = privateKeyToAccount(renterKey).address.toLowerCase();
    await chainAs(web.stack, renterKey).write("purchasePerQuery", [onChainId(listing.listing_id)], parseEther("0.01"));
    const renter = await apiAs(web.stack, renterKey);
    await expect.poll(async () => (await fetch(`${web.stack.info.api_url}/v1/credentials/${listing.listing_id}`, { headers: { authorization: `Bearer ${renter.token}` } })).status, { timeout: 30_000, interval: 500 }).toBe(200);
    for (const task of ["Tests for sum", "Tests for max"]) {
      // Completed or failed (the demo's model server decides), a run is counted either way.
      const run = await renter.post<{ status: string }>("/v1/execute", { agent_id: listing.listing_id, task, input: { source: "export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);" } });
      expect(FINISHED_RUN_STATUSES).toContain(run.status);
    }
    // The figures count the runs once settled and their charges once the indexer reads their blocks.
    const creatorApi = await apiAs(web.stack, CREATOR_KEY);
    await expect
      .poll(async () => {
        const a = await creatorApi.get<{ totals: { runs: { completed: number; failed: number } }; top_renters: { wallet: string }[]; reconciliation: { matches: boolean } }>(`/v1/creators/me/listings/${listing.listing_id}/analytics`);
        return a.totals.runs.completed + a.totals.runs.failed >= 2 && a.top_renters.some((r) => r.wallet === renterWallet) && a.reconciliation.matches;
      }, { timeout: 60_000, interval: 500 })
      .toBe(true);

    for (const width of [1280, 375]) {
      const creator = await openDashboard(web.browser, web.stack, CREATOR_KEY, { viewport: { width, height: 900 } });
      const page = creator.page;
      await page.goto(`${web.stack.info.dashboard_url}creator/analytics`);
      await connectAndSignIn(creator);
      await page.getByRole("status", { name: "Reconciliation" }).getByText(/Matches the chain as of block \d+/).waitFor({ timeout: 30_000 });
      for (const chart of ["Revenue", "Runs", "Latency"]) {
        const region = page.getByRole("region", { name: chart });
        await region.locator("svg.recharts-surface").first().waitFor({ timeout: 30_000 });
        await expect(region.getByRole("combobox", { name: `${chart} range` }).count()).resolves.toBe(1);
      }
      const renters = page.getByRole("table", { name: "Top renters by spend" });
      await renters.getByText(renterWallet).waitFor();
      // Renters appear as wallet addresses only: no input or output of a run is on the page.
      expect(await page.content()).not.toContain("export const sum");
      // A range change asks for the hourly series.
      await page.getByRole("region", { name: "Runs" }).getByRole("combobox", { name: "Runs range" }).selectOption("24h");
      await page.getByRole("region", { name: "Runs" }).locator("svg.recharts-surface").first().waitFor();
      // Runs are whole: the runs chart's axis reads whole numbers only (two runs: no 0.5, no 1.5).
      // (The new range's series replaces the chart once loaded: its ticks are read when they are drawn.)
      // (Recharts draws each axis's tick labels in a layer of their own, named by the axis.)
      const tickValues = page.getByRole("region", { name: "Runs" }).locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
      const countTicks = async () => (await tickValues.allTextContents()).map((t) => t.trim());
      // The periods read as dates, hours in UTC ("Dec 3, 08:00"), not as the API's keys ("2026-12-03T08").
      const periodTicks = page.getByRole("region", { name: "Runs" }).locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
      await expect.poll(async () => (await periodTicks.allTextContents()).length, { timeout: 30_000 }).toBeGreaterThan(1);
      expect((await periodTicks.allTextContents()).every((t) => /^[A-Z][a-z]{2} \d{1,2}, \d{2}:00$/.test(t.trim()))).toBe(true);
      await expect.poll(async () => (await countTicks()).length, { timeout: 30_000 }).toBeGreaterThan(1);
      expect((await countTicks()).every((t) => /^\d+$/.test(t))).toBe(true);
      // The runs fell in one hour: each latency series has a single point, drawn as a dot.
      await expect.poll(() => page.getByRole("region", { name: "Latency" }).locator(".recharts-line-dot").count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      await creator.shot(`analytics-${width}`);
      await page.context().close();
    }
  }, 240_000);

  it("for a listing priced in USDC: its revenue charted in USDC, its renter's spend in USDC, and each currency's tables exported as CSV", async () => {
    const listing = demoListings(web.stack).find((l) => l.name === "sales-email-writer")!;
    const creatorKey = DEV_ACCOUNTS.find((a) => a.address.toLowerCase() === listing.creator.toLowerCase())!.privateKey as Hex;
    // A renter (a demo renter, holding USDC) buys a per-task balance of 4 runs in one signature and one
    // transaction, and runs a task.
    const renterKey = DEV_ACCOUNTS[5]!.privateKey as Hex;
    const renterWallet = privateKeyToAccount(renterKey).address.toLowerCase();
    const chainInfo = chainFor(web.stack.info.chain_id, web.stack.info.rpc_url);
    const pub = createPublicClient({ chain: chainInfo, transport: http(web.stack.info.rpc_url) });
    const wallet = createWalletClient({ account: privateKeyToAccount(renterKey), chain: chainInfo, transport: http(web.stack.info.rpc_url) });
    await purchaseInToken(viemTokenPurchasePort(wallet as never, pub as never), { tokenMarketplace: web.stack.info.contracts.token_marketplace as Hex, listingId: onChainId(listing.listing_id), kind: "per_query", arg: 1_000_000n });
    const renter = await apiAs(web.stack, renterKey);
    await expect.poll(async () => (await fetch(`${web.stack.info.api_url}/v1/credentials/${listing.listing_id}`, { headers: { authorization: `Bearer ${renter.token}` } })).status, { timeout: 30_000, interval: 500 }).toBe(200);
    // Until one run completed (the demo's model server may fail one: a failed run is not charged).
    let completed = 0;
    for (let i = 0; i < 4 && completed === 0; i++) {
      const run = await renter.post<{ status: string }>("/v1/execute", { agent_id: listing.listing_id, task: `A cold email, take ${i + 1}`, input: { prospect: "the CTO of a logistics company" } });
      expect(FINISHED_RUN_STATUSES).toContain(run.status);
      if (run.status === "completed") completed++;
    }
    expect(completed).toBe(1);
    type Figures = { top_renters_by_currency: { currency: { symbol: string }; renters: { wallet: string; spend: string }[] }[]; reconciliation: { matches: boolean } };
    const creatorApi = await apiAs(web.stack, creatorKey);
    let spend = "";
    await expect
      .poll(async () => {
        const a = await creatorApi.get<Figures>(`/v1/creators/me/listings/${listing.listing_id}/analytics`);
        spend = a.top_renters_by_currency.find((g) => g.currency.symbol === "USDC")?.renters.find((r) => r.wallet === renterWallet)?.spend ?? "";
        return spend !== "" && BigInt(spend) > 0n && a.reconciliation.matches;
      }, { timeout: 60_000, interval: 500 })
      .toBe(true);

    const creator = await openDashboard(web.browser, web.stack, creatorKey);
    const page = creator.page;
    await page.goto(`${web.stack.info.dashboard_url}creator/analytics`);
    await connectAndSignIn(creator);
    await page.getByRole("status", { name: "Reconciliation" }).getByText(/Matches the chain as of block \d+/).waitFor({ timeout: 30_000 });
    const usdcChart = page.getByRole("region", { name: "Revenue in USDC" });
    await usdcChart.locator("svg.recharts-surface").first().waitFor({ timeout: 30_000 });
    expect(await usdcChart.getByRole("combobox", { name: "Revenue in USDC range" }).count()).toBe(1);
    const renters = page.getByRole("table", { name: "Top renters by spend in USDC" });
    const row = renters.getByRole("row").filter({ hasText: renterWallet });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getByRole("cell").nth(1).textContent()).toBe(`${formatUnits(BigInt(spend), 6)} USDC`);
    // The per-currency tables download as CSV, amounts in each currency's smallest unit.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export renters per currency (CSV)" }).click()]);
    const csv = readFileSync((await download.path())!, "utf8").trim().split("\n");
    expect(csv[0]).toMatch(/^currency,currency_address,decimals,wallet,spend,/);
    expect(csv.some((line) => line.startsWith("USDC,") && line.includes(`,${renterWallet},${spend},`))).toBe(true);
    await creator.shot("analytics-usdc");
    expect(creator.errors, creator.errors.join("\n")).toEqual([]);
    await page.context().close();
  }, 240_000);
});
