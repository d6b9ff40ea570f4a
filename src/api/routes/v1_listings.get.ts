// GET /v1/listings: search the catalogue.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { parseSearchQuery } from "../../listings/search/index.ts";
import { defineRoute } from "../route.ts";
import { ListingSummarySchema } from "../schemas/listings.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/listings",
  operationId: "searchListings",
  tag: "Listings",
  access: "bearer",
  oauthScope: "listings:read",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Search listings",
  description:
    "Full-text search (q: title, description, category and sample outputs, with prefix and typo matching) over published, active listings; filters combine with AND. sort: relevance (default), rating, price_asc, price_desc, newest. Prices compare within one currency: price_asc and price_desc put ETH listings first (by price_eth, as ever), then each token's listings together by the token's symbol; currency (ETH or a token's symbol, e.g. USDC) keeps that currency's listings only, and min_price and max_price are in it (without currency they are in ETH and keep ETH listings only). Out-of-range parameters give 400 invalid_request naming the parameter; unknown parameters are ignored.",
  request: {
    query: z.object({
      q: z.string().optional(),
      category: z.string().optional(),
      rental_model: z.string().optional(),
      min_price: z.string().optional(),
      max_price: z.string().optional(),
      currency: z.string().optional().openapi({ description: "ETH or a token's symbol (USDC, RENT): listings priced in it only; min_price and max_price are then in it." }),
      min_rating: z.string().optional(),
      sort: z.string().optional(),
      limit: z.string().optional(),
      offset: z.string().optional(),
    }),
  },
  responses: {
    200: {
      description: "A page of listings",
      content: { "application/json": { schema: z.object({ listings: z.array(ListingSummarySchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }).openapi("ListingSearch") } },
    },
  },
  errors: { 400: ["invalid_request"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const query = parseSearchQuery(c.req.query());
    const { listings, total } = await c.get("services").catalogue.search(query);
    return c.json({ listings, total, limit: query.limit, offset: query.offset }, 200);
  });
}
