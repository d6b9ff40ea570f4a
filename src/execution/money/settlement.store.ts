// The deferred settlement queue in `runs` (docs/design/data-model.md): `settle#pending` / `<run_id>`,
// one entry per run whose per-query charge could not be confirmed when it finished. The settlement
// pass reads it (in run id order); the health check counts it.
import { DeleteCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { countPartition, type Tables } from "../../adapters/tables/dynamo.ts";

const QUEUE = "settle#pending";
const key = (runId: string) => ({ pk: QUEUE, sk: runId });

export interface PendingSettlement {
  run_id: string;
  /** When the charge was deferred (the run's end), ISO 8601. */
  since?: string;
}

/** Queues a run's settlement. Unconditional: a second entry for one run is the same item. */
export async function putPendingSettlement(tables: Tables, runId: string, since: string): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("runs"), Item: { ...key(runId), since } }));
}

/** Up to `limit` queued settlements (strongly consistent: a run queued a moment ago is seen). */
export async function listPendingSettlements(tables: Tables, limit = 100): Promise<PendingSettlement[]> {
  const out = await tables.doc.send(
    new QueryCommand({ TableName: tables.name("runs"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": QUEUE }, ConsistentRead: true, Limit: limit }),
  );
  return (out.Items ?? []).map((item) => ({ run_id: item.sk as string, ...(typeof item.since === "string" ? { since: item.since } : {}) }));
}

/** Takes a run's settlement out of the queue (it is settled, refused, or no longer pending). */
export async function deletePendingSettlement(tables: Tables, runId: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("runs"), Key: key(runId) }));
}

/** How many settlements are queued (the health check's figure). */
export function countPendingSettlements(tables: Tables): Promise<number> {
  return countPartition(tables, "runs", QUEUE);
}
