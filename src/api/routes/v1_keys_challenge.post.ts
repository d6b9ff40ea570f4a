// POST /v1/keys/challenge: the message a wallet signs to create an API key; it names the label.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { requestApiKey } from "../../auth/api-keys.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/keys/challenge",
  operationId: "createApiKeyChallenge",
  tag: "Keys",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // step one of minting an API key
  summary: "Start creating an API key",
  description: "Returns a server-issued message naming the wallet and the label. Sign it with the wallet (EIP-191) and send the signature with the nonce to POST /v1/keys within 5 minutes.",
  request: { body: { content: { "application/json": { schema: z.object({ label: z.string().min(1).max(64) }).openapi("ApiKeyRequest") } }, required: true } },
  responses: {
    200: {
      description: "The message to sign",
      content: { "application/json": { schema: z.object({ nonce: z.string(), message: z.string(), label: z.string(), expires_at: z.number().int() }).openapi("ApiKeyChallenge") } },
    },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    return c.json(await requestApiKey(services.tables, services.config.SERVICE_NAME, c.get("principal").wallet, c.req.valid("json").label), 200);
  });
}
