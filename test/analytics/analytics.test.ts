// Creator analytics v2, through the real API on the real chain: a randomized mix of purchases, runs
// (completed and failed), top-ups, exits (a revoked renter taking its balance back) and the creator's
// withdrawals, served by three API instances at once; then the live roll-ups equal the rebuild from the
// chain and the run log, the money equals the chain's events and escrow to the wei, the run counts equal
// the receipts; and the routes' privacy and refusals (GET /v1/creators/me/analytics, GET
// /v1/creators/me/listings/{listing_id}/analytics).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { buildApp } from "../../src/api/app.ts";
import { createServices, type Services } from "../../src/services.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { runJob } from "../../src/jobs.ts";
import { logPendingRuns } from "../../src/execution/run-log/pass.ts";
import { rollupsSettled } from "../../src/analytics/record.ts";
import { compareWithLive, rebuildRollups } from "../../src/analytics/rebuild.ts";
import { applyFact, runTargets, runToken } from "../../src/analytics/rollups.ts";
import { queryPartition, rollupPk } from "../../src/analytics/rollup.store.ts";
import { marketTarget, type PublishedAgent } from "../support/agents.ts";
import { signIn } from "../support/auth.ts";
import { fundedAccount } from "../support/services.ts";
import { hourRangeToChainHead } from "../support/chain-actions.ts";
import { inject } from "vitest";
import { startFaultWorld, type FaultWorld, type Renter } from "../faults/support.ts";

let world: FaultWorld;
let creatorToken: string;
let perQuery: PublishedAgent;
let oneTime: PublishedAgent;
const extra: Services[] = [];

/** A small seeded generator, so a failing mix can be replayed (the seed is in the test's title). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const SEED = Number(process.env.ANALYTICS_SEED ?? Date.now() % 100_000);

beforeAll(async () => {
  world = await startFaultWorld({
    // A task starting "fail" fails at the agent (a 500): a failed run.
    agent: (task, res) => (task.startsWith("fail") ? (res.writeHead(500).end("boom"), true) : false),
  });
  creatorToken = (await signIn(world.app, world.creator)).token;
  perQuery = await world.publishConnected("analytics-pq", "per_query");
  oneTime = await world.publishConnected("analytics-ot", "one_time");
}, 240_000);

afterAll(async () => {
  await Promise.allSettled(extra.map((s) => s.close()));
  await world?.stop();
});

const get = (path: string, token = creatorToken) => world.app.request(path, { headers: { authorization: `Bearer ${token}` } });

describe(`creator analytics after a randomized mix (seed ${SEED})`, () => {
  it("the live roll-ups equal the rebuild, the money equals the chain to the wei, and the run counts equal the receipts", async () => {
    const random = prng(SEED);
    const { services } = world.ctx;
    // Three API instances at once over the same tables, chain and settler.
    const apps = [world.app];
    for (let i = 0; i < 2; i++) {
      const s = createServices(world.ctx.config);
      s.egress = services.egress;
      extra.push(s);
      apps.push(buildApp(s));
    }
    const renters: Renter[] = [];
    for (let i = 0; i < 3; i++) renters.push(await world.renter());
    for (const renter of renters) await world.buy(renter, perQuery, perQuery.priceWei * 6n);
    await world.buy(renters[0]!, oneTime);

    const execute = async (renter: Renter, listing: PublishedAgent, task: string, app: (typeof apps)[number]) => {
      const res = await app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
      await res.text();
      return res.status;
    };
    let exits = 0;
    for (let step = 0; step < 14; step++) {
      const roll = random();
      const renter = renters[Math.floor(random() * renters.length)]!;
      if (roll < 0.55) {
        // Runs, several at once through the three instances; some fail.
        await Promise.all([0, 1, 2].map((i) => execute(renter, perQuery, `${random() < 0.3 ? "fail" : "task"}-${step}-${i}`, apps[i]!)));
      } else if (roll < 0.7) {
        await writeMarketplace(marketTarget(world.ctx), renter.account, "topUpBalance", [perQuery.onChainId], perQuery.priceWei * 2n);
      } else if (roll < 0.8) {
        await execute(renters[0]!, oneTime, `${random() < 0.3 ? "fail" : "one"}-${step}`, apps[step % 3]!);
      } else if (roll < 0.9 && exits === 0 && renter !== renters[0]) {
        // An exit: the creator revokes the renter, who takes the unspent balance back at once.
        await writeMarketplace(marketTarget(world.ctx), world.creator, "revokePerQueryAccess", [perQuery.onChainId, renter.account.address]);
        const [balance] = await services.chain.client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [perQuery.onChainId, renter.account.address] });
        if (balance > 0n) await writeMarketplace(marketTarget(world.ctx), renter.account, "withdrawUnspentBalance", [perQuery.onChainId]);
        renters.splice(renters.indexOf(renter), 1);
        exits++;
      } else {
        // The creator withdraws part of what is withdrawable.
        const withdrawable = await services.chain.client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "withdrawableEarnings", args: [perQuery.onChainId] });
        if (withdrawable > 0n) await writeMarketplace(marketTarget(world.ctx), world.creator, "withdrawEarnings", [perQuery.onChainId, withdrawable / 2n]);
      }
    }
    await world.recover();
    // The indexer (the service's job, from the deployment block) and the run log catch up.
    await runJob(services, "indexer");
    await logPendingRuns(services);
    await rollupsSettled();

    // 1. The rebuild from the chain and the run log gives identical roll-ups.
    const rebuilt = await rebuildRollups({ tables: services.tables, chain: services.chain, deployBlock: services.config.MARKETPLACE_DEPLOY_BLOCK, listings: [perQuery.onChainId, oneTime.onChainId] });
    expect(await compareWithLive(services.tables, rebuilt, [perQuery.onChainId, oneTime.onChainId])).toEqual([]);
    expect((await queryPartition(services.tables, perQuery.onChainId)).length).toBeGreaterThan(3);

    // 2. The API's totals equal the chain's events and the contract's escrow, to the wei.
    const res = await get(`/v1/creators/me/listings/${perQuery.listing_id}/analytics?${await hourRangeToChainHead(services.chain.client)}`);
    expect(res.status).toBe(200);
    const body = JSON.parse(await res.text(), (_key, value, context?: { source?: string }) => (typeof value === "number" && context?.source && !Number.isSafeInteger(value) ? BigInt(context.source) : value)) as Record<string, any>;
    const { client, marketplace } = services.chain;
    const range = { address: marketplace, abi: marketplaceAbi, args: { listingId: perQuery.onChainId }, fromBlock: 0n, toBlock: "latest" } as const;
    const charges = await client.getContractEvents({ ...range, eventName: "QueryConsumed" });
    const withdrawals = await client.getContractEvents({ ...range, eventName: "EarningsWithdrawn" });
    const refunds = await client.getContractEvents({ ...range, eventName: "UnspentBalanceWithdrawn" });
    const sum = (values: (bigint | undefined)[]) => values.reduce<bigint>((a, b) => a + (b ?? 0n), 0n);
    expect(BigInt(body.totals.revenue.by_model.per_query.gross_wei)).toBe(sum(charges.map((e) => e.args.price)));
    expect(BigInt(body.totals.revenue.by_model.per_query.fee_wei)).toBe(sum(charges.map((e) => e.args.fee)));
    expect(BigInt(body.totals.revenue.withdrawn_wei)).toBe(sum(withdrawals.map((e) => e.args.amount)));
    expect(BigInt(body.totals.rentals.refunds_wei)).toBe(sum(refunds.map((e) => e.args.amount)));
    expect(body.reconciliation.matches).toBe(true);
    expect(BigInt(body.reconciliation.chain_escrow_wei)).toBe((await services.chain.client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [perQuery.onChainId], blockNumber: BigInt(body.reconciliation.block) }))[1]);

    // 3. Run counts equal the run records, and every settled run's receipt is counted.
    const runs = (await (await import("../faults/support.ts")).runRecords(world)).filter((r) => r.on_chain_id.toLowerCase() === perQuery.onChainId.toLowerCase());
    expect(Number(body.totals.runs.completed)).toBe(runs.filter((r) => r.status === "completed").length);
    expect(Number(body.totals.runs.failed)).toBe(runs.filter((r) => r.status === "failed").length);
    expect(Number(body.totals.runs.logged)).toBe(runs.filter((r) => r.log_state === "logged").length);
    expect(Number(body.totals.runs.completed) + Number(body.totals.runs.failed)).toBe(Number(body.totals.runs.logged));
    expect(body.totals.runs.charged_wei.toString()).toBe(body.totals.revenue.by_model.per_query.gross_wei.toString());

    // 4. Renters appear as wallet addresses only, and no input or output appears anywhere.
    for (const renter of body.top_renters) expect(Object.keys(renter).sort()).toEqual(["purchases", "renewals", "runs", "spend_wei", "wallet"]);
    expect(body.top_renters.every((r: { wallet: string }) => /^0x[0-9a-f]{40}$/.test(r.wallet))).toBe(true);
    expect(JSON.stringify(body, (_k, v) => (typeof v === "bigint" ? v.toString() : v))).not.toMatch(/task-|fail-|findings|done:/);
  }, 600_000);
});

describe("a run's settlement counted once", () => {
  it("two settlement passes recording the same run at once, and a replay, count it once", async () => {
    const { tables } = world.ctx.services;
    const listing = `0x${"ab".repeat(32)}` as const;
    const run = { run_id: `run_${"1".repeat(32)}`, on_chain_id: listing, wallet: `0x${"cd".repeat(20)}`, rental_model: "per_query" as const, status: "completed" as const, duration_ms: 420, cost_wei: 123456789012345678901234567n, finished_at: "2030-01-01T05:06:07.000Z" };
    const results = await Promise.all([applyFact(tables, runToken(run.run_id), runTargets(run)), applyFact(tables, runToken(run.run_id), runTargets(run))]);
    expect(results.sort()).toEqual(["already", "applied"]);
    expect(await applyFact(tables, runToken(run.run_id), runTargets(run))).toBe("already");
    const items = new Map((await queryPartition(tables, listing)).map((item) => [item.sk, item]));
    expect(items.get("h#2030-01-01T05")?.runs_completed).toBe(1n);
    expect(items.get("d#2030-01-01")?.charged_wei).toBe(123456789012345678901234567n);
    expect(items.get("t#all")?.lat_count).toBe(1n);
    expect(items.get("h#2030-01-01T05")?.in_flight).toBeUndefined();
    expect(rollupPk(listing)).toBe(`roll#${listing}`);
  });

  it("a claim left by a crashed writer is taken over after its lease, and the run is still counted once", async () => {
    const { tables } = world.ctx.services;
    const listing = `0x${"ef".repeat(32)}` as const;
    const run = { run_id: `run_${"2".repeat(32)}`, on_chain_id: listing, wallet: `0x${"cd".repeat(20)}`, rental_model: "one_time" as const, status: "failed" as const, failure_code: "agent_error" as const, duration_ms: 9_000, cost_wei: 0n, finished_at: "2030-01-02T00:00:00.000Z" };
    // A writer that applied to the hour item, then died (its lease of 1 ms runs out at once).
    const { addToRollup, createFact } = await import("../../src/analytics/rollup.store.ts");
    await createFact(tables, runToken(run.run_id), "dead", Date.now() + 1, {});
    await addToRollup(tables, runTargets(run)[0]!, runToken(run.run_id));
    expect(await applyFact(tables, runToken(run.run_id), runTargets(run))).toBe("applied");
    const items = new Map((await queryPartition(tables, listing)).map((item) => [item.sk, item]));
    expect(items.get("h#2030-01-02T00")?.runs_failed).toBe(1n);
    expect(items.get("d#2030-01-02")?.fail_agent_error).toBe(1n);
  });
});

describe("GET /v1/creators/me/analytics and GET /v1/creators/me/listings/{listing_id}/analytics: privacy and refusals", () => {
  it("a creator sees its own listings; another wallet gets 404 listing_not_found for them and empty figures of its own", async () => {
    const mine = await get("/v1/creators/me/analytics");
    expect(mine.status).toBe(200);
    const body = (await mine.json()) as { listings: { listing_id: string }[] };
    expect(body.listings.map((l) => l.listing_id).sort()).toEqual([perQuery.listing_id, oneTime.listing_id].sort());

    const other = await fundedAccount(inject("rpcUrl"));
    const otherToken = (await signIn(world.app, other)).token;
    const foreign = await get(`/v1/creators/me/listings/${perQuery.listing_id}/analytics`, otherToken);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe("listing_not_found");
    expect(foreign.headers.get("x-ratelimit-limit")).toBe("100");
    const theirs = (await (await get("/v1/creators/me/analytics", otherToken)).json()) as { listings: unknown[]; top_renters: unknown[] };
    expect(theirs.listings).toEqual([]);
    expect(theirs.top_renters).toEqual([]);
  });

  it.each([
    ["an unknown granularity", "?granularity=week", "invalid_request"],
    ["from after to", "?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z", "invalid_request"],
    ["an hourly range over 31 days", "?granularity=hour&from=2030-01-01T00:00:00Z&to=2030-03-01T00:00:00Z", "invalid_request"],
    ["a date that is not ISO 8601", "?from=yesterday", "invalid_request"],
  ])("400 for %s, in the error envelope with the rate headers", async (_case, query, code) => {
    const res = await get(`/v1/creators/me/listings/${perQuery.listing_id}/analytics${query}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
  });

  it("400 invalid_listing_id for a malformed id, 404 for a listing that does not exist, 401 without a token", async () => {
    expect((await get("/v1/creators/me/listings/nope/analytics")).status).toBe(400);
    const missing = await get(`/v1/creators/me/listings/lst_${"0".repeat(64)}/analytics`);
    expect(missing.status).toBe(404);
    expect((await world.app.request("/v1/creators/me/analytics")).status).toBe(401);
  });

  it("exports a table as CSV", async () => {
    const res = await get(`/v1/creators/me/listings/${perQuery.listing_id}/analytics?format=csv&granularity=day`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await res.text()).trim().split("\r\n");
    expect(lines[0]!.split(",").slice(0, 4)).toEqual(["period", "gross_wei", "fee_wei", "net_wei"]);
    expect(lines.length).toBe(32);
    const renters = await get(`/v1/creators/me/analytics?format=csv&table=top_renters`);
    expect((await renters.text()).split("\r\n")[0]).toBe("wallet,spend_wei,runs,purchases,renewals");
  });
});
