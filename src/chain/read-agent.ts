// An ERC-8004 agent's owner, read from the Identity Registry; null when no such agent exists.
import { BaseError, ContractFunctionRevertedError, type Address } from "viem";
import type { ChainClient } from "./client.ts";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";

export async function readAgentOwner(chain: ChainClient, agentId: bigint): Promise<Address | null> {
  if (!chain.erc8004) return null;
  try {
    return await chain.client.readContract({ address: chain.erc8004.identityRegistry, abi: identityRegistryAbi, functionName: "ownerOf", args: [agentId] });
  } catch (error) {
    // ERC721NonexistentToken: no such agent. Anything else (the node unreachable) is the caller's error.
    if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError)) return null;
    throw error;
  }
}
