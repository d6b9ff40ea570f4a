// Idempotency-Key on execute: the first request with a key records the run it started; a retry with the
// same key and the same body gets that run's result (waiting for it if it is still running) and is
// never run or charged again; the same key with a different body is refused (409
// idempotency_key_reused). Keys are scoped to the caller's wallet and kept 24 hours.
import { createHash } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { isConditionalCheckFailure } from "../adapters/tables/dynamo.ts";
import { ApiError } from "../errors.ts";

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyRecord {
  body_hash: string;
  run_id: string;
  ttl: number;
  /** When the key was claimed, epoch ms (older records: derived from ttl). */
  claimed_at?: number;
}

/** Another request's claim of a key, as a request that found it follows it. */
export interface IdempotencyClaim {
  /** When the key was claimed for the run, epoch ms; null once the claim no longer names the run (its
   * request was refused and gave the key back). */
  claimedAt(): Promise<number | null>;
  /** Gives the key back (only while it still names the run). */
  release(): Promise<void>;
}

/** Checks the header's form: 1 to 255 printable ASCII characters without spaces. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!KEY_FORMAT.test(header)) throw new ApiError("invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.");
  return header;
}

/** A hash of the request that the key stands for: the endpoint and the parsed body, canonically ordered. */
export function requestHash(endpoint: string, body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(canonical) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)])) : value;
  return createHash("sha256").update(JSON.stringify([endpoint, canonical(body)])).digest("hex");
}

function keyOf(wallet: Address, key: string) {
  return { pk: `idem#${wallet.toLowerCase()}#${key}`, sk: "idem" };
}

/** The run an earlier request with this key started, or null when the key is new (or expired). Throws
 * 409 when the key was used with another body. */
export async function findIdempotentRun(tables: Tables, wallet: Address, key: string, bodyHash: string): Promise<string | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("idempotency"), Key: keyOf(wallet, key), ConsistentRead: true }));
  const record = out.Item as IdempotencyRecord | undefined;
  if (!record || record.ttl * 1000 <= Date.now()) return null;
  if (record.body_hash !== bodyHash) throw new ApiError("idempotency_key_reused", "This Idempotency-Key was already used with a different request; use a new key for a new request.");
  return record.run_id;
}

/** Claims the key for `runId`; returns the run that claimed it first when another request won. */
export async function claimIdempotencyKey(tables: Tables, wallet: Address, key: string, bodyHash: string, runId: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  try {
    await tables.doc.send(
      new PutCommand({
        TableName: tables.name("idempotency"),
        Item: { ...keyOf(wallet, key), body_hash: bodyHash, run_id: runId, ttl: now + IDEMPOTENCY_TTL_SECONDS, claimed_at: Date.now() },
        // An expired record may be replaced (the emulator keeps expired items).
        ConditionExpression: "attribute_not_exists(pk) OR #ttl <= :now",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":now": now },
      }),
    );
    return runId;
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
  }
  const winner = await findIdempotentRun(tables, wallet, key, bodyHash);
  if (winner === null) throw new ApiError("service_unavailable", "The Idempotency-Key is being claimed by another request; retry.", { headers: { "Retry-After": "1" } });
  return winner;
}

/** Gives a key back when the request that claimed it was refused before its run started (403, 429,
 * 503): nothing is stored for it, so the key may be used again. Only the claimant's own record goes. */
export async function releaseIdempotencyKey(tables: Tables, wallet: Address, key: string, runId: string): Promise<void> {
  await tables.doc
    .send(
      new DeleteCommand({
        TableName: tables.name("idempotency"),
        Key: keyOf(wallet, key),
        ConditionExpression: "run_id = :run",
        ExpressionAttributeValues: { ":run": runId },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionalCheckFailure(error)) throw error;
    });
}

/** The claim of `key` by `runId`, for a request that follows it. */
export function claimOf(tables: Tables, wallet: Address, key: string, runId: string): IdempotencyClaim {
  return {
    async claimedAt() {
      const out = await tables.doc.send(new GetCommand({ TableName: tables.name("idempotency"), Key: keyOf(wallet, key), ConsistentRead: true }));
      const record = out.Item as IdempotencyRecord | undefined;
      if (!record || record.run_id !== runId || record.ttl * 1000 <= Date.now()) return null;
      return typeof record.claimed_at === "number" ? record.claimed_at : (record.ttl - IDEMPOTENCY_TTL_SECONDS) * 1000;
    },
    release: () => releaseIdempotencyKey(tables, wallet, key, runId),
  };
}
