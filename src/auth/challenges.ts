// Sign-in challenges: `<service>:auth:<unix_timestamp>:<random_hex>`, valid 60 seconds, usable once.
// Exchanging one deletes it with a conditional write, so two concurrent exchanges cannot both succeed.
import { randomBytes } from "node:crypto";
import type { Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { putChallenge, takeChallenge } from "./challenge.store.ts";

export const CHALLENGE_LIFETIME_SECONDS = 60;

export interface IssuedChallenge {
  challenge: string;
  expires_at: number;
}

export async function issueChallenge(tables: Tables, service: string, wallet: Address, now = Math.floor(Date.now() / 1000)): Promise<IssuedChallenge> {
  const challenge = `${service}:auth:${now}:${randomBytes(16).toString("hex")}`;
  const expires_at = now + CHALLENGE_LIFETIME_SECONDS;
  await putChallenge(tables, { challenge, wallet, expires_at });
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
  return takeChallenge(tables, challenge, wallet, now);
}
