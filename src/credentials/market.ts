// Which contract a listing lives on, for the reads that verify a credential, admit a run and reserve its
// price: the chain index's row says (`token` set: the TokenMarketplace). A listing never moves between
// contracts (a TokenMarketplace id hashes a domain first, so no id names listings on both), so a market
// once found is kept in the process and later reads travel at once, beside the others.
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient, Market } from "../chain/client.ts";
import { processCache } from "../cache.ts";
import { getChainListing } from "../listings/chain-listing.store.ts";
import { marketOfListing } from "../chain/market-contract.ts";

const markets = processCache<Market>(50_000);

/** The market kept for `onChainId`, if this process has seen it. */
export function knownMarket(deps: { tables: Tables; chain: Pick<ChainClient, "tokenMarketplace"> }, onChainId: string): Market | undefined {
  if (!deps.chain.tokenMarketplace) return "eth";
  return markets.get(deps.tables, onChainId.toLowerCase());
}

/** Keeps what the index said of `onChainId` (a listing the index does not hold yet is not kept). */
export function rememberMarket(tables: Tables, onChainId: string, row: { token?: string | undefined } | null): Market | undefined {
  if (!row) return undefined;
  const market = marketOfListing(row);
  markets.set(tables, onChainId.toLowerCase(), market);
  return market;
}

/**
 * The market of `onChainId`: kept, or read from the index. Undefined when the index does not hold the
 * listing (yet): the caller asks the chain (both contracts) instead.
 */
export async function listingMarket(deps: { tables: Tables; chain: Pick<ChainClient, "tokenMarketplace"> }, onChainId: `0x${string}`): Promise<Market | undefined> {
  const known = knownMarket(deps, onChainId);
  if (known) return known;
  return rememberMarket(deps.tables, onChainId, await getChainListing(deps.tables, onChainId));
}
