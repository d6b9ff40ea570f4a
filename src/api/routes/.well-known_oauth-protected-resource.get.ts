// GET /.well-known/oauth-protected-resource: the service's protected resource metadata (RFC 9728), the
// document every 401 of a protected route names in its WWW-Authenticate challenge.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { protectedResourceMetadata } from "../../oauth/metadata.ts";
import { serviceResource } from "../../oauth/resources.ts";
import { ProtectedResourceMetadataSchema } from "../schemas/oauth.ts";

export const route = defineRoute({
  method: "get",
  path: "/.well-known/oauth-protected-resource",
  operationId: "getProtectedResourceMetadata",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get the service's protected resource metadata",
  description:
    "RFC 9728 metadata of the service as one protected resource (`resource` is the API's base URL): its authorization server, its scopes, and that access tokens go in the Authorization header. A token issued for this resource opens the remote MCP endpoint, every A2A agent and the REST routes of its scopes. Every 401 of a protected route names this document (`WWW-Authenticate: Bearer resource_metadata=…`). Needs no token; cacheable for an hour.",
  responses: { 200: { description: "The metadata", content: { "application/json": { schema: ProtectedResourceMetadataSchema } } } },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) => {
    const base = apiBaseOf(c.get("services"));
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(protectedResourceMetadata(base, serviceResource(base)), 200);
  });
}
