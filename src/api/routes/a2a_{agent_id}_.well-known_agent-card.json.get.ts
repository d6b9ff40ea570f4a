// GET /a2a/{agent_id}/.well-known/agent-card.json: a published listing's A2A Agent Card (src/a2a/card.ts),
// signed by the service (JWS over the RFC 8785 canonical card; keys at /.well-known/jwks.json). Public,
// cacheable (Cache-Control, and an ETag of its content answered 304 to If-None-Match).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { apiBaseOf, servedAgentCard } from "../../a2a/card.ts";

/** How long a card may be used before it is asked for again (revalidated with its ETag). */
const CARD_MAX_AGE_SECONDS = 300;

/** True when an If-None-Match header names the entity tag (or is `*`); weak comparison, as for GET. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}

const AgentCardSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    supportedInterfaces: z.array(z.object({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() })),
    provider: z.object({ organization: z.string(), url: z.string() }),
    version: z.string(),
    documentationUrl: z.string(),
    capabilities: z.object({ streaming: z.boolean(), pushNotifications: z.boolean(), extendedAgentCard: z.boolean() }),
    securitySchemes: z.record(z.string(), z.unknown()),
    securityRequirements: z.array(z.unknown()),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), tags: z.array(z.string()), examples: z.array(z.string()) }).passthrough()),
    signatures: z.array(z.object({ protected: z.string(), signature: z.string() })).optional(),
  })
  .openapi("AgentCard", { description: "An A2A v1.0 Agent Card (a2a-protocol.org, specification/a2a.proto), in ProtoJSON" });

export const route = defineRoute({
  method: "get",
  path: "/a2a/{agent_id}/.well-known/agent-card.json",
  operationId: "getAgentCard",
  tag: "A2A",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get an agent's A2A Agent Card",
  description:
    "The A2A v1.0 Agent Card of a published listing: its name and description, its JSON-RPC interface (`{api}/a2a/{agent_id}`, protocol 1.0, and 0.3), streaming, the bearer credentials it takes (an API key or a wallet JWT), one skill built from the listing and its manifest (the input's shape, an example, the rental, a sample output), the provider and the documentation (the listing's public metadata). `signatures` holds the service's JWS over the RFC 8785 canonical card without `signatures` (ES256; `kid` and `jku` name the key in GET /.well-known/jwks.json). Needs no token. Cached for 5 minutes, with an ETag of its content (If-None-Match: 304). An unknown or unpublished agent: 404 listing_not_found.",
  request: { params: z.object({ agent_id: z.string().openapi({ description: "The agent id (<name>-<8 hex>), the listing id or the on-chain id" }) }) },
  responses: {
    200: { description: "The signed Agent Card", content: { "application/json": { schema: AgentCardSchema } } },
    304: { description: "Not modified: the card named by If-None-Match is current" },
  },
  errors: { 400: ["invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const card = await servedAgentCard(services, c.req.valid("param").agent_id, apiBaseOf(services));
    const headers = { etag: card.etag, "cache-control": `public, max-age=${CARD_MAX_AGE_SECONDS}` };
    if (matches(c.req.header("if-none-match"), card.etag)) return answerAs(route, c.body(null, 304, headers));
    return answerAs(route, c.body(card.json, 200, { ...headers, "content-type": "application/json; charset=utf-8" }));
  });
}
