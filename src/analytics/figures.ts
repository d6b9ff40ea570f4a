// Reading the creator analytics: a listing's (or several listings') roll-ups over a range, by hour, day
// or month, folded into series and totals, never by scanning runs. Amounts are exact bigints in their
// listing's currency: counts add up across every listing, amounts only within one currency (decision
// 0255): the `_wei` figures are the ETH listings', and `by_currency` gives each currency's.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { RENTAL_MODELS, RUN_FAILURE_CODES, type RentalModel } from "@agent-rental/core/vocabulary";
import { LATENCY_BOUNDS_MS } from "./rollups.ts";
import { queryBuckets, queryRenters, type RollupItem } from "./rollup.store.ts";
import { unpack } from "./packs.ts";
import { entryOf, readTopRenters, type TopRenter } from "./top-renters.ts";
import { ETH, type Currency } from "../listings/currency.ts";

export const GRANULARITIES = ["hour", "day", "month"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** The longest range each granularity answers (so a request reads a bounded number of items). */
export const MAX_POINTS: Record<Granularity, number> = { hour: 24 * 31, day: 400, month: 36 };
/** The top renters listed. */
export const TOP_RENTERS = 10;

export interface Range {
  from: Date;
  to: Date;
  granularity: Granularity;
}

/** Why a range is refused (the route turns it into 400 invalid_request). */
export class AnalyticsRangeError extends Error {}

const hourOf = (d: Date) => d.toISOString().slice(0, 13);
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

/** The periods of a range, in order: `YYYY-MM-DDTHH`, `YYYY-MM-DD` or `YYYY-MM`. */
export function periodsOf(range: Range): string[] {
  const periods: string[] = [];
  const cursor = new Date(range.from);
  if (range.granularity === "hour") cursor.setUTCMinutes(0, 0, 0);
  else cursor.setUTCHours(0, 0, 0, 0);
  if (range.granularity === "month") cursor.setUTCDate(1);
  while (cursor <= range.to) {
    periods.push(range.granularity === "hour" ? hourOf(cursor) : range.granularity === "day" ? dayOf(cursor) : monthOf(cursor));
    if (periods.length > MAX_POINTS[range.granularity]) throw new AnalyticsRangeError(`A ${range.granularity} range covers at most ${MAX_POINTS[range.granularity]} periods.`);
    if (range.granularity === "hour") cursor.setUTCHours(cursor.getUTCHours() + 1);
    else if (range.granularity === "day") cursor.setUTCDate(cursor.getUTCDate() + 1);
    else cursor.setUTCMonth(cursor.getUTCMonth() + 1);
  }
  return periods;
}

/** Checks a range: from before to, and at most MAX_POINTS periods. */
export function checkRange(range: Range): void {
  if (Number.isNaN(range.from.getTime()) || Number.isNaN(range.to.getTime())) throw new AnalyticsRangeError("from and to are ISO 8601 times.");
  if (range.from > range.to) throw new AnalyticsRangeError("from must not be after to.");
  periodsOf(range);
}

/** The figures of one period (or of a whole range). */
export interface PeriodFigures {
  period: string;
  revenue: {
    by_model: Record<RentalModel, { gross_wei: bigint; fee_wei: bigint; net_wei: bigint }>;
    gross_wei: bigint;
    fee_wei: bigint;
    net_wei: bigint;
    withdrawn_wei: bigint;
  };
  rentals: {
    purchases: Record<RentalModel, bigint>;
    renewals: bigint;
    /** Subscriptions whose term ran out in the period unrenewed (periods that have ended). */
    lapsed: bigint;
    /** Subscriptions whose term ends in the period, unless renewed (periods not yet ended). */
    lapsing: bigint;
    charges: bigint;
    deposits_wei: bigint;
    refunds_wei: bigint;
    /** per_query balances: deposits − charges − refunds in the period. */
    balance_change_wei: bigint;
  };
  renters: { new: bigint; returning: bigint };
  runs: { completed: bigint; failed: bigint; by_failure_code: Partial<Record<string, bigint>>; logged: bigint; charged_wei: bigint };
  /** x402 payments settled (runs paid from the payer's wallet, every currency). */
  x402_payments: bigint;
  /** The period's amounts in each currency of the listings read (ETH's equal the `_wei` figures). */
  by_currency: CurrencyFigures[];
  latency: Timing;
  /** Streams' time to first output. */
  time_to_first_output: Timing;
  /** Verified ERC-8004 feedback given in the period (revoked ones taken out), and its mean score (0-100). */
  reputation: { verified_feedback: bigint; mean_score: number | null };
}

/** A period's amounts in one currency, in its smallest unit (wei for ETH). */
export interface CurrencyFigures {
  currency: Currency;
  revenue: {
    by_model: Record<RentalModel, { gross: bigint; fee: bigint; net: bigint }>;
    gross: bigint;
    fee: bigint;
    net: bigint;
    withdrawn: bigint;
    /** Of the per_query gross, what x402 payments brought. */
    paid_by_x402: bigint;
  };
  rentals: { deposits: bigint; refunds: bigint; balance_change: bigint };
  runs: { charged: bigint };
}

export interface Timing {
  count: bigint;
  mean_ms: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

type Counters = Map<string, bigint>;

function addInto(into: Counters, counters: Counters): void {
  for (const [name, value] of counters) into.set(name, (into.get(name) ?? 0n) + value);
}

/**
 * A listing's counters of each period of a range: hours from the packs of their days (at most 32 items
 * for 31 days), days from the packs of their months (at most 14 for 400 days), months from their items
 * (at most 36). Periods outside the range are left for the caller to drop.
 */
async function readPeriods(tables: Tables, onChainId: string, range: Range): Promise<Map<string, Counters>> {
  if (range.granularity === "hour") return unpack(await queryBuckets(tables, onChainId, "hp", dayOf(range.from), dayOf(range.to)));
  if (range.granularity === "day") return unpack(await queryBuckets(tables, onChainId, "dp", monthOf(range.from), monthOf(range.to)));
  const months = await queryBuckets(tables, onChainId, "m", monthOf(range.from), monthOf(range.to));
  return new Map(months.map((item) => [item.sk.slice(2), countersOf(item)]));
}

/** A listing read: its on-chain id and the currency its amounts are in. */
export interface AnalyticsListing {
  id: string;
  currency: Currency;
}

/** The counters that are amounts (in the listing's currency), as opposed to counts and times. */
const MONEY_NAMES = new Set(["deposits_wei", "refunds_wei", "withdrawn_wei", "charged_wei", "x402_gross", ...RENTAL_MODELS.flatMap((m) => [`gross_${m}`, `fee_${m}`])]);
export const isMoney = (name: string) => MONEY_NAMES.has(name);
/** A currency's key: the token's address (lower case), or "eth". */
export const currencyKey = (currency: Currency) => currency.address?.toLowerCase() ?? "eth";
const isEth = (currency: Currency) => currency.address === null;
/** ETH first, then by symbol and address. */
export const byCurrency = (a: Currency, b: Currency) => (isEth(a) !== isEth(b) ? (isEth(a) ? -1 : 1) : `${a.symbol}|${currencyKey(a)}`.localeCompare(`${b.symbol}|${currencyKey(b)}`));

/** Counts of a token listing's counters, its amounts left out (they are not wei). */
function countsOnly(counters: Counters): Counters {
  return new Map([...counters].filter(([name]) => !isMoney(name)));
}

const countersOf = (item: RollupItem): Counters => new Map(Object.entries(item).filter((e): e is [string, bigint] => typeof e[1] === "bigint" && e[0] !== "pv"));

// The counters' names a period's figures read, built once (a request folds up to 744 periods).
const BUCKET_KEYS = { lat: LATENCY_BOUNDS_MS.map((_, i) => `lat_b${i}`).concat(`lat_b${LATENCY_BOUNDS_MS.length}`), ttfo: LATENCY_BOUNDS_MS.map((_, i) => `ttfo_b${i}`).concat(`ttfo_b${LATENCY_BOUNDS_MS.length}`) };
const FAIL_KEYS = RUN_FAILURE_CODES.map((code) => [code, `fail_${code}`] as const);
const MODEL_KEYS = RENTAL_MODELS.map((model) => [model, `gross_${model}`, `fee_${model}`, `purchases_${model}`] as const);
const LAST_BOUND = LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;

/** The p50 and p95 of a histogram, each to its bucket (the upper bound; the open bucket reads as the last bound). */
function percentiles(counters: Counters, prefix: "lat" | "ttfo", count: bigint): [number | null, number | null] {
  if (count === 0n) return [null, null];
  const ranks = [BigInt(Math.ceil(Number(count) * 0.5)), BigInt(Math.ceil(Number(count) * 0.95))];
  const found: (number | null)[] = [null, null];
  let seen = 0n;
  const keys = BUCKET_KEYS[prefix];
  for (let i = 0; i < keys.length && found[1] === null; i++) {
    seen += counters.get(keys[i]!) ?? 0n;
    for (const r of [0, 1]) if (found[r] === null && seen >= ranks[r]!) found[r] = i < LATENCY_BOUNDS_MS.length ? LATENCY_BOUNDS_MS[i]! : LAST_BOUND;
  }
  return [found[0] ?? LAST_BOUND, found[1] ?? LAST_BOUND];
}

function timing(c: Counters, prefix: "lat" | "ttfo"): Timing {
  const count = c.get(`${prefix}_count`) ?? 0n;
  const sum = c.get(`${prefix}_sum_ms`) ?? 0n;
  const [p50, p95] = percentiles(c, prefix, count);
  return { count, mean_ms: count === 0n ? null : Number(sum / count), p50_ms: p50, p95_ms: p95 };
}

/** When a period (`YYYY-MM-DDTHH`, `YYYY-MM-DD` or `YYYY-MM`) ends, in ms. */
export function periodEnd(period: string): number {
  if (period.length === 13) return Date.parse(`${period}:00:00Z`) + 3_600_000;
  if (period.length === 10) return Date.parse(`${period}T00:00:00Z`) + 86_400_000;
  const [year, month] = period.split("-").map(Number);
  return Date.UTC(year!, month!, 1);
}

/** The amounts of one currency's counters. */
export function currencyFiguresOf(currency: Currency, c: Counters): CurrencyFigures {
  const get = (name: string) => c.get(name) ?? 0n;
  const byModel = {} as CurrencyFigures["revenue"]["by_model"];
  let gross = 0n;
  let fee = 0n;
  for (const [model, grossKey, feeKey] of MODEL_KEYS) {
    byModel[model] = { gross: get(grossKey), fee: get(feeKey), net: get(grossKey) - get(feeKey) };
    gross += get(grossKey);
    fee += get(feeKey);
  }
  return {
    currency,
    revenue: { by_model: byModel, gross, fee, net: gross - fee, withdrawn: get("withdrawn_wei"), paid_by_x402: get("x402_gross") },
    rentals: { deposits: get("deposits_wei"), refunds: get("refunds_wei"), balance_change: balanceChange(get) },
    runs: { charged: get("charged_wei") },
  };
}

/** What moved renters' per_query balances: deposits − charges − refunds (an x402 payment is no charge of a balance). */
const balanceChange = (get: (name: string) => bigint) => get("deposits_wei") - (get("gross_per_query") - get("x402_gross")) - get("refunds_wei");

/**
 * The figures of a period's counters; `ended` says whether its expiries are lapses yet. `c` holds every
 * count and the ETH listings' amounts; `currencies` each currency's amounts (absent: `c`'s, in ETH).
 */
export function figuresOf(period: string, c: Counters, ended = true, currencies?: [Currency, Counters][]): PeriodFigures {
  const get = (name: string) => c.get(name) ?? 0n;
  const byModel = {} as PeriodFigures["revenue"]["by_model"];
  const purchases = {} as Record<RentalModel, bigint>;
  let gross = 0n;
  let fee = 0n;
  for (const [model, grossKey, feeKey, purchasesKey] of MODEL_KEYS) {
    const g = get(grossKey);
    const f = get(feeKey);
    byModel[model] = { gross_wei: g, fee_wei: f, net_wei: g - f };
    purchases[model] = get(purchasesKey);
    gross += g;
    fee += f;
  }
  const byCode: Partial<Record<string, bigint>> = {};
  for (const [code, key] of FAIL_KEYS) {
    const n = get(key);
    if (n > 0n) byCode[code] = n;
  }
  const feedback = get("feedback_verified");
  return {
    period,
    revenue: { by_model: byModel, gross_wei: gross, fee_wei: fee, net_wei: gross - fee, withdrawn_wei: get("withdrawn_wei") },
    rentals: {
      purchases,
      renewals: get("renewals"),
      lapsed: ended ? get("subs_lapsing") : 0n,
      lapsing: ended ? 0n : get("subs_lapsing"),
      charges: get("charges"),
      deposits_wei: get("deposits_wei"),
      refunds_wei: get("refunds_wei"),
      balance_change_wei: balanceChange(get),
    },
    renters: { new: get("renters_new"), returning: get("renters_returning") },
    runs: { completed: get("runs_completed"), failed: get("runs_failed"), by_failure_code: byCode, logged: get("runs_logged"), charged_wei: get("charged_wei") },
    x402_payments: get("x402_payments"),
    by_currency: (currencies ?? [[ETH, c]]).map(([currency, counters]) => currencyFiguresOf(currency, counters)),
    latency: timing(c, "lat"),
    time_to_first_output: timing(c, "ttfo"),
    reputation: { verified_feedback: feedback, mean_score: feedback <= 0n ? null : Number(get("feedback_score_sum")) / 100 / Number(feedback) },
  };
}

export type { TopRenter };

export interface Analytics {
  series: PeriodFigures[];
  totals: PeriodFigures;
  /** The ETH listings' top renters (spend in wei). */
  top_renters: TopRenter[];
  /** Each currency's top renters, ranked by spend in that currency over its listings. */
  top_renters_by_currency: { currency: Currency; renters: TopRenter[] }[];
  renter_count: number;
}

/** The listings grouped by currency, ETH first. */
export function currencyGroups(listings: AnalyticsListing[]): { currency: Currency; ids: string[] }[] {
  const groups = new Map<string, { currency: Currency; ids: string[] }>();
  for (const listing of listings) {
    const key = currencyKey(listing.currency);
    const group = groups.get(key) ?? { currency: listing.currency, ids: [] };
    group.ids.push(listing.id);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => byCurrency(a.currency, b.currency));
}

/** A period's counters: every count and the ETH listings' amounts, and each currency's amounts. */
interface Folded {
  all: Counters;
  money: Map<string, Counters>;
}

/**
 * The figures of `listings` (a creator's listings, or one; a bare id is an ETH listing) over a range;
 * the top renters by spend, per currency.
 */
export async function readAnalytics(tables: Tables, listings: (AnalyticsListing | string)[], range: Range): Promise<Analytics> {
  const read = listings.map((l) => (typeof l === "string" ? { id: l, currency: ETH } : l));
  const groups = currencyGroups(read);
  const periods = periodsOf(range);
  const readAll = (ids: string[]) => () => Promise.all(ids.map(async (id) => (await queryRenters(tables, id)).map((item) => entryOf(item, item.sk.slice(2)))));
  const [bucketLists, rankings] = await Promise.all([
    Promise.all(read.map((l) => readPeriods(tables, l.id, range))),
    Promise.all(groups.map((g) => readTopRenters(tables, g.ids, TOP_RENTERS, readAll(g.ids)))),
  ]);
  const fresh = (): Folded => ({ all: new Map(), money: new Map(groups.map((g) => [currencyKey(g.currency), new Map()])) });
  const byPeriod = new Map<string, Folded>(periods.map((p) => [p, fresh()]));
  const total = fresh();
  const fold = (into: Folded, counters: Counters, currency: Currency) => {
    // Amounts add up within their currency only; a token listing adds its counts to the whole.
    addInto(into.all, isEth(currency) ? counters : countsOnly(counters));
    addInto(into.money.get(currencyKey(currency))!, counters);
  };
  bucketLists.forEach((counted, i) => {
    const currency = read[i]!.currency;
    for (const [period, counters] of counted) {
      const into = byPeriod.get(period);
      if (!into) continue;
      // One ETH listing's counters are the period's as they are; several are added up.
      if (read.length === 1 && isEth(currency)) byPeriod.set(period, { all: counters, money: new Map([["eth", counters]]) });
      else fold(into, counters, currency);
      fold(total, counters, currency);
    }
  });
  const perCurrency = (f: Folded) => groups.map((g) => [g.currency, f.money.get(currencyKey(g.currency))!] as [Currency, Counters]);
  const now = Date.now();
  const series = periods.map((p) => figuresOf(p, byPeriod.get(p)!.all, periodEnd(p) <= now, perCurrency(byPeriod.get(p)!)));
  const totals = figuresOf(`${periods[0]}/${periods.at(-1)}`, total.all, true, perCurrency(total));
  totals.rentals.lapsed = series.reduce((sum, f) => sum + f.rentals.lapsed, 0n);
  totals.rentals.lapsing = series.reduce((sum, f) => sum + f.rentals.lapsing, 0n);
  const eth = groups.findIndex((g) => isEth(g.currency));
  return {
    series,
    totals,
    top_renters: eth === -1 ? [] : rankings[eth]!.top,
    top_renters_by_currency: groups.map((g, i) => ({ currency: g.currency, renters: rankings[i]!.top })),
    renter_count: rankings.reduce((sum, r) => sum + r.renter_count, 0),
  };
}
