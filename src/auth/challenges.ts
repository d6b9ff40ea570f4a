// Sign-in challenges: `<service>:auth:<unix_timestamp>:<random_hex>`, valid 60 seconds, usable once.
// Exchanging one deletes it with a conditional write, so two concurrent exchanges cannot both succeed.
import { randomBytes } from "node:crypto";
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";

export const CHALLENGE_LIFETIME_SECONDS = 60;

export interface IssuedChallenge {
  challenge: string;
  expires_at: number;
}

export async function issueChallenge(tables: Tables, service: string, wallet: Address, now = Math.floor(Date.now() / 1000)): Promise<IssuedChallenge> {
  const challenge = `${service}:auth:${now}:${randomBytes(16).toString("hex")}`;
  const expires_at = now + CHALLENGE_LIFETIME_SECONDS;
  await tables.doc.send(
    new PutCommand({
      TableName: tables.name("challenges"),
      Item: { pk: `challenge#${challenge}`, sk: "auth", wallet: wallet.toLowerCase(), expires_at, ttl: expires_at + 3600 },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
  return { challenge, expires_at };
}

/** True when the string has the challenge's exact shape for this service. */
export function isChallengeShape(service: string, challenge: string): boolean {
  return new RegExp(`^${service}:auth:\\d{10}:[0-9a-f]{32}$`).test(challenge);
}

/**
 * Consumes a challenge issued to `wallet` that has not expired. Returns false when it is unknown,
 * issued to another wallet, expired or already used; the challenge is gone afterwards either way
 * only if it was valid (an attacker cannot burn another wallet's challenge).
 */
export async function consumeChallenge(tables: Tables, challenge: string, wallet: Address, now = Math.floor(Date.now() / 1000)): Promise<boolean> {
  try {
    await tables.doc.send(
      new DeleteCommand({
        TableName: tables.name("challenges"),
        Key: { pk: `challenge#${challenge}`, sk: "auth" },
        ConditionExpression: "attribute_exists(pk) AND wallet = :wallet AND expires_at >= :now",
        ExpressionAttributeValues: { ":wallet": wallet.toLowerCase(), ":now": now },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}
