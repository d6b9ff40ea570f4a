// GET /v1/creators/me/listings/{listing_id}/analytics: the caller's figures of one of its listings.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { creatorAnalytics } from "../../analytics/creator-analytics.ts";
import { answerAs, defineRoute } from "../route.ts";
import { ANALYTICS_DESCRIPTION, AnalyticsQuerySchema, analyticsResponse, analyticsResponses, rangeOf } from "../schemas/analytics.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/creators/me/listings/{listing_id}/analytics",
  operationId: "getListingAnalytics",
  tag: "Creators",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "My analytics of one listing",
  description: `The figures of GET /v1/creators/me/analytics for one of the caller's listings. Another creator's listing answers 404 listing_not_found, as one that does not exist. ${ANALYTICS_DESCRIPTION}`,
  request: { params: z.object({ listing_id: z.string() }), query: AnalyticsQuerySchema },
  responses: analyticsResponses,
  errors: { 400: ["invalid_request", "invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const analytics = await creatorAnalytics(c.get("services"), c.get("principal").wallet, rangeOf(query), c.req.valid("param").listing_id);
    return answerAs(route, analyticsResponse(c, analytics, query));
  });
}
