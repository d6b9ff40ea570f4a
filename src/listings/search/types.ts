// The search component's shapes: the document the catalogue indexes (the listing's search subset plus
// what filtering and sorting need) and the typed query the validator produces. Kept apart so the
// index, the validator, the benchmark and the route share one definition. The words (categories,
// rental models, sorts) are the product's vocabulary (@agent-rental/core/vocabulary).
import type { Category, RentalModel, SearchSort } from "@agent-rental/core/vocabulary";

/** One listing as the index sees it. `searchable` is true when the listing is active and approved. */
export interface SearchDocument {
  /** `lst_<64 hex>`; the index only needs it to be unique. */
  id: string;
  title: string;
  description: string;
  category: string[];
  rental_model: RentalModel;
  price_eth: number;
  /** The symbol of the listing's currency when it is a token (USDC, RENT); absent for ETH. price_eth is
   * in whole units of it (decision 0165); prices compare within one currency only (decision 0190). */
  currency?: string;
  /** 0..5 */
  rating: number;
  review_count: number;
  run_count: number;
  success_rate: number;
  /** ISO 8601; drives the `newest` sort. */
  published_at: string;
  last_updated: string;
  sample_output: string[];
  searchable: boolean;
}

/** A validated search request (see validate.ts). Filters combine with AND; prices are inclusive. */
export interface SearchQuery {
  q?: string;
  category?: Category;
  rental_model?: RentalModel;
  min_price?: number;
  max_price?: number;
  /** ETH or a token's symbol (upper case): listings priced in it only; min_price and max_price are in it
   * (without it they are in ETH and keep ETH listings only; decision 0190). */
  currency?: string;
  min_rating?: number;
  sort: SearchSort;
  limit: number;
  offset: number;
}

/** One page of listing ids in order, and the number of matches before paging. */
export interface SearchResult {
  ids: string[];
  total: number;
}

export interface SearchIndex {
  /** Adds the document, or replaces the one with the same id (re-indexed; no stale postings). */
  upsert(doc: SearchDocument): void;
  /** Drops the document; false when the id was not held. */
  remove(id: string): boolean;
  /** Documents held, searchable or not. */
  size(): number;
  search(query: SearchQuery): SearchResult;
}
