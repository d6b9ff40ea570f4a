// POST /v1/reviews/listings/{listing_id}: the protocol authority approves or rejects a registered
// listing (beta); only an approved listing appears in search.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requireAuthority } from "../../reviews/authority.ts";
import { reviewListing } from "../../listings/reviews.ts";
import { DecisionSchema } from "../schemas/reviews.ts";
import { defineRoute } from "../route.ts";
import { ReviewStatusSchema } from "../schemas/common.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/reviews/listings/{listing_id}",
  operationId: "reviewListing",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // an authority decision; it can wait for the outage to end
  summary: "Approve or reject a listing (authority)",
  description: "An approved listing appears in search once its on-chain listing exists; a rejected one stays out, with the reason shown to its creator.",
  request: { params: z.object({ listing_id: z.string() }), body: { content: { "application/json": { schema: DecisionSchema } }, required: true } },
  responses: {
    200: { description: "The decision", content: { "application/json": { schema: z.object({ listing_id: z.string(), review_status: ReviewStatusSchema, review_reason: z.string().nullable() }) } } },
  },
  errors: { 400: ["invalid_listing_id"], 403: ["forbidden"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    const body = c.req.valid("json");
    return c.json(await reviewListing(c.get("services").tables, c.req.valid("param").listing_id, body.decision, body.reason), 200);
  });
}
