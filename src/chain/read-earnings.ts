// A listing's earnings as the contract holds them at one block: its escrow, the part the creator may
// withdraw now, and the part of subscription payments still vesting (what the creator analytics
// reconcile their roll-ups with).
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface ReadEarningsParameters {
  /** The on-chain listing id (bytes32). */
  listingId: `0x${string}`;
  /** The block to read at. */
  blockNumber: bigint;
}

export interface ReadEarningsReturnType {
  escrowWei: bigint;
  withdrawableWei: bigint;
  vestingWei: bigint;
}

/** The chain did not answer. */
export type ReadEarningsErrorType = ChainReadError;

/** Throws ChainReadError when the chain does not answer. A listing that does not exist reads as zeros. */
export async function readEarnings(chain: ChainClient, { listingId, blockNumber }: ReadEarningsParameters): Promise<ReadEarningsReturnType> {
  try {
    const [listing, withdrawableWei, vestingWei] = await Promise.all([
      chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [listingId], blockNumber }),
      chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "withdrawableEarnings", args: [listingId], blockNumber }),
      chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "unvestedEarnings", args: [listingId], blockNumber }),
    ]);
    return { escrowWei: listing[1], withdrawableWei, vestingWei };
  } catch (error) {
    throw new ChainReadError("earnings", { cause: error });
  }
}
