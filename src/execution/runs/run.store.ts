// Run records in the `runs` table (docs/design/data-model.md): `run#<run_id>` / `run`, and in the same
// place the marker that bars a run id. A run's gsi1 entry says what is left to do with it, and every
// move between these queues is part of the write that changes the run's state:
//   - `runs#running` while it runs (sort key: the time it counts as stale), for the stale-run sweep;
//   - `runlog#pending` once finished, until a run-log batch claims it (sort key: finished_at);
//   - `runlog#batching` while a batch holds it (sort key: claimed_at), for the run log's recovery;
//   - none once its receipt is logged.
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, batchGet, queryAll, scanAll, isConditionalCheckFailure, type Tables } from "../../adapters/tables/dynamo.ts";
import type { ClaimedRuns } from "../idempotency/protocol.ts";
import { STALE_AFTER_TIMEOUT_MS, type RunFinish, type RunReceiptReference, type RunRecord, type SettlementPatch } from "./run.ts";

/** gsi1pk of a run while it runs. */
export const RUNS_RUNNING = "runs#running";
/** gsi1pk of a finished run whose receipt is not logged yet. */
export const RUN_LOG_PENDING = "runlog#pending";
/** gsi1pk of a run claimed by a run-log batch that is not logged yet. */
export const RUN_LOG_BATCHING = "runlog#batching";

export function runKey(runId: string): { pk: string; sk: "run" } {
  return { pk: `run#${runId}`, sk: "run" };
}

/** The index entry of a run that has just started (spread into its record): found by the stale-run
 * sweep once it is `STALE_AFTER_TIMEOUT_MS` past its timeout. */
export function runningIndex(runId: string, createdAtMs: number, timeoutMs: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: RUNS_RUNNING, gsi1sk: `${new Date(createdAtMs + timeoutMs + STALE_AFTER_TIMEOUT_MS).toISOString()}#${runId}` };
}

/** A run item as the run log sees it: the run record plus the batch that claimed it. */
export type RunLogItem = RunRecord & { log_batch?: string };

/** The run id is taken: by a run that started, or by the marker that bars it (barRun). `found` is the
 * item found after the refusal (null if it was gone by then: a marker expires after a day). */
export class RunIdTakenError extends Error {
  constructor(
    readonly runId: string,
    readonly found: RunRecord | BarredRun | null,
  ) {
    super(`run id ${runId} is taken${found && "barred" in found ? " (barred)" : ""}`);
    this.name = "RunIdTakenError";
  }
}

/** The marker barRun leaves in a run's place. */
export interface BarredRun {
  pk: string;
  sk: "run";
  run_id: string;
  barred: true;
  created_at: string;
  ttl: number;
}

async function getItem(tables: Tables, runId: string): Promise<(RunRecord | BarredRun) | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: runKey(runId), ConsistentRead: true }));
  return (out.Item as RunRecord | BarredRun | undefined) ?? null;
}

/** Records a run that starts. Throws RunIdTakenError (with the item found) when its id is taken. */
export async function createRun(tables: Tables, record: RunRecord): Promise<void> {
  try {
    // A run id starts once; a barred id never starts.
    await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: record, ConditionExpression: "attribute_not_exists(pk)" }));
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    throw new RunIdTakenError(record.run_id, await getItem(tables, record.run_id));
  }
}

/**
 * Makes sure run `runId` can no longer start: a marker record in its place, which createRun's condition
 * refuses. Written by a request that gave up waiting for another request's run under one
 * Idempotency-Key; "exists" when the run's record was there first (the run started: follow it).
 */
export async function barRun(tables: Tables, runId: string): Promise<"barred" | "exists"> {
  try {
    // Kept a day (a request runs for minutes at most), then deleted by the table's TTL.
    const item: BarredRun = { ...runKey(runId), run_id: runId, barred: true, created_at: new Date().toISOString(), ttl: Math.floor(Date.now() / 1000) + 86_400 };
    // Only an id no run has taken is barred: a run that started first is followed, never hidden.
    await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: item, ConditionExpression: "attribute_not_exists(pk)" }));
    return "barred";
  } catch (error) {
    if (isConditionalCheckFailure(error)) return "exists";
    throw error;
  }
}

/** The run's record; null when there is none, or only barRun's marker (no run started under that id). */
export async function getRun(tables: Tables, runId: string): Promise<RunLogItem | null> {
  const item = await getItem(tables, runId);
  return item && !("barred" in item && item.barred === true) ? (item as RunLogItem) : null;
}

/** The runs as a request following another's Idempotency-Key reads and bars them. */
export function claimedRuns(tables: Tables): ClaimedRuns {
  return { get: (runId) => getRun(tables, runId), bar: (runId) => barRun(tables, runId) };
}

// --- A renter's runs of a listing -------------------------------------------------------------------
// One entry per run, `renter-runs#<on-chain id>#<wallet>` / `<created_at>#<run_id>`, written when the run
// is admitted: the renter's runs of one listing, newest first, without a second index on the run record
// (whose one gsi1 entry is its work queue). The entry names the run and its context; everything else is
// read from the run record, which stays the one place a run's state is written.

/** The partition of a renter's runs of a listing. */
function renterRunsPk(onChainId: string, wallet: string): string {
  return `renter-runs#${onChainId.toLowerCase()}#${wallet.toLowerCase()}`;
}

/** The query of a renter's runs of a listing, of one context when `contextId` is given. */
function renterRunsQuery(tables: Tables, onChainId: string, wallet: string, contextId: string | undefined) {
  return {
    TableName: tables.name("runs"),
    KeyConditionExpression: "pk = :pk",
    ...(contextId ? { FilterExpression: "context_id = :context" } : {}),
    ExpressionAttributeValues: { ":pk": renterRunsPk(onChainId, wallet), ...(contextId ? { ":context": contextId } : {}) },
  };
}

/** A renter's run as listed. */
export interface RenterRunEntry {
  run_id: string;
  created_at: string;
  context_id?: string;
}

/** Records a run among its renter's runs of its listing (idempotent: a retry writes the same entry). */
export async function recordRenterRun(tables: Tables, run: Pick<RunRecord, "run_id" | "on_chain_id" | "wallet" | "created_at" | "context_id">): Promise<void> {
  const entry: RenterRunEntry & { pk: string; sk: string } = {
    pk: renterRunsPk(run.on_chain_id, run.wallet),
    sk: `${run.created_at}#${run.run_id}`,
    run_id: run.run_id,
    created_at: run.created_at,
    ...(run.context_id ? { context_id: run.context_id } : {}),
  };
  // Unconditional: the entry is the same whatever writes it; an entry whose run never started (its id
  // was barred) is skipped by readers, which read each run's record.
  await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: entry }));
}

/** A page of a renter's runs of a listing, newest first, after the entry `after` (a sort key from a
 * previous page); `next` is the sort key to continue after, null on the last page. `contextId` keeps
 * only the runs of that context. */
export async function listRenterRuns(
  tables: Tables,
  onChainId: string,
  wallet: string,
  options: { limit: number; after?: string; contextId?: string },
): Promise<{ entries: RenterRunEntry[]; next: string | null }> {
  const entries: RenterRunEntry[] = [];
  let startKey: Record<string, unknown> | undefined = options.after ? { pk: renterRunsPk(onChainId, wallet), sk: options.after } : undefined;
  // A filtered query may return fewer items than its limit: read on until the page is full or the
  // partition ends.
  do {
    const out = await tables.doc.send(new QueryCommand({ ...renterRunsQuery(tables, onChainId, wallet, options.contextId), ScanIndexForward: false, Limit: options.limit - entries.length, ExclusiveStartKey: startKey }));
    entries.push(...((out.Items ?? []) as (RenterRunEntry & { sk: string })[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey && entries.length < options.limit);
  const last = entries.at(-1) as (RenterRunEntry & { sk?: string }) | undefined;
  return { entries: entries.map(({ run_id, created_at, context_id }) => ({ run_id, created_at, ...(context_id ? { context_id } : {}) })), next: startKey && last?.sk ? last.sk : null };
}

/** How many runs a renter has of a listing (of one context, with `contextId`). */
export async function countRenterRuns(tables: Tables, onChainId: string, wallet: string, options: { contextId?: string } = {}): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await tables.doc.send(new QueryCommand({ ...renterRunsQuery(tables, onChainId, wallet, options.contextId), Select: "COUNT", ExclusiveStartKey: startKey }));
    count += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** The records of runs by id (missing and barred ids are left out). */
export async function getRuns(tables: Tables, runIds: string[]): Promise<Map<string, RunRecord>> {
  const items = await batchGet(tables, "runs", runIds.map(runKey), { consistent: true });
  const runs = new Map<string, RunRecord>();
  for (const item of items as unknown as (RunRecord | BarredRun)[]) if (!("barred" in item && item.barred === true)) runs.set(item.run_id, item as RunRecord);
  return runs;
}

/** Saves the text streamed so far (while the run is in flight), for resuming streams. A run that has
 * finished meanwhile keeps its final text. */
export async function saveStreamedText(tables: Tables, runId: string, text: string): Promise<void> {
  await applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: "SET streamed = :text",
      // Only while running: a late save never overwrites the text a finished run recorded.
      ConditionExpression: "#status = :running",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":text": text, ":running": "running" },
    }),
  ));
}

/** Records the end of a run (once: only a running run finishes) and queues its receipt for the run log. */
export async function finishRun(tables: Tables, runId: string, finish: RunFinish): Promise<"finished" | "already_finished"> {
  const values: Record<string, unknown> = {
    ":status": finish.status,
    ":output": finish.output ?? null,
    ":streamed": finish.streamed,
    ":cost": finish.cost_wei,
    ":duration": finish.duration_ms,
    ":settlement": finish.settlement,
    ":finished": finish.finished_at,
    ":log": "pending",
    ":gpk": RUN_LOG_PENDING,
    ":gsk": `${finish.finished_at}#${runId}`,
    ":running": "running",
  };
  let set = "#status = :status, #output = :output, streamed = :streamed, cost_wei = :cost, duration_ms = :duration, settlement = :settlement, finished_at = :finished, log_state = :log, gsi1pk = :gpk, gsi1sk = :gsk";
  if (finish.error) {
    set += ", #error = :error";
    values[":error"] = finish.error;
  }
  if (finish.first_output_ms !== undefined) {
    set += ", first_output_ms = :first";
    values[":first"] = finish.first_output_ms;
  }
  if (finish.settlement_tx) {
    set += ", settlement_tx = :tx";
    values[":tx"] = finish.settlement_tx;
  }
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: runKey(runId),
        UpdateExpression: `SET ${set}`,
        // A run finishes once; leaving `running` also moves it from the sweep's queue to the run log's.
        ConditionExpression: "#status = :running",
        ExpressionAttributeNames: { "#status": "status", "#output": "output", ...(finish.error ? { "#error": "error" } : {}) },
        ExpressionAttributeValues: values,
      }),
    );
    return "finished";
  } catch (error) {
    // A retried write whose first attempt landed meets its own result: the run is finished.
    if (isConditionalCheckFailure(error)) return "already_finished";
    throw error;
  }
}

/** Updates the settlement of a finished run (a settlement that completed after the response). */
/** Records a pending run's settlement; false when the run's settlement was already recorded (another
 * settlement pass took it first), so the caller counts it once. */
export async function updateSettlement(tables: Tables, runId: string, patch: SettlementPatch): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ":settlement": patch.settlement, ":pending": "pending" };
  const sets = ["settlement = :settlement"];
  if (patch.cost_wei !== undefined) (sets.push("cost_wei = :cost"), (values[":cost"] = patch.cost_wei));
  if (patch.settlement_tx !== undefined) (sets.push("settlement_tx = :tx"), (values[":tx"] = patch.settlement_tx));
  if (patch.status !== undefined) (sets.push("#status = :status"), (values[":status"] = patch.status), (names["#status"] = "status"));
  if (patch.error !== undefined) (sets.push("#error = :error"), (values[":error"] = patch.error), (names["#error"] = "error"));
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: `SET ${sets.join(", ")}`,
      // A settlement is recorded once: only a run whose charge is still pending takes one.
      ConditionExpression: "settlement = :pending",
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    }),
  ));
}

/** Corrects a settled run's charge after a reorganisation moved it to another transaction (or the
 * contract refused it when it was sent again). False when the run is not settled (nothing to correct). */
export async function correctSettlement(tables: Tables, runId: string, patch: { settlement: "settled" | "refused"; cost_wei: string; settlement_tx?: `0x${string}` }): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: `SET settlement = :settlement, cost_wei = :cost${patch.settlement_tx ? ", settlement_tx = :tx" : " REMOVE settlement_tx"}`,
      // Only a run recorded settled is corrected: a pending one is the settlement pass's.
      ConditionExpression: "settlement = :settled",
      ExpressionAttributeValues: { ":settlement": patch.settlement, ":cost": patch.cost_wei, ":settled": "settled", ...(patch.settlement_tx ? { ":tx": patch.settlement_tx } : {}) },
    }),
  ));
}

/** Runs still `running` whose stale time is before `now` (at most `limit`): the stale-run sweep's work.
 * With `now` "any", every run still `running`, stale or not (a start that knows no process of its own
 * is running them: the local stack's, see finishInterruptedRuns). */
export async function listStaleRunningRuns(tables: Tables, now: number | "any", limit = 100): Promise<RunRecord[]> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("runs"),
      IndexName: "gsi1",
      KeyConditionExpression: now === "any" ? "gsi1pk = :running" : "gsi1pk = :running AND gsi1sk < :now",
      ExpressionAttributeValues: { ":running": RUNS_RUNNING, ...(now === "any" ? {} : { ":now": new Date(now).toISOString() }) },
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as RunRecord[];
}

// --- The run log's writes on runs -------------------------------------------------------------------

/**
 * Finished runs waiting to be logged, oldest first, page by page (each at most `limit` items), whose
 * queue key is at most `upper`. Runs whose per-query charge is still unconfirmed are left out (their
 * status and cost may still change). The caller stops reading when it has enough.
 */
export async function* pendingLogPages(tables: Tables, limit: number, upper: string): AsyncGenerator<RunLogItem[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(
      new QueryCommand({
        TableName: tables.name("runs"),
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :gpk AND gsi1sk <= :upper",
        FilterExpression: "log_state = :pending AND (attribute_not_exists(settlement) OR settlement <> :settling)",
        ExpressionAttributeValues: { ":gpk": RUN_LOG_PENDING, ":upper": upper, ":pending": "pending", ":settling": "pending" },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    yield (page.Items ?? []) as RunLogItem[];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Claims a pending run for batch `batchId`. Returns the run as claimed, or null when it is not (or no
 * longer) pending. */
export async function claimRunForBatch(tables: Tables, runId: string, batchId: string, claimedAt: string): Promise<RunLogItem | null> {
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: runKey(runId),
        UpdateExpression: "SET log_state = :batching, log_batch = :batch, gsi1pk = :gpk, gsi1sk = :gsk",
        // One logger claims a run: only a finished run still pending, whose charge is not being settled.
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
  } catch (error) {
    if (isConditionalCheckFailure(error)) return null;
    throw error;
  }
}

/** Returns a run claimed by `batchId` to pending, under its original place in the queue (`finishedAt`).
 * False when the batch no longer holds it. */
export async function returnRunToLog(tables: Tables, runId: string, batchId: string, finishedAt: string | undefined): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: "SET log_state = :pending, gsi1pk = :gpk, gsi1sk = :gsk REMOVE log_batch",
      // Only the batch that claimed the run gives it back.
      ConditionExpression: "log_state = :batching AND log_batch = :batch",
      ExpressionAttributeValues: { ":pending": "pending", ":gpk": RUN_LOG_PENDING, ":gsk": `${finishedAt}#${runId}`, ":batching": "batching", ":batch": batchId },
    }),
  ));
}

/** Gives a run claimed by `batchId` its receipt and takes it out of the queues. False when it already
 * has it (or another batch holds it). */
export async function giveRunReceipt(tables: Tables, runId: string, batchId: string, receipt: RunReceiptReference): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: "SET log_state = :logged, receipt = :receipt REMOVE gsi1pk, gsi1sk, log_batch",
      // Only the batch that claimed the run gives it a receipt: a run never sits under two roots.
      ConditionExpression: "log_state = :batching AND log_batch = :batch",
      ExpressionAttributeValues: { ":logged": "logged", ":receipt": receipt, ":batching": "batching", ":batch": batchId },
    }),
  ));
}

/** Points a logged run's receipt at the batch index and transaction that hold its root on the chain as
 * it stands (a reorganisation took the first away). False when the run's receipt is under another root. */
export async function moveRunReceipt(tables: Tables, runId: string, root: `0x${string}`, to: { batch_index: number; tx_hash: `0x${string}` }): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: "SET receipt.batch_index = :index, receipt.tx_hash = :tx",
      ConditionExpression: "log_state = :logged AND receipt.#root = :root",
      ExpressionAttributeNames: { "#root": "root" },
      ExpressionAttributeValues: { ":logged": "logged", ":root": root, ":index": to.batch_index, ":tx": to.tx_hash },
    }),
  ));
}

/** Every run held by a run-log batch whose claim's queue key is at most `upper` (claims older than the
 * stale bound: the run log's recovery). */
export async function listClaimedRuns(tables: Tables, upper: string): Promise<RunLogItem[]> {
  return queryAll<RunLogItem>(tables, {
    TableName: tables.name("runs"),
    IndexName: "gsi1",
    KeyConditionExpression: "gsi1pk = :gpk AND gsi1sk <= :upper",
    ExpressionAttributeValues: { ":gpk": RUN_LOG_BATCHING, ":upper": upper },
  });
}

/** Every finished run record (completed or failed), by a full scan: the creator analytics' rebuild only. */
export async function scanFinishedRuns(tables: Tables): Promise<RunRecord[]> {
  return scanAll<RunRecord>(tables, {
    TableName: tables.name("runs"),
    FilterExpression: "sk = :run AND #status IN (:completed, :failed)",
    ExpressionAttributeNames: { "#status": "status" },
    ExpressionAttributeValues: { ":run": "run", ":completed": "completed", ":failed": "failed" },
    ConsistentRead: true,
  });
}
