// GET /.well-known/jwks.json: the public keys that verify the service's signatures on Agent Cards (the
// `jku` every card signature names). Public and cacheable; every configured card key is listed, so a card
// signed before a rotation still verifies.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";

const JwksSchema = z
  .object({
    keys: z.array(z.object({ kty: z.literal("EC"), crv: z.literal("P-256"), x: z.string(), y: z.string(), kid: z.string(), alg: z.literal("ES256"), use: z.literal("sig") })),
  })
  .openapi("JsonWebKeySet", { description: "RFC 7517 JSON Web Key Set: the public halves of the Agent Card signing keys, newest first" });

export const route = defineRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "getCardSigningKeys",
  tag: "A2A",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get the Agent Card signing keys",
  description:
    "The JSON Web Key Set (RFC 7517) of the keys that sign the A2A Agent Cards: verify a card's `signatures` with the key whose `kid` its protected header names. Every key still configured is listed, newest first (the first signs new cards). Needs no token; cached for an hour. Empty when the service signs no cards.",
  responses: {
    200: { description: "The key set", content: { "application/json": { schema: JwksSchema } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) => {
    const keys = c.get("services").cardSigner?.publicKeys() ?? [];
    return answerAs(route, c.json({ keys }, 200, { "cache-control": "public, max-age=3600" }));
  });
}
