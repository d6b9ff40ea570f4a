// GET /v1/reviews/creators: creator applications by review status, for the protocol authority only (beta).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requireAuthority } from "../../reviews/authority.ts";
import { listCreatorApplications } from "../../creators/creators.ts";
import { CreatorProfileSchema } from "../schemas/creators.ts";
import { defineRoute } from "../route.ts";
import { ReviewStatusSchema } from "../schemas/common.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/reviews/creators",
  operationId: "listCreatorApplications",
  tag: "Reviews",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Creator applications (authority)",
  description: "Creator applications in one review status (pending by default), for the protocol authority: the wallet the contract names, read from the chain at each request. Anyone else gets 403 forbidden.",
  request: { query: z.object({ status: ReviewStatusSchema.default("pending") }) },
  responses: { 200: { description: "Applications", content: { "application/json": { schema: z.object({ applications: z.array(CreatorProfileSchema) }) } } } },
  errors: { 400: ["invalid_request"], 403: ["forbidden"], 503: ["service_unavailable"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    await requireAuthority(c.get("services").chain, c.get("principal").wallet);
    return c.json({ applications: await listCreatorApplications(c.get("services").tables, c.req.valid("query").status) }, 200);
  });
}
