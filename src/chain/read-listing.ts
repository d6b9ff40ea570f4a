// A listing as the contract holds it (`listings`), read live in one eth_call: a run is admitted at the
// price and in the state the chain says now, never at the index's copy.
import type { Address } from "viem";
import { marketAddress, type ChainClient, type Market } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";

export interface ReadListingParameters {
  /** The on-chain listing id (bytes32). */
  listingId: `0x${string}`;
  /** The contract the listing lives on (default eth: the Marketplace). */
  market?: Market;
}

export interface ReadListingReturnType {
  priceWei: bigint;
  escrowWei: bigint;
  /** The contract's AccessType index. */
  accessType: number;
  /** The contract's ListingStatus index (0 none, 1 active, 2 paused, 3 closed). */
  status: number;
  creator: Address;
  createdAt: number;
  metadataUri: string;
  /** The token a TokenMarketplace listing is priced in; null on the Marketplace (ETH). */
  token: Address | null;
}

/** The chain did not answer. */
export type ReadListingErrorType = ChainReadError;

/** Throws ChainReadError when the chain does not answer. A listing that does not exist reads as zeros.
 * On the TokenMarketplace `priceWei` and `escrowWei` are in the token's smallest unit. */
export async function readListing(chain: ChainClient, { listingId, market = "eth" }: ReadListingParameters): Promise<ReadListingReturnType> {
  try {
    if (market === "token") {
      const [priceWei, escrowWei, accessType, status, creator, createdAt, token, metadataUri] = await chain.client.readContract({
        address: marketAddress(chain, "token"),
        abi: tokenMarketplaceAbi,
        functionName: "listings",
        args: [listingId],
      });
      return { priceWei, escrowWei, accessType, status, creator, createdAt, metadataUri, token };
    }
    const [priceWei, escrowWei, accessType, status, creator, createdAt, metadataUri] = await chain.client.readContract({
      address: chain.marketplace,
      abi: marketplaceAbi,
      functionName: "listings",
      args: [listingId],
    });
    return { priceWei, escrowWei, accessType, status, creator, createdAt, metadataUri, token: null };
  } catch (error) {
    throw new ChainReadError("listings", { cause: error });
  }
}
