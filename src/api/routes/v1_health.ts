// GET /v1/health: liveness and readiness of the API and the stores it depends on. Public.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { checkHealth } from "../../health.ts";
import { errorResponses } from "../schemas.ts";

const HealthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    chain_id: z.number().int(),
    marketplace: z.string(),
    checks: z.object({ tables: z.boolean(), chain: z.boolean() }),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/v1/health",
  summary: "Service health",
  description: "Reports whether the API can reach its tables and the chain. Needs no token.",
  responses: {
    200: { description: "Health", content: { "application/json": { schema: HealthSchema } } },
    ...errorResponses(),
  },
});

export function registerV1Health(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await checkHealth(c.get("services")), 200));
}
