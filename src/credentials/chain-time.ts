// The chain's time: the latest block's timestamp, the clock the contract judges a subscription's expiry
// by (`credentialStatus`, `isCredentialValid`). The list of credentials reads it too, so the list and
// the verification never disagree about whether a subscription has expired.
import type { ChainClient } from "../chain/client.ts";
import { ApiError } from "../errors.ts";

/** The latest block's timestamp, in Unix seconds. Throws 503 service_unavailable when the chain cannot
 * be reached (the server's clock would be a guess: chain time and wall time differ, on a test network
 * by as much as anyone moved it). */
export async function chainNowSeconds(chain: ChainClient): Promise<number> {
  try {
    const block = await chain.client.getBlock({ blockTag: "latest" });
    return Number(block.timestamp);
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to read its time; retry.", { cause: error });
  }
}

/**
 * The chain's time for reading the index (the credentials list, the MCP tool list), or the server's
 * clock when the chain cannot be read: the index answers on its own during a chain outage, and the
 * difference is only how a subscription expiring in that window reads until the chain is back.
 * Verification never falls back (it asks the chain, or answers 503).
 */
export async function chainNowOrClock(chain: ChainClient, onFallback?: (error: unknown) => void): Promise<number> {
  try {
    return await chainNowSeconds(chain);
  } catch (error) {
    onFallback?.(error);
    return Math.floor(Date.now() / 1000);
  }
}
