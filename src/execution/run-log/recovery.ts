// The run log's recovery: a claim or a batch left behind by a logger that went quiet (older than the
// stale bound) is finished or undone. A batch that was never sent is abandoned and its runs go back to
// pending; a batch that may have been sent is looked up in the contract's RunsLogged events and
// completed from the chain, or sent again with the same root. A run's receipt therefore never appears
// under two roots, and no run is dropped. (A logger that stalls inside its send for longer than the
// bound may still land its transaction after recovery re-sent the batch: the same root then sits at two
// batch indexes, and the receipt verifies at both.)
import { findRunsLogged } from "../../chain/find-runs-logged.ts";
import { listClaimedRuns } from "../runs/run.store.ts";
import { createBatch, getBatch, listOpenBatches, RunBatchExistsError, runBatchKey, transitionBatch, type RunBatchItem } from "./run-batch.store.ts";
import { abandonBatch, completeRuns, finalizeBatch, releaseRun, sendBatch, type BuiltBatch } from "./batches.ts";
import { CONCURRENCY, mapLimit, message, type RunLogContext } from "./context.ts";

export interface RecoveryTally {
  /** Batches whose runs were given their receipts. */
  batches: number;
  /** Runs given their receipt. */
  runs: number;
}

/** Finishes or undoes a batch whose logger went quiet. Returns the runs it logged. */
async function recoverBatch(context: RunLogContext, batch: RunBatchItem): Promise<number> {
  const { services } = context;
  if (batch.state === "prepared") {
    await abandonBatch(context, batch, "prepared", batch.updated_at);
    return 0;
  }
  if (batch.state !== "sending" || !batch.root) return 0;
  const sending = batch as BuiltBatch;
  const search = await findRunsLogged(services.chain, { root: sending.root, fromBlock: sending.from_block === undefined ? services.config.MARKETPLACE_DEPLOY_BLOCK : BigInt(sending.from_block) });
  if (search.found) return finalizeBatch(context, sending, search.found.batchIndex, search.found.transactionHash);
  // Never seen on-chain: send the same root again (the same runs, the same proofs). Only one recoverer wins this update.
  const resend = await transitionBatch(services.tables, sending.batch_id, "sending", "sending", {
    set: { from_block: search.head.toString(), attempts: (sending.attempts ?? 1) + 1 },
    expectUpdatedAt: sending.updated_at,
  });
  if (!resend) return 0;
  services.logger.warn("run batch not found on-chain; sending it again", { batch_id: sending.batch_id, attempts: (sending.attempts ?? 1) + 1 });
  return sendBatch(context, sending, search.head);
}

/** Settles runs whose claim outlived the bound, by what became of their batch. Returns the runs logged. */
async function recoverClaims(context: RunLogContext, batchId: string, runIds: string[]): Promise<number> {
  const { services } = context;
  let batch = await getBatch(services.tables, batchId);
  if (!batch) {
    // The logger died before recording its batch: fence the batch id off, so a late logger cannot use it.
    const now = new Date().toISOString();
    const fence: RunBatchItem = { ...runBatchKey(batchId), batch_id: batchId, state: "abandoned", count: 0, run_ids: [], leaves: [], attempts: 0, created_at: now, updated_at: now };
    try {
      await createBatch(services.tables, fence);
      batch = fence;
    } catch (error) {
      if (!(error instanceof RunBatchExistsError)) throw error;
      // The late logger recorded it first: go by the batch it recorded.
      batch = error.found;
      if (!batch) return 0;
    }
  }
  const inBatch = new Set(batch.run_ids);
  if (batch.state === "logged" && batch.root && batch.batch_index !== undefined && batch.tx_hash !== undefined) {
    const completed = await completeRuns(context, batch as BuiltBatch, batch.batch_index, batch.tx_hash, new Set(runIds));
    // A claim that is not part of the batch (its claim's answer was lost) goes back to the queue.
    await mapLimit(runIds.filter((id) => !inBatch.has(id)), CONCURRENCY, (runId) => releaseRun(context, batchId, runId));
    return completed;
  }
  if (batch.state === "abandoned") {
    await mapLimit(runIds, CONCURRENCY, (runId) => releaseRun(context, batchId, runId));
  }
  // prepared / sending: the batch itself is recovered once it is stale.
  return 0;
}

/** Recovers every batch and claim not touched since `cutoff` (a gsi1 sort-key bound). */
export async function recoverStale(context: RunLogContext, cutoff: string): Promise<RecoveryTally> {
  const { services } = context;
  const tally: RecoveryTally = { batches: 0, runs: 0 };
  for (const batch of await listOpenBatches(services.tables, cutoff)) {
    try {
      const runs = await recoverBatch(context, batch);
      if (runs > 0) (tally.batches++, (tally.runs += runs));
    } catch (error) {
      services.logger.warn("run batch recovery failed; retried on the next pass", { batch_id: batch.batch_id, cause: message(error) });
    }
  }
  const byBatch = new Map<string, string[]>();
  for (const run of await listClaimedRuns(services.tables, cutoff)) {
    if (run.log_state !== "batching" || !run.log_batch) continue;
    byBatch.set(run.log_batch, [...(byBatch.get(run.log_batch) ?? []), run.run_id]);
  }
  for (const [batchId, runIds] of byBatch) {
    try {
      const runs = await recoverClaims(context, batchId, runIds);
      if (runs > 0) (tally.batches++, (tally.runs += runs));
    } catch (error) {
      services.logger.warn("run claim recovery failed; retried on the next pass", { batch_id: batchId, cause: message(error) });
    }
  }
  return tally;
}
