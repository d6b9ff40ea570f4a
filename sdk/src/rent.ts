// Renting a listing priced in a token from the SDK: the listing's on-chain id, model and currency from the
// API, then the shared core's purchase (one signature and one transaction where the token implements
// EIP-3009 or EIP-2612, approve then purchase otherwise) through the caller's viem clients. viem itself is
// not imported: the clients are passed in (viem is a peer dependency of this method only).
import { purchaseInToken, purchaseKindOf, viemTokenPurchasePort, type PurchaseKind, type TokenPurchaseQuote, type TokenPurchaseResult } from "@agent-rental/core/token-purchase";
import type { Listing } from "./types.ts";

type Hex = `0x${string}`;

export interface RentInTokenOptions {
  /** A viem wallet client with an account and a chain (the renter's). */
  wallet: Parameters<typeof viemTokenPurchasePort>[0];
  /** A viem public client on the same chain. */
  client: Parameters<typeof viemTokenPurchasePort>[1];
  /** The TokenMarketplace's address (stack.json `contracts.token_marketplace`; the deployment's). */
  tokenMarketplace: Hex;
  /** per_query: the number of runs prepaid (default 1), or `deposit` in the token's smallest unit. */
  runs?: number;
  deposit?: bigint;
  /** subscription: 30 (default), 90 or 365. */
  days?: 30 | 90 | 365;
  /** "renewal" or "top_up" for a rental already held; default the model's first purchase. */
  kind?: Extract<PurchaseKind, "renewal" | "top_up">;
  /** Sees the amount and how it will be paid before anything is signed; throw to cancel. */
  onQuote?: (quote: TokenPurchaseQuote) => void | Promise<void>;
}

/** `amount` (smallest unit) in whole units of `decimals`, exactly: 250000 at 6 → "0.25". */
export function formatUnitsExact(amount: bigint | string, decimals: number): string {
  const value = BigInt(amount);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** A listing's price in its own currency, exactly: "0.25 USDC", "0.001 ETH", "20 RENT". */
export function formatListingPrice(listing: Pick<Listing, "price_units" | "currency">): string {
  return `${formatUnitsExact(listing.price_units, listing.currency.decimals)} ${listing.currency.symbol}`;
}

/** Buys a rental of a token listing; answers how it was paid and the transactions sent. */
export async function rentInToken(listing: Pick<Listing, "on_chain_id" | "rental_model" | "currency" | "price_units">, options: RentInTokenOptions): Promise<TokenPurchaseResult> {
  if (listing.currency.address === null) throw new TypeError(`The listing is priced in ${listing.currency.symbol}, not a token: rent it on the Marketplace.`);
  const kind = options.kind ?? purchaseKindOf(listing.rental_model);
  const price = BigInt(listing.price_units);
  const arg =
    kind === "subscription" || kind === "renewal"
      ? BigInt((options.days ?? 30) * 86_400)
      : kind === "per_query" || kind === "top_up"
        ? (options.deposit ?? price * BigInt(options.runs ?? 1))
        : 0n;
  const port = viemTokenPurchasePort(options.wallet, options.client);
  return purchaseInToken(port, { tokenMarketplace: options.tokenMarketplace, listingId: listing.on_chain_id as Hex, kind, arg }, options.onQuote);
}
