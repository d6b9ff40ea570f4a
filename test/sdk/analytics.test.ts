// The SDK's creator analytics against the real service and chain: a creator with a per-task listing in
// ETH and one in USDC on the TokenMarketplace, a renter who rents both and runs each twice (charged by the
// settler). `creators.analytics` and `listingAnalytics` carry the API's per-currency fields as the API
// answers them (`_wei` exact bigints, each currency's amounts decimal strings), `analyticsByCurrency`
// gathers each currency's figures, ETH first, `formatAmount` writes an amount in its currency, and
// `analyticsCsv` gives the per-currency tables.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUnits } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { AgentRentalClient, analyticsByCurrency, formatAmount, type CreatorAnalytics } from "../../sdk/src/index.ts";
import { rollupsSettled } from "../../src/analytics/record.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, rentInToken, type TokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import { until } from "../support/until.ts";

const PRICE = 250_000n; // 0.25 USDC a run
let world: World;
let tokens: TokenDeployment;
let usdcAgent: TokenAgent;
let ethAgent: PublishedAgent;
let renter: Renter;
let sdk: AgentRentalClient;
let creatorToken: string;

// A range wide enough for any block time of the shared chain: by month, 35 months around now.
const MONTH_MS = 30 * 86_400_000;
const range = { from: new Date(Date.now() - 17 * MONTH_MS), to: new Date(Date.now() + 17 * MONTH_MS), granularity: "month" as const };
const query = `granularity=month&from=${encodeURIComponent(range.from.toISOString())}&to=${encodeURIComponent(range.to.toISOString())}`;

async function execute(agentId: string, task: string): Promise<void> {
  const res = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task }) });
  expect(res.status, await res.clone().text()).toBe(200);
  await res.text();
}

/** The API's answer read directly (no SDK). */
async function raw(path: string): Promise<CreatorAnalytics> {
  const res = await fetch(`${world.url}${path}?${query}`, { headers: { authorization: `Bearer ${creatorToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as CreatorAnalytics;
}

beforeAll(async () => {
  tokens = await deployTokens(sharedInfrastructure().rpcUrl);
  world = await startWorld({ agent: true, env: tokens.env });
  await handAuthority(world, tokens);
  usdcAgent = await publishTokenAgent(world, tokens, "sdk-stats-usdc", { rental: "per_query", token: tokens.tokens.usdc, price: PRICE });
  ethAgent = await world.publishConnected("sdk-stats-eth", { rental: "per_query" });
  creatorToken = (await world.creator()).token;
  sdk = new AgentRentalClient({ baseUrl: world.url, token: creatorToken });
  renter = await world.renter();
  await rentInToken(world, tokens, renter.account, usdcAgent, { deposit: PRICE * 3n });
  await world.rent(renter.account, ethAgent);
  for (const task of ["first", "second"]) {
    await execute(usdcAgent.agent_id, task);
    await execute(ethAgent.agent_id, task);
  }
  // The settler's charges counted: both listings' per-task gross in their currencies.
  await until("the charges of both listings to be counted", async () => {
    await world.index();
    await rollupsSettled();
    const figures = await sdk.creators.analytics(range);
    const [eth, usdc] = figures.totals.by_currency;
    return figures.totals.revenue.by_model.per_query.gross_wei === 2n * ethAgent.priceWei && eth?.revenue.by_model.per_query.gross === String(2n * ethAgent.priceWei) && usdc?.revenue.by_model.per_query.gross === String(2n * PRICE) && figures.reconciliation.matches;
  }, 90_000, 250);
}, 300_000);

afterAll(() => world?.close());

describe("SDK: a creator's analytics per currency", () => {
  it("carries the API's per-currency fields as the API answers them, the `_wei` ones as exact bigints", async () => {
    const viaSdk = await sdk.creators.analytics(range);
    const direct = await raw("/v1/creators/me/analytics");
    expect(viaSdk.totals.by_currency).toEqual(direct.totals.by_currency);
    expect(viaSdk.series.map((p) => p.by_currency)).toEqual(direct.series.map((p) => p.by_currency));
    expect(viaSdk.top_renters_by_currency).toEqual(direct.top_renters_by_currency);
    expect(viaSdk.balances_outstanding_by_currency).toEqual(direct.balances_outstanding_by_currency);
    expect(viaSdk.reconciliation.by_currency).toEqual(direct.reconciliation.by_currency);
    expect(viaSdk.listings).toEqual(direct.listings);
    expect(typeof viaSdk.totals.revenue.gross_wei).toBe("bigint");
    expect(typeof viaSdk.totals.by_currency[1]!.revenue.gross).toBe("string");
    expect(viaSdk.totals.by_currency.map((c) => c.currency)).toEqual([
      { symbol: "ETH", address: null, decimals: 18 },
      { symbol: "USDC", address: expect.stringMatching(new RegExp(`^${tokens.tokens.usdc.address}$`, "i")), decimals: 6 },
    ]);
  });

  it("gathers each currency's figures (ETH first) and writes amounts in their currency", async () => {
    const figures = await sdk.creators.analytics(range);
    const byCurrency = analyticsByCurrency(figures);
    expect(byCurrency.map((c) => c.currency.symbol)).toEqual(["ETH", "USDC"]);
    const [eth, usdc] = byCurrency as [(typeof byCurrency)[number], (typeof byCurrency)[number]];
    expect(eth.listings.map((l) => l.listing_id)).toEqual([ethAgent.listing_id]);
    expect(usdc.listings.map((l) => l.listing_id)).toEqual([usdcAgent.listing_id]);
    expect(usdc.totals).toEqual(figures.totals.by_currency[1]);
    expect(eth.totals.revenue.gross).toBe(String(figures.totals.revenue.gross_wei));
    expect(usdc.series).toHaveLength(figures.series.length);
    expect(usdc.series.reduce((sum, p) => sum + BigInt(p.revenue.gross), 0n)).toBe(BigInt(usdc.totals.revenue.gross));
    expect(usdc.top_renters.map((r) => r.wallet)).toEqual([renter.account.address.toLowerCase()]);
    expect(usdc.reconciliation).toEqual(figures.reconciliation.by_currency[1]);
    expect(usdc.reconciliation?.matches).toBe(true);

    // Balances outstanding and escrow equal the TokenMarketplace's own account, to the unit.
    const { client } = world.services.chain;
    const [balance] = await client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "perQueryBalances", args: [usdcAgent.onChainId, renter.account.address] });
    expect(usdc.balances_outstanding).toBe(String(balance));
    expect(balance).toBe(PRICE);
    const escrow = (await client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "listings", args: [usdcAgent.onChainId], blockNumber: BigInt(figures.reconciliation.block!) }))[1];
    expect(usdc.reconciliation?.chain_escrow).toBe(String(escrow));
    expect(BigInt(usdc.reconciliation!.withdrawable!) + BigInt(usdc.reconciliation!.vesting!)).toBe(escrow);

    // Amounts in their own currency, exactly (viem's formatUnits as the reference).
    expect(formatAmount(usdc.totals.revenue.net, usdc.currency)).toBe(`${formatUnits(BigInt(usdc.totals.revenue.net), 6)} USDC`);
    expect(formatAmount(eth.totals.revenue.net, eth.currency)).toBe(`${formatUnits(BigInt(eth.totals.revenue.net), 18)} ETH`);
    expect(formatAmount("250000", usdc.currency)).toBe("0.25 USDC");
    expect(formatAmount(123_456_789_012_345_678_901n, { symbol: "RENT", decimals: 18 })).toBe("123.456789012345678901 RENT");
    expect(formatAmount("-1500000", usdc.currency)).toBe("-1.5 USDC");

    // One listing's analytics: its currency only.
    const one = analyticsByCurrency(await sdk.creators.listingAnalytics(usdcAgent.listing_id, range));
    expect(one.map((c) => c.currency.symbol)).toEqual(["USDC"]);
    expect(one[0]!.totals.revenue.by_model.per_query.gross).toBe(String(2n * PRICE));
  });

  it("gives the per-currency tables as CSV", async () => {
    const series = (await sdk.creators.analyticsCsv({ ...range, table: "series_by_currency" })).trim().split("\r\n");
    expect(series[0]!.split(",").slice(0, 5)).toEqual(["period", "currency", "currency_address", "decimals", "gross"]);
    const usdcRows = series.slice(1).filter((line) => line.split(",")[1] === "USDC");
    expect(usdcRows.reduce((sum, line) => sum + BigInt(line.split(",")[4]!), 0n)).toBe(2n * PRICE);
    const renters = (await sdk.creators.analyticsCsv({ ...range, table: "top_renters_by_currency", listingId: usdcAgent.listing_id })).trim().split("\r\n");
    expect(renters[0]).toBe("currency,currency_address,decimals,wallet,spend,runs,purchases,renewals");
    expect(renters.slice(1).map((line) => line.split(",").slice(0, 4))).toEqual([["USDC", expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), "6", renter.account.address.toLowerCase()]]);
  });
});
