// GET /.well-known/oauth-protected-resource/v1/mcp: the remote MCP endpoint's protected resource metadata
// (RFC 9728's path form), for MCP clients that discover by the endpoint's path.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { protectedResourceMetadata } from "../../oauth/metadata.ts";
import { mcpResource } from "../../oauth/resources.ts";
import { ProtectedResourceMetadataSchema } from "../schemas/oauth.ts";

export const route = defineRoute({
  method: "get",
  path: "/.well-known/oauth-protected-resource/v1/mcp",
  operationId: "getMcpProtectedResourceMetadata",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get the MCP endpoint's protected resource metadata",
  description:
    "RFC 9728 metadata of the remote MCP endpoint alone (`resource` is `{api}/v1/mcp`), in the path form MCP clients try when a 401 names no metadata. A token issued for this resource opens POST /v1/mcp only. Needs no token; cacheable for an hour.",
  responses: { 200: { description: "The metadata", content: { "application/json": { schema: ProtectedResourceMetadataSchema } } } },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) => {
    const base = apiBaseOf(c.get("services"));
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(protectedResourceMetadata(base, mcpResource(base)), 200);
  });
}
