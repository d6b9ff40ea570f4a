// The tasks a payer names by A2A's x402 extension, in the `idempotency` table (docs/design/data-model.md):
// `a2ax402#<task id>` / `a2ax402`, one item per task id a payment was submitted for. The payment-required
// answer names a task id (a run id not yet used); the message that pays for it may send it back, and the
// run then takes that id. The conditional put is the claim: of two messages paying for one task id,
// however close together, one goes on to admission; the other is refused before anything is held. A
// claim whose payment was refused is given back, so the payer may pay again for the same task.
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { applied, type Tables } from "../adapters/tables/dynamo.ts";

/** How long a claim is kept: past any authorization's window and any run (the run's record stays after). */
const KEEP_SECONDS = 2 * 86_400;

const key = (taskId: string) => ({ pk: `a2ax402#${taskId}`, sk: "a2ax402" });

/** Claims `taskId` for one payment. False when another message holds it or its run started. */
export async function claimPaidTask(tables: Tables, taskId: string): Promise<boolean> {
  return applied(
    tables.doc.send(
      new PutCommand({
        TableName: tables.name("idempotency"),
        Item: { ...key(taskId), task_id: taskId, ttl: Math.floor(Date.now() / 1000) + KEEP_SECONDS },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    ),
  );
}

/** Gives back the claim of a task whose payment was refused (nothing ran under its id). */
export async function releasePaidTask(tables: Tables, taskId: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("idempotency"), Key: key(taskId) }));
}
