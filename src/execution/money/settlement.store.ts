// The deferred settlement queue in `runs` (docs/design/data-model.md): `settle#pending` / `<run_id>`,
// one entry per run whose per-query charge could not be confirmed when it finished. The settlement
// pass reads it (in run id order); the health check counts it.
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, countPartition, type Tables } from "../../adapters/tables/dynamo.ts";

const QUEUE = "settle#pending";
const key = (runId: string) => ({ pk: QUEUE, sk: runId });

export interface PendingSettlement {
  run_id: string;
  /** When the charge was deferred (the run's end), ISO 8601. */
  since?: string;
  /** The first block the run's charge can be in (decimal; the head when it was handed to the settler). */
  from_block?: string;
  /** When the settlement pass last handed the charge to the settler again, ISO 8601. */
  requeued_at?: string;
  /** False when the run could not hand its charge to the settler (the queue was unreachable). */
  handed?: boolean;
}

/** Queues a run's settlement. Unconditional: a second entry for one run is the same item. */
export async function putPendingSettlement(tables: Tables, runId: string, since: string, fromBlock?: bigint, handed = true): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: { ...key(runId), since, handed, ...(fromBlock === undefined ? {} : { from_block: fromBlock.toString() }) } }));
}

/** Records that the pass handed the charge to the settler again. False when the entry is gone. */
export async function markRequeued(tables: Tables, runId: string, at: string): Promise<boolean> {
  return applied(
    tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: key(runId),
        UpdateExpression: "SET requeued_at = :at",
        // Only an entry still queued: a settled run's entry is not brought back.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":at": at },
      }),
    ),
  );
}

/** Up to `limit` queued settlements (strongly consistent: a run queued a moment ago is seen). */
export async function listPendingSettlements(tables: Tables, limit = 100): Promise<PendingSettlement[]> {
  const out = await tables.doc.send(
    new QueryCommand({ TableName: tables.name("runs"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": QUEUE }, ConsistentRead: true, Limit: limit }),
  );
  return (out.Items ?? []).map((item) => ({
    run_id: item.sk as string,
    ...(typeof item.since === "string" ? { since: item.since } : {}),
    ...(typeof item.from_block === "string" ? { from_block: item.from_block } : {}),
    ...(typeof item.requeued_at === "string" ? { requeued_at: item.requeued_at } : {}),
    ...(typeof item.handed === "boolean" ? { handed: item.handed } : {}),
  }));
}

/** Takes a run's settlement out of the queue (it is settled, refused, or no longer pending). */
export async function deletePendingSettlement(tables: Tables, runId: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("runs"), Key: key(runId) }));
}

/** How many settlements are queued (the health check's figure). */
export function countPendingSettlements(tables: Tables): Promise<number> {
  return countPartition(tables, "runs", QUEUE);
}
