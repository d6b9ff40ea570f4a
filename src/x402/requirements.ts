// What an x402 v2 payment for one run of a token-priced per-task listing must be: the `exact` scheme over
// EIP-3009 (`transferWithAuthorization`), paid to the TokenMarketplace (which takes the creator's share
// into the listing's escrow and the protocol's fee), in the listing's token, on our chain
// (docs/design/currencies.md, decision 0166). The types are @x402/core's, so what we send is what the
// official clients parse.
import type { PaymentRequired, PaymentRequirements, ResourceInfo } from "@x402/core/types";
import type { Address } from "viem";
import type { TokenInfo } from "@agent-rental/core/tokens";

/** The x402 protocol version the service speaks (v2: PAYMENT-REQUIRED / PAYMENT-SIGNATURE / PAYMENT-RESPONSE). */
export const X402_VERSION = 2;

/** How long a client may make an authorization valid for, and how long the service may take to settle it
 * (`maxTimeoutSeconds`): a run's longest timeout (300 s) and the settlement window after it. */
export const MAX_TIMEOUT_SECONDS = 600;

/** A token x402 can move: one that implements EIP-3009, with the EIP-712 domain clients sign against
 * (`name`, `version`; USDC: "USD Coin", "2"). */
export type X402Token = Pick<TokenInfo, "symbol" | "decimals" | "name" | "version"> & { address: Address };

export interface PriceInToken {
  chainId: number;
  token: X402Token;
  /** The run's price in the token's smallest unit. */
  amount: bigint;
  /** The TokenMarketplace: the `to` of every authorization. */
  payTo: Address;
}

/** The CAIP-2 network name x402 uses for an EVM chain. */
export function networkOf(chainId: number): `eip155:${number}` {
  return `eip155:${chainId}`;
}

/** The one payment option a token-priced per-task run accepts. */
export function paymentRequirements(price: PriceInToken): PaymentRequirements {
  return {
    scheme: "exact",
    network: networkOf(price.chainId),
    amount: price.amount.toString(),
    asset: price.token.address,
    payTo: price.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: price.token.name, version: price.token.version },
  };
}

/** The body of a 402 (and of its PAYMENT-REQUIRED header): why, what is sold, and how it may be paid. */
export function paymentRequired(resource: ResourceInfo, accepts: PaymentRequirements[], error: string): PaymentRequired {
  return { x402Version: X402_VERSION, error, resource, accepts };
}
