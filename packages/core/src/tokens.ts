// The ERC-20 tokens the marketplace knows by name: the local stack's two (a USDC stand-in and the
// marketplace's utility token, Rental Credit), their ABIs and bytecode (generated from
// contracts/src/tokens/ by scripts/build-contracts.ts), and the shape every surface describes a token
// with. A listing priced in a token carries its address; symbol, name, EIP-712 version and decimals are
// what a client needs to show the price and to sign a permit or an EIP-3009 authorization.
export { localUsdcAbi, localUsdcBytecode } from "./generated/localUsdc.ts";
export { utilityTokenAbi, utilityTokenBytecode } from "./generated/utilityToken.ts";

/** A token as stack.json, the service configuration and the API describe it. */
export interface TokenInfo {
  readonly address: `0x${string}`;
  readonly symbol: string;
  /** The EIP-712 domain name (the token's `name()`). */
  readonly name: string;
  /** The EIP-712 domain version: "2" for USDC, "1" for Rental Credit. */
  readonly version: string;
  readonly decimals: number;
}

/** The tokens a deployment names: `usdc` (EIP-3009 and EIP-2612) and `utility` (EIP-2612). */
export interface MarketplaceTokens {
  readonly usdc: TokenInfo;
  readonly utility: TokenInfo | null;
}

/** The service's TOKENS setting for a deployment's tokens: each token, and whether it implements EIP-3009
 * (USDC does: its per-task listings are payable by x402). */
export function tokenSetting(tokens: MarketplaceTokens): (TokenInfo & { eip3009: boolean })[] {
  return [{ ...tokens.usdc, eip3009: true }, ...(tokens.utility ? [{ ...tokens.utility, eip3009: false }] : [])];
}

/** What the local USDC stand-in is, as Circle's USDC: x402 clients read the name and version. */
export const LOCAL_USDC = { symbol: "USDC", name: "USD Coin", version: "2", decimals: 6 } as const;

/** The marketplace's utility token. */
export const UTILITY_TOKEN = { symbol: "RENT", name: "Rental Credit", version: "1", decimals: 18 } as const;

// Renting a token listing in as few confirmations as its token allows (EIP-3009, EIP-2612, else approve).
export * from "./token-purchase.ts";
