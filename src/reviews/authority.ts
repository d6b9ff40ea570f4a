// Reviews during the beta are the protocol authority's: the wallet the marketplace contract names as
// its authority (read from the chain, the source of truth, so a transferAuthority takes effect at once).
import { ApiError } from "../errors.ts";
import type { ChainClient } from "../chain/client.ts";
import { readAuthority } from "../chain/read-authority.ts";

export async function requireAuthority(chain: ChainClient, wallet: string): Promise<void> {
  let authority: string;
  try {
    authority = await readAuthority(chain);
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to check the reviewer; retry.", { cause: error });
  }
  if (authority.toLowerCase() !== wallet.toLowerCase()) throw new ApiError("forbidden", "Only the protocol authority reviews creators and listings.");
}
