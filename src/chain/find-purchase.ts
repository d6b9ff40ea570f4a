// The transaction that paid for a renter's one_time or subscription access to a listing: its latest
// OneTimePurchased, SubscriptionPurchased or SubscriptionRenewed event (the proof of payment a feedback
// file carries; per-query runs carry their own charge's transaction instead), on the contract the listing
// lives on: the Marketplace, or the TokenMarketplace for a listing priced in a token (it emits the same
// events, with amounts in the token). Read in pages from the contract's deployment block
// (get-paged-logs.ts), so a busy chain's range never makes one answer too large.
import { parseEventLogs, type Address, type Hex, type Log } from "viem";
import { marketAddress, type ChainClient, type Market } from "./client.ts";
import { getPagedLogs } from "./get-paged-logs.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export interface FindPurchaseParameters {
  listingId: Hex;
  buyer: Address;
  /** The deployment block of the contract the listing lives on. */
  fromBlock: bigint;
  /** The contract the listing lives on (default: the Marketplace). */
  market?: Market;
}

const PURCHASE_EVENTS = marketplaceAbi.filter((item) => item.type === "event" && ["OneTimePurchased", "SubscriptionPurchased", "SubscriptionRenewed"].includes(item.name));

export async function findPurchaseTransaction(chain: ChainClient, params: FindPurchaseParameters): Promise<Hex | null> {
  const address = marketAddress(chain, params.market ?? "eth");
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  const logs = await getPagedLogs<Log>(params.fromBlock, head, (fromBlock, toBlock) =>
    chain.client.getLogs({ address, events: PURCHASE_EVENTS as never, args: { listingId: params.listingId, buyer: params.buyer } as never, fromBlock, toBlock }) as Promise<Log[]>,
  );
  const parsed = parseEventLogs({ abi: marketplaceAbi, logs: logs as never });
  return parsed.at(-1)?.transactionHash ?? null;
}
