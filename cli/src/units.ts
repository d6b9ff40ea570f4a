// Subscription durations and ETH amounts, without loading viem: `agentrent --help` and every command
// that does not touch the chain start without it (viem is loaded with src/chain.ts when needed). The
// product's words and the contract's enums are the service's own (@agent-rental/core/vocabulary).
import { usageError } from "./errors.ts";

export const DURATIONS: Record<string, bigint> = { "30d": 2_592_000n, "90d": 7_776_000n, "365d": 31_536_000n };

const WEI_PER_ETH = 10n ** 18n;

/** Wei as decimal ETH without trailing zeros (what viem's formatEther writes). */
export function formatEth(wei: bigint): string {
  return formatDecimals(wei, 18);
}

/** An amount in a currency's smallest unit as decimal whole units without trailing zeros (viem's formatUnits). */
export function formatDecimals(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const one = 10n ** BigInt(decimals);
  const fraction = decimals === 0 ? "" : (abs % one).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / one}${fraction ? `.${fraction}` : ""}`;
}

/** An amount in its currency, with the symbol: "1.25 USDC", "0.01 ETH". */
export const amountIn = (units: bigint | string, currency: { symbol: string; decimals: number }): string => `${formatDecimals(BigInt(units), currency.decimals)} ${currency.symbol}`;

export const eth = (wei: bigint): string => `${formatEth(wei)} ETH`;

/** "0.01" ETH → wei, with a usage error naming the flag. */
export function ethAmount(value: string, flag: string): bigint {
  if (!/^\d+(\.\d{1,18})?$/.test(value.trim())) throw usageError(`${flag} must be an amount of ETH such as 0.01, not ${JSON.stringify(value)}.`);
  const [whole, fraction = ""] = value.trim().split(".");
  return BigInt(whole!) * WEI_PER_ETH + BigInt(fraction.padEnd(18, "0"));
}

/** `value` in a currency ("0.002" ETH, "0.4" USDC) → its smallest unit, exact (never rounded: more
 * decimals than the currency has are refused), with a usage error naming the flag. */
export function currencyAmount(value: string, currency: { symbol: string; address: string | null; decimals: number }, flag: string): bigint {
  if (currency.address === null) return ethAmount(value, flag);
  const text = value.trim();
  const pattern = currency.decimals === 0 ? /^\d+$/ : new RegExp(`^\\d+(\\.\\d{1,${currency.decimals}})?$`);
  if (!pattern.test(text)) throw usageError(`${flag} must be an amount of ${currency.symbol} such as ${currency.decimals === 0 ? "5" : "0.25"}, with at most ${currency.decimals} decimals, not ${JSON.stringify(value)}.`);
  const [whole, fraction = ""] = text.split(".");
  return BigInt(whole!) * 10n ** BigInt(currency.decimals) + BigInt(fraction.padEnd(currency.decimals, "0") || "0");
}
