// The creator analytics as CSV: any table of an answer (RFC 4180), amounts as exact integers: wei in
// `series` and `top_renters` (the ETH listings'), each currency's smallest unit in the `_by_currency`
// tables (decision 0255).
import { RENTAL_MODELS, RUN_FAILURE_CODES } from "@agent-rental/core/vocabulary";
import type { Currency } from "../listings/currency.ts";
import type { Analytics } from "./figures.ts";

/** The tables a CSV export can hold. */
export const CSV_TABLES = ["series", "top_renters", "series_by_currency", "top_renters_by_currency"] as const;
export type CsvTable = (typeof CSV_TABLES)[number];

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const rowsCsv = (rows: unknown[][]) => rows.map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
const currencyCells = (c: Currency) => [c.symbol, c.address ?? "", c.decimals];

/** The tables of amounts per currency: a row per period (or renter) and currency, in the smallest unit. */
function currencyCsv(analytics: Analytics, table: "series_by_currency" | "top_renters_by_currency"): string {
  const head = ["currency", "currency_address", "decimals"];
  if (table === "top_renters_by_currency") {
    return rowsCsv([[...head, "wallet", "spend", "runs", "purchases", "renewals"], ...analytics.top_renters_by_currency.flatMap((g) => g.renters.map((r) => [...currencyCells(g.currency), r.wallet, r.spend_wei, r.runs, r.purchases, r.renewals]))]);
  }
  return rowsCsv([
    ["period", ...head, "gross", "fee", "net", ...RENTAL_MODELS.flatMap((m) => [`gross_${m}`, `fee_${m}`, `net_${m}`]), "withdrawn", "paid_by_x402", "deposits", "refunds", "balance_change", "charged"],
    ...analytics.series.flatMap((f) =>
      f.by_currency.map((c) => [f.period, ...currencyCells(c.currency), c.revenue.gross, c.revenue.fee, c.revenue.net, ...RENTAL_MODELS.flatMap((m) => [c.revenue.by_model[m].gross, c.revenue.by_model[m].fee, c.revenue.by_model[m].net]), c.revenue.withdrawn, c.revenue.paid_by_x402, c.rentals.deposits, c.rentals.refunds, c.rentals.balance_change, c.runs.charged]),
    ),
  ]);
}

/** One table of the analytics as CSV (RFC 4180; amounts as exact integers: wei in `series` and
 * `top_renters`, each currency's smallest unit in the `_by_currency` tables). */
export function toCsv(analytics: Analytics, table: CsvTable): string {
  if (table === "series_by_currency" || table === "top_renters_by_currency") return currencyCsv(analytics, table);
  if (table === "top_renters") {
    const rows = [["wallet", "spend_wei", "runs", "purchases", "renewals"], ...analytics.top_renters.map((r) => [r.wallet, r.spend_wei, r.runs, r.purchases, r.renewals])];
    return rows.map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
  }
  const header = [
    "period",
    "gross_wei",
    "fee_wei",
    "net_wei",
    ...RENTAL_MODELS.flatMap((m) => [`gross_wei_${m}`, `fee_wei_${m}`, `net_wei_${m}`]),
    "withdrawn_wei",
    ...RENTAL_MODELS.map((m) => `purchases_${m}`),
    "renewals",
    "lapsed",
    "lapsing",
    "balance_change_wei",
    "renters_new",
    "renters_returning",
    "runs_completed",
    "runs_failed",
    "runs_logged",
    "charged_wei",
    "latency_p50_ms",
    "latency_p95_ms",
    "first_output_p50_ms",
    "first_output_p95_ms",
    "verified_feedback",
    "feedback_mean_score",
    ...RUN_FAILURE_CODES.map((code) => `failed_${code}`),
  ];
  const rows = analytics.series.map((f) => [
    f.period,
    f.revenue.gross_wei,
    f.revenue.fee_wei,
    f.revenue.net_wei,
    ...RENTAL_MODELS.flatMap((m) => [f.revenue.by_model[m].gross_wei, f.revenue.by_model[m].fee_wei, f.revenue.by_model[m].net_wei]),
    f.revenue.withdrawn_wei,
    ...RENTAL_MODELS.map((m) => f.rentals.purchases[m]),
    f.rentals.renewals,
    f.rentals.lapsed,
    f.rentals.lapsing,
    f.rentals.balance_change_wei,
    f.renters.new,
    f.renters.returning,
    f.runs.completed,
    f.runs.failed,
    f.runs.logged,
    f.runs.charged_wei,
    f.latency.p50_ms,
    f.latency.p95_ms,
    f.time_to_first_output.p50_ms,
    f.time_to_first_output.p95_ms,
    f.reputation.verified_feedback,
    f.reputation.mean_score,
    ...RUN_FAILURE_CODES.map((code) => f.runs.by_failure_code[code] ?? 0n),
  ]);
  return [header, ...rows].map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}
