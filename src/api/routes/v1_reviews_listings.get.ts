// GET /v1/reviews/listings: registered listings awaiting review, for the protocol authority only (beta).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requireAuthority } from "../../reviews/authority.ts";
import { listPendingListingReviews } from "../../listings/reviews.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/reviews/listings",
  operationId: "listListingReviews",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Listings awaiting review (authority)",
  description: "Registered agents whose listing awaits the authority's review, by listing id. For the protocol authority only (403 forbidden for anyone else); the listing's on-chain facts and public metadata are read from the chain and GET /v1/metadata/{cid}.",
  responses: { 200: { description: "Pending", content: { "application/json": { schema: z.object({ listings: z.array(z.object({ listing_id: z.string(), created_at: z.string() })) }) } } } },
  errors: { 403: ["forbidden"], 503: ["service_unavailable"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    return c.json({ listings: await listPendingListingReviews(c.get("services").tables) }, 200);
  });
}
