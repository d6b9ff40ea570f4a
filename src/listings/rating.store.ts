// Renter ratings, in the `runs` table (docs/design/data-model.md): one item per (listing, wallet),
// `rating#<on-chain id>` / `<wallet>`, listed newest first through gsi1 (`ratings#<on-chain id>` /
// `<updated_at>#<wallet>`). The protocol that keeps the listing's figures equal to its ratings is in
// ratings.ts; each function here is one read or one conditional write.
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";

export interface PendingChange {
  id: string;
  from: number | null;
  to: number;
  claim: string;
  generation: number;
  claimed_until: number;
}

export interface RatingItem {
  pk: string;
  sk: string;
  listing_id: string;
  wallet: string;
  rating: number;
  comment: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  counted?: number;
  pending?: PendingChange;
  gsi1pk: string;
  gsi1sk: string;
}

export type RatingKey = { pk: string; sk: string };

export const ratingKey = (onChainId: string, wallet: string): RatingKey => ({ pk: `rating#${onChainId.toLowerCase()}`, sk: wallet.toLowerCase() });
const ratingsPartition = (onChainId: string) => `ratings#${onChainId.toLowerCase()}`;
/** The gsi1 entry of a rating written at `updatedAt`. */
export const ratingsIndex = (onChainId: string, updatedAt: string, wallet: string) => ({ gsi1pk: ratingsPartition(onChainId), gsi1sk: `${updatedAt}#${wallet.toLowerCase()}` });

export async function getRating(tables: Tables, key: RatingKey): Promise<RatingItem | null> {
  return ((await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: key, ConsistentRead: true }))).Item as RatingItem | undefined) ?? null;
}

/** Writes the wallet's rating over the version read (`null`: none was). False when another write came
 * first or a change is still pending: read again. */
export async function putRating(tables: Tables, item: RatingItem, readVersion: number | null): Promise<boolean> {
  return applied(tables.doc.send(
    new PutCommand({
      TableName: tables.name("runs"),
      Item: item,
      // Over exactly the version read, and never over a change still pending (changes of one
      // wallet's rating are serialized); the first rating only where there is none.
      ConditionExpression: readVersion !== null ? "version = :v AND attribute_not_exists(pending)" : "attribute_not_exists(pk)",
      ...(readVersion !== null ? { ExpressionAttributeValues: { ":v": readVersion } } : {}),
    }),
  ));
}

/** Records the pending change as counted and removes it. False when `claim` no longer holds it. */
export async function markRatingCounted(tables: Tables, key: RatingKey, pending: Pick<PendingChange, "to" | "claim">): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: key,
      UpdateExpression: "SET counted = :to REMOVE pending",
      // Only the current claim holder finishes the change.
      ConditionExpression: "pending.claim = :claim",
      ExpressionAttributeValues: { ":to": pending.to, ":claim": pending.claim },
    }),
  ));
}

/** Ends a claim's lease now (after an error), so the next writer need not wait. Best effort. */
export async function expireRatingClaim(tables: Tables, key: RatingKey, claim: string): Promise<void> {
  await tables.doc
    .send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: key,
        UpdateExpression: "SET pending.claimed_until = :zero",
        // Only the holder's own claim.
        ConditionExpression: "pending.claim = :claim",
        ExpressionAttributeValues: { ":zero": 0, ":claim": claim },
      }),
    )
    .catch(() => undefined);
}

/** Takes over the pending change claimed by `oldClaim`; null when someone else changed it first. */
export async function takeOverRatingChange(tables: Tables, key: RatingKey, oldClaim: string, claim: string, claimedUntil: number): Promise<PendingChange | null> {
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: key,
        UpdateExpression: "SET pending.claim = :claim, pending.claimed_until = :until, pending.generation = pending.generation + :one",
        // Only the claim that was read: one of several takers wins.
        ConditionExpression: "pending.claim = :old",
        ExpressionAttributeValues: { ":claim": claim, ":until": claimedUntil, ":one": 1, ":old": oldClaim },
        ReturnValues: "ALL_NEW",
      }),
    );
    return (out.Attributes as RatingItem).pending!;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return null;
    throw error;
  }
}

/** A page of the listing's ratings, most recently written first, after `after` (a rating's index
 * position: its wallet and gsi1sk). */
export async function queryRatings(tables: Tables, onChainId: string, limit: number, after?: { wallet: string; sortKey: string }): Promise<RatingItem[]> {
  const startKey = after ? { ...ratingKey(onChainId, after.wallet), gsi1pk: ratingsPartition(onChainId), gsi1sk: after.sortKey } : undefined;
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("runs"),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :p",
      ExpressionAttributeValues: { ":p": ratingsPartition(onChainId) },
      ScanIndexForward: false,
      Limit: limit,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    }),
  );
  return (out.Items ?? []) as RatingItem[];
}
