// Live listing figures: every finished run and every renter rating changes the counters on the
// listing's agent record (table `listings`, key `agentKey`), which the catalogue turns into
// run_count, success_rate, rating, review_count and last_updated.
//
// The counters are top-level attributes of the agent record (`stats_run_count`, `stats_success_count`,
// `stats_rating_sum`, `stats_review_count`, `stats_last_run_at`), so a single UpdateItem with ADD can
// create or increment them on any record, whether or not it had figures before.
//
// Each change to the counters is applied exactly once, without transactions (single-item conditional
// writes only). A change has a source item that says it is due (a run's outcome marker, a rating
// item's pending change) and a token. The protocol:
//   1. A caller claims the source item: a conditional write that records its claim (a random id, a
//      generation number starting at 1, and a lease). Only a claim holder applies the change. A
//      caller that finds a live claim waits for it; one that finds an expired claim takes it over
//      (generation + 1), so a crashed or stalled caller never blocks the change for longer than the
//      lease.
//   2. The claim holder applies the change to the counters in one UpdateItem that also adds the token
//      to the record's `stats_in_flight` string set, on the condition that the token is not in it
//      yet. A second attempt for the same change (after a takeover) finds the token and adds nothing.
//   3. It marks the source item applied, on the condition that it still holds the claim.
//   4. Only when step 3 succeeded with generation 1 (nobody else ever claimed the change, and nobody
//      can claim it any more) does it delete the token from `stats_in_flight`. After a takeover the
//      token stays, so a stalled earlier claimant that reaches step 2 late still finds it.
// Safety does not depend on clocks (the lease only decides when a takeover may happen); tokens
// accumulate only after takeovers, that is after a crash, a timeout or a stall longer than the lease.
import { randomUUID } from "node:crypto";
import type { Tables } from "../adapters/tables/dynamo.ts";
import {
  addToFigures,
  createOutcomeMarker,
  deleteFiguresToken,
  expireOutcomeClaim,
  getOutcomeMarker,
  hasRenter,
  markOutcomeCounted,
  raiseRenter,
  readFiguresFence,
  takeOverOutcomeMarker,
} from "./figures.store.ts";
import type { FinishedRunStatus } from "@agent-rental/core/vocabulary";

/** How long a claim on a change lasts before another caller may take it over. */
export const STATS_LEASE_MS = 10_000;
/** How often a caller waiting for another's claim looks again. */
const POLL_MS = 20;

export interface RunOutcome {
  run_id: string;
  /** The on-chain listing id (bytes32 hex). */
  on_chain_id: `0x${string}`;
  /** The renter's wallet. */
  wallet: string;
  status: FinishedRunStatus;
  /** ISO 8601. */
  finished_at: string;
}

export interface StatsOptions {
  /** Claim lease in milliseconds (default STATS_LEASE_MS). */
  leaseMs?: number;
}

/** A change to the counters. */
export interface FiguresChange {
  /** Unique per change; `run:<run_id>` for runs, `rating:<id>` for ratings. */
  token: string;
  runs?: number;
  successes?: number;
  ratingSum?: number;
  reviews?: number;
  /** Raises `stats_last_run_at` to this ISO time if it is later. */
  lastRunAt?: string;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The records' keys are the store's; exported here too for existing readers.
export { renterKey, runOutcomeKey } from "./figures.store.ts";

const ON_CHAIN_ID = /^0x[0-9a-fA-F]{64}$/;

/**
 * Applies a change to the listing's counters unless its token is already in `stats_in_flight`.
 * Returns "applied", or "already" when an earlier attempt applied it. Throws when the listing has no
 * agent record (the counters are never created on their own).
 */
export async function applyToFigures(tables: Tables, onChainId: string, change: FiguresChange): Promise<"applied" | "already"> {
  // First attempt also raises last_run_at; when that is already as late, the second leaves it.
  for (const raiseLast of change.lastRunAt ? [true, false] : [false]) {
    if (await addToFigures(tables, onChainId, change, raiseLast ? change.lastRunAt : undefined)) return "applied";
    const agent = await readFiguresFence(tables, onChainId);
    if (!agent) throw new Error(`No agent record for listing ${onChainId}; its figures cannot be recorded.`);
    if (agent.stats_in_flight?.has(change.token)) return "already";
    // Otherwise the refusal was stats_last_run_at being as late already: the next attempt leaves it.
  }
  throw new Error(`The figures of listing ${onChainId} could not be updated for ${change.token}.`);
}

/** Deletes a change's token from `stats_in_flight` once no claimant can apply the change again. */
export async function releaseToken(tables: Tables, onChainId: string, token: string): Promise<void> {
  await deleteFiguresToken(tables, onChainId, token);
}

function checkRunOutcome(run: RunOutcome): { runId: string; onChainId: `0x${string}`; wallet: string; finishedAt: string } {
  if (typeof run.run_id !== "string" || run.run_id.length === 0 || run.run_id.length > 200) throw new TypeError("run_id must be a non-empty string");
  if (!ON_CHAIN_ID.test(run.on_chain_id)) throw new TypeError("on_chain_id must be a 0x-prefixed 32-byte hex listing id");
  if (!/^0x[0-9a-fA-F]{40}$/.test(run.wallet)) throw new TypeError("wallet must be a 0x-prefixed 20-byte hex address");
  if (run.status !== "completed" && run.status !== "failed") throw new TypeError("status must be completed or failed");
  const finished = Date.parse(run.finished_at);
  if (Number.isNaN(finished)) throw new TypeError("finished_at must be an ISO 8601 timestamp");
  return { runId: run.run_id, onChainId: run.on_chain_id.toLowerCase() as `0x${string}`, wallet: run.wallet.toLowerCase(), finishedAt: new Date(finished).toISOString() };
}

/** Records that the wallet has a completed run of the listing (what makes it eligible to rate). */
async function recordRenter(tables: Tables, onChainId: string, wallet: string, runId: string, finishedAt: string): Promise<void> {
  await raiseRenter(tables, onChainId, wallet, runId, finishedAt);
}

/** True when the wallet has at least one completed run of the listing. */
export async function hasCompletedRun(tables: Tables, onChainId: string, wallet: string): Promise<boolean> {
  return hasRenter(tables, onChainId, wallet);
}

/** Claims the run's outcome marker: generation 1 by creating it, or a takeover of an expired claim.
 * Returns null when the outcome is already counted. */
async function claimOutcome(tables: Tables, run: ReturnType<typeof checkRunOutcome> & { status: string }, leaseMs: number): Promise<{ claim: string; generation: number } | null> {
  for (;;) {
    const claim = randomUUID();
    if (await createOutcomeMarker(tables, run, claim, Date.now() + leaseMs)) return { claim, generation: 1 };
    const marker = await getOutcomeMarker(tables, run.runId);
    if (!marker) continue;
    if (marker.state === "counted") return null;
    if ((marker.claimed_until ?? 0) > Date.now()) {
      await sleep(POLL_MS);
      continue;
    }
    const generation = await takeOverOutcomeMarker(tables, run.runId, marker.claim, claim, Date.now() + leaseMs);
    if (generation !== null) return { claim, generation };
  }
}

/** Gives up a claim early (after an error), so a retry need not wait for the lease. */
async function releaseClaim(tables: Tables, runId: string, claim: string): Promise<void> {
  await expireOutcomeClaim(tables, runId, claim);
}

/**
 * Counts a finished run in its listing's figures: run_count + 1, success_count + 1 when completed,
 * last_run_at raised to finished_at. For a completed run it also records that the wallet has run the
 * listing (the item `ran#<on_chain_id>` / `<wallet>` in the `runs` table), which makes the wallet
 * eligible to rate it. Exactly once per run_id: a repeated call, sequential or concurrent, or a retry
 * after a failure at any point, counts the run once (see the protocol at the top of this file).
 * Resolves once the run is counted. Throws on a storage failure (the call may simply be repeated) and
 * when the listing has no agent record.
 */
export async function recordRunOutcome(tables: Tables, run: RunOutcome, options: StatsOptions = {}): Promise<void> {
  const checked = { ...checkRunOutcome(run), status: run.status };
  const leaseMs = options.leaseMs ?? STATS_LEASE_MS;
  if (run.status === "completed") await recordRenter(tables, checked.onChainId, checked.wallet, checked.runId, checked.finishedAt);
  const held = await claimOutcome(tables, checked, leaseMs);
  if (!held) return;
  const token = `run:${checked.runId}`;
  try {
    await applyToFigures(tables, checked.onChainId, { token, runs: 1, successes: run.status === "completed" ? 1 : 0, lastRunAt: checked.finishedAt });
    // False: taken over after a stall; the new claimant finds the token and finishes.
    const finished = await markOutcomeCounted(tables, checked.runId, held.claim);
    // The run is counted; a token left behind by a failed clean-up is harmless.
    if (finished && held.generation === 1) await releaseToken(tables, checked.onChainId, token).catch(() => undefined);
  } catch (error) {
    await releaseClaim(tables, checked.runId, held.claim);
    throw error;
  }
}
