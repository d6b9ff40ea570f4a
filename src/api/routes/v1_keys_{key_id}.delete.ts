// DELETE /v1/keys/{key_id}: revokes one of the caller's API keys; it fails on its next request.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { revokeApiKey } from "../../auth/api-keys.ts";
import { ApiKeySchema } from "../schemas/keys.ts";
import { defineRoute } from "../route.ts";
import { withSpending } from "../spending.ts";

export const route = defineRoute({
  method: "delete",
  path: "/v1/keys/{key_id}",
  operationId: "revokeApiKey",
  tag: "Keys",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" }, // a leaked key must be revocable during an outage
  summary: "Revoke an API key",
  description: "Revokes the key at once: its next request gets 401 invalid_api_key. Revoking a revoked key is a no-op. Another wallet's key is not found.",
  request: { params: z.object({ key_id: z.string().max(64) }) },
  responses: {
    200: { description: "The revoked key", content: { "application/json": { schema: ApiKeySchema } } },
  },
  errors: { 400: ["invalid_request"], 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const key = await revokeApiKey(services.tables, c.get("principal").wallet, c.req.valid("param").key_id);
    return c.json(await withSpending(services, { kind: "key", id: key.key_id }, key), 200);
  });
}
