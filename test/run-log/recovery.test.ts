// The run log when things fail: an unreachable chain, a refusing contract, loggers that die before or
// after sending, claims and batches left behind. In every case each run ends up logged exactly once.
import { beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { loadConfig } from "../../src/config.ts";
import { createServices, type Services } from "../../src/services.ts";
import { createLogger } from "../../src/logger.ts";
import { AuthorityRevertError, AuthorityUnavailableError } from "../../src/chain/authority.ts";
import { buildRunTree } from "../../src/execution/run-log/merkle.ts";
import { logPendingRuns } from "../../src/execution/run-log/pass.ts";
import { runReceiptLeafOf } from "../../src/execution/run-log/receipts.ts";
import { RUN_BATCH_OPEN, runBatchKey, type RunBatchItem } from "../../src/execution/run-log/run-batch.store.ts";
import type { RunRecord } from "../../src/execution/runs/run.ts";
import { RUN_LOG_BATCHING, RUN_LOG_PENDING } from "../../src/execution/runs/run.store.ts";
import { freePort } from "../../local/ports.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import {
  deferred,
  expectLoggedAndVerified,
  finishedRun,
  interceptedAuthority,
  putItem,
  readBatches,
  readRun,
  readRuns,
  runsLoggedSince,
  writeRuns,
} from "./support.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});

async function head(): Promise<bigint> {
  return (await ctx.services.chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
}

function withAuthority(authority: Services["authority"]): Services {
  return { ...ctx.services, authority };
}

async function expectPending(runs: RunRecord[]): Promise<void> {
  for (const run of await readRuns(ctx.services, runs.map((r) => r.run_id))) {
    expect(run.log_state).toBe("pending");
    expect(run.gsi1pk).toBe(RUN_LOG_PENDING);
    expect(run.gsi1sk).toBe(`${run.finished_at}#${run.run_id}`);
    expect(run.log_batch).toBeUndefined();
    expect(run.receipt).toBeUndefined();
  }
}

async function expectBatching(runs: RunRecord[]): Promise<void> {
  for (const run of await readRuns(ctx.services, runs.map((r) => r.run_id))) expect(run.log_state).toBe("batching");
}

/** Every run logged once: one receipt each, and the RunsLogged counts since `from` add up to the runs. */
async function expectLoggedOnce(runs: RunRecord[], from: bigint): Promise<void> {
  await expectLoggedAndVerified(ctx.services, runs);
  const events = await runsLoggedSince(ctx.services, from);
  expect(events.reduce((sum, e) => sum + e.count, 0)).toBe(runs.length);
  expect(new Set(events.map((e) => e.root)).size).toBe(events.length);
}

const HOUR_AGO = () => new Date(Date.now() - 3_600_000).toISOString();

describe("transient failures", () => {
  it("an unreachable chain leaves the runs pending; a later pass logs them", async () => {
    const from = await head();
    const runs = Array.from({ length: 9 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    const down = createServices(loadConfig({ ...ctx.env, RPC_URL: `http://127.0.0.1:${await freePort()}` }), { logger: createLogger("silent"), tables: ctx.services.tables });
    await expect(logPendingRuns(down)).rejects.toBeInstanceOf(AuthorityUnavailableError);
    await expect(logPendingRuns(down, { maxBatch: 2 })).rejects.toBeInstanceOf(AuthorityUnavailableError);
    await expectPending(runs);
    // Nothing is left open: the batches that could not be sent are abandoned.
    expect((await readBatches(ctx.services)).filter((b) => b.state !== "abandoned")).toEqual([]);

    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 9 });
    await expectLoggedOnce(runs, from);
  });

  it("a refusal by the contract (a key that is not the authority) leaves the runs pending", async () => {
    const from = await head();
    const runs = Array.from({ length: 3 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    const stranger = await fundedAccount(ctx.config.RPC_URL);
    const wrongKey = createServices(loadConfig({ ...ctx.env, AUTHORITY_PRIVATE_KEY: stranger.privateKey }), { logger: createLogger("silent"), tables: ctx.services.tables });
    const refusal = await logPendingRuns(wrongKey).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AuthorityRevertError);
    expect((refusal as AuthorityRevertError).contractError).toBe("Unauthorized");
    await expectPending(runs);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 3 });
    await expectLoggedOnce(runs, from);
  });

  it("an unknown outcome (the send failed, nothing reached the chain) is sent again once the claim is stale", async () => {
    const from = await head();
    const runs = Array.from({ length: 5 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    const cutOff = withAuthority(interceptedAuthority(ctx.services.authority!, async () => {
      throw new AuthorityUnavailableError("logRuns");
    }));
    await expect(logPendingRuns(cutOff)).rejects.toBeInstanceOf(AuthorityUnavailableError);
    // The transaction might be in flight: the runs stay with their batch, not offered to another one.
    await expectBatching(runs);
    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 0, runs: 0 });
    await expectBatching(runs);
    const [batch] = (await readBatches(ctx.services)).filter((b) => b.state === "sending");
    expect(batch).toMatchObject({ count: 5, attempts: 1, gsi1pk: RUN_BATCH_OPEN });

    expect(await logPendingRuns(ctx.services, { staleAfterMs: 0 })).toEqual({ batches: 1, runs: 5 });
    await expectLoggedOnce(runs, from);
    const resent = (await readBatches(ctx.services)).find((b) => b.batch_id === batch!.batch_id)!;
    expect(resent).toMatchObject({ state: "logged", attempts: 2, root: batch!.root });
  });
});

describe("loggers that die", () => {
  it("after sending: recovery completes the batch from its RunsLogged event, without sending again", async () => {
    const from = await head();
    const runs = Array.from({ length: 6 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    const sent = deferred();
    const resume = deferred();
    const stalled = withAuthority(interceptedAuthority(ctx.services.authority!, async (send) => {
      const result = await send();
      sent.resolve();
      await resume.promise;
      return result;
    }));
    const stalledPass = logPendingRuns(stalled);
    await sent.promise;
    await expectBatching(runs);

    expect(await logPendingRuns(ctx.services, { staleAfterMs: 0 })).toEqual({ batches: 1, runs: 6 });
    await expectLoggedOnce(runs, from);
    const receipts = (await readRuns(ctx.services, runs.map((r) => r.run_id))).map((r) => r.receipt);

    // The stalled logger wakes up: it finds its batch logged and changes nothing.
    resume.resolve();
    expect(await stalledPass).toEqual({ batches: 0, runs: 0 });
    expect((await readRuns(ctx.services, runs.map((r) => r.run_id))).map((r) => r.receipt)).toEqual(receipts);
    await expectLoggedOnce(runs, from);
  });

  it("before sending: recovery sends the same root; the late logger then finds it logged", async () => {
    const from = await head();
    const runs = Array.from({ length: 4 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    const reached = deferred();
    const resume = deferred();
    const stalled = withAuthority(interceptedAuthority(ctx.services.authority!, async () => {
      reached.resolve();
      await resume.promise;
      throw new AuthorityUnavailableError("logRuns");
    }));
    const stalledPass = logPendingRuns(stalled);
    await reached.promise;
    const [batch] = (await readBatches(ctx.services)).filter((b) => b.state === "sending");

    expect(await logPendingRuns(ctx.services, { staleAfterMs: 0 })).toEqual({ batches: 1, runs: 4 });
    await expectLoggedOnce(runs, from);
    expect((await readRun(ctx.services, runs[0]!.run_id))!.receipt!.root).toBe(batch!.root);

    resume.resolve();
    expect(await stalledPass).toEqual({ batches: 0, runs: 0 });
    await expectLoggedOnce(runs, from);
  });

  it("after claiming, before recording the batch: the claims return to the queue and are logged", async () => {
    const from = await head();
    const claimedAt = HOUR_AGO();
    const lost = Array.from({ length: 5 }, () => finishedRun());
    await writeRuns(
      ctx.services,
      lost.map((run) => ({ ...run, log_state: "batching", log_batch: "rb_gone", gsi1pk: RUN_LOG_BATCHING, gsi1sk: `${claimedAt}#${run.run_id}` })),
    );
    // A claim made just now belongs to a logger that may still be working: it is left alone.
    const fresh = finishedRun();
    const freshClaim = { ...fresh, log_state: "batching", log_batch: "rb_busy", gsi1pk: RUN_LOG_BATCHING, gsi1sk: `${new Date().toISOString()}#${fresh.run_id}` };
    await writeRuns(ctx.services, [freshClaim]);

    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 5 });
    await expectLoggedOnce(lost, from);
    expect((await readRun(ctx.services, fresh.run_id))!.log_state).toBe("batching");
    // The dead batch id is fenced off, so its logger cannot record it later.
    expect((await readBatches(ctx.services)).find((b) => b.batch_id === "rb_gone")).toMatchObject({ state: "abandoned", run_ids: [] });

    // Once that claim is stale too, it is recovered.
    expect(await logPendingRuns(ctx.services, { staleAfterMs: 0 })).toEqual({ batches: 1, runs: 1 });
    await expectLoggedAndVerified(ctx.services, [fresh]);
  });

  it("after recording the batch, before sending: the batch is abandoned and its runs logged in another", async () => {
    const from = await head();
    const old = HOUR_AGO();
    const runs = Array.from({ length: 3 }, () => finishedRun());
    await writeRuns(ctx.services, runs.map((run) => ({ ...run, log_state: "batching", log_batch: "rb_prepared", gsi1pk: RUN_LOG_BATCHING, gsi1sk: `${old}#${run.run_id}` })));
    const leaves = runs.map((run) => runReceiptLeafOf(run));
    const prepared: RunBatchItem = {
      ...runBatchKey("rb_prepared"),
      batch_id: "rb_prepared",
      state: "prepared",
      root: buildRunTree(leaves).root,
      count: runs.length,
      run_ids: runs.map((run) => run.run_id),
      leaves,
      attempts: 0,
      created_at: old,
      updated_at: old,
      gsi1pk: RUN_BATCH_OPEN,
      gsi1sk: `${old}#rb_prepared`,
    };
    await putItem(ctx.services, prepared);

    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 3 });
    await expectLoggedOnce(runs, from);
    const batches = await readBatches(ctx.services);
    expect(batches.find((b) => b.batch_id === "rb_prepared")).toMatchObject({ state: "abandoned" });
    expect(batches.find((b) => b.batch_id === "rb_prepared")!.gsi1pk).toBeUndefined();
  });

  it("after the batch was logged, before every run got its receipt: the rest get the same receipt", async () => {
    const runs = Array.from({ length: 5 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    await logPendingRuns(ctx.services);
    const stored = await readRuns(ctx.services, runs.map((r) => r.run_id));
    const batch = (await readBatches(ctx.services)).find((b) => b.root === stored[0]!.receipt!.root)!;
    const from = await head();
    // Two runs as they were before the logger died: claimed, no receipt.
    const unfinished = stored.slice(1, 3).map(({ receipt: _receipt, ...run }) => ({ ...run, log_state: "batching", log_batch: batch.batch_id, gsi1pk: RUN_LOG_BATCHING, gsi1sk: `${HOUR_AGO()}#${run.run_id}` }));
    await writeRuns(ctx.services, unfinished);

    expect(await logPendingRuns(ctx.services)).toEqual({ batches: 1, runs: 2 });
    const after = await readRuns(ctx.services, runs.map((r) => r.run_id));
    expect(after.map((r) => r.receipt)).toEqual(stored.map((r) => r.receipt));
    await expectLoggedAndVerified(ctx.services, runs);
    expect(await runsLoggedSince(ctx.services, from)).toEqual([]);
  });

  it("a stale batch another logger already finished is left as it is", async () => {
    const from = await head();
    const runs = Array.from({ length: 2 }, () => finishedRun());
    await writeRuns(ctx.services, runs);
    await logPendingRuns(ctx.services);
    const events = await runsLoggedSince(ctx.services, from);
    expect(await logPendingRuns(ctx.services, { staleAfterMs: 0 })).toEqual({ batches: 0, runs: 0 });
    expect(await runsLoggedSince(ctx.services, from)).toEqual(events);
    const roots = new Set((await readRuns(ctx.services, runs.map((r) => r.run_id))).map((r) => r.receipt!.root as Hex));
    expect(roots.size).toBe(1);
  });
});
