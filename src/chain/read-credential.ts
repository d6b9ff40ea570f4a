// A wallet's credential for a listing, as the contract holds it (`credentialOf`), in one eth_call.
import type { Address } from "viem";
import { marketAddress, type ChainClient, type Market } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";

export interface ContractCredential {
  /** The contract's CredentialStatus index. */
  status: number;
  /** The contract's AccessType index. */
  accessType: number;
  purchasedAt: number;
  expiresAt: number;
  balance: bigint;
  revoked: boolean;
  /** The listing's token on the TokenMarketplace (the zero address when it holds no such listing); null
   * on the Marketplace. */
  token: Address | null;
}

/** Throws ChainReadError when the chain does not answer. `market` token: the TokenMarketplace's
 * credentialOf (a per-task balance in the listing's token units). */
export async function readCredentialOf(chain: ChainClient, listingId: `0x${string}`, wallet: Address, market: Market = "eth"): Promise<ContractCredential> {
  let result: readonly [number, number, number, number, bigint, boolean, ...unknown[]];
  try {
    result =
      market === "token"
        ? await chain.client.readContract({ address: marketAddress(chain, "token"), abi: tokenMarketplaceAbi, functionName: "credentialOf", args: [listingId, wallet] })
        : await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "credentialOf", args: [listingId, wallet] });
  } catch (error) {
    throw new ChainReadError("credentialOf", { cause: error });
  }
  const [status, accessType, purchasedAt, expiresAt, balance, revoked, token] = result;
  return { status, accessType, purchasedAt, expiresAt, balance, revoked, token: market === "token" ? (token as Address) : null };
}
