// Spending limits: what a renter lets one API key or one connected app spend on per-task runs, per
// currency, per calendar day or month (UTC) or in total (docs/design/decisions/0170-spending-limits-by-calendar-period.md).
// This module is pure: the limits' shape and rules, their periods' windows and reset times. The shared
// reservation of each limit's window is spend-ledger.store.ts; admission and settlement use spend.ts.
import { ApiError } from "../../errors.ts";

export const SPEND_PERIODS = ["day", "month", "total"] as const;
export type SpendPeriod = (typeof SPEND_PERIODS)[number];

/** A limit's currency: ETH, or the symbol of a token the service is configured with (TOKENS). */
export type SpendCurrency = string;

/** A currency a limit may count: ETH, or a configured token (decision 0187). */
export interface LimitCurrency {
  symbol: string;
  /** The token's address; null for ETH. */
  address: string | null;
  decimals: number;
}

export const ETH_LIMIT_CURRENCY: LimitCurrency = { symbol: "ETH", address: null, decimals: 18 };

/** The currencies limits may count on a service configured with `tokens`: ETH and each token. */
export function limitCurrencies(tokens: readonly { symbol: string; address: string; decimals: number }[] | undefined): LimitCurrency[] {
  return [ETH_LIMIT_CURRENCY, ...(tokens ?? []).map((token) => ({ symbol: token.symbol, address: token.address, decimals: token.decimals }))];
}

/** The most a limit may be: 1,000,000 whole units of its currency (10^24 wei for ETH). Anything larger is
 * a mistake, not a bound. */
export function maxLimitOf(currency: Pick<LimitCurrency, "decimals">): bigint {
  return 10n ** BigInt(currency.decimals + 6);
}
/** The most a limit in ETH may be, in wei: 1,000,000 ETH. */
export const MAX_LIMIT_WEI = maxLimitOf(ETH_LIMIT_CURRENCY);

export interface SpendLimit {
  currency: SpendCurrency;
  period: SpendPeriod;
  /** The amount, in the currency's smallest unit (wei for ETH), as a decimal string. */
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

const INPUT_SHAPE = "each limit is {currency, period, amount}: currency ETH or a token's symbol or address, period day, month or total, amount a whole number of the currency's smallest unit (wei for ETH)";
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The currency `raw` names among `currencies`: a symbol (any case) or a token's address (any case). */
function currencyNamed(raw: string, currencies: readonly LimitCurrency[]): LimitCurrency | undefined {
  const wanted = raw.toLowerCase();
  if (ADDRESS.test(raw)) return currencies.find((c) => c.address?.toLowerCase() === wanted);
  return currencies.find((c) => c.symbol.toLowerCase() === wanted);
}

/**
 * Checks limits as a caller sent them and returns them in their stored form (the currency as its
 * symbol). Refuses (400 invalid_request, the message naming what is wrong) a negative, zero, fractional
 * or absurd amount, a period that is not one of day, month, total, a currency no listing is priced in
 * (`currencies`: ETH and the configured tokens; ETH alone by default), two limits for the same currency and
 * period, and unknown fields.
 */
export function parseSpendLimits(value: unknown, field = "spend_limits", currencies: readonly LimitCurrency[] = [ETH_LIMIT_CURRENCY]): SpendLimit[] {
  if (!Array.isArray(value)) throw new ApiError("invalid_request", `${field} must be an array (${INPUT_SHAPE}); [] removes every limit.`);
  const most = currencies.length * SPEND_PERIODS.length;
  if (value.length > most) throw new ApiError("invalid_request", `${field} holds at most ${most} limits, one per currency and period.`);
  const seen = new Set<string>();
  return value.map((raw, i) => {
    const at = `${field}[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ApiError("invalid_request", `${at} must be an object: ${INPUT_SHAPE}.`);
    const entry = raw as Record<string, unknown>;
    const unknown = Object.keys(entry).filter((name) => !["currency", "period", "amount"].includes(name));
    if (unknown.length > 0) throw new ApiError("invalid_request", `${at} has unknown field(s) ${unknown.join(", ")}: ${INPUT_SHAPE}.`);
    const named = entry.currency ?? "ETH";
    const known = typeof named === "string" ? currencyNamed(named, currencies) : undefined;
    if (!known) {
      throw new ApiError("invalid_request", `${at}.currency ${JSON.stringify(named)} is not a currency any listing is priced in (${currencies.map((c) => (c.address ? `${c.symbol} or ${c.address}` : c.symbol)).join(", ")}).`);
    }
    const currency = known.symbol;
    const unit = known.address === null ? "wei" : `${currency} units`;
    if (typeof entry.period !== "string" || !(SPEND_PERIODS as readonly string[]).includes(entry.period)) {
      throw new ApiError("invalid_request", `${at}.period must be one of ${SPEND_PERIODS.join(", ")} (a limit over no period bounds nothing).`);
    }
    const amount = typeof entry.amount === "number" && Number.isSafeInteger(entry.amount) ? String(entry.amount) : entry.amount;
    if (typeof amount !== "string" || !/^-?[0-9]{1,40}$/.test(amount)) throw new ApiError("invalid_request", `${at}.amount must be a whole number of ${unit}, as a decimal string.`);
    const wei = BigInt(amount);
    if (wei <= 0n) throw new ApiError("invalid_request", `${at}.amount must be more than 0 ${unit} (to stop all spending, revoke the key or the app).`);
    const max = maxLimitOf(known);
    if (wei > max) throw new ApiError("invalid_request", `${at}.amount is over the largest limit, ${max} ${unit} (1,000,000 ${currency}).`);
    const period = entry.period as SpendPeriod;
    const pair = `${currency}/${period}`;
    if (seen.has(pair)) throw new ApiError("invalid_request", `${field} has two limits for ${currency} per ${period}; send one.`);
    seen.add(pair);
    return { currency: currency as SpendCurrency, period, amount: wei.toString() };
  });
}

/** Limits as stored (never trusted blindly: an item written by hand is read through the same rules). A
 * stored currency was checked against the configuration when the limit was set; it is read as it is (a
 * symbol), bounded as a token of 18 decimals, so reading needs no configuration and a token limit is never
 * dropped. */
export function storedSpendLimits(value: unknown): SpendLimit[] {
  if (!Array.isArray(value) || value.length === 0) return [];
  const stored = [...new Set(value.map((entry) => (entry as { currency?: unknown } | null)?.currency).filter((c): c is string => typeof c === "string" && /^[A-Za-z0-9.$_-]{1,32}$/.test(c) && c !== "ETH"))];
  try {
    return parseSpendLimits(value, "spend_limits", [ETH_LIMIT_CURRENCY, ...stored.map((symbol) => ({ symbol, address: `stored:${symbol}`, decimals: 18 }))]);
  } catch {
    return [];
  }
}
