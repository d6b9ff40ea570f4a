// Run-log batches in the `runs` table (docs/design/data-model.md): `runbatch#<batch_id>` / `batch`. A
// batch is written before anything is sent and moves `prepared` → `sending` → `logged` (or
// `abandoned`), each move conditioned on the state it leaves. While prepared or sending it sits in gsi1
// under `runbatch#open`, sorted by its last update, so recovery finds the batches a logger left behind.
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Hex } from "viem";
import { applied, queryAll, isConditionalCheckFailure, type Tables } from "../../adapters/tables/dynamo.ts";

/** gsi1pk of a batch that is not finished (gsi1sk: updated_at + "#" + batch_id). */
export const RUN_BATCH_OPEN = "runbatch#open";
/** gsi1pk of a logged batch whose block is not yet final (the network's finality depth under the head):
 * the run log looks at each until it is, and logs again one a reorganisation took away (finality.ts). */
export const RUN_BATCH_INCLUDED = "runbatch#included";

export type RunBatchState = "prepared" | "sending" | "logged" | "abandoned";

/** One batch of the run log. */
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
  /** The block holding the batch once it is final (decimal). */
  final_block?: string;
  /** Logs of the batch's root after the first (its block left the chain, or its send had no answer). */
  relogged?: number;
  created_at: string;
  updated_at: string;
  /** While the batch is prepared or sending: RUN_BATCH_OPEN, updated_at + "#" + batch_id. */
  gsi1pk?: string;
  gsi1sk?: string;
}

export function runBatchKey(batchId: string): { pk: string; sk: "batch" } {
  return { pk: `runbatch#${batchId}`, sk: "batch" };
}

/** The index entry of a batch that is open (prepared or sending) as of `at`. */
export function openBatchIndex(batchId: string, at: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: RUN_BATCH_OPEN, gsi1sk: `${at}#${batchId}` };
}

/** The batch id is taken; `found` is the batch found after the refusal (null if it is gone again). */
export class RunBatchExistsError extends Error {
  constructor(
    readonly batchId: string,
    readonly found: RunBatchItem | null,
  ) {
    super(`run batch ${batchId} already exists${found ? ` (${found.state})` : ""}`);
    this.name = "RunBatchExistsError";
  }
}

export async function getBatch(tables: Tables, batchId: string): Promise<RunBatchItem | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: runBatchKey(batchId), ConsistentRead: true }));
  return (out.Item as RunBatchItem | undefined) ?? null;
}

/** Writes a new batch (a logger's, or recovery's fence). Throws RunBatchExistsError, with the batch
 * found, when the id is taken. */
export async function createBatch(tables: Tables, batch: RunBatchItem): Promise<void> {
  try {
    // A batch id is used once: recovery fences off the id of a batch whose logger died before recording
    // it, and the late logger's own write is then refused.
    await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: batch, ConditionExpression: "attribute_not_exists(pk)" }));
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    throw new RunBatchExistsError(batch.batch_id, await getBatch(tables, batch.batch_id));
  }
}

/**
 * Moves a batch from `from` to `to`, setting `set` too. An open state (prepared, sending) puts the batch
 * in the open index under the time of the move; `included` puts a logged one in the index of batches
 * whose block is not yet final; any other move takes it out. With `expectUpdatedAt`, the move happens
 * only if the batch was not touched since it was read. False when the batch was not in `from` (or was
 * touched).
 */
export async function transitionBatch(tables: Tables, batchId: string, from: RunBatchState, to: RunBatchState, extra: { set?: Record<string, unknown>; expectUpdatedAt?: string; included?: boolean } = {}): Promise<boolean> {
  const now = new Date().toISOString();
  const indexed = to === "prepared" || to === "sending" ? RUN_BATCH_OPEN : to === "logged" && extra.included ? RUN_BATCH_INCLUDED : undefined;
  const open = indexed !== undefined;
  const sets = ["#state = :to", "updated_at = :now"];
  const values: Record<string, unknown> = { ":to": to, ":from": from, ":now": now };
  if (indexed) {
    sets.push("gsi1pk = :gpk", "gsi1sk = :gsk");
    values[":gpk"] = indexed;
    values[":gsk"] = `${now}#${batchId}`;
  }
  for (const [name, value] of Object.entries(extra.set ?? {})) {
    sets.push(`${name} = :${name}`);
    values[`:${name}`] = value;
  }
  // Exactly one caller moves a batch out of a state; with the update time too, exactly one recoverer
  // acts on what it read (a re-send).
  let condition = "#state = :from";
  if (extra.expectUpdatedAt !== undefined) {
    condition += " AND updated_at = :seen";
    values[":seen"] = extra.expectUpdatedAt;
  }
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runBatchKey(batchId),
      UpdateExpression: `SET ${sets.join(", ")}${open ? "" : " REMOVE gsi1pk, gsi1sk"}`,
      ConditionExpression: condition,
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: values,
    }),
  ));
}

/** Every logged batch whose block is not yet known to be final. */
export async function listIncludedBatches(tables: Tables): Promise<RunBatchItem[]> {
  return queryAll<RunBatchItem>(tables, {
    TableName: tables.name("runs"),
    IndexName: "gsi1",
    KeyConditionExpression: "gsi1pk = :gpk",
    ExpressionAttributeValues: { ":gpk": RUN_BATCH_INCLUDED },
  });
}

/** Every open batch last updated at or before `upper` (a gsi1 sort-key bound): recovery's work. */
export async function listOpenBatches(tables: Tables, upper: string): Promise<RunBatchItem[]> {
  return queryAll<RunBatchItem>(tables, {
    TableName: tables.name("runs"),
    IndexName: "gsi1",
    KeyConditionExpression: "gsi1pk = :gpk AND gsi1sk <= :upper",
    ExpressionAttributeValues: { ":gpk": RUN_BATCH_OPEN, ":upper": upper },
  });
}
