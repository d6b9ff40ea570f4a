// The run log: every finished run's receipt is logged on-chain, many runs per transaction. A pass reads
// the runs waiting in the `runlog#pending` index (oldest first), claims them, builds the Merkle tree of
// their receipt leaves, records the batch, sends `logRuns(root, count)` from the protocol authority and
// then gives every run its receipt (batch index, root, leaf, proof, transaction) for verifyRunReceipt.
//
// Every step is one conditional write, so any number of loggers may run at once and any of them may die
// at any point:
// - a run is claimed (`pending` → `batching`, with the batch id) by exactly one logger;
// - the batch item (pk `runbatch#<id>`) is written before anything is sent: `prepared`, then `sending`
//   (with the block the search for its event starts from) right before the transaction, then `logged`;
//   `abandoned` when it can never reach the chain;
// - a claim or a batch left behind (older than `staleAfterMs`) is recovered: a batch that was never
//   sent is abandoned and its runs go back to pending; a batch that may have been sent is looked up in
//   the contract's RunsLogged events and completed from the chain, or sent again with the same root.
//   A run's receipt therefore never appears under two roots, and no run is dropped. (A logger that
//   stalls inside its send for longer than the bound may still land its transaction after recovery
//   re-sent the batch: the same root then sits at two batch indexes, and the receipt verifies at both.)
// docs/run-log.md describes the receipt and how a renter verifies it.
import { settlePendingRuns } from "./settlement.ts";
import { finishStaleRuns } from "./stale-runs.ts";
import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { isAddress, type Hex } from "viem";
import type { Services } from "../services.ts";
import { findRunsLogged } from "../chain/find-runs-logged.ts";
import { logRuns } from "../chain/log-runs.ts";
import { AuthorityRevertError, AuthorityUnavailableError, type AuthoritySigner } from "../chain/authority.ts";
import { isConditionalCheckFailure } from "../adapters/tables/dynamo.ts";
import { RUN_LOG_PENDING, runKey, runRef, type RunReceiptReference, type RunRecord } from "./runs.ts";
import { buildRunTree, runReceiptLeaf, type RunReceiptFields } from "./merkle.ts";

/** gsi1pk of a run claimed by a batch that is not logged yet (gsi1sk: claimed_at + "#" + run_id). */
export const RUN_LOG_BATCHING = "runlog#batching";
/** gsi1pk of a batch that is not finished (gsi1sk: updated_at + "#" + batch_id). */
export const RUN_BATCH_OPEN = "runbatch#open";
/** Runs per batch unless told otherwise. */
export const DEFAULT_MAX_BATCH = 500;
/** The most runs one batch may hold (the batch item, with every run id and leaf, stays far below DynamoDB's 400 KB). */
export const MAX_BATCH_LIMIT = 1000;
/** Batches one pass sends at most unless told otherwise. */
export const DEFAULT_MAX_BATCHES = 20;
/** A claim or batch untouched for this long belongs to a logger that is gone; recovery takes it over. */
export const DEFAULT_STALE_AFTER_MS = 10 * 60_000;

/** Updates in flight at once while claiming and completing runs. */
const CONCURRENCY = 16;

export type RunBatchState = "prepared" | "sending" | "logged" | "abandoned";

/** One batch of the run log, in the `runs` table. */
export interface RunBatchItem {
  pk: string; // runbatch#<batch_id>
  sk: "batch";
  batch_id: string;
  state: RunBatchState;
  /** The Merkle root of `leaves` (absent on a batch that was abandoned before it was built). */
  root?: Hex;
  count: number;
  /** The batch's runs; run_ids[i]'s receipt leaf is leaves[i]. */
  run_ids: string[];
  leaves: Hex[];
  /** The first block that may hold the batch's RunsLogged event (decimal), set when the batch is sent. */
  from_block?: string;
  /** Sends of the batch so far. */
  attempts: number;
  batch_index?: number;
  tx_hash?: Hex;
  created_at: string;
  updated_at: string;
  /** While the batch is prepared or sending: RUN_BATCH_OPEN, updated_at + "#" + batch_id. */
  gsi1pk?: string;
  gsi1sk?: string;
}

/** A run item as the run log sees it: the run record plus the batch that claimed it. */
type RunLogItem = RunRecord & { log_batch?: string };

export interface LogPendingRunsOptions {
  /** Runs per batch (1 to MAX_BATCH_LIMIT; default DEFAULT_MAX_BATCH). */
  maxBatch?: number;
  /** Batches sent by this pass at most (default DEFAULT_MAX_BATCHES). */
  maxBatches?: number;
  /** No new batch starts after this time (milliseconds since the epoch). */
  deadline?: number;
  /** Age after which a claim or an unfinished batch is recovered (default DEFAULT_STALE_AFTER_MS). It
   * must exceed the longest a logger may take between claiming and recording the outcome. */
  staleAfterMs?: number;
}

export interface RunLogPass {
  /** Batches whose runs this pass gave their receipts (recovered ones included). */
  batches: number;
  /** Runs this pass gave their receipt. */
  runs: number;
}

export function runBatchKey(batchId: string): { pk: string; sk: "batch" } {
  return { pk: `runbatch#${batchId}`, sk: "batch" };
}

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** The receipt fields of a finished run. Throws RangeError for a run that has no valid receipt. */
export function runReceiptFields(run: Pick<RunRecord, "run_id" | "on_chain_id" | "wallet" | "status" | "cost_wei" | "duration_ms">): RunReceiptFields {
  if (run.status !== "completed" && run.status !== "failed") throw new RangeError(`run ${run.run_id} has not finished`);
  if (typeof run.on_chain_id !== "string" || !BYTES32.test(run.on_chain_id)) throw new RangeError(`run ${run.run_id} has no valid on-chain listing id`);
  if (typeof run.wallet !== "string" || !isAddress(run.wallet, { strict: false })) throw new RangeError(`run ${run.run_id} has no valid renter wallet`);
  if (typeof run.cost_wei !== "string" || !DECIMAL.test(run.cost_wei)) throw new RangeError(`run ${run.run_id} has no valid cost_wei`);
  if (!Number.isSafeInteger(run.duration_ms) || run.duration_ms! < 0) throw new RangeError(`run ${run.run_id} has no valid duration_ms`);
  return {
    runId: runRef(run.run_id),
    listingId: run.on_chain_id,
    renter: run.wallet,
    status: run.status === "completed" ? 0 : 1,
    costWei: BigInt(run.cost_wei),
    durationMs: BigInt(run.duration_ms!),
  };
}

/** The receipt leaf of a finished run (the contract's runReceiptLeaf of its fields). */
export function runReceiptLeafOf(run: Pick<RunRecord, "run_id" | "on_chain_id" | "wallet" | "status" | "cost_wei" | "duration_ms">): Hex {
  return runReceiptLeaf(runReceiptFields(run));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A timestamp bound for gsi1sk range conditions: every key written at or before `ms` sorts below it. */
function upTo(ms: number): string {
  return `${new Date(ms).toISOString()}~`;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await run(items[index]!, index);
      }
    }),
  );
  return results;
}

/** Every item of a gsi1 partition whose sort key is at most `upper`. */
async function queryIndex<T>(services: Services, gsi1pk: string, upper: string): Promise<T[]> {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await services.tables.doc.send(
      new QueryCommand({
        TableName: services.tables.name("runs"),
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :gpk AND gsi1sk <= :upper",
        ExpressionAttributeValues: { ":gpk": gsi1pk, ":upper": upper },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

async function getBatch(services: Services, batchId: string): Promise<RunBatchItem | null> {
  const out = await services.tables.doc.send(new GetCommand({ TableName: services.tables.name("runs"), Key: runBatchKey(batchId), ConsistentRead: true }));
  return (out.Item as RunBatchItem | undefined) ?? null;
}

async function getRunItem(services: Services, runId: string): Promise<RunLogItem | null> {
  const out = await services.tables.doc.send(new GetCommand({ TableName: services.tables.name("runs"), Key: runKey(runId), ConsistentRead: true }));
  return (out.Item as RunLogItem | undefined) ?? null;
}

// --- Runs -------------------------------------------------------------------------------------------

/** Finished runs waiting to be logged, oldest first, up to `limit`; runs whose per-query charge is still
 * unconfirmed are skipped (their status and cost may still change), and so are runs with no valid receipt. */
async function readPendingRuns(services: Services, limit: number, upper: string): Promise<RunLogItem[]> {
  const runs: RunLogItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await services.tables.doc.send(
      new QueryCommand({
        TableName: services.tables.name("runs"),
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :gpk AND gsi1sk <= :upper",
        FilterExpression: "log_state = :pending AND (attribute_not_exists(settlement) OR settlement <> :settling)",
        ExpressionAttributeValues: { ":gpk": RUN_LOG_PENDING, ":upper": upper, ":pending": "pending", ":settling": "pending" },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as RunLogItem[]) {
      try {
        runReceiptFields(item);
        runs.push(item);
      } catch (error) {
        services.logger.error("run has no valid receipt; it is not logged", { run_id: item.run_id, cause: message(error) });
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && runs.length < limit);
  return runs.slice(0, limit);
}

/** Claims a pending run for a batch. Returns the run as claimed, or null when it is not (or no longer) pending. */
async function claimRun(services: Services, runId: string, batchId: string, claimedAt: string): Promise<RunLogItem | null> {
  const out = await services.tables.doc.send(
    new UpdateCommand({
      TableName: services.tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: "SET log_state = :batching, log_batch = :batch, gsi1pk = :gpk, gsi1sk = :gsk",
      ConditionExpression: "log_state = :pending AND #status IN (:completed, :failed) AND (attribute_not_exists(settlement) OR settlement <> :settling)",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: {
        ":batching": "batching",
        ":batch": batchId,
        ":gpk": RUN_LOG_BATCHING,
        ":gsk": `${claimedAt}#${runId}`,
        ":pending": "pending",
        ":completed": "completed",
        ":failed": "failed",
        ":settling": "pending",
      },
      ReturnValues: "ALL_NEW",
    }),
  );
  return out.Attributes as RunLogItem;
}

/** Returns a run claimed by `batchId` to pending, under its original place in the queue. */
async function releaseRun(services: Services, batchId: string, runId: string): Promise<void> {
  const run = await getRunItem(services, runId);
  if (!run || run.log_state !== "batching" || run.log_batch !== batchId) return;
  await services.tables.doc
    .send(
      new UpdateCommand({
        TableName: services.tables.name("runs"),
        Key: runKey(runId),
        UpdateExpression: "SET log_state = :pending, gsi1pk = :gpk, gsi1sk = :gsk REMOVE log_batch",
        ConditionExpression: "log_state = :batching AND log_batch = :batch",
        ExpressionAttributeValues: { ":pending": "pending", ":gpk": RUN_LOG_PENDING, ":gsk": `${run.finished_at}#${runId}`, ":batching": "batching", ":batch": batchId },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionalCheckFailure(error)) throw error;
    });
}

/** Gives a run claimed by `batchId` its receipt and takes it out of the queue. False when it already has it. */
async function completeRun(services: Services, batchId: string, runId: string, receipt: RunReceiptReference): Promise<boolean> {
  try {
    await services.tables.doc.send(
      new UpdateCommand({
        TableName: services.tables.name("runs"),
        Key: runKey(runId),
        UpdateExpression: "SET log_state = :logged, receipt = :receipt REMOVE gsi1pk, gsi1sk, log_batch",
        ConditionExpression: "log_state = :batching AND log_batch = :batch",
        ExpressionAttributeValues: { ":logged": "logged", ":receipt": receipt, ":batching": "batching", ":batch": batchId },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

// --- Batches ----------------------------------------------------------------------------------------

/** Moves a batch from one state to another (conditional on the state it is read in). False when it was not in `from`. */
async function transitionBatch(services: Services, batchId: string, from: RunBatchState, to: RunBatchState, extra: { set?: Record<string, unknown>; expectUpdatedAt?: string } = {}): Promise<boolean> {
  const now = new Date().toISOString();
  const open = to === "prepared" || to === "sending";
  const sets = ["#state = :to", "updated_at = :now"];
  const values: Record<string, unknown> = { ":to": to, ":from": from, ":now": now };
  if (open) {
    sets.push("gsi1pk = :gpk", "gsi1sk = :gsk");
    values[":gpk"] = RUN_BATCH_OPEN;
    values[":gsk"] = `${now}#${batchId}`;
  }
  for (const [name, value] of Object.entries(extra.set ?? {})) {
    sets.push(`${name} = :${name}`);
    values[`:${name}`] = value;
  }
  let condition = "#state = :from";
  if (extra.expectUpdatedAt !== undefined) {
    condition += " AND updated_at = :seen";
    values[":seen"] = extra.expectUpdatedAt;
  }
  try {
    await services.tables.doc.send(
      new UpdateCommand({
        TableName: services.tables.name("runs"),
        Key: runBatchKey(batchId),
        UpdateExpression: `SET ${sets.join(", ")}${open ? "" : " REMOVE gsi1pk, gsi1sk"}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** Abandons a batch that never reached the chain and returns its runs to pending. */
async function abandonBatch(services: Services, batch: RunBatchItem, from: "prepared" | "sending", expectUpdatedAt?: string): Promise<void> {
  const moved = await transitionBatch(services, batch.batch_id, from, "abandoned", expectUpdatedAt === undefined ? {} : { expectUpdatedAt });
  if (!moved) {
    const current = await getBatch(services, batch.batch_id);
    if (current?.state !== "abandoned") return;
  }
  await mapLimit(batch.run_ids, CONCURRENCY, (runId) => releaseRun(services, batch.batch_id, runId));
  services.logger.warn("run batch abandoned; its runs are pending again", { batch_id: batch.batch_id, runs: batch.run_ids.length });
}

/** Gives every run of a logged batch its receipt. Returns the runs this call gave one. */
async function completeRuns(services: Services, batch: RunBatchItem & { root: Hex }, batchIndex: number, txHash: Hex, only?: ReadonlySet<string>): Promise<number> {
  const tree = buildRunTree(batch.leaves);
  const done = await mapLimit(batch.run_ids, CONCURRENCY, async (runId, i) => {
    if (only && !only.has(runId)) return false;
    return completeRun(services, batch.batch_id, runId, { batch_index: batchIndex, root: batch.root, leaf: batch.leaves[i]!, proof: tree.proofs[i]!, tx_hash: txHash });
  });
  return done.filter(Boolean).length;
}

/** Records a batch as logged (once: whoever records it first fixes its index), then completes its runs.
 * Returns the runs this call completed. */
async function finalizeBatch(services: Services, batch: RunBatchItem & { root: Hex }, batchIndex: number, txHash: Hex): Promise<number> {
  let index = batchIndex;
  let tx = txHash;
  const recorded = await transitionBatch(services, batch.batch_id, "sending", "logged", { set: { batch_index: batchIndex, tx_hash: txHash } });
  if (!recorded) {
    const current = await getBatch(services, batch.batch_id);
    if (current?.state !== "logged" || current.batch_index === undefined || current.tx_hash === undefined) {
      throw new Error(`run batch ${batch.batch_id} is ${current?.state ?? "missing"}; it cannot be recorded as logged`);
    }
    index = current.batch_index;
    tx = current.tx_hash;
  }
  const completed = await completeRuns(services, batch, index, tx);
  if (recorded) services.logger.info("run batch logged", { batch_id: batch.batch_id, batch_index: index, runs: batch.count, tx_hash: tx });
  return completed;
}

/** Looks for the first RunsLogged event of `root` from `fromBlock` to the head. */
async function findLoggedRoot(services: Services, root: Hex, fromBlock: bigint): Promise<{ found?: { batchIndex: number; txHash: Hex }; head: bigint }> {
  const search = await findRunsLogged(services.chain, { root, fromBlock });
  return search.found ? { found: { batchIndex: search.found.batchIndex, txHash: search.found.transactionHash }, head: search.head } : { head: search.head };
}

/** The tail of each signer's queue of logRuns sends: a process sends one batch at a time, so its batches
 * never race each other for the authority's nonces. */
const sendQueues = new WeakMap<AuthoritySigner, Promise<unknown>>();

function sendInTurn<T>(authority: AuthoritySigner, send: () => Promise<T>): Promise<T> {
  const result = (sendQueues.get(authority) ?? Promise.resolve()).then(send);
  sendQueues.set(authority, result.catch(() => undefined));
  return result;
}

/**
 * Sends a batch that is in `sending` and records the outcome. A refusal by the contract abandons the
 * batch (nothing was logged). An unknown outcome (the chain stopped answering) leaves it in `sending`
 * unless its event is already visible: recovery completes it from the chain or sends it again later.
 */
async function sendBatch(services: Services, authority: AuthoritySigner, batch: RunBatchItem & { root: Hex }, fromBlock: bigint): Promise<number> {
  let logged: Awaited<ReturnType<typeof logRuns>>;
  try {
    logged = await sendInTurn(authority, () => logRuns(services.chain, authority, { root: batch.root, count: batch.count }));
  } catch (error) {
    if (error instanceof AuthorityRevertError) {
      await abandonBatch(services, batch, "sending");
      throw error;
    }
    const search = await findLoggedRoot(services, batch.root, fromBlock).catch(() => undefined);
    if (search?.found) return finalizeBatch(services, batch, search.found.batchIndex, search.found.txHash);
    services.logger.warn("run batch outcome unknown; it is recovered after the stale bound", { batch_id: batch.batch_id, cause: message(error) });
    throw error;
  }
  if (logged.batchIndex === undefined) throw new Error(`logRuns transaction ${logged.receipt.transactionHash} carries no RunsLogged event for batch ${batch.batch_id}`);
  return finalizeBatch(services, batch, logged.batchIndex, logged.receipt.transactionHash);
}

/** Claims `candidates`, builds their batch and logs it. Returns the runs it logged (0 when none could be
 * claimed, or when recovery took the batch over). */
async function logBatch(services: Services, authority: AuthoritySigner, candidates: RunLogItem[]): Promise<number> {
  const batchId = `rb_${randomBytes(12).toString("hex")}`;
  const claimedAt = new Date().toISOString();
  let claimError: unknown;
  const claimed = (
    await mapLimit(candidates, CONCURRENCY, (candidate) =>
      claimRun(services, candidate.run_id, batchId, claimedAt).catch((error: unknown) => {
        if (!isConditionalCheckFailure(error)) claimError ??= error;
        return null;
      }),
    )
  ).filter((run): run is RunLogItem => run !== null);
  // A run whose fields changed into an invalid receipt since it was read goes straight back.
  const invalid = claimed.filter((run) => {
    try {
      runReceiptFields(run);
      return false;
    } catch {
      return true;
    }
  });
  if (invalid.length > 0) {
    await mapLimit(invalid, CONCURRENCY, (run) => releaseRun(services, batchId, run.run_id));
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
  const batch: RunBatchItem & { root: Hex } = {
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
    gsi1pk: RUN_BATCH_OPEN,
    gsi1sk: `${now}#${batchId}`,
  };
  try {
    await services.tables.doc.send(new PutCommand({ TableName: services.tables.name("runs"), Item: batch, ConditionExpression: "attribute_not_exists(pk)" }));
  } catch (error) {
    // Recovery fenced the batch off (this logger took longer than the stale bound): its runs are recovery's.
    if (isConditionalCheckFailure(error)) return 0;
    throw error;
  }

  let fromBlock: bigint;
  try {
    fromBlock = await services.chain.client.getBlockNumber({ cacheTime: 0 });
  } catch (error) {
    await abandonBatch(services, batch, "prepared");
    throw new AuthorityUnavailableError("logRuns", { cause: error });
  }
  if (!(await transitionBatch(services, batchId, "prepared", "sending", { set: { from_block: fromBlock.toString(), attempts: 1 } }))) return 0;
  return sendBatch(services, authority, batch, fromBlock);
}

// --- Recovery ---------------------------------------------------------------------------------------

/** Finishes or undoes a batch whose logger went quiet. Returns the runs it logged. */
async function recoverBatch(services: Services, authority: AuthoritySigner, batch: RunBatchItem): Promise<number> {
  if (batch.state === "prepared") {
    await abandonBatch(services, batch, "prepared", batch.updated_at);
    return 0;
  }
  if (batch.state !== "sending" || !batch.root) return 0;
  const sending = batch as RunBatchItem & { root: Hex };
  const search = await findLoggedRoot(services, sending.root, sending.from_block === undefined ? services.config.MARKETPLACE_DEPLOY_BLOCK : BigInt(sending.from_block));
  if (search.found) return finalizeBatch(services, sending, search.found.batchIndex, search.found.txHash);
  // Never seen on-chain: send the same root again (the same runs, the same proofs). Only one recoverer wins this update.
  const resend = await transitionBatch(services, sending.batch_id, "sending", "sending", {
    set: { from_block: search.head.toString(), attempts: (sending.attempts ?? 1) + 1 },
    expectUpdatedAt: sending.updated_at,
  });
  if (!resend) return 0;
  services.logger.warn("run batch not found on-chain; sending it again", { batch_id: sending.batch_id, attempts: (sending.attempts ?? 1) + 1 });
  return sendBatch(services, authority, sending, search.head);
}

/** Settles runs whose claim outlived the bound, by what became of their batch. Returns the runs logged. */
async function recoverClaims(services: Services, batchId: string, runIds: string[]): Promise<number> {
  let batch = await getBatch(services, batchId);
  if (!batch) {
    // The logger died before recording its batch: fence the batch id off, so a late logger cannot use it.
    const now = new Date().toISOString();
    const fence: RunBatchItem = { ...runBatchKey(batchId), batch_id: batchId, state: "abandoned", count: 0, run_ids: [], leaves: [], attempts: 0, created_at: now, updated_at: now };
    try {
      await services.tables.doc.send(new PutCommand({ TableName: services.tables.name("runs"), Item: fence, ConditionExpression: "attribute_not_exists(pk)" }));
      batch = fence;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      batch = await getBatch(services, batchId);
      if (!batch) return 0;
    }
  }
  const inBatch = new Set(batch.run_ids);
  if (batch.state === "logged" && batch.root && batch.batch_index !== undefined && batch.tx_hash !== undefined) {
    const completed = await completeRuns(services, batch as RunBatchItem & { root: Hex }, batch.batch_index, batch.tx_hash, new Set(runIds));
    // A claim that is not part of the batch (its claim's answer was lost) goes back to the queue.
    await mapLimit(runIds.filter((id) => !inBatch.has(id)), CONCURRENCY, (runId) => releaseRun(services, batchId, runId));
    return completed;
  }
  if (batch.state === "abandoned") {
    await mapLimit(runIds, CONCURRENCY, (runId) => releaseRun(services, batchId, runId));
  }
  // prepared / sending: the batch itself is recovered once it is stale.
  return 0;
}

async function recoverStale(services: Services, authority: AuthoritySigner, staleAfterMs: number): Promise<RunLogPass> {
  const cutoff = upTo(Date.now() - staleAfterMs);
  const tally: RunLogPass = { batches: 0, runs: 0 };
  const batches = await queryIndex<RunBatchItem>(services, RUN_BATCH_OPEN, cutoff);
  for (const batch of batches) {
    try {
      const runs = await recoverBatch(services, authority, batch);
      if (runs > 0) (tally.batches++, (tally.runs += runs));
    } catch (error) {
      services.logger.warn("run batch recovery failed; retried on the next pass", { batch_id: batch.batch_id, cause: message(error) });
    }
  }
  const claims = await queryIndex<RunLogItem>(services, RUN_LOG_BATCHING, cutoff);
  const byBatch = new Map<string, string[]>();
  for (const run of claims) {
    if (run.log_state !== "batching" || !run.log_batch) continue;
    byBatch.set(run.log_batch, [...(byBatch.get(run.log_batch) ?? []), run.run_id]);
  }
  for (const [batchId, runIds] of byBatch) {
    try {
      const runs = await recoverClaims(services, batchId, runIds);
      if (runs > 0) (tally.batches++, (tally.runs += runs));
    } catch (error) {
      services.logger.warn("run claim recovery failed; retried on the next pass", { batch_id: batchId, cause: message(error) });
    }
  }
  return tally;
}

// --- Passes -----------------------------------------------------------------------------------------

const warnedWithoutAuthority = new WeakSet<Services>();

/**
 * One pass of the run log: recovers what stale loggers left behind, then logs the runs pending when the
 * pass started, in batches of `maxBatch`, oldest first. Rejects when the chain cannot be reached or the
 * contract refuses (the runs of the failed batch stay pending, or are recovered once stale); resolves
 * with what was logged otherwise. Without an authority key it logs nothing (and says so once).
 */
export async function logPendingRuns(services: Services, options: LogPendingRunsOptions = {}): Promise<RunLogPass> {
  const authority = services.authority;
  if (!authority) {
    if (!warnedWithoutAuthority.has(services)) {
      warnedWithoutAuthority.add(services);
      services.logger.warn("run log disabled: no protocol authority key is configured (AUTHORITY_PRIVATE_KEY)");
    }
    return { batches: 0, runs: 0 };
  }
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > MAX_BATCH_LIMIT) throw new RangeError(`maxBatch must be an integer from 1 to ${MAX_BATCH_LIMIT}`);
  const maxBatches = options.maxBatches ?? DEFAULT_MAX_BATCHES;
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const upper = upTo(Date.now());

  const tally = await recoverStale(services, authority, staleAfterMs);
  for (let sent = 0; sent < maxBatches && (options.deadline === undefined || Date.now() < options.deadline); sent++) {
    const candidates = await readPendingRuns(services, maxBatch, upper);
    if (candidates.length === 0) break;
    const logged = await logBatch(services, authority, candidates);
    if (logged === 0) break;
    tally.batches++;
    tally.runs += logged;
  }
  return tally;
}

export interface RunLogLoop {
  /** Stops the loop; resolves once the pass in flight (if any) has finished. */
  stop(): Promise<void>;
}

/** Runs a pass every `intervalMs` (never two at once) until stopped: the run log of a long-lived process. */
export function startRunLogLoop(services: Services, options: { intervalMs: number } & Omit<LogPendingRunsOptions, "deadline">): RunLogLoop {
  const { intervalMs, ...passOptions } = options;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        // Runs whose end was never recorded are finished first; runs whose charge is still unconfirmed
        // are not logged until it is: settle them next.
        await finishStaleRuns(services);
        await settlePendingRuns(services);
        const pass = await logPendingRuns(services, passOptions);
        if (pass.runs > 0) services.logger.debug("run log pass", { ...pass });
      } catch (error) {
        services.logger.warn("run log pass failed; retried on the next pass", { cause: message(error) });
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
