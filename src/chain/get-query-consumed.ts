// The QueryConsumed event of one run's charge (`runRef`), searched from the marketplace's deploy block:
// what an earlier consumeQuery of the run took, when a retry or a sweep must know whether it landed.
import type { Address } from "viem";
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface GetQueryConsumedParameters {
  listingId: `0x${string}`;
  buyer: Address;
  /** The run's bytes32 reference (runRef). */
  runRef: `0x${string}`;
  /** The first block that may hold the event (the marketplace's deploy block). */
  fromBlock: bigint;
}

/** The charge, or undefined when the run was never charged. */
export type GetQueryConsumedReturnType = { priceWei: bigint; transactionHash: `0x${string}` } | undefined;

/** The chain did not answer. */
export type GetQueryConsumedErrorType = ChainReadError;

/** Throws ChainReadError when the chain does not answer. */
export async function getQueryConsumed(chain: ChainClient, { listingId, buyer, runRef, fromBlock }: GetQueryConsumedParameters): Promise<GetQueryConsumedReturnType> {
  let logs;
  try {
    logs = await chain.client.getContractEvents({
      address: chain.marketplace,
      abi: marketplaceAbi,
      eventName: "QueryConsumed",
      args: { listingId, buyer, runRef },
      fromBlock,
      toBlock: "latest",
    });
  } catch (error) {
    throw new ChainReadError("QueryConsumed events", { cause: error });
  }
  const log = logs[0];
  if (!log || log.transactionHash === null) return undefined;
  return { priceWei: log.args.price!, transactionHash: log.transactionHash };
}
