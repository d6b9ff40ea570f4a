// The RunsLogged event of one Merkle root, searched from a block to the head in chunks of eth_getLogs:
// how the run log finds out whether a batch whose send had no known outcome reached the chain.
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

/** Blocks per eth_getLogs request (nodes cap the range one request may cover). */
const CHUNK = 5_000n;

export interface FindRunsLoggedParameters {
  root: `0x${string}`;
  /** The first block that may hold the event. */
  fromBlock: bigint;
}

export interface FindRunsLoggedReturnType {
  /** The first RunsLogged event of the root, when there is one. */
  found?: { batchIndex: number; transactionHash: `0x${string}` };
  /** The head the search went up to (a later search may start there). */
  head: bigint;
}

/** The chain did not answer. */
export type FindRunsLoggedErrorType = ChainReadError;

/** Throws ChainReadError when the chain does not answer. */
export async function findRunsLogged(chain: ChainClient, { root, fromBlock }: FindRunsLoggedParameters): Promise<FindRunsLoggedReturnType> {
  try {
    const head = await chain.client.getBlockNumber({ cacheTime: 0 });
    for (let start = fromBlock; start <= head; start += CHUNK) {
      const end = start + CHUNK - 1n < head ? start + CHUNK - 1n : head;
      const logs = await chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "RunsLogged", fromBlock: start, toBlock: end });
      const log = logs.find((entry) => entry.args.root?.toLowerCase() === root.toLowerCase() && entry.transactionHash !== null);
      if (log) return { found: { batchIndex: Number(log.args.batchIndex!), transactionHash: log.transactionHash! }, head };
    }
    return { head };
  } catch (error) {
    throw new ChainReadError("RunsLogged events", { cause: error });
  }
}
