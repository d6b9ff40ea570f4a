// A per-task run is charged the price it was admitted at: the creator raising the listing's price while
// the run is held at the agent (or while its charge waits for the settlement pass) never reaches it. Each
// case checks the three places a charge shows: the run's answer, the contract's QueryConsumed event and
// the renter's balance, and GET /v1/runs/{run_id}; and the operator's figures in GET /v1/health. A run
// record that carries no admission price is refused without asking the chain to charge it.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestClient, http, parseEther, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { writeMarketplace } from "../../src/chain/write.ts";
import { markSettlementPending, settlePendingRuns } from "../../src/execution/money/settlement.ts";
import { listPendingSettlements } from "../../src/execution/money/settlement.store.ts";
import { chargeRefOf, newRunId, type RunRecord } from "../../src/execution/runs/run.ts";
import { createRun, getRun, getRuns } from "../../src/execution/runs/run.store.ts";
import { reserveRun } from "../../src/execution/money/ledger.ts";
import { reservationLedger } from "../../src/execution/money/ledger.store.ts";
import { createLogger } from "../../src/logger.ts";
import { createChainClient } from "../../src/chain/client.ts";
import { marketTarget, type PublishedAgent } from "../support/agents.ts";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type FaultWorld, type Renter } from "../faults/support.ts";

let world: FaultWorld;

beforeAll(async () => {
  world = await startFaultWorld();
});

afterAll(async () => {
  await world?.stop();
});

const RAISE = 8n;

async function runDetail(renter: Renter, runId: string): Promise<Record<string, unknown>> {
  return (await (await world.app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
}

/** The prices the contract charged `runId` under its charge reference, from its QueryConsumed events. */
async function chargedOnChain(listing: PublishedAgent, runId: string): Promise<bigint[]> {
  const { chain, tables } = world.ctx.services;
  const run = await getRun(tables, runId);
  if (!run) throw new Error(`no run ${runId}`);
  const events = await chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId, runRef: chargeRefOf(run) }, fromBlock: 0n, toBlock: "latest" });
  return events.map((event) => event.args.price!);
}

async function listingPrice(listing: PublishedAgent): Promise<bigint> {
  const { chain } = world.ctx.services;
  const [price] = await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [listing.onChainId] });
  return price;
}

async function escrowOf(listing: PublishedAgent): Promise<bigint> {
  const { chain } = world.ctx.services;
  const [, escrow] = await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [listing.onChainId] });
  return escrow;
}

async function raisePrice(listing: PublishedAgent, to: bigint): Promise<void> {
  await writeMarketplace(marketTarget(world.ctx), world.creator, "updateListing", [listing.onChainId, to, listing.metadata_uri]);
  expect(await listingPrice(listing)).toBe(to);
}

interface HealthFigures {
  metrics: { runs: { charged: number; charged_wei: string; settlements_deferred: number }; latency_ms: { settlement_lag: { count: number; max: number } | null } };
  settlements: { pending: number | null };
}

async function health(): Promise<HealthFigures> {
  const res = await world.app.request("/v1/health");
  expect(res.status).toBe(200);
  return (await res.json()) as HealthFigures;
}

/** The fee the contract takes from `price` at the default rate (2.5%). */
const feeOf = (price: bigint) => (price * 250n) / 10_000n;

describe("a price raised while a per-task run is held at the agent", () => {
  it.each([
    ["the synchronous route", false],
    ["the streaming route", true],
  ])("on %s: the run is charged the admitted price, not the raised one (answer, QueryConsumed, balance, escrow, GET /v1/runs, health)", async (_route, stream) => {
    const listing = await world.publishConnected(`raise-held-${stream ? "stream" : "sync"}`, "per_query");
    const renter = await world.renter();
    // Ten runs at the admitted price: also eight-tenths of a run at the raised one, so a charge at the
    // raised price would go through (and show) rather than be refused for the balance.
    const deposit = listing.priceWei * 10n;
    await world.buy(renter, listing, deposit);
    const figuresBefore = (await health()).metrics.runs;
    const escrowBefore = await escrowOf(listing);

    const task = stream ? "stream while the price rises" : "work while the price rises";
    const gate = world.gates.hold(task);
    const answering = world.execute(renter, { agent_id: listing.agent_id, task }, { stream });
    await until("the agent to receive the run", () => gate.arrived === 1);
    await raisePrice(listing, listing.priceWei * RAISE);
    gate.open();
    const answer = await answering;

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "completed" });
    expect(answer.body.settlement).toBeUndefined();
    expect(BigInt(answer.body.cost_wei as number)).toBe(listing.priceWei);
    expect(await chargedOnChain(listing, answer.runId!)).toEqual([listing.priceWei]);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(deposit - listing.priceWei);
    expect(await escrowOf(listing)).toBe(escrowBefore + listing.priceWei - feeOf(listing.priceWei));
    const detail = await runDetail(renter, answer.runId!);
    expect(detail).toMatchObject({ status: "completed", settlement: "settled" });
    expect(BigInt(detail.cost_wei as number)).toBe(listing.priceWei);

    // The operator's figures count the charge, exactly, in wei.
    const figures = (await health()).metrics.runs;
    expect(figures.charged).toBe(figuresBefore.charged + 1);
    expect(BigInt(figures.charged_wei)).toBe(BigInt(figuresBefore.charged_wei) + listing.priceWei);
    await expectMoneyAndRecordsIntact(world);
  });
});

describe("a price raised while a per-task charge waits for the settlement pass", () => {
  it("charges the admitted price when the pass lands the charge, and counts its settlement lag", async () => {
    const listing = await world.publishConnected("raise-deferred", "per_query");
    const renter = await world.renter();
    const deposit = listing.priceWei * 10n;
    await world.buy(renter, listing, deposit);
    const before = await health();
    const escrowBefore = await escrowOf(listing);

    // The authority cannot pay gas: the run finishes, its charge is deferred.
    const admin = createTestClient({ mode: "hardhat", transport: http(inject("rpcUrl")) });
    const authority = world.ctx.authority.address;
    await admin.setBalance({ address: authority, value: 0n });
    let answer;
    try {
      answer = await world.execute(renter, { agent_id: listing.agent_id, task: "charge me after the price rises" });
    } finally {
      await admin.setBalance({ address: authority, value: parseEther("1000") });
    }
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "completed", output: null, settlement: "pending" });
    expect(BigInt(answer.body.cost_wei as number)).toBe(listing.priceWei);
    expect(await runDetail(renter, answer.runId!)).toMatchObject({ settlement: "pending", output: null });
    expect((await health()).settlements.pending).toBe((before.settlements.pending ?? 0) + 1);

    // The creator raises the price before the charge lands; the settlement passes resolve the run once the
    // settler (sending again now that it can pay gas) lands it.
    await raisePrice(listing, listing.priceWei * RAISE);
    // Two passes at a time (the world's settler runs the same pass in the background too, as a second
    // settler would): the run's record, not a pass's tally, says when it is settled, and the figures below
    // count its charge once however many passes saw it land.
    let settledByTests = 0;
    await until("the settlement passes to settle the run", async () => {
      const tallies = await Promise.all([settlePendingRuns(world.ctx.services), settlePendingRuns(world.ctx.services)]);
      for (const tally of tallies) expect(tally.refused).toBe(0);
      settledByTests += tallies[0].settled + tallies[1].settled;
      return (await getRuns(world.ctx.services.tables, [answer.runId!])).get(answer.runId!)?.settlement === "settled";
    }, 30_000, 200);
    expect(settledByTests).toBeLessThanOrEqual(1);

    expect(await chargedOnChain(listing, answer.runId!)).toEqual([listing.priceWei]);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(deposit - listing.priceWei);
    expect(await escrowOf(listing)).toBe(escrowBefore + listing.priceWei - feeOf(listing.priceWei));
    const detail = await runDetail(renter, answer.runId!);
    expect(detail).toMatchObject({ status: "completed", settlement: "settled", output: { findings: ["done: charge me after the price rises"] } });
    expect(BigInt(detail.cost_wei as number)).toBe(listing.priceWei);

    // The figures: one deferral, then the charge counted when the pass landed it, with its lag.
    const after = await health();
    expect(after.metrics.runs.settlements_deferred).toBe(before.metrics.runs.settlements_deferred + 1);
    expect(after.metrics.runs.charged).toBe(before.metrics.runs.charged + 1);
    expect(BigInt(after.metrics.runs.charged_wei)).toBe(BigInt(before.metrics.runs.charged_wei) + listing.priceWei);
    expect(after.metrics.latency_ms.settlement_lag?.count).toBe((before.metrics.latency_ms.settlement_lag?.count ?? 0) + 1);
    expect(after.metrics.latency_ms.settlement_lag!.max).toBeGreaterThanOrEqual(0);
    expect(after.settlements.pending).toBe(before.settlements.pending);
    await expectMoneyAndRecordsIntact(world);
  });
});

describe("a pending charge whose run record carries no admission price", () => {
  it("is refused without a charge being sent: the run reads settlement_refused, free, its reservation given back, and the refusal is logged", async () => {
    const listing = await world.publishConnected("no-admitted-price", "per_query");
    const renter = await world.renter();
    const deposit = listing.priceWei * 3n;
    await world.buy(renter, listing, deposit);
    const { services } = world.ctx;
    const wallet = renter.account.address.toLowerCase() as Hex;
    // A finished run whose charge is pending, recorded without price_wei, holding its reservation.
    const runId = newRunId();
    await reserveRun(services, { onChainId: listing.onChainId, wallet, runId, priceWei: listing.priceWei, expiresAt: Date.now() + 600_000 });
    const record: RunRecord = {
      pk: `run#${runId}`,
      sk: "run",
      run_id: runId,
      agent_id: listing.agent_id,
      listing_id: listing.listing_id,
      on_chain_id: listing.onChainId,
      wallet,
      rental_model: "per_query",
      delivery: "sync",
      status: "completed",
      output: { findings: ["withheld"] },
      streamed: "",
      cost_wei: listing.priceWei.toString(),
      duration_ms: 5,
      settlement: "pending",
      created_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
    };
    await createRun(services.tables, record);
    await markSettlementPending(services, runId);

    const lines: string[] = [];
    // The pass's own calls to the chain, and what it hands to the settler, counted apart from the
    // settler running beside it.
    let chainCalls = 0;
    const handed: string[] = [];
    const chain = createChainClient({
      rpcUrl: world.ctx.config.RPC_URL,
      chainId: world.ctx.config.CHAIN_ID,
      marketplace: services.chain.marketplace,
      fetchFn: (input, init) => ((chainCalls += 1), fetch(input, init)),
    });
    const queue = { ...services.queue, send: (url: string, body: string) => (handed.push(body), services.queue.send(url, body)) };
    const tally = await settlePendingRuns({ ...services, chain, queue, logger: createLogger("info", (line) => lines.push(line)) });
    expect(tally).toMatchObject({ settled: 0, refused: 1, pending: 0 });
    // Not even a read of the chain, and no charge handed to the settler: nothing was asked to charge a
    // price no one admitted.
    expect(chainCalls).toBe(0);
    expect(handed).toEqual([]);
    expect(await chargedOnChain(listing, runId)).toEqual([]);
    expect(await world.balanceOf(listing, renter.account.address)).toBe(deposit);

    const detail = await runDetail(renter, runId);
    expect(detail).toMatchObject({ status: "failed", output: null, cost_wei: 0, settlement: "refused", error: { code: "settlement_refused" } });
    expect((detail.error as { message: string }).message).toMatch(/price this run was admitted at is not recorded/);
    const held = await reservationLedger(services.tables, listing.onChainId, wallet).read();
    expect(Object.keys(held?.leases ?? {})).not.toContain(runId);
    expect((await listPendingSettlements(services.tables)).map((item) => item.run_id)).not.toContain(runId);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.run_id === runId);
    expect(logged).toMatchObject({ level: "error", message: expect.stringMatching(/admitted price/) });
  });
});
