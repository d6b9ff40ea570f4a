// The currency a listing is priced and paid in: ETH on the Marketplace, or a token of the allowlist on the
// TokenMarketplace (docs/design/currencies.md). Every surface that shows a price or an amount shows it
// with this, and the specification's ETH-named fields (price_eth, *_wei) carry the amount in the
// listing's currency (decision 0165).
import { formatUnits, getAddress } from "viem";
import { tokenAt, type ChainClient, type ChainToken } from "../chain/client.ts";

export interface Currency {
  symbol: string;
  /** The token's address (checksummed as configured); null for ETH. */
  address: `0x${string}` | null;
  decimals: number;
}

export const ETH: Currency = { symbol: "ETH", address: null, decimals: 18 };

/** The currency of a listing priced in `token` (undefined: ETH). Null for a token the service is not
 * configured with: such a listing is not published. */
export function currencyOf(chain: Pick<ChainClient, "tokens">, token: string | undefined): Currency | null {
  if (token === undefined) return ETH;
  const known = tokenAt(chain, token);
  return known ? { symbol: known.symbol, address: known.address, decimals: known.decimals } : null;
}

/** An amount in the currency's smallest unit as a number of whole units (price_eth's shape). */
export function wholeUnits(amount: bigint, currency: Currency): number {
  return Number(formatUnits(amount, currency.decimals));
}

/** "0.25 USDC". */
export function formatAmount(amount: bigint, currency: Currency): string {
  return `${formatUnits(amount, currency.decimals)} ${currency.symbol}`;
}

/** The token an x402 `exact` payment of one run of this listing is made in: a per-task listing priced in a
 * token the service knows to implement EIP-3009 (docs/design/currencies.md). Null otherwise: the
 * listing is not payable by x402 (ETH has no x402 scheme; a token without EIP-3009 has no `exact` one
 * here; one_time and subscription rentals are bought on-chain). */
export function x402TokenOf(chain: Pick<ChainClient, "tokens">, listing: { rental_model: string; currency: Pick<Currency, "address"> }): ChainToken | null {
  if (listing.rental_model !== "per_query" || listing.currency.address === null) return null;
  const token = tokenAt(chain, listing.currency.address);
  return token?.eip3009 ? token : null;
}

/** A currency listings may be priced in, as GET /v1/currencies lists it. */
export interface AcceptedCurrency extends Currency {
  /** The marketplace contract its listings live on. */
  contract: `0x${string}`;
  /** The token's EIP-712 domain (permit and EIP-3009 signatures name it); null for ETH. */
  name: string | null;
  version: string | null;
  /** Per-task listings in it are payable by x402 (EIP-3009). */
  x402: boolean;
}

/** ETH, then each token the service is configured with (the TokenMarketplace's allowlist as this
 * deployment takes it), where a TokenMarketplace is deployed; addresses checksummed. */
export function acceptedCurrencies(chain: Pick<ChainClient, "marketplace" | "tokenMarketplace" | "tokens">): AcceptedCurrency[] {
  const eth: AcceptedCurrency = { ...ETH, contract: getAddress(chain.marketplace), name: null, version: null, x402: false };
  if (!chain.tokenMarketplace) return [eth];
  const market = getAddress(chain.tokenMarketplace);
  return [eth, ...(chain.tokens ?? []).map((t) => ({ symbol: t.symbol, address: getAddress(t.address), decimals: t.decimals, contract: market, name: t.name, version: t.version, x402: t.eip3009 }))];
}
