// The marketplace's protocol authority (`authority()`), read live: a transferAuthority counts at once.
import type { Address } from "viem";
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

/** Throws ChainReadError when the chain does not answer. */
export async function readAuthority(chain: ChainClient): Promise<Address> {
  try {
    return await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "authority" });
  } catch (error) {
    throw new ChainReadError("authority", { cause: error });
  }
}
