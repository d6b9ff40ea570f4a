// GET /v1/listings/{id}: one published listing, every field.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { parseListingId } from "../../listings/ids.ts";
import { loadListing } from "../../listings/catalogue.ts";
import { defineRoute } from "../route.ts";
import { ListingSchema } from "../schemas/listings.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/listings/{id}",
  operationId: "getListing",
  tag: "Listings",
  access: "bearer",
  oauthScope: "listings:read",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a listing",
  description: "Every field of a published listing. An unknown or unpublished id gives 404 listing_not_found; a malformed one 400 invalid_listing_id.",
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: { description: "The listing", content: { "application/json": { schema: ListingSchema } } },
  },
  errors: { 400: ["invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const onChainId = parseListingId(c.req.valid("param").id);
    const listing = await loadListing(c.get("services").tables, onChainId);
    if (!listing) throw new ApiError("listing_not_found", `No published listing ${c.req.valid("param").id}.`);
    return c.json(listing, 200);
  });
}
