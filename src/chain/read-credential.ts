// A wallet's credential for a listing, as the contract holds it (`credentialOf`), in one eth_call.
import type { Address } from "viem";
import type { ChainClient } from "./client.ts";
import { ChainReadError } from "./errors.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface ContractCredential {
  /** The contract's CredentialStatus index. */
  status: number;
  /** The contract's AccessType index. */
  accessType: number;
  purchasedAt: number;
  expiresAt: number;
  balance: bigint;
  revoked: boolean;
}

/** Throws ChainReadError when the chain does not answer. */
export async function readCredentialOf(chain: ChainClient, listingId: `0x${string}`, wallet: Address): Promise<ContractCredential> {
  let result: readonly [number, number, number, number, bigint, boolean];
  try {
    result = await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "credentialOf", args: [listingId, wallet] });
  } catch (error) {
    throw new ChainReadError("credentialOf", { cause: error });
  }
  const [status, accessType, purchasedAt, expiresAt, balance, revoked] = result;
  return { status, accessType, purchasedAt, expiresAt, balance, revoked };
}
