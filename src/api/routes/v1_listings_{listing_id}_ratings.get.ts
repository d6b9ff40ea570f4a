// GET /v1/listings/{listing_id}/ratings: a published listing's renter ratings, newest first.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { listRatings, RATINGS_PAGE_DEFAULT, RATINGS_PAGE_MAX } from "../../listings/ratings.ts";
import { defineRoute } from "../route.ts";
import { RatingSchema } from "../schemas/listings.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/listings/{listing_id}/ratings",
  operationId: "listRatings",
  tag: "Listings",
  access: "bearer",
  oauthScope: "listings:read",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List a listing's ratings",
  description:
    `Renter ratings of a published listing, most recently written first, with the listing's rating and review_count. limit: 1 to ${RATINGS_PAGE_MAX} (default ${RATINGS_PAGE_DEFAULT}); ` +
    "cursor: the next_cursor of the previous page (null on the last page). An unknown or unpublished listing gives 404 listing_not_found.",
  request: {
    params: z.object({ listing_id: z.string() }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(RATINGS_PAGE_MAX).default(RATINGS_PAGE_DEFAULT),
      cursor: z.string().max(512).optional(),
    }),
  },
  responses: {
    200: {
      description: "A page of ratings",
      content: {
        "application/json": {
          schema: z
            .object({ listing_id: z.string(), rating: z.number(), review_count: z.number().int(), ratings: z.array(RatingSchema), next_cursor: z.string().nullable() })
            .openapi("RatingList"),
        },
      },
    },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    return c.json(await listRatings(c.get("services"), c.req.valid("param").listing_id, { limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }), 200);
  });
}
