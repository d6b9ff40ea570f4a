// Idempotency-Key claims in the `idempotency` table (docs/design/data-model.md):
// `idem#<wallet>#<key>` / `idem`, kept 24 hours (`ttl`). The emulator never deletes expired items and
// DynamoDB does so late, so the condition that claims a key treats an expired claim as absent; readers
// judge expiry themselves (protocol.ts).
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import { applied, isConditionalCheckFailure, type Tables } from "../../adapters/tables/dynamo.ts";
import { IdempotencyKeyClaimedError, type IdempotencyRecord, type IdempotencyStore } from "./protocol.ts";

const key = (wallet: Address, idempotencyKey: string) => ({ pk: `idem#${wallet.toLowerCase()}#${idempotencyKey}`, sk: "idem" });

export async function getIdempotencyRecord(tables: Tables, wallet: Address, idempotencyKey: string): Promise<IdempotencyRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("idempotency"), Key: key(wallet, idempotencyKey), ConsistentRead: true }));
  if (!out.Item) return null;
  const { body_hash, run_id, ttl, claimed_at } = out.Item as IdempotencyRecord;
  return { body_hash, run_id, ttl, ...(typeof claimed_at === "number" ? { claimed_at } : {}) };
}

/** Claims a key for `record.run_id`. Throws IdempotencyKeyClaimedError, with the claim found (null when
 * it was gone by the time it was read), when a live claim holds the key. */
export async function putIdempotencyClaim(tables: Tables, wallet: Address, idempotencyKey: string, record: IdempotencyRecord, nowSeconds: number): Promise<void> {
  try {
    await tables.doc.send(
      new PutCommand({
        TableName: tables.name("idempotency"),
        Item: { ...key(wallet, idempotencyKey), ...record },
        // Exactly one request claims a live key; an expired claim (still present: the emulator keeps
        // expired items, DynamoDB deletes them late) may be taken over.
        ConditionExpression: "attribute_not_exists(pk) OR #ttl <= :now",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":now": nowSeconds },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    throw new IdempotencyKeyClaimedError(await getIdempotencyRecord(tables, wallet, idempotencyKey));
  }
}

/** Deletes the claim of `runId`. False when the key is not (or no longer) claimed for that run. */
export async function deleteIdempotencyClaim(tables: Tables, wallet: Address, idempotencyKey: string, runId: string): Promise<boolean> {
  return applied(tables.doc.send(
    new DeleteCommand({
      TableName: tables.name("idempotency"),
      Key: key(wallet, idempotencyKey),
      // Only the claimant's own record goes: a request never frees a key another request claimed.
      ConditionExpression: "run_id = :run",
      ExpressionAttributeValues: { ":run": runId },
    }),
  ));
}

/** The store as the protocol uses it. */
export function idempotencyStore(tables: Tables): IdempotencyStore {
  return {
    get: (wallet, idempotencyKey) => getIdempotencyRecord(tables, wallet, idempotencyKey),
    claim: (wallet, idempotencyKey, record, nowSeconds) => putIdempotencyClaim(tables, wallet, idempotencyKey, record, nowSeconds),
    release: (wallet, idempotencyKey, runId) => deleteIdempotencyClaim(tables, wallet, idempotencyKey, runId),
  };
}
