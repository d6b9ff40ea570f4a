// EIP-191 personal_sign verification through the chain client: plain accounts by recovery, smart
// contract wallets by ERC-1271, and undeployed ones by ERC-6492 (viem's verifyMessage covers all three).
import type { Address, Hex } from "viem";
import type { ChainClient } from "../chain/client.ts";
import { ApiError } from "../errors.ts";

export async function verifyWalletSignature(chain: ChainClient, wallet: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    return await chain.client.verifyMessage({ address: wallet, message, signature });
  } catch (error) {
    // A malformed signature is a verification failure; an unreachable chain is not the caller's fault.
    const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
    if (/HttpRequestError|fetch failed|ECONNREFUSED|timed out|TimeoutError/i.test(text)) {
      throw new ApiError("service_unavailable", "The chain could not be reached to verify the signature; retry.", { cause: error });
    }
    return false;
  }
}
