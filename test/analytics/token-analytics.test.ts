// Creator analytics of listings priced in a token, through the real API, settler and chain: a creator
// with a per-task listing in USDC (on the TokenMarketplace) and one in ETH; a renter who buys both runs
// each (a token per-task run charged by consumeQueries, a failed one), a payer runs the USDC listing paid
// by x402 (settlePayments). Then the runs and the payment are counted, every amount is given in its own
// currency and equals the contracts' events and escrow to the smallest unit, no token unit reaches a
// `_wei` figure, the rebuild from the chain and the run log equals the live roll-ups, and a wallet
// renting both listings is one renter of the creator (decision 0255).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { chainFor } from "../../src/chain/client.ts";
import { mintLocalTokens } from "../../src/chain/deploy.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { logPendingRuns } from "../../src/execution/run-log/pass.ts";
import { rollupsSettled } from "../../src/analytics/record.ts";
import { compareWithLive, rebuildRollups } from "../../src/analytics/rebuild.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, rentInToken, type TokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";

const PRICE = 250_000n; // 0.25 USDC
let world: World;
let tokens: TokenDeployment;
let usdc: Address;
let usdcAgent: TokenAgent;
let ethAgent: PublishedAgent;
let renter: Renter;
let payer: PrivateKeyAccount;
let creatorToken: string;
const runs: { run_id: string; listing: Hex }[] = [];

beforeAll(async () => {
  const rpcUrl = sharedInfrastructure().rpcUrl;
  tokens = await deployTokens(rpcUrl);
  usdc = getAddress(tokens.tokens.usdc.address);
  // The x402 payer holds USDC only (an EIP-3009 payment needs no gas of its own); minted by the tokens'
  // deployer, never by the authority the settler sends with.
  payer = privateKeyToAccount(generatePrivateKey());
  await mintLocalTokens({ rpcUrl, chain: chainFor(31337, rpcUrl), deployerPrivateKey: tokens.deployer.privateKey }, { usdc, utility: tokens.tokens.utility.address }, [payer.address], { usdc: 4n * PRICE, utility: 0n });
  world = await startWorld({
    agent: { handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "the agent gave up") : call.output({ findings: [`done: ${call.task}`] })) },
    env: tokens.env,
  });
  await handAuthority(world, tokens);
  usdcAgent = await publishTokenAgent(world, tokens, "analytics-usdc", { rental: "per_query", token: tokens.tokens.usdc, price: PRICE });
  ethAgent = await world.publishConnected("analytics-eth", { rental: "per_query" });
  creatorToken = (await world.creator()).token;
  renter = await world.renter();
  await rentInToken(world, tokens, renter.account, usdcAgent, { deposit: PRICE * 3n });
  await world.rent(renter.account, ethAgent);
}, 300_000);

afterAll(() => world?.close());

async function execute(key: string, agentId: string, task: string): Promise<void> {
  const answer = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task }) });
  const body = (await answer.json()) as { run_id: string };
  expect(body.run_id, JSON.stringify(body)).toBeTruthy();
  runs.push({ run_id: body.run_id, listing: agentId === usdcAgent.agent_id ? usdcAgent.onChainId : ethAgent.onChainId });
}

/** JSON with every integer beyond 2^53 read exactly (as a bigint). */
async function exactJson(res: Response): Promise<Record<string, any>> {
  return JSON.parse(await res.text(), (_key, value, context?: { source?: string }) => (typeof value === "number" && context?.source && !Number.isSafeInteger(value) ? BigInt(context.source) : value)) as Record<string, any>;
}

const get = async (path: string) => {
  const res = await fetch(`${world.url}${path}`, { headers: { authorization: `Bearer ${creatorToken}` } });
  expect(res.status).toBe(200);
  return res;
};
const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);

describe("creator analytics of token listings", () => {
  it("count a token per-task run and an x402 payment, give each amount in its currency exactly as the chain says, and rebuild identically", async () => {
    const { services } = world;
    // A token per-task run charged from the balance, a failed one, an ETH run, and a run paid by x402.
    await execute(renter.key, usdcAgent.agent_id, "summarize");
    await execute(renter.key, usdcAgent.agent_id, "fail on purpose");
    await execute(renter.key, ethAgent.agent_id, "summarize in ether");
    const network = "eip155:31337" as const;
    const x402 = x402Client.fromConfig({ schemes: [{ network, client: new ExactEvmScheme(toClientEvmSigner(payer)) }], spendControls: { allowedAssets: [{ network, asset: usdc }] } });
    const paid = await wrapFetchWithPayment(fetch, x402)(`${world.url}/v1/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: usdcAgent.agent_id, task: "paid by x402" }) });
    const paidRun = (await paid.json()) as { run_id: string; status: string };
    expect(paid.status, JSON.stringify(paidRun)).toBe(200);
    expect(paidRun.status).toBe("completed");
    runs.push({ run_id: paidRun.run_id, listing: usdcAgent.onChainId });
    expect((await getRun(services.tables, paidRun.run_id))?.paid_by).toBe("x402");

    await world.index();
    await logPendingRuns(services);
    await rollupsSettled();

    // 1. The rebuild from the chain (both contracts) and the run log equals the live roll-ups.
    const listings = [usdcAgent.onChainId, ethAgent.onChainId];
    const rebuilt = await rebuildRollups({ tables: services.tables, chain: services.chain, deployBlock: services.config.MARKETPLACE_DEPLOY_BLOCK, listings });
    expect(await compareWithLive(services.tables, rebuilt, listings)).toEqual([]);

    // The chain's own account of each listing's money.
    const { client } = services.chain;
    const ofListing = { address: tokens.address, abi: tokenMarketplaceAbi, args: { listingId: usdcAgent.onChainId }, fromBlock: 0n, toBlock: "latest" } as const;
    const charges = await client.getContractEvents({ ...ofListing, eventName: "QueryConsumed" });
    // A PaymentsSettled counts its group's x402 payments and states the amount and fee of each.
    const payments = (await client.getContractEvents({ ...ofListing, eventName: "PaymentsSettled" })).flatMap((e) => Array.from({ length: Number(e.args.count!) }, () => e.args));
    const deposits = await client.getContractEvents({ ...ofListing, eventName: "PerQueryPurchased" });
    expect(charges.length).toBe(1);
    expect(payments.length).toBe(1);
    const tokenGross = sum([...charges.map((e) => e.args.price!), ...payments.map((e) => e.amount!)]);
    const tokenFee = sum([...charges.map((e) => e.args.fee!), ...payments.map((e) => e.fee!)]);
    const ethCharges = await client.getContractEvents({ address: services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: ethAgent.onChainId }, fromBlock: 0n, toBlock: "latest" });
    const ethGross = sum(ethCharges.map((e) => e.args.price!));
    expect(ethGross).toBeGreaterThan(0n);
    const records = await Promise.all(runs.map(async (r) => ({ ...r, record: (await getRun(services.tables, r.run_id))! })));
    const counted = (listing: Hex | null, status: string) => records.filter((r) => (listing === null || r.listing === listing) && r.record.status === status).length;

    // A range wide enough for any block time of the shared chain: by month, 35 months around now.
    const month = 30 * 86_400_000;
    const range = `granularity=month&from=${encodeURIComponent(new Date(Date.now() - 17 * month).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 17 * month).toISOString())}`;

    // 2. The USDC listing: its runs (the x402 one too) and payment counted; its amounts in USDC only.
    const one = await exactJson(await get(`/v1/creators/me/listings/${usdcAgent.listing_id}/analytics?${range}`));
    const usdcCurrency = { symbol: "USDC", address: usdc, decimals: 6 };
    expect(one.listings).toEqual([expect.objectContaining({ listing_id: usdcAgent.listing_id, currency: usdcCurrency })]);
    expect(Number(one.totals.runs.completed)).toBe(counted(usdcAgent.onChainId, "completed"));
    expect(Number(one.totals.runs.completed)).toBe(2);
    expect(Number(one.totals.runs.failed)).toBe(1);
    expect(Number(one.totals.runs.logged)).toBe(3);
    expect(Number(one.totals.x402_payments)).toBe(1);
    expect(Number(one.totals.rentals.charges)).toBe(1);
    expect(Number(one.totals.rentals.purchases.per_query)).toBe(1);
    // No token unit in a wei figure.
    expect(Number(one.totals.revenue.gross_wei)).toBe(0);
    expect(Number(one.totals.runs.charged_wei)).toBe(0);
    expect(Number(one.balances_outstanding_wei)).toBe(0);
    expect(one.top_renters).toEqual([]);
    const [usdcTotals] = one.totals.by_currency;
    expect(one.totals.by_currency).toHaveLength(1);
    expect(usdcTotals.currency).toEqual(usdcCurrency);
    expect(BigInt(usdcTotals.revenue.by_model.per_query.gross)).toBe(tokenGross);
    expect(BigInt(usdcTotals.revenue.by_model.per_query.fee)).toBe(tokenFee);
    expect(BigInt(usdcTotals.revenue.net)).toBe(tokenGross - tokenFee);
    expect(BigInt(usdcTotals.revenue.paid_by_x402)).toBe(payments[0]!.amount);
    expect(BigInt(usdcTotals.runs.charged)).toBe(tokenGross);
    expect(BigInt(usdcTotals.rentals.deposits)).toBe(sum(deposits.map((e) => e.args.deposit!)));
    // The balance left is the deposit less the balance's charge (the x402 payment took nothing from it).
    const [balance] = await client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "perQueryBalances", args: [usdcAgent.onChainId, renter.account.address] });
    expect(BigInt(one.balances_outstanding_by_currency[0].amount)).toBe(balance);
    const block = BigInt(one.reconciliation.block);
    const escrow = (await client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "listings", args: [usdcAgent.onChainId], blockNumber: block }))[1];
    expect(one.reconciliation.by_currency).toEqual([expect.objectContaining({ currency: usdcCurrency, matches: true })]);
    expect(BigInt(one.reconciliation.by_currency[0].chain_escrow)).toBe(escrow);
    expect(escrow).toBe(tokenGross - tokenFee);
    expect(one.reconciliation.matches).toBe(true);
    const ranked = one.top_renters_by_currency[0].renters as { wallet: string; spend: bigint | number }[];
    expect(ranked.map((r) => r.wallet).sort()).toEqual([renter.account.address.toLowerCase(), payer.address.toLowerCase()].sort());
    expect(BigInt(ranked.find((r) => r.wallet === payer.address.toLowerCase())!.spend)).toBe(PRICE);

    // 3. Across the creator's listings: counts of both, amounts per currency, ETH's as the `_wei` figures.
    const all = await exactJson(await get(`/v1/creators/me/analytics?${range}`));
    expect(Number(all.totals.runs.completed)).toBe(counted(null, "completed"));
    expect(Number(all.totals.runs.completed)).toBe(3);
    expect(BigInt(all.totals.revenue.gross_wei)).toBe(ethGross);
    expect(BigInt(all.totals.runs.charged_wei)).toBe(ethGross);
    expect(all.totals.by_currency.map((c: { currency: { symbol: string } }) => c.currency.symbol)).toEqual(["ETH", "USDC"]);
    expect(BigInt(all.totals.by_currency[0].revenue.gross)).toBe(ethGross);
    expect(BigInt(all.totals.by_currency[1].revenue.gross)).toBe(tokenGross);
    expect(all.reconciliation.by_currency.map((r: { matches: boolean }) => r.matches)).toEqual([true, true]);
    expect(all.reconciliation.matches).toBe(true);
    const ethEscrow = (await client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [ethAgent.onChainId], blockNumber: BigInt(all.reconciliation.block) }))[1];
    expect(BigInt(all.reconciliation.chain_escrow_wei)).toBe(ethEscrow);
    // The renter of both listings is one renter; the x402 payer another.
    expect(all.renter_count).toBe(2);
    expect(all.top_renters.map((r: { wallet: string }) => r.wallet)).toEqual([renter.account.address.toLowerCase()]);

    // 4. The amounts per currency as CSV, a row per period and currency.
    const csv = (await (await get(`/v1/creators/me/analytics?${range}&format=csv&table=series_by_currency`)).text()).trim().split("\r\n");
    expect(csv[0]!.split(",").slice(0, 5)).toEqual(["period", "currency", "currency_address", "decimals", "gross"]);
    const usdcRows = csv.slice(1).filter((line) => line.split(",")[1] === "USDC");
    expect(usdcRows).toHaveLength(all.series.length);
    expect(sum(usdcRows.map((line) => BigInt(line.split(",")[4]!)))).toBe(tokenGross);
  }, 600_000);
});
