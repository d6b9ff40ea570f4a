// The schemas and the query of the creator analytics routes (GET /v1/creators/me/analytics and GET
// /v1/creators/me/listings/{listing_id}/analytics), and the answer's shaping: wei as exact JSON integers,
// or one table as CSV.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { RENTAL_MODELS, RUN_FAILURE_CODES, type RentalModel } from "@agent-rental/core/vocabulary";
import { CSV_TABLES, GRANULARITIES, MAX_POINTS, toCsv, type Range } from "../../analytics/figures.ts";
import type { CreatorAnalytics } from "../../analytics/creator-analytics.ts";
import { exactInteger } from "../run-json.ts";

const wei = (description: string) => z.number().int().openapi({ description: `${description} (wei, an exact JSON integer)` });
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
    currency: z.literal("ETH"),
    listings: z.array(z.object({ listing_id: z.string(), name: z.string(), rating: z.number().nullable().openapi({ description: "Verified ERC-8004 rating (0-5); null before any" }), review_count: z.number().int() })),
    series: z.array(PeriodFiguresSchema),
    totals: PeriodFiguresSchema,
    top_renters: z
      .array(z.object({ wallet: z.string().openapi({ description: "The renter's wallet, lower-case: renters appear only as wallet addresses" }), spend_wei: wei("Everything it paid the listings (purchases, renewals, charges), all time"), runs: count("Its runs, all time"), purchases: count("Rentals bought"), renewals: count("Renewals") }))
      .openapi({ description: "The ten renters who spent most, all time (ties by wallet address)" }),
    renter_count: z.number().int().openapi({ description: "Wallets that rented or ran the listings, all time: across listings a wallet renting several counts once" }),
    balances_outstanding_wei: wei("What renters hold in per_query balances of the listings now: deposits − charges − refunds, all time"),
    reconciliation: z
      .object({
        block: z.string().nullable().openapi({ description: "The last block the figures count (decimal); null before the indexer's first round" }),
        chain_escrow_wei: wei("The listings' escrow on-chain at that block").nullable(),
        rollup_escrow_wei: wei("The same computed from the figures: net revenue − withdrawn, all time"),
        withdrawable_wei: wei("Of the escrow, what the creator may withdraw now").nullable(),
        vesting_wei: wei("Of the escrow, subscription payments still vesting").nullable(),
        matches: z.boolean().openapi({ description: "The figures match the chain at `block`, to the wei" }),
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
  table: z.enum(CSV_TABLES).optional().openapi({ description: "The table a CSV holds: series (default) or top_renters" }),
});

export const ANALYTICS_DESCRIPTION =
  "Amounts are exact wei, from the marketplace's events (gross and fee as each event states them); runs come from their settlement and receipts from the run log. " +
  "The figures are roll-ups kept per hour, day and month as events happen, never computed by scanning runs. `reconciliation` compares them with the contract at the last block counted. " +
  "Renters appear only as wallet addresses; no run's input or output appears. `format=csv` returns one table (`table`: series or top_renters) as text/csv.";

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

/** The answer: JSON, or one table as CSV. */
export function analyticsResponse(c: Context, analytics: CreatorAnalytics, query: z.infer<typeof AnalyticsQuerySchema>): Response {
  if (query.format === "csv") {
    const table = query.table ?? "series";
    return c.body(toCsv(analytics, table), 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="analytics-${table}.csv"` });
  }
  const { reconciliation, ...rest } = analytics;
  return c.json(exact({ ...rest, reconciliation: { ...reconciliation, block: reconciliation.block === null ? null : reconciliation.block.toString() } }) as object, 200);
}

export const analyticsResponses = {
  200: {
    description: "The figures (JSON), or one table as CSV",
    content: { "application/json": { schema: CreatorAnalyticsSchema }, "text/csv": { schema: z.string() } },
  },
};
