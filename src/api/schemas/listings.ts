// Listings as search and the single-listing read return them, and renters' ratings of a listing.
import { z } from "@hono/zod-openapi";
import { ListingStatusSchema, RentalModelSchema } from "./common.ts";
import { MAX_RATING, MIN_RATING } from "../../listings/ratings.ts";

/** The fields search returns (the specification's search subset). */
export const ListingSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    category: z.array(z.string()),
    rental_model: RentalModelSchema,
    price_eth: z.number(),
    run_count: z.number().int(),
    success_rate: z.number(),
    creator: z.object({ id: z.string(), display_name: z.string(), listing_count: z.number().int() }),
    rating: z.number(),
    review_count: z.number().int(),
    last_updated: z.string(),
    sample_output: z.array(z.string()),
  })
  .openapi("ListingSummary");

/** Every field of a listing. */
export const ListingSchema = ListingSummarySchema.extend({
  published_at: z.string(),
  status: ListingStatusSchema,
  on_chain_id: z.string(),
  metadata_uri: z.string(),
}).openapi("Listing");

/** One renter's rating of a listing. */
export const RatingSchema = z
  .object({
    wallet: z.string().openapi({ description: "The renter's wallet, lower-case" }),
    rating: z.number().int().min(MIN_RATING).max(MAX_RATING),
    comment: z.string().nullable(),
    created_at: z.string().openapi({ description: "ISO 8601, the wallet's first rating of the listing" }),
    updated_at: z.string().openapi({ description: "ISO 8601, the latest change" }),
  })
  .openapi("Rating");
