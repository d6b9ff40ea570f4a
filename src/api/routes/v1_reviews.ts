// The review endpoints (beta), for the protocol authority only: creator applications and registered
// listings, listed and decided. One file for the four routes of one small resource.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requireAuthority } from "../../reviews/authority.ts";
import { listCreatorApplications, reviewCreator } from "../../reviews/creators.ts";
import { listPendingListingReviews, reviewListing } from "../../reviews/listings.ts";
import { CreatorProfileSchema } from "./v1_creators_apply.ts";
import { bearer, errorResponses, WalletSchema } from "../schemas.ts";

const DecisionSchema = z.object({ decision: z.enum(["approve", "reject"]), reason: z.string().max(1000).optional() }).openapi("ReviewDecision");

const listCreators = createRoute({
  method: "get",
  path: "/v1/reviews/creators",
  summary: "Creator applications (authority)",
  security: bearer,
  request: { query: z.object({ status: z.enum(["pending", "approved", "rejected"]).default("pending") }) },
  responses: { 200: { description: "Applications", content: { "application/json": { schema: z.object({ applications: z.array(CreatorProfileSchema) }) } } }, ...errorResponses(400, 403) },
});

const decideCreator = createRoute({
  method: "post",
  path: "/v1/reviews/creators/{wallet}",
  summary: "Approve or reject a creator (authority)",
  description: "A rejection needs a reason; the creator reads it at GET /v1/creators/me.",
  security: bearer,
  request: { params: z.object({ wallet: WalletSchema }), body: { content: { "application/json": { schema: DecisionSchema } }, required: true } },
  responses: { 200: { description: "The reviewed application", content: { "application/json": { schema: CreatorProfileSchema } } }, ...errorResponses(400, 403, 404) },
});

const listListings = createRoute({
  method: "get",
  path: "/v1/reviews/listings",
  summary: "Listings awaiting review (authority)",
  security: bearer,
  responses: { 200: { description: "Pending", content: { "application/json": { schema: z.object({ listings: z.array(z.object({ listing_id: z.string(), created_at: z.string() })) }) } } }, ...errorResponses(403) },
});

const decideListing = createRoute({
  method: "post",
  path: "/v1/reviews/listings/{listing_id}",
  summary: "Approve or reject a listing (authority)",
  description: "An approved listing appears in search once its on-chain listing exists; a rejected one stays out, with the reason shown to its creator.",
  security: bearer,
  request: { params: z.object({ listing_id: z.string() }), body: { content: { "application/json": { schema: DecisionSchema } }, required: true } },
  responses: {
    200: { description: "The decision", content: { "application/json": { schema: z.object({ listing_id: z.string(), review_status: z.enum(["pending", "approved", "rejected"]), review_reason: z.string().nullable() }) } } },
    ...errorResponses(400, 403, 404),
  },
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
