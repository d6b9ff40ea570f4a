// GET /v1/creators/me/analytics: the caller's figures across all of its listings.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { creatorAnalytics } from "../../analytics/creator-analytics.ts";
import { answerAs, defineRoute } from "../route.ts";
import { ANALYTICS_DESCRIPTION, AnalyticsQuerySchema, analyticsResponse, analyticsResponses, rangeOf } from "../schemas/analytics.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/creators/me/analytics",
  operationId: "getCreatorAnalytics",
  tag: "Creators",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "My analytics, across my listings",
  description: `What the caller's listings earned, from whom, and how their runs went, over a range (\`from\`, \`to\`) by hour, day or month: revenue by rental model (gross, protocol fee, net), withdrawn; rentals bought and renewed; new and returning renters; runs by status and failure code, latency p50 and p95; the top renters by spend. A wallet without listings gets empty figures. ${ANALYTICS_DESCRIPTION}`,
  request: { query: AnalyticsQuerySchema },
  responses: analyticsResponses,
  errors: { 400: ["invalid_request"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const analytics = await creatorAnalytics(c.get("services"), c.get("principal").wallet, rangeOf(query));
    return answerAs(route, analyticsResponse(c, analytics, query));
  });
}
