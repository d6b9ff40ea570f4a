// Spending limits at admission and settlement. A per-task run admitted through an API key or a
// connected app with limits holds its price in each limit's current window (spend-ledger.store.ts)
// beside the balance's reservation (ledger.ts); the run records its holds, and its settlement turns them
// into spending (charged) or gives them back (not charged). A run that would take a window past its limit
// is refused before any work: 402 spend_limit_reached, naming the limit and when it resets.
import type { Services } from "../services.ts";
import type { Principal } from "../../auth/principal.ts";
import { ApiError } from "../../errors.ts";
import { holdOf, spendLedger, spendWindowKey, type SpendHold } from "./spend-ledger.store.ts";
import { windowOf, type SpendLimit, type SpendSubject } from "./spend-limits.ts";
import type { Currency } from "../../listings/currency.ts";

/** A limit as the API shows it: the limit, and its current window's figures. */
export interface SpendLimitView extends SpendLimit {
  /** Charged in the current window (the currency's smallest unit, decimal string). */
  spent: string;
  /** Held by runs in flight in the current window (wei). */
  reserved: string;
  /** What may still be spent in the current window (wei): the limit less spent and reserved. */
  remaining: string;
  /** When the window ends and spending counts from zero again (ISO 8601); null for a total limit. */
  resets_at: string | null;
}

/** What the refusal says of the limit that was hit. */
export type SpendLimitHit = SpendLimitView & { scope: SpendSubject["kind"]; id: string };

/** The limits bounding this caller's spending, and whose they are; none for a wallet sign-in. */
export function spendLimitsOf(principal: Principal): { subject: SpendSubject; limits: SpendLimit[] } | null {
  const limits = principal.spendLimits ?? [];
  if (limits.length === 0) return null;
  if (principal.method === "api_key" && principal.keyId) return { subject: { kind: "key", id: principal.keyId }, limits };
  if (principal.method === "oauth" && principal.oauth) return { subject: { kind: "app", id: principal.oauth.grantId }, limits };
  return null;
}

function view(limit: SpendLimit, item: { committed: bigint; spent: bigint } | null, resetsAt: Date | null): SpendLimitView {
  const committed = item?.committed ?? 0n;
  const spent = item?.spent ?? 0n;
  const remaining = BigInt(limit.amount) - committed;
  return { ...limit, spent: spent.toString(), reserved: (committed - spent).toString(), remaining: (remaining > 0n ? remaining : 0n).toString(), resets_at: resetsAt?.toISOString() ?? null };
}

/** The limits of a key or app with their current windows' spending. */
export async function spendingOf(services: Services, subject: SpendSubject, limits: SpendLimit[], now = new Date()): Promise<SpendLimitView[]> {
  const ledger = spendLedger(services.tables);
  return Promise.all(limits.map(async (limit) => {
    const window = windowOf(limit.period, now);
    return view(limit, await ledger.read(spendWindowKey(subject, limit, window.id)), window.resetsAt);
  }));
}

function refusal(hit: SpendLimitHit, price: bigint, currency: Currency): ApiError {
  const per = hit.period === "total" ? "in total" : `per ${hit.period} (UTC)`;
  const when = hit.resets_at ? ` It resets at ${hit.resets_at}.` : " It does not reset: raise it to spend more.";
  // Amounts in the currency's smallest unit: wei for ETH, "USDC units" (10^-6 USDC) for a token.
  const unit = currency.address === null ? "wei" : `${currency.symbol} units`;
  const held = hit.reserved !== "0" ? ` (${hit.reserved} ${unit} of it held by runs in flight)` : "";
  const message = `This ${hit.scope === "key" ? "API key" : "app"}'s spending limit of ${hit.amount} ${unit} ${per} is reached: ${BigInt(hit.amount) - BigInt(hit.remaining)} ${unit} committed${held}, and this run costs ${price} ${unit}.${when}`;
  const retryAfter = hit.resets_at ? Math.max(1, Math.ceil((Date.parse(hit.resets_at) - Date.now()) / 1000)) : undefined;
  return new ApiError("spend_limit_reached", message, { spendLimit: hit, ...(retryAfter === undefined ? {} : { headers: { "Retry-After": String(retryAfter) } }) });
}

/**
 * Holds `priceWei` (in the smallest unit of `currency`) for `runId` in every limit of the caller in the
 * listing's currency, and in no other: a token run never counts against an ETH limit, nor an ETH run
 * against a token's. All or none: when one refuses, the holds already taken are given back and the run is
 * refused (402). Returns the holds.
 */
export async function reserveSpend(services: Services, principal: Principal, options: { runId: string; priceWei: bigint; currency: Currency; expiresAt: number }): Promise<SpendHold[]> {
  const bound = spendLimitsOf(principal);
  if (!bound || options.priceWei === 0n) return [];
  const ledger = spendLedger(services.tables);
  const now = new Date();
  const taken: SpendHold[] = [];
  for (const limit of bound.limits.filter((l) => l.currency === options.currency.symbol)) {
    const window = windowOf(limit.period, now);
    const key = spendWindowKey(bound.subject, limit, window.id);
    let ok = await ledger.reserve(key, options.runId, options.priceWei, BigInt(limit.amount), options.expiresAt);
    let item = ok ? null : await ledger.read(key);
    // Holds of processes that died expire; they are swept once before the answer is no.
    if (!ok && item && (await ledger.sweep(key, item)) > 0) {
      ok = await ledger.reserve(key, options.runId, options.priceWei, BigInt(limit.amount), options.expiresAt);
      item = ok ? null : await ledger.read(key);
    }
    if (ok) {
      taken.push(holdOf(key));
      continue;
    }
    await releaseSpend(services, taken, options.runId, options.priceWei);
    throw refusal({ ...view(limit, item, window.resetsAt), scope: bound.subject.kind, id: bound.subject.id }, options.priceWei, options.currency);
  }
  return taken;
}

/** The run will not be charged: its holds are given back. */
export async function releaseSpend(services: Services, holds: readonly SpendHold[] | undefined, runId: string, priceWei: bigint): Promise<void> {
  if (!holds?.length) return;
  const ledger = spendLedger(services.tables);
  await Promise.all(holds.map((hold) => ledger.release(hold, runId, priceWei)));
}

/** The run was charged: its holds become spending. */
export async function settleSpend(services: Services, holds: readonly SpendHold[] | undefined, runId: string, priceWei: bigint): Promise<void> {
  if (!holds?.length) return;
  const ledger = spendLedger(services.tables);
  await Promise.all(holds.map((hold) => ledger.settle(hold, runId, priceWei)));
}

/** A settlement still being retried keeps its holds until `until`. */
export async function holdSpend(services: Services, holds: readonly SpendHold[] | undefined, runId: string, until: number): Promise<void> {
  if (!holds?.length) return;
  const ledger = spendLedger(services.tables);
  await Promise.all(holds.map((hold) => ledger.extend(hold, runId, until)));
}
