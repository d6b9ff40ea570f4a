// The transaction that paid for a renter's one_time or subscription access to a listing: its latest
// OneTimePurchased, SubscriptionPurchased or SubscriptionRenewed event (the proof of payment a feedback
// file carries; per-query runs carry their own charge's transaction instead).
import { parseEventLogs, type Address, type Hex } from "viem";
import type { ChainClient } from "./client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface FindPurchaseParameters {
  listingId: Hex;
  buyer: Address;
  fromBlock: bigint;
}

export async function findPurchaseTransaction(chain: ChainClient, params: FindPurchaseParameters): Promise<Hex | null> {
  const events = marketplaceAbi.filter((item) => item.type === "event" && ["OneTimePurchased", "SubscriptionPurchased", "SubscriptionRenewed"].includes(item.name));
  const logs = await chain.client.getLogs({
    address: chain.marketplace,
    events: events as never,
    args: { listingId: params.listingId, buyer: params.buyer } as never,
    fromBlock: params.fromBlock,
    toBlock: "latest",
  });
  const parsed = parseEventLogs({ abi: marketplaceAbi, logs: logs as never });
  return parsed.at(-1)?.transactionHash ?? null;
}
