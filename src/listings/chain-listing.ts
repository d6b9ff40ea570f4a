// A listing as the chain's index holds it (the `chain_listings` table, rebuilt from the marketplace's
// events): its creator, rental model, price, metadata and state. The agent record (listing.store.ts)
// holds what the chain does not; a listing is published when both say so (catalogue.ts).
import type { ListingStatus, RentalModel } from "@agent-rental/core/vocabulary";

export interface ChainListingRecord {
  on_chain_listing_id: `0x${string}`;
  creator?: string;
  rental_model?: RentalModel;
  /** The price in the smallest unit of the listing's currency: wei for an ETH listing, the token's
   * units for a token listing (decision 0165). */
  price_wei?: string;
  /** The token a TokenMarketplace listing is priced and paid in (lower case); absent for ETH. */
  token?: string;
  /** The token's symbol and decimals, from the service's configuration when the listing was indexed;
   * absent for a token the service is not configured with (such a listing is not published). */
  token_symbol?: string;
  token_decimals?: number;
  metadata_uri?: string;
  status?: ListingStatus;
  position: string;
}

/** What one or more of a listing's events change, folded in log order (credentials/events.ts decodes them). */
export interface ListingPatch {
  kind: "listing";
  listingId: `0x${string}`;
  position: string;
  set: Partial<{
    creator: string;
    rental_model: RentalModel;
    price_wei: string;
    token: string;
    token_symbol: string;
    token_decimals: number;
    metadata_uri: string;
    status: ListingStatus;
    created_block: string;
  }>;
}
