// Run records: one item per run in the `runs` table, written when the run is admitted and updated as
// it streams, finishes, settles and is logged on-chain. GET /v1/runs/{run_id} reads it; a stream that
// resumes with Last-Event-ID reads its accumulated output.
import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { keccak256, toHex, type Address } from "viem";
import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import type { FinishedRunStatus, RentalModel, RunStatus, SettlementState } from "../vocabulary.ts";
/** The run log: `pending` until a batch holding the run's receipt is logged on-chain. */
export type RunLogState = "pending" | "batching" | "logged";

export interface RunReceiptReference {
  /** The contract's batch index (RunsLogged event). */
  batch_index: number;
  /** The Merkle root logged for the batch. */
  root: `0x${string}`;
  /** The run's receipt leaf (the contract's runReceiptLeaf). */
  leaf: `0x${string}`;
  /** Sibling hashes from the leaf to the root (sorted-pair tree), for verifyRunReceipt. */
  proof: `0x${string}`[];
  /** The logRuns transaction. */
  tx_hash: `0x${string}`;
}

export interface RunRecord {
  pk: string; // run#<run_id>
  sk: "run";
  run_id: string;
  agent_id: string;
  listing_id: string;
  /** The on-chain listing id (bytes32). */
  on_chain_id: `0x${string}`;
  /** The renter's wallet, lower-case. */
  wallet: Address;
  rental_model: RentalModel;
  /** The listing's price the run was admitted at (wei, decimal string): the most its settlement may
   * charge, even if the creator raises the price while it runs. */
  price_wei?: string;
  status: RunStatus;
  /** The final output, once finished (a failed run's partial output is its streamed text). */
  output?: unknown;
  /** The text streamed so far (saved while the run is in flight; complete once finished): what a
   * resumed stream replays. Event ids are offsets into it. */
  streamed?: string;
  /** How the run's output leaves the service: `stream` (deltas are sent as the agent produces them, so
   * they are delivered output) or `sync` (nothing leaves before the run ends). Absent on older records:
   * read as stream, the mode that releases output as it is produced. */
  delivery?: "stream" | "sync";
  /** standard or priority. */
  priority?: "standard" | "priority";
  timeout_ms?: number;
  /** Why a failed run failed: {code, message}. */
  error?: { code: string; message: string };
  /** Wei charged, as a decimal string (bigint-safe). */
  cost_wei: string;
  duration_ms?: number;
  settlement: SettlementState;
  settlement_tx?: `0x${string}`;
  created_at: string;
  finished_at?: string;
  /** The run log's state; the receipt once logged. */
  log_state?: RunLogState;
  receipt?: RunReceiptReference;
  /** While the run log holds the run in a batch: the batch id. */
  log_batch?: string;
  /** While the run runs: gsi1pk "runs#running", gsi1sk stale-after + "#" + run_id (runningIndex). While the
   * run log is pending: gsi1pk "runlog#pending", gsi1sk finished_at + "#" + run_id. */
  gsi1pk?: string;
  gsi1sk?: string;
}

export const RUN_LOG_PENDING = "runlog#pending";
/** gsi1pk of a run while it runs (gsi1sk: the time after which it counts as stale + "#" + run_id); its
 * end moves it to RUN_LOG_PENDING in the same write, so the index holds only unfinished runs. */
export const RUNS_RUNNING = "runs#running";
/** How long past its own timeout a run may stay `running` before the stale-run sweep finishes it: far
 * longer than any request lives after its agent's timeout (settlement and the finishing retries). */
export const STALE_AFTER_TIMEOUT_MS = 5 * 60_000;

/** The index entry of a run that has just started (spread into its record). */
export function runningIndex(runId: string, createdAtMs: number, timeoutMs: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: RUNS_RUNNING, gsi1sk: `${new Date(createdAtMs + timeoutMs + STALE_AFTER_TIMEOUT_MS).toISOString()}#${runId}` };
}

export function runKey(runId: string): { pk: string; sk: "run" } {
  return { pk: `run#${runId}`, sk: "run" };
}

/** Run ids: "run_" + 32 lower-case hex characters (128 random bits). */
export const RUN_ID = /^run_[0-9a-f]{32}$/;

/** The run's bytes32 reference on-chain (consumeQuery's runRef, the receipt leaf's runId). */
export function runRef(runId: string): `0x${string}` {
  return keccak256(toHex(runId));
}

export function newRunId(): string {
  return `run_${randomBytes(16).toString("hex")}`;
}

/** Output kept per run (streamed text, and the final output serialized), in UTF-16 code units / bytes. */
export const MAX_OUTPUT_CHARS = 128 * 1024;

export async function createRun(tables: Tables, record: RunRecord): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: record, ConditionExpression: "attribute_not_exists(pk)" }));
}

/**
 * Makes sure run `runId` can no longer start: a marker record in its place, which createRun's condition
 * refuses. Written by a request that gave up waiting for another request's run under one
 * Idempotency-Key; "exists" when the run's record was there first (the run started: follow it).
 */
export async function barRun(tables: Tables, runId: string): Promise<"barred" | "exists"> {
  try {
    // Kept a day (a request runs for minutes at most), then deleted by the table's TTL.
    const item = { ...runKey(runId), run_id: runId, barred: true, created_at: new Date().toISOString(), ttl: Math.floor(Date.now() / 1000) + 86_400 };
    await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: item, ConditionExpression: "attribute_not_exists(pk)" }));
    return "barred";
  } catch (error) {
    if (isConditionalCheckFailure(error)) return "exists";
    throw error;
  }
}

/** The run's record; null when there is none, or only barRun's marker (no run started under that id). */
export async function getRun(tables: Tables, runId: string): Promise<RunRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: runKey(runId), ConsistentRead: true }));
  const item = out.Item as (RunRecord & { barred?: true }) | undefined;
  return item && item.barred !== true ? item : null;
}

/** Saves the text streamed so far (while the run is in flight), for resuming streams. */
export async function saveStreamedText(tables: Tables, runId: string, text: string): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: "SET streamed = :text",
      ConditionExpression: "#status = :running",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":text": text, ":running": "running" },
    }),
  ).catch((error: unknown) => {
    if (!isConditionalCheckFailure(error)) throw error;
  });
}

export interface RunFinish {
  status: FinishedRunStatus;
  output: unknown;
  streamed: string;
  error?: { code: string; message: string };
  cost_wei: string;
  duration_ms: number;
  settlement: SettlementState;
  settlement_tx?: `0x${string}`;
  finished_at: string;
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
  if (finish.settlement_tx) {
    set += ", settlement_tx = :tx";
    values[":tx"] = finish.settlement_tx;
  }
  return tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: `SET ${set}`,
      ConditionExpression: "#status = :running",
      ExpressionAttributeNames: { "#status": "status", "#output": "output", ...(finish.error ? { "#error": "error" } : {}) },
      ExpressionAttributeValues: values,
    }),
  ).then(
    () => "finished" as const,
    (error: unknown) => {
      // A retried write whose first attempt landed meets its own result: the run is finished.
      if (isConditionalCheckFailure(error)) return "already_finished" as const;
      throw error;
    },
  );
}

/**
 * The output text of a run a renter may see (a resumed stream, GET /v1/runs/{run_id}/events). A
 * per-query run that was not streamed releases nothing before it is charged: its text would otherwise be
 * output that reached the renter unpaid (docs/execution.md, "What a run charges").
 */
export function releasedText(record: RunRecord): string {
  const text = record.streamed ?? "";
  if (record.rental_model !== "per_query" || (record.delivery ?? "stream") === "stream") return text;
  return record.status !== "running" && record.settlement === "settled" ? text : "";
}

/** Updates the settlement of a finished run (a settlement that completed after the response). */
export async function updateSettlement(tables: Tables, runId: string, patch: { settlement: SettlementState; cost_wei?: string; settlement_tx?: `0x${string}`; status?: "failed"; error?: { code: string; message: string } }): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ":settlement": patch.settlement, ":pending": "pending" };
  const sets = ["settlement = :settlement"];
  if (patch.cost_wei !== undefined) (sets.push("cost_wei = :cost"), (values[":cost"] = patch.cost_wei));
  if (patch.settlement_tx !== undefined) (sets.push("settlement_tx = :tx"), (values[":tx"] = patch.settlement_tx));
  if (patch.status !== undefined) (sets.push("#status = :status"), (values[":status"] = patch.status), (names["#status"] = "status"));
  if (patch.error !== undefined) (sets.push("#error = :error"), (values[":error"] = patch.error), (names["#error"] = "error"));
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runKey(runId),
      UpdateExpression: `SET ${sets.join(", ")}`,
      ConditionExpression: "settlement = :pending",
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    }),
  ).catch((error: unknown) => {
    if (!isConditionalCheckFailure(error)) throw error;
  });
}
