// The catalogue: a listing as renters see it, assembled from the registered agent (off-chain), the
// on-chain listing (model, price, status: the chain's) and the creator's profile. A listing is
// published when its agent is approved and the on-chain listing with the same id exists, was created
// by the same creator, and points at the same metadata URI. Search runs on an in-memory index of the
// published listings, rebuilt from the tables when it is older than the refresh interval.
import { getAddress } from "viem";
import { ETH, wholeUnits, type Currency } from "./currency.ts";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { getCreatorNames } from "../creators/creator.store.ts";
import { getChainListing, getChainListings } from "./chain-listing.store.ts";
import type { ChainListingRecord } from "./chain-listing.ts";
import { toOnChainId } from "./ids.ts";
import { getAgent, listAgentsOfCreator, scanApprovedAgents, type AgentRecord } from "./listing.store.ts";
import { getListingsErc8004, type ListingErc8004Item } from "../erc8004/erc8004.store.ts";
import { createSearchIndex, type SearchDocument, type SearchIndex, type SearchQuery } from "./search/index.ts";
import type { ListingStatus, RentalModel } from "@agent-rental/core/vocabulary";

// The agent record is the store's (listing.store.ts); the catalogue reads it under the same name.
export type { AgentRecord } from "./listing.store.ts";

export interface Listing {
  id: string;
  title: string;
  description: string;
  category: string[];
  rental_model: RentalModel;
  /** The price in whole units of the listing's currency (ETH for an ETH listing; decision 0165). */
  price_eth: number;
  /** What the listing is priced and paid in, and its price exactly in that currency's smallest unit. */
  currency: Currency;
  price_units: string;
  run_count: number;
  success_rate: number;
  creator: { id: string; display_name: string; listing_count: number };
  rating: number;
  review_count: number;
  last_updated: string;
  sample_output: string[];
  published_at: string;
  status: ListingStatus;
  on_chain_id: string;
  metadata_uri: string;
  /** The listing's ERC-8004 agent, once its creator has registered it; null until then. */
  erc8004: { agent_id: string; agent_registry: string } | null;
}

export const SEARCH_FIELDS = ["id", "title", "description", "category", "rental_model", "price_eth", "currency", "price_units", "run_count", "success_rate", "creator", "rating", "review_count", "last_updated", "sample_output"] as const;
export type ListingSummary = Pick<Listing, (typeof SEARCH_FIELDS)[number]>;

/** Title shown for an agent: its kebab-case name in words ("contract-reviewer" → "Contract Reviewer"). */
export function titleOf(name: string): string {
  return name
    .split("-")
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(" ");
}

export function isPublished(agent: AgentRecord, chain: ChainListingRecord | undefined): chain is ChainListingRecord {
  return (
    agent.review_status === "approved" &&
    chain !== undefined &&
    chain.creator?.toLowerCase() === agent.creator.toLowerCase() &&
    chain.metadata_uri === agent.metadata_uri &&
    chain.rental_model !== undefined &&
    chain.price_wei !== undefined &&
    // A token listing is shown only in a token the service knows (its symbol and decimals).
    (chain.token === undefined || chain.token_decimals !== undefined)
  );
}

/** The live figures of an agent record: runs, share completed, and the renters' off-chain ratings
 * (PUT /v1/listings/{id}/rating, shown apart as "before on-chain feedback": a listing's own `rating`
 * and `review_count` are its verified on-chain feedback, src/erc8004/). */
export function figuresOf(agent: AgentRecord): { run_count: number; success_rate: number; rating: number; review_count: number; last_run_at: string | undefined } {
  const runs = agent.stats_run_count ?? 0;
  const reviews = agent.stats_review_count ?? 0;
  return {
    run_count: runs,
    success_rate: runs === 0 ? 0 : Math.round(((agent.stats_success_count ?? 0) / runs) * 1000) / 1000,
    rating: reviews === 0 ? 0 : Math.round(((agent.stats_rating_sum ?? 0) / reviews) * 100) / 100,
    review_count: reviews,
    last_run_at: agent.stats_last_run_at,
  };
}

/** The currency of an indexed listing (published: a token listing's token is known). */
export function currencyOfRecord(chain: ChainListingRecord): Currency {
  if (chain.token === undefined) return ETH;
  return { symbol: chain.token_symbol ?? "?", address: getAddress(chain.token), decimals: chain.token_decimals ?? 18 };
}

export function assemble(agent: AgentRecord, chain: ChainListingRecord, creator: { display_name: string; listing_count: number }, erc8004?: ListingErc8004Item): Listing {
  const figures = figuresOf(agent);
  return {
    id: agent.listing_id,
    title: titleOf(agent.name),
    description: agent.description,
    category: [agent.category],
    rental_model: chain.rental_model!,
    price_eth: wholeUnits(BigInt(chain.price_wei!), currencyOfRecord(chain)),
    currency: currencyOfRecord(chain),
    price_units: chain.price_wei!,
    run_count: figures.run_count,
    success_rate: figures.success_rate,
    creator: { id: agent.creator, display_name: creator.display_name, listing_count: creator.listing_count },
    // Verified on-chain feedback only: a paying renter's, one per run (docs/reference/reputation.md).
    rating: erc8004?.rating ?? 0,
    review_count: erc8004?.review_count ?? 0,
    last_updated: [agent.approved_at ?? agent.created_at, figures.last_run_at].filter((v): v is string => Boolean(v)).sort().at(-1)!,
    sample_output: (agent.sample_output ?? []).slice(0, 3),
    published_at: agent.approved_at!,
    status: chain.status ?? "active",
    on_chain_id: `0x${agent.listing_id.slice(4)}`,
    metadata_uri: agent.metadata_uri,
    erc8004: erc8004?.agent_id && erc8004.agent_registry ? { agent_id: erc8004.agent_id, agent_registry: erc8004.agent_registry } : null,
  };
}

export function summaryOf(listing: Listing): ListingSummary {
  return Object.fromEntries(SEARCH_FIELDS.map((field) => [field, listing[field]])) as ListingSummary;
}

/** The published listings among approved agents, each with its creator's name and count of
 * published listings (counted in the same set, so search and detail agree). */
async function publish(tables: Tables, agents: AgentRecord[]): Promise<Listing[]> {
  const chainRows = await getChainListings(tables, agents.map((a) => toOnChainId(a.listing_id)));
  const chainOf = (a: AgentRecord) => chainRows.get(toOnChainId(a.listing_id));
  const published = agents.filter((a) => isPublished(a, chainOf(a)));
  const counts = new Map<string, number>();
  for (const a of published) counts.set(a.creator, (counts.get(a.creator) ?? 0) + 1);
  const [names, erc8004] = await Promise.all([getCreatorNames(tables, published.map((a) => a.creator)), getListingsErc8004(tables, published.map((a) => toOnChainId(a.listing_id)))]);
  return published.map((a) =>
    assemble(a, chainOf(a)!, { display_name: names.get(a.creator) ?? a.creator, listing_count: counts.get(a.creator) ?? 0 }, erc8004.get(toOnChainId(a.listing_id).toLowerCase())),
  );
}

/** Every published listing, from a scan of the approved agents. */
export async function loadPublishedListings(tables: Tables): Promise<Listing[]> {
  return publish(tables, await scanApprovedAgents(tables));
}

/** One listing by id, or null when unknown or unpublished. Its figures are read with a strongly
 * consistent read of the agent record, so they include every run and rating recorded before the call. */
export async function loadListing(tables: Tables, onChainId: `0x${string}`): Promise<Listing | null> {
  const [agent, chain] = await Promise.all([getAgent(tables, onChainId, { consistent: true }), getChainListing(tables, onChainId)]);
  if (!agent || !isPublished(agent, chain ?? undefined)) return null;
  // The creator's other approved agents, for the creator's listing count.
  const siblings = await listAgentsOfCreator(tables, agent.creator, { approvedOnly: true });
  // The listing itself as just read (the index's copy may lag behind its figures).
  const agents = [agent, ...siblings.filter((sibling) => sibling.listing_id !== agent.listing_id)];
  return (await publish(tables, agents)).find((listing) => listing.id === agent.listing_id) ?? null;
}

export interface Catalogue {
  search(query: SearchQuery): Promise<{ listings: ListingSummary[]; total: number }>;
  /** Rebuilds the index now. */
  refresh(): Promise<void>;
}

/** The search side of the catalogue for one process. */
export function createCatalogue(tables: Tables, options: { refreshMs?: number } = {}): Catalogue {
  const refreshMs = options.refreshMs ?? 2_000;
  let index: SearchIndex = createSearchIndex();
  let byId = new Map<string, ListingSummary>();
  let loadedAt = 0;
  let loading: Promise<void> | undefined;
  const refresh = () =>
    (loading ??= (async () => {
      try {
        const listings = await loadPublishedListings(tables);
        const next = createSearchIndex();
        const nextById = new Map<string, ListingSummary>();
        for (const listing of listings) {
          const doc: SearchDocument = {
            id: listing.id,
            title: listing.title,
            description: listing.description,
            category: listing.category,
            rental_model: listing.rental_model,
            price_eth: listing.price_eth,
            ...(listing.currency.address === null ? {} : { currency: listing.currency.symbol.toUpperCase() }),
            rating: listing.rating,
            review_count: listing.review_count,
            run_count: listing.run_count,
            success_rate: listing.success_rate,
            published_at: listing.published_at,
            last_updated: listing.last_updated,
            sample_output: listing.sample_output,
            // Search shows what can be rented now.
            searchable: listing.status === "active",
          };
          next.upsert(doc);
          nextById.set(listing.id, summaryOf(listing));
        }
        index = next;
        byId = nextById;
        loadedAt = Date.now();
      } finally {
        loading = undefined;
      }
    })());
  return {
    refresh,
    async search(query) {
      if (Date.now() - loadedAt >= refreshMs) await refresh();
      const { ids, total } = index.search(query);
      return { listings: ids.map((id) => byId.get(id)!).filter(Boolean), total };
    },
  };
}
