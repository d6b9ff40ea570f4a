// GET /.well-known/oauth-protected-resource: the service's protected resource metadata (RFC 9728), the
// document every 401 of a protected route names in its WWW-Authenticate challenge.
import { serviceResource } from "../../oauth/resources.ts";
import { resourceMetadataRoute } from "../resource-metadata.ts";

export const { route, register } = resourceMetadataRoute({
  path: "/.well-known/oauth-protected-resource",
  operationId: "getProtectedResourceMetadata",
  summary: "Get the service's protected resource metadata",
  description:
    "RFC 9728 metadata of the service as one protected resource (`resource` is the API's base URL): its authorization server, its scopes, and that access tokens go in the Authorization header. A token issued for this resource opens the remote MCP endpoint, every A2A agent and the REST routes of its scopes. Every 401 of a protected route names this document (`WWW-Authenticate: Bearer resource_metadata=…`). Needs no token; cacheable for an hour.",
  resourceOf: serviceResource,
});
