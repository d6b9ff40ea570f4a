// Spending limits: what a renter lets one API key or one connected app spend on per-task runs, per
// currency, per calendar day or month (UTC) or in total (docs/design/decisions/0170-spending-limits-by-calendar-period.md).
// This module is pure: the limits' shape and rules, their periods' windows and reset times. The shared
// reservation of each limit's window is spend-ledger.store.ts; admission and settlement use spend.ts.
import { ApiError } from "../../errors.ts";

export const SPEND_PERIODS = ["day", "month", "total"] as const;
export type SpendPeriod = (typeof SPEND_PERIODS)[number];

/** The currencies listings are priced in. Every listing is priced in ETH today; a limit in any other
 * currency is refused (it could bound nothing). */
export const LISTING_CURRENCIES = ["ETH"] as const;
export type SpendCurrency = (typeof LISTING_CURRENCIES)[number];

/** The most a limit may be, in wei: 1,000,000 ETH. Anything larger is a mistake, not a bound. */
export const MAX_LIMIT_WEI = 10n ** 24n;
/** Limits one key or app may hold: one per (currency, period). */
export const MAX_LIMITS = LISTING_CURRENCIES.length * SPEND_PERIODS.length;

export interface SpendLimit {
  currency: SpendCurrency;
  period: SpendPeriod;
  /** The amount, in the currency's smallest unit (wei), as a decimal string. */
  amount: string;
}

/** Whose spending a limit bounds: an API key, or a connected app (an OAuth grant). */
export interface SpendSubject {
  kind: "key" | "app";
  id: string;
}

/** The window of `period` holding `at`: its id (the sort key of its ledger item) and when it resets. */
export function windowOf(period: SpendPeriod, at: Date): { id: string; resetsAt: Date | null } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (period === "day") {
    const start = Date.UTC(y, m, at.getUTCDate());
    return { id: `day#${new Date(start).toISOString().slice(0, 10)}`, resetsAt: new Date(start + 86_400_000) };
  }
  if (period === "month") return { id: `month#${new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7)}`, resetsAt: new Date(Date.UTC(y, m + 1, 1)) };
  return { id: "total", resetsAt: null };
}

const INPUT_SHAPE = "each limit is {currency, period, amount}: currency ETH, period day, month or total, amount a whole number of wei";

/**
 * Checks limits as a caller sent them and returns them in their stored form. Refuses (400
 * invalid_request, the message naming what is wrong) a negative, zero, fractional or absurd amount, a
 * period that is not one of day, month, total, a currency no listing is priced in, two limits for the
 * same currency and period, and unknown fields.
 */
export function parseSpendLimits(value: unknown, field = "spend_limits"): SpendLimit[] {
  if (!Array.isArray(value)) throw new ApiError("invalid_request", `${field} must be an array (${INPUT_SHAPE}); [] removes every limit.`);
  if (value.length > MAX_LIMITS) throw new ApiError("invalid_request", `${field} holds at most ${MAX_LIMITS} limits, one per currency and period.`);
  const seen = new Set<string>();
  return value.map((raw, i) => {
    const at = `${field}[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ApiError("invalid_request", `${at} must be an object: ${INPUT_SHAPE}.`);
    const entry = raw as Record<string, unknown>;
    const unknown = Object.keys(entry).filter((name) => !["currency", "period", "amount"].includes(name));
    if (unknown.length > 0) throw new ApiError("invalid_request", `${at} has unknown field(s) ${unknown.join(", ")}: ${INPUT_SHAPE}.`);
    const currency = entry.currency ?? "ETH";
    if (typeof currency !== "string" || !(LISTING_CURRENCIES as readonly string[]).includes(currency)) {
      throw new ApiError("invalid_request", `${at}.currency ${JSON.stringify(currency)} is not a currency any listing is priced in (${LISTING_CURRENCIES.join(", ")}).`);
    }
    if (typeof entry.period !== "string" || !(SPEND_PERIODS as readonly string[]).includes(entry.period)) {
      throw new ApiError("invalid_request", `${at}.period must be one of ${SPEND_PERIODS.join(", ")} (a limit over no period bounds nothing).`);
    }
    const amount = typeof entry.amount === "number" && Number.isSafeInteger(entry.amount) ? String(entry.amount) : entry.amount;
    if (typeof amount !== "string" || !/^-?[0-9]{1,40}$/.test(amount)) throw new ApiError("invalid_request", `${at}.amount must be a whole number of wei, as a decimal string.`);
    const wei = BigInt(amount);
    if (wei <= 0n) throw new ApiError("invalid_request", `${at}.amount must be more than 0 wei (to stop all spending, revoke the key or the app).`);
    if (wei > MAX_LIMIT_WEI) throw new ApiError("invalid_request", `${at}.amount is over the largest limit, ${MAX_LIMIT_WEI} wei (1,000,000 ETH).`);
    const period = entry.period as SpendPeriod;
    const pair = `${currency}/${period}`;
    if (seen.has(pair)) throw new ApiError("invalid_request", `${field} has two limits for ${currency} per ${period}; send one.`);
    seen.add(pair);
    return { currency: currency as SpendCurrency, period, amount: wei.toString() };
  });
}

/** Limits as stored (never trusted blindly: an item written by hand is read through the same rules). */
export function storedSpendLimits(value: unknown): SpendLimit[] {
  if (!Array.isArray(value) || value.length === 0) return [];
  try {
    return parseSpendLimits(value);
  } catch {
    return [];
  }
}
