// A creator's analytics one currency at a time. The API gives counts across every listing and amounts per
// currency in four places (each period's and the totals' `by_currency`, `top_renters_by_currency`,
// `balances_outstanding_by_currency`, `reconciliation.by_currency`); `analyticsByCurrency` gathers them
// for each currency, ETH first, and `formatAmount` writes an amount in its currency. Amounts of two
// currencies are never added.
import { formatUnitsExact } from "./rent.ts";
import type { AnalyticsCurrency, AnalyticsCurrencyFigures, AnalyticsCurrencyReconciliation, AnalyticsTopRentersInCurrency, CreatorAnalytics } from "./types.ts";

/** `amount` (the currency's smallest unit) in whole units with the symbol, exactly: "0.25 USDC", "0.0019 ETH". */
export function formatAmount(amount: bigint | string, currency: Pick<AnalyticsCurrency, "symbol" | "decimals">): string {
  return `${formatUnitsExact(amount, currency.decimals)} ${currency.symbol}`;
}

/** Every figure of the analytics in one currency (amounts in its smallest unit, as decimal strings). */
export interface CurrencyAnalytics {
  currency: AnalyticsCurrency;
  /** The listings priced in it. */
  listings: CreatorAnalytics["listings"];
  /** The range's amounts in it: revenue (by model, gross, fee, net, withdrawn, paid by x402), per_query
   * deposits, refunds and balance change, what runs were charged. */
  totals: AnalyticsCurrencyFigures;
  /** Each period's amounts in it. */
  series: ({ period: string } & AnalyticsCurrencyFigures)[];
  /** The ten renters who spent most on its listings, all time (`spend` in it). */
  top_renters: AnalyticsTopRentersInCurrency["renters"];
  /** What renters hold in per_query balances of its listings now. */
  balances_outstanding: string;
  /** Its escrow against its contract at `reconciliation.block` (withdrawable and vesting among it). */
  reconciliation: AnalyticsCurrencyReconciliation | null;
}

/** A currency's key: the token's address (lower case), or "eth". */
const keyOf = (currency: Pick<AnalyticsCurrency, "address">) => currency.address?.toLowerCase() ?? "eth";

/** No amounts in `currency` (a currency with nothing counted in a period). */
function zeroFigures(currency: AnalyticsCurrency): AnalyticsCurrencyFigures {
  const money = { gross: "0", fee: "0", net: "0" };
  return {
    currency,
    revenue: { by_model: { one_time: { ...money }, subscription: { ...money }, per_query: { ...money } }, ...money, withdrawn: "0", paid_by_x402: "0" },
    rentals: { deposits: "0", refunds: "0", balance_change: "0" },
    runs: { charged: "0" },
  };
}

/** The analytics' amounts gathered per currency, ETH first then as the API orders them (a currency
 * appears when a listing is priced in it). */
export function analyticsByCurrency(analytics: CreatorAnalytics): CurrencyAnalytics[] {
  const currencies = new Map<string, AnalyticsCurrency>();
  const add = (currency: AnalyticsCurrency) => currencies.has(keyOf(currency)) || currencies.set(keyOf(currency), currency);
  analytics.totals.by_currency.forEach((f) => add(f.currency));
  analytics.listings.forEach((l) => add(l.currency));
  analytics.balances_outstanding_by_currency.forEach((b) => add(b.currency));
  analytics.top_renters_by_currency.forEach((t) => add(t.currency));
  analytics.reconciliation.by_currency.forEach((r) => add(r.currency));
  const sorted = [...currencies.entries()].sort(([a], [b]) => (a === "eth" ? -1 : b === "eth" ? 1 : 0));
  return sorted.map(([key, currency]) => {
    const of = <T extends { currency: AnalyticsCurrency }>(rows: T[]) => rows.find((row) => keyOf(row.currency) === key);
    return {
      currency,
      listings: analytics.listings.filter((l) => keyOf(l.currency) === key),
      totals: of(analytics.totals.by_currency) ?? zeroFigures(currency),
      series: analytics.series.map((p) => ({ period: p.period, ...(of(p.by_currency) ?? zeroFigures(currency)) })),
      top_renters: of(analytics.top_renters_by_currency)?.renters ?? [],
      balances_outstanding: of(analytics.balances_outstanding_by_currency)?.amount ?? "0",
      reconciliation: of(analytics.reconciliation.by_currency) ?? null,
    };
  });
}
