// Whether a listing is sold by x402, and what one run of it costs: a published per-task listing on the
// TokenMarketplace priced in a token the service knows implements EIP-3009 (docs/design/currencies.md).
// What is offered comes from the index (its price, its token, its state); the chain is the last word at
// settlement: settlePayments refuses a payment whose value is not the listing's price now, or whose
// listing closed (PaymentRefused), and the run's output is then withheld.
import { getAddress } from "viem";
import type { PaymentRequirements } from "@x402/core/types";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { tokenAt, type ChainToken } from "../chain/client.ts";
import { resolveAgentId } from "../execution/access.ts";
import { isPublished, type AgentRecord } from "../listings/catalogue.ts";
import { getChainListing } from "../listings/chain-listing.store.ts";
import { getAgent } from "../listings/listing.store.ts";
import { paymentRequired, paymentRequirements } from "./requirements.ts";
import { paymentRequiredHeader, PAYMENT_REQUIRED_HEADER } from "./headers.ts";

export interface X402Offer {
  onChainId: `0x${string}`;
  listingId: string;
  agent: AgentRecord;
  token: ChainToken;
  /** One run's price in the token's smallest unit. */
  amount: bigint;
  requirements: PaymentRequirements;
  paused: boolean;
}

/** The listing's x402 offer, or undefined when it is not sold by x402 (an ETH listing, another rental
 * model, a token without EIP-3009, no TokenMarketplace, an unpublished or closed listing, an unknown id). */
export async function x402OfferOf(services: Services, agentId: string): Promise<X402Offer | undefined> {
  const { chain } = services;
  if (!chain.tokenMarketplace) return undefined;
  let onChainId: `0x${string}`;
  try {
    onChainId = await resolveAgentId(services, agentId);
  } catch {
    return undefined;
  }
  const [agent, stored] = await Promise.all([getAgent(services.tables, onChainId), getChainListing(services.tables, onChainId)]);
  const row = stored ?? undefined;
  if (!agent || !isPublished(agent, row) || !row.token || row.rental_model !== "per_query" || row.status === "closed") return undefined;
  const token = tokenAt(chain, row.token);
  if (!token?.eip3009) return undefined;
  const amount = BigInt(row.price_wei!);
  const requirements = paymentRequirements({ chainId: chain.chain.id, token: { ...token, address: getAddress(token.address) }, amount, payTo: chain.tokenMarketplace });
  return { onChainId, listingId: agent.listing_id, agent, token, amount, requirements, paused: row.status === "paused" };
}

/** The 402 for `offer`: our error envelope (`payment_required`) with x402's PAYMENT-REQUIRED header,
 * whose `error` says why (no payment, or the refusal's reason code). */
export function paymentRequiredError(offer: X402Offer, resourceUrl: string, reason: string, message: string): ApiError {
  const body = paymentRequired({ url: resourceUrl, description: `One run of ${offer.agent.name}`, mimeType: "application/json" }, [offer.requirements], reason);
  return new ApiError("payment_required", message, { headers: { [PAYMENT_REQUIRED_HEADER]: paymentRequiredHeader(body) } });
}
