// `agentrent creator stats` end to end through the command line (run in-process) against the real
// service (the API over HTTP, the real chain with the Marketplace and the TokenMarketplace, the indexer
// and the settler running): a creator with a per-task listing in ETH, one in USDC (6 decimals) and a
// subscription in the utility token (18 decimals); a renter rents all three and runs the per-task ones,
// charged on-chain. The figures printed for each currency (revenue by model, escrow withdrawable and
// vesting, balances outstanding, top renters) equal the API's, in that currency's units and never mixed;
// --json carries the API's fields; one table as CSV, per currency too; bad input (GET
// /v1/creators/me/analytics through the CLI).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatUnits } from "viem";
import { createCliHarness } from "../support/cli.ts";
import { until } from "../support/until.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, rentInToken, type TokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type World, type Creator, type Renter, type PublishedAgent } from "../support/world.ts";
import { EXIT } from "../../cli/src/errors.ts";
import { RENTAL_MODELS, type RentalModel } from "@agent-rental/core/vocabulary";

const work = mkdtempSync(join(tmpdir(), "agentrent-e2e-analytics-"));
const USDC_PRICE = 250_000n; // 0.25 USDC a run
const RENT_PRICE = 20n * 10n ** 18n; // 20 of the utility token a 30-day subscription
let tokens: TokenDeployment;
let world: World;
let creator: Creator;
let renter: Renter;
let listing: PublishedAgent;
let usdcAgent: TokenAgent;
let rentAgent: TokenAgent;

const { actorEnv, cli, cliJson, killAll } = createCliHarness(work, () => ({ apiUrl: world.url, rpcUrl: world.rpcUrl, chainId: 31337, marketplace: world.config.MARKETPLACE_ADDRESS }));

async function run(key: string, agentId: string, task: string): Promise<void> {
  const res = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task }) });
  expect(res.status, await res.clone().text()).toBe(200);
  await res.text();
}

beforeAll(async () => {
  tokens = await deployTokens(sharedInfrastructure().rpcUrl);
  world = await startWorld({ agent: true, env: tokens.env, jobs: { only: ["indexer"], everyMs: { indexer: 100 } } });
  // The settler charges token runs on the TokenMarketplace with the world's authority key.
  await handAuthority(world, tokens);
  creator = await world.creator();
  listing = await world.publishConnected("stats-researcher", { rental: "per_query" });
  usdcAgent = await publishTokenAgent(world, tokens, "stats-usdc", { rental: "per_query", token: tokens.tokens.usdc, price: USDC_PRICE });
  rentAgent = await publishTokenAgent(world, tokens, "stats-rent", { rental: "subscription", token: tokens.tokens.utility, price: RENT_PRICE });
  renter = await world.renter();
  await world.rent(renter.account, listing);
  await rentInToken(world, tokens, renter.account, usdcAgent, { deposit: USDC_PRICE * 4n });
  await rentInToken(world, tokens, renter.account, rentAgent);
  for (const task of ["first", "second"]) {
    await run(renter.key, listing.agent_id, task);
    await run(renter.key, usdcAgent.agent_id, task);
  }
}, 300_000);

afterAll(async () => {
  await killAll();
  await world?.close();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

type Currency = { symbol: string; address: string | null; decimals: number };
type Money = { gross: string; fee: string; net: string };
type Stats = {
  totals: {
    runs: { completed: number };
    revenue: { by_model: { per_query: { gross_wei: number } } };
    by_currency: { currency: Currency; revenue: Money & { by_model: Record<RentalModel, Money>; withdrawn: string; paid_by_x402: string } }[];
  };
  listings: { listing_id: string; currency: Currency }[];
  top_renters: { wallet: string }[];
  top_renters_by_currency: { currency: Currency; renters: { wallet: string; spend: string; runs: number }[] }[];
  balances_outstanding_by_currency: { currency: Currency; amount: string }[];
  reconciliation: { matches: boolean; block: string | null; by_currency: { currency: Currency; chain_escrow: string | null; rollup_escrow: string; withdrawable: string | null; vesting: string | null; matches: boolean }[] };
};

// A range wide enough for any block time of the shared chain (other suites move its clock ahead): by
// month, 35 months around now.
const MONTH_MS = 30 * 86_400_000;
const RANGE = ["--granularity", "month", "--from", new Date(Date.now() - 17 * MONTH_MS).toISOString(), "--to", new Date(Date.now() + 17 * MONTH_MS).toISOString()];

describe("agentrent creator stats (GET /v1/creators/me/analytics)", () => {
  it("shows the counts once and each currency's figures in its own units, equal to the API's; --json as the API's; CSV per currency", async () => {
    const env = actorEnv(creator.account, "creator");
    await cliJson(env, ["login"]);
    const usdc = tokens.tokens.usdc;
    const utility = tokens.tokens.utility;
    let stats: Stats | undefined;
    const ofCurrency = <T extends { currency: Currency }>(rows: T[], symbol: string) => rows.find((row) => row.currency.symbol === symbol)!;
    // The runs' charges and the purchases reach the figures once the indexer counts their blocks.
    await until("the figures to count every run, charge and purchase", async () => {
      stats = await cliJson<Stats>(env, ["creator", "stats", ...RANGE]);
      const revenue = (symbol: string) => ofCurrency(stats!.totals.by_currency, symbol)?.revenue;
      return (
        stats.totals.runs.completed === 4 &&
        BigInt(stats.totals.revenue.by_model.per_query.gross_wei) === 2n * listing.priceWei &&
        revenue(usdc.symbol)?.by_model.per_query.gross === String(2n * USDC_PRICE) &&
        BigInt(revenue(utility.symbol)?.by_model.subscription.gross ?? 0) > 0n &&
        // A renter's spend joins the top renters just after the fact's revenue (rollups.ts, applyFact).
        BigInt(ofCurrency(stats.top_renters_by_currency, usdc.symbol)?.renters[0]?.spend ?? 0) >= 2n * USDC_PRICE &&
        ofCurrency(stats.top_renters_by_currency, usdc.symbol)?.renters[0]?.runs === 2 &&
        stats.reconciliation.matches
      );
    }, 90_000, 500);
    const s = stats!;
    // --json is the API's answer: counts across listings, the ETH listings' `_wei`, every currency's amounts as decimal strings.
    expect(s.totals.by_currency.map((c) => c.currency.symbol)).toEqual(["ETH", ...[usdc.symbol, utility.symbol].sort()]);
    expect(ofCurrency(s.totals.by_currency, usdc.symbol).currency).toEqual({ symbol: usdc.symbol, address: expect.stringMatching(new RegExp(`^${usdc.address}$`, "i")), decimals: 6 });
    expect(ofCurrency(s.totals.by_currency, "ETH").revenue.by_model.per_query.gross).toBe(String(2n * listing.priceWei));
    expect(s.listings.map((l) => l.currency.symbol).sort()).toEqual(["ETH", usdc.symbol, utility.symbol].sort());
    expect(s.top_renters.map((r) => r.wallet)).toEqual([renter.account.address.toLowerCase()]);
    expect(ofCurrency(s.top_renters_by_currency, usdc.symbol).renters).toEqual([expect.objectContaining({ wallet: renter.account.address.toLowerCase(), runs: 2 })]);
    expect(BigInt(ofCurrency(s.top_renters_by_currency, usdc.symbol).renters[0]!.spend)).toBeGreaterThanOrEqual(2n * USDC_PRICE);
    expect(ofCurrency(s.balances_outstanding_by_currency, usdc.symbol).amount).toBe(String(2n * USDC_PRICE));
    expect(s.reconciliation.by_currency.map((r) => r.matches)).toEqual([true, true, true]);

    // The text: the same figures, each currency's in its units (formatted here by viem, apart from the
    // CLI's own formatting), at the same block as a JSON answer read just before it.
    let text = "";
    await until("a text answer at the block of the JSON answer", async () => {
      stats = await cliJson<Stats>(env, ["creator", "stats", ...RANGE]);
      const printed = await cli(env, ["creator", "stats", ...RANGE]);
      expect(printed.code, printed.stderr).toBe(0);
      text = printed.stdout;
      return text.includes(`reconciled: matches the chain as of block ${stats.reconciliation.block} in every currency`);
    }, 60_000, 200);
    expect(text).toMatch(/runs +4 completed +0 failed/);
    const lines = text.trimEnd().split("\n");
    for (const figures of stats!.totals.by_currency) {
      const { currency, revenue } = figures;
      const amount = (units: string) => `${formatUnits(BigInt(units), currency.decimals)} ${currency.symbol}`;
      const money = (m: Money) => `gross ${amount(m.gross)}  fee ${amount(m.fee)}  net ${amount(m.net)}`;
      // The currency's section: from its heading to the next heading (or the last line).
      const start = lines.findIndex((line) => line.startsWith(`${currency.symbol}${currency.address === null ? "" : ` (${currency.address})`}  `));
      expect(start, `${currency.symbol}'s section in:\n${text}`).toBeGreaterThan(0);
      const next = lines.findIndex((line, i) => i > start && !line.startsWith(" "));
      const section = lines.slice(start, next);
      expect(section[0]).toMatch(new RegExp(`  ${stats!.listings.filter((l) => l.currency.symbol === currency.symbol).length} listing\\(s\\)$`));
      expect(section).toContain(`  revenue  ${money(revenue)}  withdrawn ${amount(revenue.withdrawn)}`);
      for (const model of RENTAL_MODELS) {
        const line = `    ${model.padEnd(12)} ${money(revenue.by_model[model])}`;
        if (BigInt(revenue.by_model[model].gross) > 0n) expect(section).toContain(line);
        else expect(section.some((l) => l.startsWith(`    ${model} `))).toBe(false);
      }
      const rec = ofCurrency(stats!.reconciliation.by_currency, currency.symbol);
      expect(section).toContain(`  escrow   ${amount(rec.chain_escrow!)}: withdrawable ${amount(rec.withdrawable!)}  vesting ${amount(rec.vesting!)}  matches the figures`);
      expect(section).toContain(`  balances outstanding ${amount(ofCurrency(stats!.balances_outstanding_by_currency, currency.symbol).amount)}`);
      for (const r of ofCurrency(stats!.top_renters_by_currency, currency.symbol).renters) expect(section).toContain(`    ${r.wallet}  ${amount(r.spend)}  ${r.runs} runs`);
      // Never another currency's unit in it.
      const units = section.join("\n").match(/-?\d+(\.\d+)? [A-Z][A-Za-z0-9]*/g) ?? [];
      expect(units.length).toBeGreaterThan(0);
      for (const unit of units) expect(unit.endsWith(` ${currency.symbol}`), `${unit} in ${currency.symbol}'s section`).toBe(true);
    }
    // The subscription in the 18-decimal token: its escrow is what vests and what may be withdrawn, to the unit.
    const rentRec = ofCurrency(stats!.reconciliation.by_currency, utility.symbol);
    expect(BigInt(rentRec.vesting!) + BigInt(rentRec.withdrawable!)).toBe(BigInt(rentRec.chain_escrow!));
    expect(BigInt(rentRec.chain_escrow!)).toBe(BigInt(ofCurrency(stats!.totals.by_currency, utility.symbol).revenue.net));

    const csv = await cli(env, ["creator", "stats", "--csv", "top_renters"]);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split(/\r?\n/)[0]).toBe("wallet,spend_wei,runs,purchases,renewals");
    expect(csv.stdout).toContain(renter.account.address.toLowerCase());

    const perCurrency = await cli(env, ["creator", "stats", "--csv", "top_renters_by_currency"]);
    expect(perCurrency.code, perCurrency.stderr).toBe(0);
    const rows = perCurrency.stdout.trimEnd().split(/\r?\n/).map((line) => line.split(","));
    expect(rows[0]).toEqual(["currency", "currency_address", "decimals", "wallet", "spend", "runs", "purchases", "renewals"]);
    const usdcRenter = ofCurrency(stats!.top_renters_by_currency, usdc.symbol).renters[0]!;
    expect(rows.find((row) => row[0] === usdc.symbol)!.slice(2, 6)).toEqual(["6", usdcRenter.wallet, usdcRenter.spend, String(usdcRenter.runs)]);
    const badTable = await cli(env, ["creator", "stats", "--csv", "by_currency"]);
    expect(badTable.code).toBe(EXIT.usage);
  }, 240_000);

  it("refuses a bad granularity (exit 2) and another creator's listing (not found)", async () => {
    const env = actorEnv(creator.account, "creator");
    const bad = await cli(env, ["creator", "stats", "--granularity", "week"]);
    expect(bad.code).toBe(EXIT.usage);
    const stranger = actorEnv(renter.account, "stranger");
    await cliJson(stranger, ["login"]);
    const foreign = await cli(stranger, ["creator", "stats", listing.listing_id]);
    expect(foreign.code).toBe(EXIT.notFound);
  }, 60_000);
});
