// The `challenges` table: one-time messages a wallet signs, the sign-in challenge and the API key
// request (docs/design/data-model.md). Both expire: `expires_at` is checked here on every use, since
// the emulator never deletes an item at its `ttl` and DynamoDB does so only eventually.
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { applied, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";

/** An expired item stays this long before the table's TTL may delete it. */
const KEPT_AFTER_EXPIRY_SECONDS = 3600;

const challengeKey = (challenge: string) => ({ pk: `challenge#${challenge}`, sk: "auth" });
const keyRequestKey = (nonce: string) => ({ pk: `keyreq#${nonce}`, sk: "api_key" });

/** A stored sign-in challenge already exists under this string (its random part repeated). */
export class ChallengeExistsError extends Error {
  constructor() {
    super("a sign-in challenge with this value is already stored");
    this.name = "ChallengeExistsError";
  }
}

export async function putChallenge(tables: Tables, challenge: { challenge: string; wallet: string; expires_at: number }): Promise<void> {
  try {
    await tables.doc.send(
      new PutCommand({
        TableName: tables.name("challenges"),
        Item: { ...challengeKey(challenge.challenge), wallet: challenge.wallet.toLowerCase(), expires_at: challenge.expires_at, ttl: challenge.expires_at + KEPT_AFTER_EXPIRY_SECONDS },
        // A challenge is issued once: never overwrite one that may already be in a wallet's hands.
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new ChallengeExistsError();
    throw error;
  }
}

/** Deletes the challenge if it was issued to `wallet` and is live at `now` (Unix seconds). False when
 * it is unknown, another wallet's, expired or already used: then it is left as it is. */
export async function takeChallenge(tables: Tables, challenge: string, wallet: string, now: number): Promise<boolean> {
  return applied(tables.doc.send(
    new DeleteCommand({
      TableName: tables.name("challenges"),
      Key: challengeKey(challenge),
      // Exactly one of two concurrent exchanges wins; another wallet cannot burn this wallet's
      // challenge; an expired one no longer signs anyone in (its TTL deletion may lag by days).
      ConditionExpression: "attribute_exists(pk) AND wallet = :wallet AND expires_at >= :now",
      ExpressionAttributeValues: { ":wallet": wallet.toLowerCase(), ":now": now },
    }),
  ));
}

export interface KeyRequestRecord {
  nonce: string;
  wallet: string;
  label: string;
  message: string;
  expires_at: number;
}

export async function putKeyRequest(tables: Tables, request: KeyRequestRecord): Promise<void> {
  // Unconditional: the nonce carries 128 random bits, and a request is only ever written by its issuer.
  await tables.doc.send(
    new PutCommand({
      TableName: tables.name("challenges"),
      Item: { ...keyRequestKey(request.nonce), wallet: request.wallet.toLowerCase(), label: request.label, message: request.message, expires_at: request.expires_at, ttl: request.expires_at + KEPT_AFTER_EXPIRY_SECONDS },
    }),
  );
}

/** The key request as stored (expired or not: the caller judges its expiry), or null. */
export async function getKeyRequest(tables: Tables, nonce: string): Promise<KeyRequestRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("challenges"), Key: keyRequestKey(nonce), ConsistentRead: true }));
  const item = out.Item;
  if (!item) return null;
  return { nonce, wallet: item.wallet as string, label: item.label as string, message: item.message as string, expires_at: item.expires_at as number };
}

/** Deletes the key request if it is `wallet`'s. False when it is already gone (used by a concurrent
 * exchange) or another wallet's. */
export async function takeKeyRequest(tables: Tables, nonce: string, wallet: string): Promise<boolean> {
  return applied(tables.doc.send(
    new DeleteCommand({
      TableName: tables.name("challenges"),
      Key: keyRequestKey(nonce),
      // A request is exchanged for at most one key, and only by the wallet it names.
      ConditionExpression: "attribute_exists(pk) AND wallet = :w",
      ExpressionAttributeValues: { ":w": wallet.toLowerCase() },
    }),
  ));
}
