// POST /v1/listings/{listing_id}/webhook-secret: creates or rotates a connected agent's webhook
// signing secret (Standard Webhooks whsec_ format). Shown in this response only.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { rotateWebhookSecret } from "../../listings/secrets.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/listings/{listing_id}/webhook-secret",
  operationId: "rotateWebhookSecret",
  tag: "Agents",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // mints a secret
  summary: "Create or rotate a connected agent's webhook secret",
  description: "Task webhooks to the agent's entrypoint_url are signed per Standard Webhooks with this secret. It is shown once; calling again replaces it.",
  request: { params: z.object({ listing_id: z.string() }) },
  responses: {
    201: { description: "The new secret", content: { "application/json": { schema: z.object({ listing_id: z.string(), webhook_secret: z.string(), created_at: z.string() }).openapi("WebhookSecret") } } },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await rotateWebhookSecret(c.get("services"), c.get("principal").wallet, c.req.valid("param").listing_id), 201));
}
