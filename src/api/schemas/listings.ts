// Listings as search and the single-listing read return them, and renters' ratings of a listing.
import { z } from "@hono/zod-openapi";
import { ListingStatusSchema, RentalModelSchema } from "./common.ts";
import { MAX_RATING, MIN_RATING } from "../../listings/ratings.ts";

/** What a listing is priced and paid in, and so what every amount of its credentials and runs is in. */
export const CurrencySchema = z
  .object({
    symbol: z.string().openapi({ description: "ETH, or the token's symbol (USDC)" }),
    address: z.string().nullable().openapi({ description: "The token's contract address; null for ETH" }),
    decimals: z.number().int().openapi({ description: "Decimals of the currency's smallest unit: 18 for ETH (wei), 6 for USDC" }),
  })
  .openapi("Currency", { description: "The listing's currency: ETH (on the Marketplace) or a token of the allowlist (on the TokenMarketplace). See docs/design/currencies.md." });

/** The fields search returns (the specification's search subset). */
export const ListingSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    category: z.array(z.string()),
    rental_model: RentalModelSchema,
    price_eth: z.number().openapi({ description: "The price in whole units of the listing's currency (`currency`): ETH for an ETH listing, as the specification says; for a token listing, whole tokens (0.25 for 0.25 USDC). Interpreted per rental model." }),
    currency: CurrencySchema,
    price_units: z.string().regex(/^\d{1,78}$/).openapi({ description: "The price exactly, in the currency's smallest unit (wei for ETH), as a decimal string." }),
    run_count: z.number().int(),
    success_rate: z.number(),
    creator: z.object({ id: z.string(), display_name: z.string(), listing_count: z.number().int() }),
    rating: z.number().openapi({ description: "Average of the verified on-chain feedback (ERC-8004 Reputation Registry), 0.0 to 5.0: a score of 0-100 counts as score/20. Only feedback carrying the on-chain receipt of a completed run of this listing by the same wallet counts, one per run (GET /v1/listings/{id}/reputation)." }),
    review_count: z.number().int().openapi({ description: "How many verified on-chain feedbacks the rating averages." }),
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
  erc8004: z
    .object({
      agent_id: z.string().regex(/^\d{1,78}$/).openapi({ description: "The agent's id in the Identity Registry (its ERC-721 token id), as a decimal string (uint256)" }),
      agent_registry: z.string().openapi({ description: "The Identity Registry, `eip155:<chainId>:<address>`" }),
    })
    .nullable()
    .openapi("ListingErc8004", {
      description:
        "The listing's ERC-8004 agent: the latest its creator registered with a registration file of this listing and still owns. null until registered. Its tokenURI is the registration file (ipfs://<cid>, served at /v1/metadata/<cid>).",
    }),
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
