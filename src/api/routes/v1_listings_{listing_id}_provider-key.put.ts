// PUT /v1/listings/{listing_id}/provider-key: the creator sets the model-provider key of a
// declarative agent. Stored sealed, scoped to the listing, never returned.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { setProviderKey } from "../../listings/secrets.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "put",
  path: "/v1/listings/{listing_id}/provider-key",
  operationId: "setProviderKey",
  tag: "Agents",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // stores a secret
  summary: "Set a listing's model-provider key",
  description: "The creator's key for the agent's model provider, used only to run this listing's tasks. It is stored encrypted and never returned by any endpoint; setting it again replaces it.",
  request: {
    params: z.object({ listing_id: z.string() }),
    body: { content: { "application/json": { schema: z.object({ provider_key: z.string().max(512) }).openapi("ProviderKey") } }, required: true },
  },
  responses: {
    200: { description: "Stored", content: { "application/json": { schema: z.object({ listing_id: z.string(), provider_key_set: z.literal(true), updated_at: z.string() }).openapi("ProviderKeySet") } } },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await setProviderKey(c.get("services"), c.get("principal").wallet, c.req.valid("param").listing_id, c.req.valid("json").provider_key), 200));
}
