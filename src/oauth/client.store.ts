// Registered clients (RFC 7591) of the `oauth` table (record.store.ts holds their items): how long one
// lives, and which address registered the ones never used yet, so that one address holds a bounded
// number of them (docs/design/decisions/0102-registered-clients-are-bounded.md).
import { createHash } from "node:crypto";
import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { keyOf, nowSeconds } from "./record.store.ts";

/** How long a registered client lives when no one ever approves it: 7 days. */
export const UNUSED_CLIENT_TTL_SECONDS = 7 * 24 * 3600;
/** How many never-used registered clients one address may hold at once. */
export const MAX_UNUSED_CLIENTS_PER_ADDRESS = 50;

/** The registrant index's key: the address hashed (the table never holds a client's address). */
const registrantOf = (address: string | undefined) => `registrant#${createHash("sha256").update(address ?? "unknown").digest("hex").slice(0, 32)}`;

/** Notes which address registered a client that was just stored (it counts against that address until
 * it is first used or expires). */
export async function noteRegistrant(tables: Tables, clientId: string, address: string | undefined): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("oauth"),
      Key: keyOf("Client", clientId),
      UpdateExpression: "SET gsi1pk = :pk, gsi1sk = :sk",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":pk": registrantOf(address), ":sk": `client#${String(nowSeconds()).padStart(12, "0")}#${clientId}` },
    }),
  );
}

/** The never-used, unexpired clients `address` registered, counted up to `limit`. */
export async function unusedClientsOf(tables: Tables, address: string | undefined, limit = MAX_UNUSED_CLIENTS_PER_ADDRESS): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(
      new QueryCommand({
        TableName: tables.name("oauth"),
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :pk",
        FilterExpression: "expires_at > :now",
        ExpressionAttributeValues: { ":pk": registrantOf(address), ":now": nowSeconds() },
        Select: "COUNT",
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && count < limit);
  return count;
}

/** A registered client was approved: it no longer counts against the address that registered it, and
 * lives as long as the grant just made for it can (`seconds` from now), if that is longer. */
export async function keepClient(tables: Tables, clientId: string, seconds: number): Promise<void> {
  const until = nowSeconds() + seconds;
  await tables.doc
    .send(
      new UpdateCommand({
        TableName: tables.name("oauth"),
        Key: keyOf("Client", clientId),
        UpdateExpression: "SET expires_at = :until, #ttl = :until REMOVE gsi1pk, gsi1sk",
        // Never recreate a client as a stub, nor shorten its life.
        ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(expires_at) OR expires_at < :until)",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":until": until },
      }),
    )
    .catch((error: unknown) => {
      if ((error as { name?: string }).name !== "ConditionalCheckFailedException") throw error;
    });
}
