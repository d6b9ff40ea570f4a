// The protected resources the authorization server issues tokens for (RFC 8707 resource indicators),
// and the rule that checks a token's audience on every protected route. The service is one resource
// server; its canonical identifier is its base URL (`https://api.example.com`, no trailing slash), and a
// token issued for it opens every route whose scope the token holds. Narrower resources exist for
// clients that discover by path: the remote MCP endpoint (`<base>/v1/mcp`) and each A2A agent
// (`<base>/a2a/<agent_id>`); a token issued for one of them opens that path only
// (docs/design/decisions/0086-oauth-resources-and-scopes.md).

/** An A2A agent id as it appears in a path (a listing's `<name>-<8 hex>` or `lst_<64 hex>`). */
const AGENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

export const MCP_PATH = "/v1/mcp";
export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";

/** The base URL without a trailing slash: the service's own resource identifier and the issuer. */
export function canonicalBase(base: string): string {
  return base.replace(/\/+$/, "");
}

export const serviceResource = (base: string) => canonicalBase(base);
export const mcpResource = (base: string) => `${canonicalBase(base)}${MCP_PATH}`;
export const a2aResource = (base: string, agentId: string) => `${canonicalBase(base)}/a2a/${agentId}`;

/** Where the metadata of a resource at `path` ("" for the service itself) is served (RFC 9728 §3.1:
 * the well-known segment inserted between the host and the path). */
export function resourceMetadataUrl(base: string, path = ""): string {
  return `${canonicalBase(base)}${PROTECTED_RESOURCE_METADATA_PATH}${path}`;
}

/**
 * The canonical form of a resource indicator this server issues tokens for, or null when it names
 * none of them (another origin, another path, a query or a fragment: RFC 8707's invalid_target).
 * Scheme and host compare case-insensitively (URL parsing lower-cases them); a trailing slash on the
 * service's own identifier is the same resource.
 *
 * @example
 * knownResource("https://api.example.com", "https://API.example.com/"); // "https://api.example.com"
 * knownResource("https://api.example.com", "https://api.example.com/v1/listings"); // null
 */
export function knownResource(base: string, indicator: string): string | null {
  let url: URL;
  let own: URL;
  try {
    url = new URL(indicator);
    own = new URL(canonicalBase(base));
  } catch {
    return null;
  }
  if (url.origin !== own.origin || url.search !== "" || url.hash !== "" || indicator.includes("#") || url.username !== "" || url.password !== "") return null;
  const ownPath = own.pathname.replace(/\/+$/, "");
  if (!url.pathname.startsWith(ownPath)) return null;
  const path = url.pathname.slice(ownPath.length);
  if (path === "" || path === "/") return serviceResource(base);
  if (path === MCP_PATH) return mcpResource(base);
  const agent = /^\/a2a\/([^/]+)$/.exec(path);
  if (agent && AGENT_ID.test(agent[1]!)) return a2aResource(base, agent[1]!);
  return null;
}

/**
 * Whether a token issued for `resource` may be used for a request to `path` (the request's path below
 * the base): the service's own identifier covers every path; a narrower resource covers its path and
 * what is below it. Anything else is a token for another resource.
 *
 * @example
 * resourceCovers("https://api.example.com", "https://api.example.com", "/a2a/x"); // true
 * resourceCovers("https://api.example.com", "https://api.example.com/v1/mcp", "/a2a/x"); // false
 */
export function resourceCovers(base: string, resource: string, path: string): boolean {
  const canonical = knownResource(base, resource);
  if (canonical === null) return false;
  const scope = canonical.slice(canonicalBase(base).length);
  if (scope === "") return true;
  return path === scope || path.startsWith(`${scope}/`);
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Why a redirect URI may not be registered, or null when it may (OAuth 2.1 §2.3.1): an absolute https
 * URL, or http on the loopback interface (a desktop app's listener, any port), with no fragment.
 *
 * @example
 * redirectUriProblem("https://app.example/cb"); // null
 * redirectUriProblem("http://app.example/cb");  // "… must be https …"
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri.slice(0, 100)} is not an absolute URL`;
  }
  if (url.hash !== "" || uri.includes("#")) return "a redirect URI must not carry a fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `${url.protocol}//${url.host} must be https (http only on 127.0.0.1, [::1] or localhost)`;
}
