// Money and time as a user reads them: wei formatted by viem (never through floating point), times in
// the user's own zone and language.
import { formatEther, formatUnits, parseEther } from "viem";
import type { RentalModel } from "@agent-rental/core/vocabulary";

/** ETH from wei, exact, with the unit. */
export function formatWei(wei: bigint | string | number): string {
  return `${formatEther(BigInt(wei))} ETH`;
}

/** An amount in a currency's smallest unit, exact, with the currency's symbol: "1.5 USDC", "0.01 ETH". */
export function formatAmount(units: bigint | string, currency: { symbol: string; decimals: number }): string {
  return `${formatUnits(BigInt(units), currency.decimals)} ${currency.symbol}`;
}

/** A listing's price in its own currency, exact from its smallest unit: "0.25 USDC", "0.001 ETH". */
export function formatPrice(listing: { price_units: string; currency: { symbol: string; decimals: number } }): string {
  return `${formatUnits(BigInt(listing.price_units), listing.currency.decimals)} ${listing.currency.symbol}`;
}

/** The API's price_eth (a JSON number) as exact wei: via its decimal text, not float arithmetic. */
export function priceWei(priceEth: number): bigint {
  return parseEther(priceEth.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 18 }));
}

/** A count with its noun: "1 run", "3 runs" (the plural the noun's `s`, unless given). */
export function countOf(count: number | bigint, one: string, other = `${one}s`): string {
  return `${count} ${count === 1 || count === 1n ? one : other}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
export function formatTime(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const d = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(d.getTime()) ? "—" : dateTime.format(d);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
/** "in 29 days", "in 3 hours", "5 minutes ago". */
export function timeLeft(iso: string | null, now = Date.now()): string {
  if (!iso) return "never expires";
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] =
    abs >= 86_400_000 ? [Math.round(ms / 86_400_000), "day"] : abs >= 3_600_000 ? [Math.round(ms / 3_600_000), "hour"] : [Math.round(ms / 60_000), "minute"];
  return relative.format(value, unit);
}

/** A value from the API as JSON laid out for reading. The SDK reads every `*_wei` integer as an exact
 * bigint (an agent's output may hold one too), which JSON.stringify alone refuses: written as its digits. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2) ?? "null";
}

/** A sample output as text: JSON laid out for reading, anything else as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

export function shortHex(hex: string, keep = 6): string {
  return hex.length > keep * 2 + 2 ? `${hex.slice(0, keep + 2)}…${hex.slice(-keep)}` : hex;
}

export const MODEL_LABEL = { one_time: "One-time", subscription: "Subscription", per_query: "Per-Task" } as const satisfies Record<RentalModel, string>;
export const PRICE_MEANING = {
  one_time: "Paid once: permanent, unmetered access.",
  subscription: "Per 30 days of unlimited runs; 90 and 365 days cost 3× and about 12×.",
  per_query: "Per task run, debited from a balance you prepay.",
} as const satisfies Record<RentalModel, string>;
export const PRICE_SUFFIX = { one_time: "once", subscription: "/ 30 days", per_query: "/ run" } as const satisfies Record<RentalModel, string>;
