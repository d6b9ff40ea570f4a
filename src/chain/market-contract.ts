// The contract a listing lives on, as the reads address it: the Marketplace (ETH) or the TokenMarketplace
// (a token of the allowlist). Both hold listings, credentials and per-task balances in the same shapes
// (the token contract adds the listing's token); refusals name the contract that said them.
import type { Market } from "./client.ts";

/** The contract's name, as an error's `on_chain_error.contract` gives it. */
export type MarketContract = "Marketplace" | "TokenMarketplace";

export function contractOf(market: Market): MarketContract {
  return market === "token" ? "TokenMarketplace" : "Marketplace";
}

/** The market of a listing from its chain index row (`token` set: the TokenMarketplace). */
export function marketOfListing(row: { token?: string | undefined } | null | undefined): Market {
  return row?.token === undefined ? "eth" : "token";
}
