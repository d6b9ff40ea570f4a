// GET /.well-known/oauth-protected-resource/v1/mcp: the remote MCP endpoint's protected resource metadata
// (RFC 9728's path form), for MCP clients that discover by the endpoint's path.
import { mcpResource } from "../../oauth/resources.ts";
import { resourceMetadataRoute } from "../resource-metadata.ts";

export const { route, register } = resourceMetadataRoute({
  path: "/.well-known/oauth-protected-resource/v1/mcp",
  operationId: "getMcpProtectedResourceMetadata",
  summary: "Get the MCP endpoint's protected resource metadata",
  description:
    "RFC 9728 metadata of the remote MCP endpoint alone (`resource` is `{api}/v1/mcp`), in the path form MCP clients try when a 401 names no metadata. A token issued for this resource opens POST /v1/mcp only. Needs no token; cacheable for an hour.",
  resourceOf: mcpResource,
});
