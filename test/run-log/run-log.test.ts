// The run log against the real chain and DynamoDB emulator: finished runs are logged in Merkle batches,
// every receipt verifies on-chain, batches split at maxBatch, concurrent loggers never log a run twice,
// and runs whose charge is unconfirmed wait.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services.ts";
import { createLogger } from "../../src/logger.ts";
import { createRunLog, logPendingRuns } from "../../src/execution/run-log/pass.ts";
import { startJobs } from "../../src/jobs.ts";
import { createSettlerLease } from "../../src/execution/settler/lease.ts";
import { settlerLeaseStore } from "../../src/execution/settler/lease.store.ts";
import { runReceiptFields } from "../../src/execution/run-log/receipts.ts";
import type { RunRecord } from "../../src/execution/runs/run.ts";
import { RUN_LOG_PENDING } from "../../src/execution/runs/run.store.ts";
import { verifyProof } from "../../src/execution/run-log/merkle.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import {
  expectLoggedAndVerified,
  finishedRun,
  readBatches,
  readRun,
  readRuns,
  runsLoggedSince,
  verifyOnChain,
  writeRuns,
} from "./support.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});

const flipLast = (hex: `0x${string}`): `0x${string}` => hex.replace(/.$/, (c) => (c === "0" ? "1" : "0")) as `0x${string}`;

async function head(): Promise<bigint> {
  return (await ctx.services.chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
}

describe("logPendingRuns", () => {
  it("logs a single run as a batch of one (the leaf is the root, the proof empty)", async () => {
    const from = await head();
    const run = finishedRun();
    await writeRuns(ctx.services, [run]);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 1 });
    await expectLoggedAndVerified(ctx.services, [run]);
    const stored = (await readRun(ctx.services, run.run_id))!;
    expect(stored.receipt!.proof).toEqual([]);
    expect(stored.receipt!.root).toBe(stored.receipt!.leaf);
    const events = await runsLoggedSince(ctx.services, from);
    expect(events).toEqual([{ batchIndex: BigInt(stored.receipt!.batch_index), root: stored.receipt!.root, count: 1 }]);
    // Nothing left: a second pass sends nothing.
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 0, runs: 0 });
    expect(await runsLoggedSince(ctx.services, from)).toHaveLength(1);
  });

  it("logs an odd number of runs, completed and failed, with every receipt verifiable and tamper-evident", async () => {
    const from = await head();
    const runs = Array.from({ length: 37 }, (_, i) => finishedRun({ status: i % 3 === 0 ? "failed" : "completed" }));
    await writeRuns(ctx.services, runs);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 37 });
    await expectLoggedAndVerified(ctx.services, runs);

    const stored = await readRuns(ctx.services, runs.map((run) => run.run_id));
    const [first] = stored;
    const receipt = first!.receipt!;
    // One batch, the root the event carries; the stored proofs are those of the tree of the stored leaves.
    expect(new Set(stored.map((run) => run.receipt!.batch_index))).toEqual(new Set([receipt.batch_index]));
    expect(await runsLoggedSince(ctx.services, from)).toEqual([{ batchIndex: BigInt(receipt.batch_index), root: receipt.root, count: 37 }]);
    for (const run of stored) expect(verifyProof(run.receipt!.leaf, run.receipt!.proof, receipt.root)).toBe(true);

    // A run's receipt with another status or cost is not in the log.
    const other = stored[1]!;
    const fields = runReceiptFields(other);
    expect(await verifyOnChain(ctx.services, receipt.batch_index, { ...fields, costWei: fields.costWei + 1n }, other.receipt!.proof)).toBe(false);
    expect(await verifyOnChain(ctx.services, receipt.batch_index, { ...fields, status: fields.status === 0 ? 1 : 0 }, other.receipt!.proof)).toBe(false);
    const tamperedProof = [...other.receipt!.proof];
    tamperedProof[0] = flipLast(tamperedProof[0]!);
    expect(await verifyOnChain(ctx.services, receipt.batch_index, fields, tamperedProof)).toBe(false);
    // The right receipt and proof against another batch index.
    expect(await verifyOnChain(ctx.services, receipt.batch_index + 1, fields, other.receipt!.proof)).toBe(false);
  });

  it("splits the pending runs into batches of maxBatch, oldest first", async () => {
    const from = await head();
    const runs = Array.from({ length: 23 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    expect(await logPendingRuns(ctx.services, { maxBatch: 5 })).toEqual({ batches: 5, runs: 23 });
    await expectLoggedAndVerified(ctx.services, runs);
    const events = await runsLoggedSince(ctx.services, from);
    expect(events.map((e) => e.count)).toEqual([5, 5, 5, 5, 3]);
    const stored = await readRuns(ctx.services, runs.map((run) => run.run_id));
    // Oldest first: the runs are in the batches in the order they finished.
    const indexes = stored.map((run) => run.receipt!.batch_index);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(new Set(indexes).size).toBe(5);
  });

  it("maxBatches bounds a pass; the next pass continues", async () => {
    const runs = Array.from({ length: 9 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    expect(await logPendingRuns(ctx.services, { maxBatch: 4, maxBatches: 1 })).toEqual({ batches: 1, runs: 4 });
    expect(await logPendingRuns(ctx.services, { maxBatch: 4 })).toEqual({ batches: 2, runs: 5 });
    await expectLoggedAndVerified(ctx.services, runs);
  });

  it("two loggers at once never log a run twice", async () => {
    const from = await head();
    const runs = Array.from({ length: 60 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    // A second service instance: its own DynamoDB and chain clients, the process's one authority signer.
    const other = createServices(ctx.config, { logger: createLogger("silent"), authority: ctx.services.authority });
    const passes = await Promise.all([
      logPendingRuns(ctx.services, { maxBatch: 7 }),
      logPendingRuns(other, { maxBatch: 7 }),
      logPendingRuns(ctx.services, { maxBatch: 11 }),
    ]);
    expect(passes.reduce((sum, pass) => sum + pass.runs, 0)).toBe(60);
    await expectLoggedAndVerified(ctx.services, runs);
    const events = await runsLoggedSince(ctx.services, from);
    expect(events.reduce((sum, event) => sum + event.count, 0)).toBe(60);
    expect(new Set(events.map((e) => e.root)).size).toBe(events.length);
    expect(events.length).toBe(passes.reduce((sum, pass) => sum + pass.batches, 0));
    // Every run sits in exactly one batch, and each batch's count is the runs that point at it.
    const stored = await readRuns(ctx.services, runs.map((run) => run.run_id));
    for (const event of events) {
      expect(stored.filter((run) => run.receipt!.root === event.root).length).toBe(event.count);
    }
  });

  it("waits for runs whose per-query charge is not confirmed yet", async () => {
    const settling = finishedRun({ rental_model: "per_query", settlement: "pending", cost_wei: "0" });
    const ready = finishedRun();
    await writeRuns(ctx.services, [settling, ready]);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 1 });
    expect((await readRun(ctx.services, settling.run_id))!.log_state).toBe("pending");
    await expectLoggedAndVerified(ctx.services, [ready]);
    // Once settled (with its final cost), it is logged with that cost.
    const settled: RunRecord = { ...settling, settlement: "settled", cost_wei: "1000000000000" };
    await writeRuns(ctx.services, [settled]);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 1 });
    await expectLoggedAndVerified(ctx.services, [settled]);
  });

  it("leaves a run with no valid receipt pending and logs the others", async () => {
    const broken = finishedRun({ cost_wei: "not-a-number" });
    const ok = finishedRun();
    await writeRuns(ctx.services, [broken, ok]);
    // The broken run is older: even batches of one get past it.
    expect(await logPendingRuns(ctx.services, { maxBatch: 1 })).toEqual({ batches: 1, runs: 1 });
    await expectLoggedAndVerified(ctx.services, [ok]);
    const stored = (await readRun(ctx.services, broken.run_id))!;
    expect(stored.log_state).toBe("pending");
    expect(stored.gsi1pk).toBe(RUN_LOG_PENDING);
    // Repaired, it is logged.
    const repaired = { ...broken, cost_wei: "0" };
    await writeRuns(ctx.services, [repaired]);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 1 });
    await expectLoggedAndVerified(ctx.services, [repaired]);
  });

  it("records each batch with its root, runs and outcome", async () => {
    const runs = Array.from({ length: 4 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    await logPendingRuns(ctx.services);
    const stored = await readRuns(ctx.services, runs.map((run) => run.run_id));
    const batch = (await readBatches(ctx.services)).find((item) => item.root === stored[0]!.receipt!.root)!;
    expect(batch).toMatchObject({ state: "logged", count: 4, run_ids: runs.map((run) => run.run_id), batch_index: stored[0]!.receipt!.batch_index, tx_hash: stored[0]!.receipt!.tx_hash });
    expect(batch.leaves).toEqual(stored.map((run) => run.receipt!.leaf));
    expect(batch.gsi1pk).toBeUndefined();
  });

  it("does nothing without an authority key, and says so once", async () => {
    const lines: string[] = [];
    const services = createServices(ctx.config, { authority: null, logger: createLogger("info", (line) => lines.push(line)) });
    const run = finishedRun();
    await writeRuns(services, [run]);
    const runLog = createRunLog(services);
    expect(await runLog.pass()).toEqual({ batches: 0, runs: 0 });
    expect(await runLog.pass()).toEqual({ batches: 0, runs: 0 });
    expect(lines.filter((line) => line.includes("run log disabled"))).toHaveLength(1);
    expect((await readRun(services, run.run_id))!.log_state).toBe("pending");
    await logPendingRuns(ctx.services);
    await expectLoggedAndVerified(ctx.services, [run]);
  });

  it("refuses an out-of-range maxBatch", async () => {
    await expect(logPendingRuns(ctx.services, { maxBatch: 0 })).rejects.toThrow(RangeError);
    await expect(logPendingRuns(ctx.services, { maxBatch: 1001 })).rejects.toThrow(RangeError);
  });
});

describe("the settler job", () => {
  const worlds: World[] = [];
  afterAll(async () => {
    await Promise.all(worlds.map((w) => w.close()));
  });
  /** Fresh services that log every 100 ms, the settler started by the test itself. */
  async function loggingServices() {
    const w = await startWorld({ serve: false, settler: false, env: { RUN_LOG_INTERVAL_MS: "100" } });
    worlds.push(w);
    return w.ctx;
  }
  it("logs runs as they finish until stopped, its batches sent through the settler", async () => {
    const { services } = await loggingServices();
    const loop = startJobs(services, { only: ["settler"] });
    try {
      const first = Array.from({ length: 3 }, () => finishedRun());
      await writeRuns(services, first);
      await expect.poll(async () => (await readRuns(services, first.map((r) => r.run_id))).every((r) => r.log_state === "logged"), { timeout: 10_000, interval: 20 }).toBe(true);
      const second = Array.from({ length: 2 }, () => finishedRun());
      await writeRuns(services, second);
      await expect.poll(async () => (await readRuns(services, second.map((r) => r.run_id))).every((r) => r.log_state === "logged"), { timeout: 10_000, interval: 20 }).toBe(true);
      await expectLoggedAndVerified(services, [...first, ...second]);
    } finally {
      await loop.stop();
    }
  });

  it("stops only once the batch in flight is mined and recorded, and gives the key's lease up for the next settler", async () => {
    const { services, authority } = await loggingServices();
    const runs = Array.from({ length: 4 }, () => finishedRun());
    await writeRuns(services, runs);
    const loop = startJobs(services, { only: ["settler"] });
    // Stop as soon as a batch holds the runs: the stop waits for its transaction and its receipts.
    await expect.poll(async () => (await readRuns(services, runs.map((r) => r.run_id))).some((r) => r.log_state !== "pending"), { timeout: 10_000, interval: 5 }).toBe(true);
    await loop.stop();
    await expectLoggedAndVerified(services, runs);
    const next = createSettlerLease(settlerLeaseStore(services.tables, authority.address), { owner: "next", ttlMs: 15_000 });
    expect(await next.acquire({ endsAt: 0, deadline: Number.POSITIVE_INFINITY, waitForEndMs: 0 })).toBe(true);
    await next.release();
  });
});
