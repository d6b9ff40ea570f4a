// The protected resource metadata documents (RFC 9728) the service publishes: one shape, for the
// service as a whole and for each narrower resource.
import { canonicalBase } from "./resources.ts";
import { OAUTH_SCOPES, type OAuthScope } from "./scopes.ts";

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: OAuthScope[];
  bearer_methods_supported: ["header"];
  resource_name: string;
  resource_documentation: string;
}

/** The metadata of `resource`, served by the API at `base` (its own authorization server's issuer). */
export function protectedResourceMetadata(base: string, resource: string): ProtectedResourceMetadata {
  const issuer = canonicalBase(base);
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Rented agents (MCP and A2A)",
    resource_documentation: `${issuer}/v1/docs`,
  };
}
