// The schemas and the query of the creator analytics routes (GET /v1/creators/me/analytics and GET
// /v1/creators/me/listings/{listing_id}/analytics), and the answer's shaping: wei as exact JSON integers,
// or one table as CSV.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { RENTAL_MODELS, RUN_FAILURE_CODES, type RentalModel } from "@agent-rental/core/vocabulary";
import { GRANULARITIES, MAX_POINTS, type Range } from "../../analytics/figures.ts";
import { CSV_TABLES, toCsv } from "../../analytics/csv.ts";
import type { CreatorAnalytics } from "../../analytics/creator-analytics.ts";
import { exactInteger } from "../run-json.ts";

const wei = (description: string) => z.number().int().openapi({ description: `${description} (wei, an exact JSON integer; the ETH listings' only)` });
const units = (description: string) => z.string().regex(/^-?\d+$/).openapi({ description: `${description} (the currency's smallest unit, as a decimal string: exact in any JSON reader)`, example: "250000" });
const count = (description: string) => z.number().int().openapi({ description });

/** One field per rental model, of the vocabulary's list. */
function byModel<T extends z.ZodTypeAny>(field: (model: RentalModel) => T) {
  return z.object(Object.fromEntries(RENTAL_MODELS.map((m) => [m, field(m)])) as unknown as Record<RentalModel, T>);
}

const RevenueSchema = z
  .object({
    by_model: byModel(() => z.object({ gross_wei: wei("Paid by renters"), fee_wei: wei("The protocol fee taken from it"), net_wei: wei("gross − fee: the creator's") })),
    gross_wei: wei("Paid by renters, every model: purchases, renewals and per_query charges"),
    fee_wei: wei("The protocol fee"),
    net_wei: wei("The creator's share"),
    withdrawn_wei: wei("Earnings the creator withdrew"),
  })
  .openapi("AnalyticsRevenue");

const CurrencySchema = z
  .object({
    symbol: z.string(),
    address: z.string().nullable().openapi({ description: "The token's address; null for ETH" }),
    decimals: z.number().int(),
  })
  .openapi("AnalyticsCurrency", { description: "A currency listings are priced and paid in" });

const CurrencyFiguresSchema = z
  .object({
    currency: CurrencySchema,
    revenue: z.object({
      by_model: byModel(() => z.object({ gross: units("Paid by renters"), fee: units("The protocol fee taken from it"), net: units("gross − fee: the creator's") })),
      gross: units("Paid by renters, every model"),
      fee: units("The protocol fee"),
      net: units("The creator's share"),
      withdrawn: units("Earnings the creator withdrew"),
      paid_by_x402: units("Of the per_query gross, what x402 payments brought"),
    }),
    rentals: z.object({
      deposits: units("per_query deposits and top-ups"),
      refunds: units("Unspent per_query balances withdrawn by renters"),
      balance_change: units("deposits − charges − refunds (x402 payments move no balance)"),
    }),
    runs: z.object({ charged: units("What the runs were charged (per_query, x402 payments included)") }),
  })
  .openapi("AnalyticsCurrencyFigures", { description: "The amounts of one currency's listings; amounts of different currencies are never added" });

const CurrencyAmountSchema = z.object({ currency: CurrencySchema, amount: units("The amount") });

const timing = (counted: string, what: string) =>
  z.object({
    count: count(counted),
    mean_ms: z.number().nullable(),
    p50_ms: z.number().nullable().openapi({ description: `Median ${what}, to the histogram bucket (its upper bound); null without any` }),
    p95_ms: z.number().nullable().openapi({ description: `95th percentile ${what}, to the histogram bucket; null without any` }),
  });

export const PeriodFiguresSchema = z
  .object({
    period: z.string().openapi({ description: "The hour (YYYY-MM-DDTHH), day (YYYY-MM-DD) or month (YYYY-MM), UTC; for totals, first/last" }),
    revenue: RevenueSchema,
    rentals: z.object({
      purchases: byModel((m) => count(`${m} rentals bought`)),
      renewals: count("Subscriptions renewed"),
      lapsed: count("Subscriptions whose term ran out in the period without a renewal before it (periods that have ended; 0 otherwise)"),
      lapsing: count("Subscriptions whose term ends in the period unless renewed (periods not yet ended; 0 otherwise)"),
      charges: count("per_query charges landed on-chain"),
      deposits_wei: wei("per_query deposits and top-ups"),
      refunds_wei: wei("Unspent per_query balances withdrawn by renters"),
      balance_change_wei: wei("What the period added to renters' per_query balances: deposits − charges − refunds (negative when they shrank)"),
    }),
    renters: z.object({ new: count("Rentals bought by a wallet renting the listing for the first time"), returning: count("Rentals bought by a wallet that rented the listing before") }),
    runs: z.object({
      completed: count("Runs completed"),
      failed: count("Runs failed"),
      by_failure_code: z.record(z.string(), z.number().int()).openapi({ description: `Failed runs by failure code (${RUN_FAILURE_CODES.join(", ")}); codes with none are left out` }),
      logged: count("Runs whose receipt is logged on-chain (the run log)"),
      charged_wei: wei("What the runs were charged (per_query)"),
    }),
    x402_payments: count("x402 payments settled on-chain (runs paid from the payer's wallet), every currency"),
    by_currency: z.array(CurrencyFiguresSchema).openapi({ description: "The period's amounts in each currency of the listings read, ETH first (ETH's equal the `_wei` figures)" }),
    latency: timing("Runs timed", "duration"),
    time_to_first_output: timing("Streams that sent output", "time from the run's admission to a stream's first output"),
    reputation: z.object({
      verified_feedback: count("Verified ERC-8004 feedback given in the period (a receipt of a completed run confirmed on-chain), revoked feedback taken out"),
      mean_score: z.number().nullable().openapi({ description: "Their mean score (0-100); null without any" }),
    }),
  })
  .openapi("AnalyticsPeriod");

export const CreatorAnalyticsSchema = z
  .object({
    currency: z.literal("ETH").openapi({ description: "The currency of every `_wei` figure: the ETH listings'. Counts (runs, rentals, renters, latency) cover every listing; a token listing's amounts are in `by_currency`" }),
    listings: z.array(z.object({ listing_id: z.string(), name: z.string(), currency: CurrencySchema, rating: z.number().nullable().openapi({ description: "Verified ERC-8004 rating (0-5); null before any" }), review_count: z.number().int() })),
    series: z.array(PeriodFiguresSchema),
    totals: PeriodFiguresSchema,
    top_renters: z
      .array(z.object({ wallet: z.string().openapi({ description: "The renter's wallet, lower-case: renters appear only as wallet addresses" }), spend_wei: wei("Everything it paid the listings (purchases, renewals, charges), all time"), runs: count("Its runs, all time"), purchases: count("Rentals bought"), renewals: count("Renewals") }))
      .openapi({ description: "The ten renters who spent most on the ETH listings, all time (ties by wallet address)" }),
    top_renters_by_currency: z
      .array(
        z.object({
          currency: CurrencySchema,
          renters: z.array(z.object({ wallet: z.string(), spend: units("Everything it paid this currency's listings, all time"), runs: count("Its runs of these listings, all time"), purchases: count("Rentals bought"), renewals: count("Renewals") })),
        }),
      )
      .openapi({ description: "For each currency of the listings, the ten renters who spent most on its listings, all time" }),
    renter_count: z.number().int().openapi({ description: "Wallets that rented or ran the listings, all time: across listings a wallet renting several counts once" }),
    balances_outstanding_wei: wei("What renters hold in per_query balances of the listings now: deposits − charges − refunds, all time"),
    balances_outstanding_by_currency: z.array(CurrencyAmountSchema).openapi({ description: "The same, in each currency of the listings" }),
    reconciliation: z
      .object({
        block: z.string().nullable().openapi({ description: "The last block the figures count (decimal); null before the indexer's first round" }),
        chain_escrow_wei: wei("The listings' escrow on-chain at that block").nullable(),
        rollup_escrow_wei: wei("The same computed from the figures: net revenue − withdrawn, all time"),
        withdrawable_wei: wei("Of the escrow, what the creator may withdraw now").nullable(),
        vesting_wei: wei("Of the escrow, subscription payments still vesting").nullable(),
        matches: z.boolean().openapi({ description: "The figures match the chain at `block` to the smallest unit, in every currency" }),
        by_currency: z
          .array(
            z.object({
              currency: CurrencySchema,
              chain_escrow: units("This currency's listings' escrow on-chain at `block` (the Marketplace's for ETH, the TokenMarketplace's for a token)").nullable(),
              rollup_escrow: units("The same computed from the figures"),
              withdrawable: units("Of the escrow, what the creator may withdraw now").nullable(),
              vesting: units("Of the escrow, subscription payments still vesting").nullable(),
              matches: z.boolean(),
            }),
          )
          .openapi({ description: "Each currency's reconciliation" }),
      })
      .openapi({ description: "The figures' money reconciled with the contract" }),
  })
  .openapi("CreatorAnalytics");

const DAY_MS = 24 * 60 * 60_000;

export const AnalyticsQuerySchema = z.object({
  from: z.string().datetime({ offset: true }).optional().openapi({ description: "Start of the range (ISO 8601); default: 30 days before `to`" }),
  to: z.string().datetime({ offset: true }).optional().openapi({ description: "End of the range (ISO 8601); default: now" }),
  granularity: z.enum(GRANULARITIES).optional().openapi({ description: `hour (at most ${MAX_POINTS.hour} periods), day (default; at most ${MAX_POINTS.day}) or month (at most ${MAX_POINTS.month})` }),
  format: z.enum(["json", "csv"]).optional().openapi({ description: "csv: one table (`table`) as text/csv" }),
  table: z.enum(CSV_TABLES).optional().openapi({ description: "The table a CSV holds: series (default) or top_renters (wei: the ETH listings'), or series_by_currency or top_renters_by_currency (a row per currency, in its smallest unit)" }),
});

export const ANALYTICS_DESCRIPTION =
  "Amounts are exact, from the marketplaces' events (gross and fee as each event states them): the `_wei` fields are the ETH listings' in wei, and `by_currency` gives every currency's (a token listing's in the token's smallest unit), never added across currencies; counts cover every listing. Runs come from their settlement and receipts from the run log. " +
  "The figures are roll-ups kept per hour, day and month as events happen, never computed by scanning runs. `reconciliation` compares them with the contract at the last block counted (money events and verified feedback are counted once their blocks are final, at the network's finality depth). " +
  "Renters appear only as wallet addresses; no run's input or output appears. `format=csv` returns one table (`table`: series, top_renters, series_by_currency or top_renters_by_currency) as text/csv.";

export function rangeOf(query: z.infer<typeof AnalyticsQuerySchema>): Range {
  const to = query.to ? new Date(query.to) : new Date();
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - 30 * DAY_MS);
  return { from, to, granularity: query.granularity ?? "day" };
}

/** Replaces every bigint of a value with an exact JSON integer. */
function exact(value: unknown): unknown {
  if (typeof value === "bigint") return exactInteger(value);
  if (Array.isArray(value)) return value.map(exact);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exact(v)]));
  return value;
}

/** Replaces every bigint of a value with its decimal string (the amounts per currency). */
function decimal(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(decimal);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decimal(v)]));
  return value;
}

const withDecimalCurrencies = (f: CreatorAnalytics["totals"]) => ({ ...f, by_currency: decimal(f.by_currency) });

/** The answer: JSON, or one table as CSV. */
export function analyticsResponse(c: Context, analytics: CreatorAnalytics, query: z.infer<typeof AnalyticsQuerySchema>): Response {
  if (query.format === "csv") {
    const table = query.table ?? "series";
    return c.body(toCsv(analytics, table), 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="analytics-${table}.csv"` });
  }
  const { reconciliation, top_renters_by_currency, balances_outstanding_by_currency, series, totals, ...rest } = analytics;
  const { by_currency, ...eth } = reconciliation;
  const block = reconciliation.block === null ? null : reconciliation.block.toString();
  // `_wei` figures as exact JSON integers (as ever); amounts per currency as decimal strings, counts as numbers.
  return c.json(
    exact({
      ...rest,
      series: series.map(withDecimalCurrencies),
      totals: withDecimalCurrencies(totals),
      top_renters_by_currency: top_renters_by_currency.map((g) => ({ currency: g.currency, renters: g.renters.map((r) => ({ wallet: r.wallet, spend: r.spend_wei.toString(), runs: r.runs, purchases: r.purchases, renewals: r.renewals })) })),
      balances_outstanding_by_currency: decimal(balances_outstanding_by_currency),
      reconciliation: {
        ...eth,
        block,
        by_currency: by_currency.map((r) => decimal({ currency: r.currency, chain_escrow: r.chain_escrow_wei, rollup_escrow: r.rollup_escrow_wei, withdrawable: r.withdrawable_wei, vesting: r.vesting_wei, matches: r.matches })),
      },
    }) as object,
    200,
  );
}

export const analyticsResponses = {
  200: {
    description: "The figures (JSON), or one table as CSV",
    content: { "application/json": { schema: CreatorAnalyticsSchema }, "text/csv": { schema: z.string() } },
  },
};
