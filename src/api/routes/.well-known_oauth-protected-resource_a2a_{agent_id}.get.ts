// GET /.well-known/oauth-protected-resource/a2a/{agent_id}: one A2A agent's protected resource metadata
// (RFC 9728's path form), for A2A clients that sign in for one agent.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { ApiError } from "../../errors.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { resolveAgentId } from "../../execution/access.ts";
import { loadListing } from "../../listings/catalogue.ts";
import { a2aResource, knownResource } from "../../oauth/resources.ts";
import { answerResourceMetadata, RESOURCE_METADATA_RESPONSES } from "../resource-metadata.ts";

export const route = defineRoute({
  method: "get",
  path: "/.well-known/oauth-protected-resource/a2a/{agent_id}",
  operationId: "getA2aProtectedResourceMetadata",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get an A2A agent's protected resource metadata",
  description:
    "RFC 9728 metadata of one published agent's A2A endpoint (`resource` is `{api}/a2a/{agent_id}`, the id as written in the path). A token issued for this resource opens that agent's A2A endpoint only; a token for the service as a whole (GET /.well-known/oauth-protected-resource) opens every agent. Needs no token; cacheable for an hour. An unknown or unpublished agent: 404 listing_not_found.",
  request: { params: z.object({ agent_id: z.string().openapi({ description: "The agent id (<name>-<8 hex>), the listing id or the on-chain id" }) }) },
  responses: RESOURCE_METADATA_RESPONSES,
  errors: { 400: ["invalid_listing_id"], 404: ["listing_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const agentId = c.req.valid("param").agent_id;
    const base = apiBaseOf(services);
    const resource = a2aResource(base, agentId);
    if (knownResource(base, resource) === null) throw new ApiError("invalid_listing_id", "An agent id is <name>-<8 hex>, lst_<64 hex> or 0x<64 hex>.");
    const listing = await loadListing(services.tables, await resolveAgentId(services, agentId));
    if (!listing) throw new ApiError("listing_not_found", `No published agent ${agentId}.`);
    return answerResourceMetadata(c, base, resource);
  });
}
