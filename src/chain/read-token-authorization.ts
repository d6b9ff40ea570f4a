// What the chain says of an EIP-3009 authorization before it is accepted as a payment: whether its nonce
// was already used (`authorizationState`), the payer's token balance, and the chain's time (the window is
// judged against the block, not our clock). The three travel as one batched request.
import type { Address } from "viem";
import { eip3009ABI } from "@x402/evm";
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";

export interface ReadTokenAuthorizationParameters {
  token: Address;
  authorizer: Address;
  nonce: `0x${string}`;
}

export interface ReadTokenAuthorizationReturnType {
  /** The token recorded the nonce as used (or cancelled). */
  nonceUsed: boolean;
  balance: bigint;
  /** The latest block's timestamp, in seconds. */
  chainTime: number;
}

/** Throws ChainReadError when the chain does not answer. */
export async function readTokenAuthorization(chain: ChainClient, { token, authorizer, nonce }: ReadTokenAuthorizationParameters): Promise<ReadTokenAuthorizationReturnType> {
  try {
    const [nonceUsed, balance, block] = await Promise.all([
      chain.client.readContract({ address: token, abi: eip3009ABI, functionName: "authorizationState", args: [authorizer, nonce] }),
      chain.client.readContract({ address: token, abi: eip3009ABI, functionName: "balanceOf", args: [authorizer] }),
      chain.client.getBlock({ blockTag: "latest" }),
    ]);
    return { nonceUsed, balance, chainTime: Number(block.timestamp) };
  } catch (error) {
    throw new ChainReadError("authorizationState", { cause: error });
  }
}
