// Creator analytics roll-ups: what each counted event adds to a listing's hour and day buckets and to
// its renter items, and the exactly-once protocol that adds it (docs/design/analytics.md).
//
// Every event counted is a fact with a token that names it by what it is, never by who saw it:
// `run:<run_id>` (a run's settled outcome), `receipt:<run_id>` (its receipt logged), `ev:<tx>:<log>` (a
// marketplace event). Two settlement passes, two indexers or a retry after a crash reach the same
// token, so the fact is counted once. The protocol is the listing figures' (src/listings/stats.ts):
//   1. claim the fact item (create it: generation 1; or take over an expired claim: generation + 1);
//   2. add to each target item on the condition that the token is not in its `in_flight` set, adding
//      the token with the counters;
//   2a. copy each hour and day item written into its pack (packs.ts);
//   3. mark the fact applied, on the condition that the claim is still ours;
//   4. with generation 1 only, delete the token from the targets (after a takeover it stays, so a
//      stalled earlier claimant that reaches step 2 late still finds it).
import { randomUUID } from "node:crypto";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { FinishedRunStatus, RentalModel, RunFailureCode } from "@agent-rental/core/vocabulary";
import { updateTopRenters } from "./top-renters.ts";
import { copyIntoPack, packEntryOf } from "./packs.ts";
import { updateCreatorRenters } from "./creator-renters.ts";
import {
  addToRollup,
  createFact,
  daySk,
  LIFETIME_SK,
  monthSk,
  TOP_SK,
  deleteRollupToken,
  expireFactClaim,
  getFact,
  hourSk,
  markFactApplied,
  renterSk,
  rollupPk,
  takeOverFact,
  type RollupTarget,
} from "./rollup.store.ts";

/** How long a claim on a fact lasts before another caller may take it over. */
export const FACT_LEASE_MS = 10_000;
const POLL_MS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Upper bounds (ms) of the latency histogram's buckets; the last bucket is open. Percentiles are read
 * to the bucket: the upper bound of the bucket that holds the rank. */
export const LATENCY_BOUNDS_MS = [10, 25, 50, 100, 200, 300, 500, 750, 1_000, 1_500, 2_000, 3_000, 5_000, 7_500, 10_000, 15_000, 20_000, 30_000, 60_000, 120_000, 300_000] as const;

/** The histogram bucket of a duration: its index in LATENCY_BOUNDS_MS, or its length for the open one. */
export function latencyBucket(ms: number): number {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? LATENCY_BOUNDS_MS.length : index;
}

/** The hour (`YYYY-MM-DDTHH`), day (`YYYY-MM-DD`) and month (`YYYY-MM`) of an ISO time, in UTC. */
export function bucketsOf(iso: string): { hour: string; day: string; month: string } {
  const time = new Date(Date.parse(iso)).toISOString();
  return { hour: time.slice(0, 13), day: time.slice(0, 10), month: time.slice(0, 7) };
}

/** The hour, day, month and lifetime items of a listing that an event at `at` adds to. */
export function bucketTargets(onChainId: string, at: string, add: Record<string, bigint>): RollupTarget[] {
  const { hour, day, month } = bucketsOf(at);
  const pk = rollupPk(onChainId);
  return [
    { pk, sk: hourSk(hour), add },
    { pk, sk: daySk(day), add },
    { pk, sk: monthSk(month), add },
    { pk, sk: LIFETIME_SK, add },
  ];
}

/** A run whose settlement is recorded: its outcome is final (what settlement.ts hands over). */
export interface SettledRunFact {
  run_id: string;
  on_chain_id: `0x${string}`;
  wallet: string;
  rental_model: RentalModel;
  status: FinishedRunStatus;
  failure_code?: RunFailureCode;
  duration_ms: number;
  /** A stream's time to first output (ms); absent on a synchronous run and a stream that sent nothing. */
  first_output_ms?: number;
  /** Wei charged for the run (per_query; 0 otherwise and when refused). */
  cost_wei: bigint;
  finished_at: string;
}

/** What a settled run adds: a run by status and failure code, its latency, its charge; to the renter its run. */
export function runTargets(run: SettledRunFact): RollupTarget[] {
  const add: Record<string, bigint> = {
    [`runs_${run.status}`]: 1n,
    lat_count: 1n,
    lat_sum_ms: BigInt(Math.max(0, Math.round(run.duration_ms))),
    [`lat_b${latencyBucket(run.duration_ms)}`]: 1n,
  };
  if (run.status === "failed" && run.failure_code) add[`fail_${run.failure_code}`] = 1n;
  if (run.first_output_ms !== undefined) {
    add.ttfo_count = 1n;
    add.ttfo_sum_ms = BigInt(Math.max(0, Math.round(run.first_output_ms)));
    add[`ttfo_b${latencyBucket(run.first_output_ms)}`] = 1n;
  }
  if (run.cost_wei > 0n) add.charged_wei = run.cost_wei;
  return [...bucketTargets(run.on_chain_id, run.finished_at, add), { pk: rollupPk(run.on_chain_id), sk: renterSk(run.wallet), add: { runs: 1n, rev: 1n }, setOnce: { wallet: run.wallet.toLowerCase() } }];
}

/** A run whose receipt the run log logged on-chain. */
export interface ReceiptFact {
  run_id: string;
  on_chain_id: `0x${string}`;
  finished_at: string;
}

export function receiptTargets(receipt: ReceiptFact): RollupTarget[] {
  return bucketTargets(receipt.on_chain_id, receipt.finished_at, { runs_logged: 1n });
}

/** A marketplace event that moves money or a rental, as the analytics count it (chain-facts.ts). */
export type MoneyEvent =
  | { kind: "purchase"; model: RentalModel; gross: bigint; fee: bigint; /** a subscription's expiry (unix seconds) */ expires_at?: bigint }
  | { kind: "renewal"; gross: bigint; fee: bigint; expires_at: bigint; /** where the renewed term starts: the old expiry when still running, else the block's time */ paid_from: bigint }
  | { kind: "charge"; gross: bigint; fee: bigint }
  /** An x402 payment settled (one payment of a TokenMarketplace PaymentsSettled): a per-task run paid
   * from the payer's wallet, not from a balance. */
  | { kind: "payment"; gross: bigint; fee: bigint }
  | { kind: "deposit"; amount: bigint; purchase: boolean }
  | { kind: "refund"; amount: bigint }
  | { kind: "earnings_withdrawn"; amount: bigint };

export interface ChainFact {
  /** `<tx hash>:<log index>`, lower-case; a log that makes several facts adds a suffix (`:p`, or the
   * payment's place in a PaymentsSettled). */
  id: string;
  on_chain_id: `0x${string}`;
  /** The renter (absent for the creator's own withdrawal). */
  wallet?: string;
  /** The block's time, ISO. */
  at: string;
  /** `<block>:<log index>`, zero-padded so it sorts (the renter's first event). */
  position: string;
  event: MoneyEvent;
  /** Whether this is the wallet's first rental of the listing (a new renter), for purchases. */
  first?: boolean;
}

/** What a chain event adds: revenue by model (gross, fee), rentals, deposits, refunds, withdrawals; to
 * the renter item its spend. Amounts are in the listing's currency (wei, or a token's smallest unit): a
 * listing's partition holds one currency, and figures across listings add amounts per currency
 * (figures.ts, decision 0255). */
export function chainTargets(fact: ChainFact): RollupTarget[] {
  const add: Record<string, bigint> = {};
  let spend = 0n;
  const e = fact.event;
  const revenue = (model: RentalModel, gross: bigint, fee: bigint) => {
    add[`gross_${model}`] = gross;
    add[`fee_${model}`] = fee;
    spend = gross;
  };
  switch (e.kind) {
    case "purchase":
      add[`purchases_${e.model}`] = 1n;
      add[fact.first ? "renters_new" : "renters_returning"] = 1n;
      if (e.model !== "per_query") revenue(e.model, e.gross, e.fee);
      break;
    case "renewal":
      add.renewals = 1n;
      revenue("subscription", e.gross, e.fee);
      break;
    case "charge":
      revenue("per_query", e.gross, e.fee);
      add.charges = 1n;
      break;
    case "payment":
      // Revenue of the per-task model like a charge, kept apart too: it moves no balance.
      revenue("per_query", e.gross, e.fee);
      add.x402_payments = 1n;
      add.x402_gross = e.gross;
      break;
    case "deposit":
      add.deposits_wei = e.amount;
      break;
    case "refund":
      add.refunds_wei = e.amount;
      break;
    case "earnings_withdrawn":
      add.withdrawn_wei = e.amount;
      break;
  }
  const targets = mergeTargets([...bucketTargets(fact.on_chain_id, fact.at, add), ...lapseTargets(fact)]);
  if (fact.wallet && (spend > 0n || e.kind === "purchase")) {
    targets.push({
      pk: rollupPk(fact.on_chain_id),
      sk: renterSk(fact.wallet),
      add: { spend_wei: spend, rev: 1n, ...(e.kind === "purchase" ? { purchases: 1n } : {}), ...(e.kind === "renewal" ? { renewals: 1n } : {}) },
      setOnce: { wallet: fact.wallet.toLowerCase(), first_position: fact.position },
    });
  }
  return targets;
}

/** The latest expiry counted in buckets (later ones, up to the contract's 2^40 − 1, never lapse in practice). */
const LAST_COUNTED_EXPIRY = BigInt(Date.UTC(9999, 11, 31) / 1000);
const isoOf = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

/**
 * When a subscription lapses: each term bought is counted as `subs_lapsing` in the buckets of its expiry
 * (a bucket in the future until then). A renewal of a running subscription moves the expiry: out of the
 * old one's buckets, into the new one's; a renewal after a lapse leaves that lapse counted. So a past
 * period's `subs_lapsing` is the subscriptions that lapsed in it, exactly, from the chain's events alone.
 */
function lapseTargets(fact: ChainFact): RollupTarget[] {
  const e = fact.event;
  const out: RollupTarget[] = [];
  const at = BigInt(Math.floor(Date.parse(fact.at) / 1000));
  if ((e.kind === "purchase" || e.kind === "renewal") && e.expires_at !== undefined && e.expires_at <= LAST_COUNTED_EXPIRY) out.push(...bucketTargets(fact.on_chain_id, isoOf(e.expires_at), { subs_lapsing: 1n }));
  if (e.kind === "renewal" && e.paid_from > at && e.paid_from <= LAST_COUNTED_EXPIRY) out.push(...bucketTargets(fact.on_chain_id, isoOf(e.paid_from), { subs_lapsing: -1n }));
  return out;
}

/** Targets on the same item folded into one (a fact adds to an item once). */
export function mergeTargets(targets: RollupTarget[]): RollupTarget[] {
  const merged = new Map<string, RollupTarget>();
  for (const target of targets) {
    const key = `${target.pk}|${target.sk}`;
    const into = merged.get(key);
    if (!into) {
      merged.set(key, { ...target, add: { ...target.add } });
      continue;
    }
    for (const [name, amount] of Object.entries(target.add)) into.add[name] = (into.add[name] ?? 0n) + amount;
    if (target.setOnce) into.setOnce = { ...target.setOnce, ...into.setOnce };
  }
  return [...merged.values()];
}

async function claimFact(tables: Tables, token: string, leaseMs: number, detail: Record<string, string>): Promise<{ claim: string; generation: number } | null> {
  for (;;) {
    const claim = randomUUID();
    if (await createFact(tables, token, claim, Date.now() + leaseMs, detail)) return { claim, generation: 1 };
    const fact = await getFact(tables, token);
    if (!fact) continue;
    if (fact.state === "applied") return null;
    if (fact.claimed_until > Date.now()) {
      await sleep(POLL_MS);
      continue;
    }
    const generation = await takeOverFact(tables, token, fact.claim, claim, Date.now() + leaseMs);
    if (generation !== null) return { claim, generation };
  }
}

/**
 * Counts a fact in the roll-ups exactly once, however often and from however many processes it is
 * called. Resolves once it is counted; throws on a storage failure (call it again).
 */
export async function applyFact(tables: Tables, token: string, targets: RollupTarget[], options: { leaseMs?: number; listing?: string; detail?: Record<string, string> } = {}): Promise<"applied" | "already"> {
  const held = await claimFact(tables, token, options.leaseMs ?? FACT_LEASE_MS, { ...options.detail, ...(options.listing ? { listing: options.listing } : {}) });
  if (!held) return "already";
  // A renter item remembers the fact that created it (the top item counts the renter for that fact).
  const written = targets.map((target) => (isRenterTarget(target) ? { ...target, setOnce: { ...target.setOnce, first_token: token } } : target));
  try {
    for (const target of written) await addToRollup(tables, target, token);
    // Each hour and day item written is copied into its pack (also after a takeover: a claimant that
    // stopped between its write and its copy left the pack behind).
    await Promise.all(written.filter((t) => packEntryOf(t.sk)).map((t) => copyIntoPack(tables, t.pk, t.sk)));
    const renters = written.filter(isRenterTarget);
    const creatorItems: Pick<RollupTarget, "pk" | "sk">[] = [];
    for (const target of renters) {
      await updateTopRenters(tables, target.pk.slice("roll#".length), target.sk.slice(2), token);
      creatorItems.push(...(await updateCreatorRenters(tables, target.pk.slice("roll#".length), target.sk.slice(2), token)));
    }
    const finished = await markFactApplied(tables, token, held.claim);
    const cleared = renters.length ? [...written, ...new Map(renters.map((t) => [t.pk, { pk: t.pk, sk: TOP_SK }])).values(), ...creatorItems] : written;
    if (finished && held.generation === 1) await Promise.all(cleared.map((target) => deleteRollupToken(tables, target, token).catch(() => undefined)));
    return "applied";
  } catch (error) {
    await expireFactClaim(tables, token, held.claim).catch(() => undefined);
    throw error;
  }
}

const isRenterTarget = (target: RollupTarget) => target.sk.startsWith("r#");

export const runToken = (runId: string) => `run:${runId}`;
export const receiptToken = (runId: string) => `receipt:${runId}`;
export const chainToken = (id: string) => `ev:${id.toLowerCase()}`;
