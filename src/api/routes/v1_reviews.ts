// The review endpoints (beta), for the protocol authority only: creator applications and registered
// listings, listed and decided. One file for the four routes of one small resource.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requireAuthority } from "../../reviews/authority.ts";
import { listCreatorApplications, reviewCreator } from "../../reviews/creators.ts";
import { listPendingListingReviews, reviewListing } from "../../reviews/listings.ts";
import { CreatorProfileSchema } from "../schemas/creators.ts";
import { WalletSchema } from "../schemas/common.ts";
import { defineRoute } from "../route.ts";

const DecisionSchema = z.object({ decision: z.enum(["approve", "reject"]), reason: z.string().max(1000).optional() }).openapi("ReviewDecision");

const listCreators = defineRoute({
  method: "get",
  path: "/v1/reviews/creators",
  operationId: "listCreatorApplications",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Creator applications (authority)",
  request: { query: z.object({ status: z.enum(["pending", "approved", "rejected"]).default("pending") }) },
  responses: { 200: { description: "Applications", content: { "application/json": { schema: z.object({ applications: z.array(CreatorProfileSchema) }) } } } },
  errors: { 400: ["invalid_request"], 403: ["forbidden"], 503: ["service_unavailable"] },
});

const decideCreator = defineRoute({
  method: "post",
  path: "/v1/reviews/creators/{wallet}",
  operationId: "reviewCreator",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // an authority decision; it can wait for the outage to end
  summary: "Approve or reject a creator (authority)",
  description: "A rejection needs a reason; the creator reads it at GET /v1/creators/me.",
  request: { params: z.object({ wallet: WalletSchema }), body: { content: { "application/json": { schema: DecisionSchema } }, required: true } },
  responses: { 200: { description: "The reviewed application", content: { "application/json": { schema: CreatorProfileSchema } } } },
  errors: { 403: ["forbidden"], 404: ["not_found"] },
});

const listListings = defineRoute({
  method: "get",
  path: "/v1/reviews/listings",
  operationId: "listListingReviews",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Listings awaiting review (authority)",
  responses: { 200: { description: "Pending", content: { "application/json": { schema: z.object({ listings: z.array(z.object({ listing_id: z.string(), created_at: z.string() })) }) } } } },
  errors: { 403: ["forbidden"], 503: ["service_unavailable"] },
});

const decideListing = defineRoute({
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
    200: { description: "The decision", content: { "application/json": { schema: z.object({ listing_id: z.string(), review_status: z.enum(["pending", "approved", "rejected"]), review_reason: z.string().nullable() }) } } },
  },
  errors: { 400: ["invalid_listing_id"], 403: ["forbidden"], 404: ["listing_not_found"] },
});

export function registerV1Reviews(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listCreators, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    return c.json({ applications: await listCreatorApplications(c.get("services").tables, c.req.valid("query").status) }, 200);
  });
  app.openapi(decideCreator, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    const body = c.req.valid("json");
    return c.json(await reviewCreator(c.get("services").tables, c.req.valid("param").wallet, body.decision, body.reason), 200);
  });
  app.openapi(listListings, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    return c.json({ listings: await listPendingListingReviews(c.get("services").tables) }, 200);
  });
  app.openapi(decideListing, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    const body = c.req.valid("json");
    return c.json(await reviewListing(c.get("services").tables, c.req.valid("param").listing_id, body.decision, body.reason), 200);
  });
}
