// A listing as the chain's index holds it (the `chain_listings` table, rebuilt from the marketplace's
// events): its creator, rental model, price, metadata and state. The agent record (listing.store.ts)
// holds what the chain does not; a listing is published when both say so (catalogue.ts).
import type { ListingStatus, RentalModel } from "@agent-rental/core/vocabulary";

export interface ChainListingRecord {
  on_chain_listing_id: `0x${string}`;
  creator?: string;
  rental_model?: RentalModel;
  price_wei?: string;
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
    metadata_uri: string;
    status: ListingStatus;
    created_block: string;
  }>;
}
