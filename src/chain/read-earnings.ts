// A listing's earnings as the contract holds them at one block: its escrow, the part the creator may
// withdraw now, and the part of subscription payments still vesting (what the creator analytics
// reconcile their roll-ups with).
import { marketAddress, type ChainClient, type Market } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";

export interface ReadEarningsParameters {
  /** The on-chain listing id (bytes32). */
  listingId: `0x${string}`;
  /** The block to read at. */
  blockNumber: bigint;
  /** The contract the listing lives on (default: the Marketplace); a token listing's amounts are in its token. */
  market?: Market;
}

export interface ReadEarningsReturnType {
  escrowWei: bigint;
  withdrawableWei: bigint;
  vestingWei: bigint;
}

/** The chain did not answer. */
export type ReadEarningsErrorType = ChainReadError;

/** Throws ChainReadError when the chain does not answer. A listing that does not exist reads as zeros. */
export async function readEarnings(chain: ChainClient, { listingId, blockNumber, market = "eth" }: ReadEarningsParameters): Promise<ReadEarningsReturnType> {
  try {
    // Both contracts hold a listing's escrow second in `listings` and answer the two earnings reads alike.
    const address = marketAddress(chain, market);
    const abi = market === "token" ? tokenMarketplaceAbi : marketplaceAbi;
    const [listing, withdrawableWei, vestingWei] = await Promise.all([
      chain.client.readContract({ address, abi: abi as typeof marketplaceAbi, functionName: "listings", args: [listingId], blockNumber }),
      chain.client.readContract({ address, abi: abi as typeof marketplaceAbi, functionName: "withdrawableEarnings", args: [listingId], blockNumber }),
      chain.client.readContract({ address, abi: abi as typeof marketplaceAbi, functionName: "unvestedEarnings", args: [listingId], blockNumber }),
    ]);
    return { escrowWei: listing[1], withdrawableWei, vestingWei };
  } catch (error) {
    throw new ChainReadError("earnings", { cause: error });
  }
}
