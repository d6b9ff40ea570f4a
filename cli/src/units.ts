// Subscription durations and ETH amounts, without loading viem: `agentrent --help` and every command
// that does not touch the chain start without it (viem is loaded with src/chain.ts when needed). The
// product's words and the contract's enums are the service's own (@agent-rental/core/vocabulary).
import { usageError } from "./errors.ts";

export const DURATIONS: Record<string, bigint> = { "30d": 2_592_000n, "90d": 7_776_000n, "365d": 31_536_000n };

const WEI_PER_ETH = 10n ** 18n;

/** Wei as decimal ETH without trailing zeros (what viem's formatEther writes). */
export function formatEth(wei: bigint): string {
  const negative = wei < 0n;
  const abs = negative ? -wei : wei;
  const fraction = (abs % WEI_PER_ETH).toString().padStart(18, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / WEI_PER_ETH}${fraction ? `.${fraction}` : ""}`;
}

export const eth = (wei: bigint): string => `${formatEth(wei)} ETH`;

/** "0.01" ETH → wei, with a usage error naming the flag. */
export function ethAmount(value: string, flag: string): bigint {
  if (!/^\d+(\.\d{1,18})?$/.test(value.trim())) throw usageError(`${flag} must be an amount of ETH such as 0.01, not ${JSON.stringify(value)}.`);
  const [whole, fraction = ""] = value.trim().split(".");
  return BigInt(whole!) * WEI_PER_ETH + BigInt(fraction.padEnd(18, "0"));
}
