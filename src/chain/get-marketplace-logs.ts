// Every event the marketplaces (the ETH Marketplace and, when configured, the TokenMarketplace) emitted in a block range (eth_getLogs), undecoded: the credentials
// indexer decodes and folds them. A failure is the transport's own error, so the indexer's retry and
// its log keep the node's message.
import type { Log } from "viem";
import type { ChainClient } from "./client.ts";

export async function getMarketplaceLogs(chain: ChainClient, fromBlock: bigint, toBlock: bigint): Promise<Log[]> {
  return chain.client.getLogs({ address: chain.tokenMarketplace ? [chain.marketplace, chain.tokenMarketplace] : chain.marketplace, fromBlock, toBlock });
}
