// The marketplace's verifyRunReceipt: whether a run receipt is in a logged run batch, given its
// Merkle proof (a view: no gas, no wallet). The reputation indexer asks it of every feedback file.
import type { Address, Hex } from "viem";
import type { ChainClient } from "./client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface RunReceiptFields {
  runId: Hex;
  listingId: Hex;
  renter: Address;
  status: number;
  costWei: bigint;
  durationMs: bigint;
}

export interface VerifyRunReceiptParameters {
  batchIndex: bigint;
  receipt: RunReceiptFields;
  proof: Hex[];
}

export async function verifyRunReceipt(chain: ChainClient, params: VerifyRunReceiptParameters): Promise<boolean> {
  return chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "verifyRunReceipt", args: [params.batchIndex, params.receipt, params.proof] });
}
