// A batch's life in the run log: its runs claimed, its tree built and the batch recorded before anything
// is sent; then `logRuns(root, count)` from the authority, and every run given its receipt. Each step
// is one conditional write (run.store.ts, run-batch.store.ts), so any number of loggers may run at once
// and any of them may die at any point; recovery.ts finishes what a dead one left.
import { randomBytes } from "node:crypto";
import type { Hex } from "viem";
import { AuthorityRevertError, AuthorityUnavailableError } from "../../chain/authority.ts";
import { findRunsLogged } from "../../chain/find-runs-logged.ts";
import { logRuns } from "../../chain/log-runs.ts";
import { claimRunForBatch, getRun, giveRunReceipt, returnRunToLog, type RunLogItem } from "../runs/run.store.ts";
import { createBatch, getBatch, openBatchIndex, RunBatchExistsError, runBatchKey, transitionBatch, type RunBatchItem } from "./run-batch.store.ts";
import { buildRunTree } from "./merkle.ts";
import { hasValidReceipt, runReceiptLeafOf } from "./receipts.ts";
import { CONCURRENCY, mapLimit, message, type RunLogContext } from "./context.ts";
import { recordReceipt } from "../../analytics/record.ts";

/** A batch with its tree built (every batch that was sent). */
export type BuiltBatch = RunBatchItem & { root: Hex };

/** Returns a run claimed by `batchId` to pending, under its original place in the queue. */
export async function releaseRun({ services }: RunLogContext, batchId: string, runId: string): Promise<void> {
  const run = await getRun(services.tables, runId);
  if (!run || run.log_state !== "batching" || run.log_batch !== batchId) return;
  await returnRunToLog(services.tables, runId, batchId, run.finished_at);
}

/** Abandons a batch that never reached the chain and returns its runs to pending. */
export async function abandonBatch(context: RunLogContext, batch: RunBatchItem, from: "prepared" | "sending", expectUpdatedAt?: string): Promise<void> {
  const { services } = context;
  const moved = await transitionBatch(services.tables, batch.batch_id, from, "abandoned", expectUpdatedAt === undefined ? {} : { expectUpdatedAt });
  if (!moved) {
    const current = await getBatch(services.tables, batch.batch_id);
    if (current?.state !== "abandoned") return;
  }
  await mapLimit(batch.run_ids, CONCURRENCY, (runId) => releaseRun(context, batch.batch_id, runId));
  services.logger.warn("run batch abandoned; its runs are pending again", { batch_id: batch.batch_id, runs: batch.run_ids.length });
}

/** Gives every run of a logged batch its receipt (only those in `only`, when given). Returns the runs
 * this call gave one. */
export async function completeRuns({ services }: RunLogContext, batch: BuiltBatch, batchIndex: number, txHash: Hex, only?: ReadonlySet<string>): Promise<number> {
  const tree = buildRunTree(batch.leaves);
  const done = await mapLimit(batch.run_ids, CONCURRENCY, async (runId, i) => {
    if (only && !only.has(runId)) return false;
    const given = await giveRunReceipt(services.tables, runId, batch.batch_id, { batch_index: batchIndex, root: batch.root, leaf: batch.leaves[i]!, proof: tree.proofs[i]!, tx_hash: txHash });
    // The creator analytics count the receipt (once per run).
    if (given) recordReceipt(services.tables, services.logger, runId);
    return given;
  });
  return done.filter(Boolean).length;
}

/** Records a batch as logged (once: whoever records it first fixes its index), then completes its runs.
 * Returns the runs this call completed. */
export async function finalizeBatch(context: RunLogContext, batch: BuiltBatch, batchIndex: number, txHash: Hex): Promise<number> {
  const { services } = context;
  let index = batchIndex;
  let tx = txHash;
  // Logged is included, not final: below the network's finality depth the batch stays where each pass
  // looks at it again (finality.ts), and is logged again if a reorganisation takes it away.
  const included = services.config.network.finalityDepth > 0;
  const recorded = await transitionBatch(services.tables, batch.batch_id, "sending", "logged", { set: { batch_index: batchIndex, tx_hash: txHash }, included });
  if (!recorded) {
    const current = await getBatch(services.tables, batch.batch_id);
    if (current?.state !== "logged" || current.batch_index === undefined || current.tx_hash === undefined) {
      throw new Error(`run batch ${batch.batch_id} is ${current?.state ?? "missing"}; it cannot be recorded as logged`);
    }
    index = current.batch_index;
    tx = current.tx_hash;
  }
  const completed = await completeRuns(context, batch, index, tx);
  if (recorded) services.logger.info("run batch logged", { batch_id: batch.batch_id, batch_index: index, runs: batch.count, tx_hash: tx });
  return completed;
}

/**
 * Sends a batch that is in `sending` and records the outcome. A refusal by the contract abandons the
 * batch (nothing was logged). An unknown outcome (the chain stopped answering) leaves it in `sending`
 * unless its event is already visible: recovery completes it from the chain or sends it again later.
 */
export async function sendBatch(context: RunLogContext, batch: BuiltBatch, fromBlock: bigint): Promise<number> {
  const { services, authority } = context;
  let logged: Awaited<ReturnType<typeof logRuns>>;
  try {
    logged = await context.sendInTurn(() => logRuns(services.chain, authority, { root: batch.root, count: batch.count }));
  } catch (error) {
    if (error instanceof AuthorityRevertError) {
      await abandonBatch(context, batch, "sending");
      throw error;
    }
    const search = await findRunsLogged(services.chain, { root: batch.root, fromBlock }).catch(() => undefined);
    if (search?.found) return finalizeBatch(context, batch, search.found.batchIndex, search.found.transactionHash);
    services.logger.warn("run batch outcome unknown; it is recovered after the stale bound", { batch_id: batch.batch_id, cause: message(error) });
    throw error;
  }
  if (logged.batchIndex === undefined) throw new Error(`logRuns transaction ${logged.receipt.transactionHash} carries no RunsLogged event for batch ${batch.batch_id}`);
  return finalizeBatch(context, batch, logged.batchIndex, logged.receipt.transactionHash);
}

/** Claims `candidates`, builds their batch and logs it. Returns the runs it logged (0 when none could be
 * claimed, or when recovery took the batch over). */
export async function logBatch(context: RunLogContext, candidates: RunLogItem[]): Promise<number> {
  const { services } = context;
  const batchId = `rb_${randomBytes(12).toString("hex")}`;
  const claimedAt = new Date().toISOString();
  let claimError: unknown;
  const claimed = (
    await mapLimit(candidates, CONCURRENCY, (candidate) =>
      claimRunForBatch(services.tables, candidate.run_id, batchId, claimedAt).catch((error: unknown) => {
        claimError ??= error;
        return null;
      }),
    )
  ).filter((run): run is RunLogItem => run !== null);
  // A run whose fields changed into an invalid receipt since it was read goes straight back.
  const invalid = claimed.filter((run) => !hasValidReceipt(run));
  if (invalid.length > 0) {
    await mapLimit(invalid, CONCURRENCY, (run) => releaseRun(context, batchId, run.run_id));
    claimed.splice(0, claimed.length, ...claimed.filter((run) => !invalid.includes(run)));
  }
  if (claimed.length === 0) {
    if (claimError) throw claimError;
    return 0;
  }

  // Oldest first, as the queue orders them.
  claimed.sort((a, b) => (a.finished_at! < b.finished_at! ? -1 : a.finished_at! > b.finished_at! ? 1 : a.run_id < b.run_id ? -1 : 1));
  const leaves = claimed.map((run) => runReceiptLeafOf(run));
  const { root } = buildRunTree(leaves);
  const now = new Date().toISOString();
  const batch: BuiltBatch = {
    ...runBatchKey(batchId),
    batch_id: batchId,
    state: "prepared",
    root,
    count: claimed.length,
    run_ids: claimed.map((run) => run.run_id),
    leaves,
    attempts: 0,
    created_at: now,
    updated_at: now,
    ...openBatchIndex(batchId, now),
  };
  try {
    await createBatch(services.tables, batch);
  } catch (error) {
    // Recovery fenced the batch off (this logger took longer than the stale bound): its runs are recovery's.
    if (error instanceof RunBatchExistsError) return 0;
    throw error;
  }

  let fromBlock: bigint;
  try {
    fromBlock = await services.chain.client.getBlockNumber({ cacheTime: 0 });
  } catch (error) {
    await abandonBatch(context, batch, "prepared");
    throw new AuthorityUnavailableError("logRuns", { cause: error });
  }
  if (!(await transitionBatch(services.tables, batchId, "prepared", "sending", { set: { from_block: fromBlock.toString(), attempts: 1 } }))) return 0;
  return sendBatch(context, batch, fromBlock);
}
