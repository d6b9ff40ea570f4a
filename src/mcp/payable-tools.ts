// The listings a payer holding only a wallet reaches through the MCP endpoint for payers (POST
// /v1/mcp/x402; decision 0230), as tools: the published, active per-task listings priced in a token the
// service knows implements EIP-3009, which is what x402OfferOf sells (src/x402/offer.ts), from the
// catalogue's search (in this process, refreshed every few seconds), the best rated first and at most
// MAX_PAYABLE_TOOLS of them. Any other payable listing is reached by its id through run_agent; a call is
// sold only by the listing's offer read at the call, so a listing that stopped being payable since the
// search is refused there.
import type { Catalogue } from "../listings/catalogue.ts";
import { toOnChainId } from "../listings/ids.ts";
import type { Services } from "./services.ts";
import { agentEntries, type RentedAgentEntry } from "./agent-tools.ts";

/** The most listings offered as tools of their own (the search's page). */
export const MAX_PAYABLE_TOOLS = 100;

export type PayableServices = Services & { catalogue: Pick<Catalogue, "search"> };

/** The x402-payable listings as tool entries, sorted by name. */
export async function payableAgentEntries(services: PayableServices): Promise<RentedAgentEntry[]> {
  const tokens = services.chain.tokenMarketplace ? (services.chain.tokens ?? []).filter((token) => token.eip3009) : [];
  const payable = new Set(tokens.map((token) => token.address.toLowerCase()));
  const found = [];
  for (const symbol of new Set(tokens.map((token) => token.symbol.toUpperCase()))) {
    const page = await services.catalogue.search({ rental_model: "per_query", currency: symbol, sort: "rating", limit: MAX_PAYABLE_TOOLS, offset: 0 });
    found.push(...page.listings.filter((listing) => listing.currency.address !== null && payable.has(listing.currency.address.toLowerCase())));
  }
  found.sort((a, b) => b.rating - a.rating);
  return agentEntries(
    services,
    found.slice(0, MAX_PAYABLE_TOOLS).map((listing) => ({ listing_id: listing.id, title: listing.title, on_chain_id: toOnChainId(listing.id) })),
  );
}
