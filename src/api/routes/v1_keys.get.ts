// GET /v1/keys: the caller's API keys (never the keys themselves).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { listApiKeys } from "../../auth/api-keys.ts";
import { defineRoute } from "../route.ts";
import { withSpending } from "../spending.ts";
import { ApiKeySchema } from "../schemas/keys.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/keys",
  operationId: "listApiKeys",
  tag: "Keys",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List API keys",
  description: "The wallet's API keys, newest first, revoked ones included: id, label, prefix, when created and last used, and each spending limit with what was spent this period and what remains. Never the key itself, which is shown only when it is created.",
  responses: {
    200: { description: "The wallet's keys, newest first", content: { "application/json": { schema: z.object({ keys: z.array(ApiKeySchema) }).openapi("ApiKeyList") } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const keys = await listApiKeys(services.tables, c.get("principal").wallet);
    return c.json({ keys: await Promise.all(keys.map((key) => withSpending(services, { kind: "key", id: key.key_id }, key))) }, 200);
  });
}
