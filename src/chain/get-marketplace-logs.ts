// Every event the marketplaces (the ETH Marketplace and, when configured, the TokenMarketplace) emitted in a block range (eth_getLogs), undecoded: the credentials
// indexer decodes and folds them. Read in pages, each bounded in time and split when too large
// (get-paged-logs.ts). A failure is the transport's own error, so the indexer's retry and
// its log keep the node's message.
import type { Log } from "viem";
import type { ChainClient } from "./client.ts";
import { getPagedLogs } from "./get-paged-logs.ts";

export async function getMarketplaceLogs(chain: ChainClient, fromBlock: bigint, toBlock: bigint): Promise<Log[]> {
  const address = chain.tokenMarketplace ? [chain.marketplace, chain.tokenMarketplace] : chain.marketplace;
  return getPagedLogs(fromBlock, toBlock, (from, to) => chain.client.getLogs({ address, fromBlock: from, toBlock: to }));
}
