// PUT /v1/listings/{listing_id}/rating: a renter rates a listing they have completed a run of. One
// rating per wallet and listing; putting it again replaces it.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { MAX_COMMENT_CHARS, MAX_RATING, MIN_RATING, rateListing } from "../../listings/ratings.ts";
import { defineRoute } from "../route.ts";
import { RatingSchema } from "../schemas/listings.ts";

export const route = defineRoute({
  method: "put",
  path: "/v1/listings/{listing_id}/rating",
  operationId: "rateListing",
  tag: "Listings",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // a write that moves the listing's figures
  summary: "Rate a listing",
  description:
    `The caller's rating of a published listing: an integer from ${MIN_RATING} to ${MAX_RATING} and an optional plain-text comment (at most ${MAX_COMMENT_CHARS} characters, trimmed; line breaks kept). ` +
    "Only a wallet with at least one completed run of the listing may rate it, and not the listing's creator (403 rating_not_allowed). " +
    "One rating per wallet and listing: putting it again replaces the rating and the comment (an absent comment removes the previous one), so repeating a request changes nothing. Unknown fields are refused. " +
    "These are off-chain ratings, shown apart from the listing's own rating as \"before on-chain feedback\": a listing's rating and review_count are its verified on-chain feedback (POST /v1/runs/{run_id}/feedback). The response's listing figures are the off-chain ratings' average and count, as GET /v1/listings/{listing_id}/ratings and the reputation's before_on_chain show them.",
  request: {
    params: z.object({ listing_id: z.string() }),
    body: {
      content: {
        "application/json": {
          schema: z
            .object({
              rating: z.number().int().min(MIN_RATING).max(MAX_RATING),
              comment: z.string().nullable().optional().openapi({ description: `Plain text, at most ${MAX_COMMENT_CHARS} characters after trimming; no control characters other than line breaks and tabs` }),
            })
            .strict()
            .openapi("RatingInput"),
        },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: "The rating as stored, with the listing's figures",
      content: { "application/json": { schema: RatingSchema.extend({ listing_id: z.string(), listing: z.object({ rating: z.number(), review_count: z.number().int() }) }).openapi("RatingResult") } },
    },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"], 403: ["rating_not_allowed"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await rateListing(c.get("services"), c.get("principal").wallet, c.req.valid("param").listing_id, c.req.valid("json")), 200));
}
