// Idempotency-Key on execute, as a protocol over two stores (the key's claim, the run it names): the
// first request with a key claims it for the run it starts; a retry with the same key and the same body
// follows that run and gets its result, never running or charging again; the same key with a different
// body is refused (409 idempotency_key_reused). Keys are scoped to the caller's wallet and kept 24 hours.
// Written apart from the storage (idempotency.store.ts) so that it is unit-tested against an in-memory
// store (protocol.test.ts).
//
// A key is in one of these states:
//   unclaimed    no claim: the request claims it and starts its run;
//   expired      a claim older than 24 hours: read as unclaimed, and a claim takes it over;
//   in_progress  a live claim whose run has not finished (it may not have started yet);
//   completed    a live claim whose run has finished: a retry gets its result.
// A request that finds another's claim follows it through these steps:
//   awaiting_run the claim names a run whose record does not exist yet (its request is being admitted);
//   running      the run started and has not finished;
//   completed    the run finished: its record is the answer;
//   released     the claim was given back (its request was refused before its run started): 503, retry;
//   given_up     the run did not appear within CLAIM_TO_RUN_MS: its id is barred first (so it can never
//                start once the caller is told nothing ran), the key given back, and 503.
import { createHash } from "node:crypto";
import type { Address } from "viem";
import { ApiError } from "../../errors.ts";
import type { RunRecord } from "../runs/run.ts";

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long after a request claimed an Idempotency-Key its run record may take to appear (its admission:
 * the reservation and the slot) before a request following the key gives it up. */
export const CLAIM_TO_RUN_MS = 10_000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** A key's claim as stored. */
export interface IdempotencyRecord {
  body_hash: string;
  run_id: string;
  /** Expiry, Unix seconds (claim + 24 h). */
  ttl: number;
  /** When the key was claimed, epoch ms (older records: derived from ttl). */
  claimed_at?: number;
}

/** A claim refused because a live claim holds the key; `found` is that claim (null when it was gone by
 * the time it was read). */
export class IdempotencyKeyClaimedError extends Error {
  constructor(readonly found: IdempotencyRecord | null) {
    super(found ? `the key is claimed for ${found.run_id}` : "the key is claimed");
    this.name = "IdempotencyKeyClaimedError";
  }
}

/** The claims' storage. */
export interface IdempotencyStore {
  get(wallet: Address, key: string): Promise<IdempotencyRecord | null>;
  /** Writes `record` unless a claim whose ttl is after `nowSeconds` holds the key: then throws
   * IdempotencyKeyClaimedError with it. */
  claim(wallet: Address, key: string, record: IdempotencyRecord, nowSeconds: number): Promise<void>;
  /** Deletes the claim if it names `runId`. False otherwise. */
  release(wallet: Address, key: string, runId: string): Promise<boolean>;
}

/** The runs a follower reads, and bars when they do not appear in time. */
export interface ClaimedRuns {
  get(runId: string): Promise<RunRecord | null>;
  /** Makes sure `runId` can never start; "exists" when its run started first. */
  bar(runId: string): Promise<"barred" | "exists">;
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

export type KeyState = "unclaimed" | "expired" | "in_progress" | "completed";
export type FollowState = "awaiting_run" | "running" | "completed" | "released" | "given_up";

/** A key's state, from its claim and (for a live claim) the record of the run it names. */
export function keyState(record: IdempotencyRecord | null, run: RunRecord | null, nowMs: number): KeyState {
  if (!record) return "unclaimed";
  if (record.ttl * 1000 <= nowMs) return "expired";
  return run && run.run_id === record.run_id && run.status !== "running" ? "completed" : "in_progress";
}

/** When a live claim of `runId` was made, epoch ms; null when the key is not (or no longer) claimed for it. */
export function claimedAtOf(record: IdempotencyRecord | null, runId: string, nowMs: number): number | null {
  const state = keyState(record, null, nowMs);
  if (state === "unclaimed" || state === "expired" || record!.run_id !== runId) return null;
  return typeof record!.claimed_at === "number" ? record!.claimed_at : (record!.ttl - IDEMPOTENCY_TTL_SECONDS) * 1000;
}

/** Another request's claim of a key, as a request that found it follows it. */
export interface IdempotencyClaim {
  /** When the key was claimed for the run, epoch ms; null once the claim no longer names the run (its
   * request was refused and gave the key back, or it expired). */
  claimedAt(): Promise<number | null>;
  /** Gives the key back (only while it still names the run). */
  release(): Promise<void>;
}

/** A run started (or being started) under another request's claim. */
export interface ExistingRun {
  runId: string;
  claim: IdempotencyClaim;
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

function reused(): ApiError {
  return new ApiError("idempotency_key_reused", "This Idempotency-Key was already used with a different request; use a new key for a new request.");
}

function retryAfter(message: string): ApiError {
  return new ApiError("service_unavailable", message, { headers: { "Retry-After": "1" } });
}

/** The run of a live claim of the key, or null when it is unclaimed or expired. Throws 409 when the key
 * was used with another body. */
export function liveRunOf(record: IdempotencyRecord | null, bodyHash: string, nowMs: number): string | null {
  const state = keyState(record, null, nowMs);
  if (state === "unclaimed" || state === "expired") return null;
  if (record!.body_hash !== bodyHash) throw reused();
  return record!.run_id;
}

/** The run an earlier request with this key started, or null when the key is unclaimed or expired.
 * Throws 409 when the key was used with another body. */
export async function findIdempotentRun(keys: IdempotencyStore, wallet: Address, key: string, bodyHash: string, clock: Clock = systemClock): Promise<string | null> {
  return liveRunOf(await keys.get(wallet, key), bodyHash, clock.now());
}

/** Claims the key for `runId`; returns the run that claimed it first when another request won. Throws
 * 409 when the winner's body differs, and 503 when the winner's claim went before it could be read. */
export async function claimIdempotencyKey(keys: IdempotencyStore, wallet: Address, key: string, bodyHash: string, runId: string, clock: Clock = systemClock): Promise<string> {
  const now = clock.now();
  const nowSeconds = Math.floor(now / 1000);
  try {
    await keys.claim(wallet, key, { body_hash: bodyHash, run_id: runId, ttl: nowSeconds + IDEMPOTENCY_TTL_SECONDS, claimed_at: now }, nowSeconds);
    return runId;
  } catch (error) {
    if (!(error instanceof IdempotencyKeyClaimedError)) throw error;
    const winner = liveRunOf(error.found, bodyHash, clock.now());
    if (winner === null) throw retryAfter("The Idempotency-Key is being claimed by another request; retry.");
    return winner;
  }
}

/** Gives a key back when the request that claimed it was refused before its run started (403, 429,
 * 503): nothing is stored for it, so the key may be used again. Only the claimant's own claim goes. */
export async function releaseIdempotencyKey(keys: IdempotencyStore, wallet: Address, key: string, runId: string): Promise<void> {
  await keys.release(wallet, key, runId);
}

/** The claim of `key` by `runId`, for a request that follows it. */
export function claimOf(keys: IdempotencyStore, wallet: Address, key: string, runId: string, clock: Clock = systemClock): IdempotencyClaim {
  return {
    claimedAt: async () => claimedAtOf(await keys.get(wallet, key), runId, clock.now()),
    release: () => releaseIdempotencyKey(keys, wallet, key, runId),
  };
}

/** One step of following a claim: where it stands now. `run` is set for running and completed. */
export async function followStep(runs: ClaimedRuns, existing: ExistingRun, appearWithinMs: number, clock: Clock = systemClock): Promise<{ state: FollowState; run?: RunRecord }> {
  const run = await runs.get(existing.runId);
  if (run) return { state: run.status === "running" ? "running" : "completed", run };
  const claimedAt = await existing.claim.claimedAt();
  if (claimedAt === null) return { state: "released" };
  if (clock.now() - claimedAt < appearWithinMs) return { state: "awaiting_run" };
  if ((await runs.bar(existing.runId)) === "exists") {
    // Its run started after all, between the two reads: follow it.
    const started = await runs.get(existing.runId);
    return started ? { state: started.status === "running" ? "running" : "completed", run: started } : { state: "awaiting_run" };
  }
  await existing.claim.release();
  return { state: "given_up" };
}

/**
 * The run record of another request with the same Idempotency-Key, once it exists. Throws 503 (retry;
 * the key is free again) when there is no run to follow: that request was refused before its run
 * started and gave the key back (released), or its claim is older than `appearWithinMs` with no run
 * (given_up).
 */
export async function claimedRun(runs: ClaimedRuns, existing: ExistingRun, appearWithinMs = CLAIM_TO_RUN_MS, clock: Clock = systemClock): Promise<RunRecord> {
  for (;;) {
    const step = await followStep(runs, existing, appearWithinMs, clock);
    if (step.run) return step.run;
    if (step.state === "released") {
      throw retryAfter("The first request with this Idempotency-Key was refused before its run started, so nothing is stored under the key; retry.");
    }
    if (step.state === "given_up") {
      throw retryAfter("The first request with this Idempotency-Key did not start its run in time and was given up; nothing ran and nothing was charged under the key. Retry.");
    }
    await clock.sleep(50);
  }
}

/** Waits until another request's run with the same Idempotency-Key is no longer running (throws as
 * claimedRun does; the record is still running when `timeoutMs` ran out). */
export async function waitForRun(runs: ClaimedRuns, existing: ExistingRun, timeoutMs: number, pollMs = 100, clock: Clock = systemClock): Promise<RunRecord> {
  const deadline = clock.now() + timeoutMs;
  let record = await claimedRun(runs, existing, CLAIM_TO_RUN_MS, clock);
  while (record.status === "running" && clock.now() < deadline) {
    await clock.sleep(pollMs);
    record = (await runs.get(existing.runId)) ?? record;
  }
  return record;
}
