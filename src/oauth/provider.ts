// The authorization server's protocol engine: oidc-provider (certified, and the one library that does
// everything this server needs: authorization code with PKCE S256, refresh token rotation with reuse
// detection, RFC 8707 resource indicators, RFC 7591 dynamic registration, Client ID Metadata
// Documents, RFC 9207's iss, revocation, a storage adapter per kind of record), configured here for one
// issuer. Why this library: docs/design/decisions/0085-oauth-authorization-server.md. Nothing here is
// OAuth written by hand: this file only chooses the lifetimes, the resources and scopes, where the
// person approves (the dashboard), and how a client's metadata document is fetched (the egress guard).
import { createHash, hkdfSync } from "node:crypto";
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { EgressGuard } from "../adapters/egress/guard.ts";
import type { SigningKeyInput } from "../auth/jwt.ts";
import { createAdapterFactory } from "./adapter.ts";
import { canonicalBase, knownResource, redirectUriProblem, serviceResource } from "./resources.ts";
import { DEFAULT_SCOPES, OAUTH_SCOPES, scopesOf } from "./scopes.ts";

/** Lifetimes, in seconds (docs/reference/oauth.md#lifetimes). */
export const OAUTH_LIFETIMES = {
  /** An access token: one hour, as a sign-in JWT. */
  accessToken: 3600,
  /** An authorization code: one minute between the redirect and its exchange. */
  authorizationCode: 60,
  /** A refresh token: 30 days, renewed at every rotation (each refresh returns a new one). */
  refreshToken: 30 * 24 * 3600,
  /** A grant (the person's approval of one app): 90 days, after which the app asks again. */
  grant: 90 * 24 * 3600,
  /** The person's time to sign in and approve in the dashboard. */
  interaction: 10 * 60,
  /** The authorization server's own browser session: long enough for one approval, no more. */
  session: 10 * 60,
} as const;

/** Where the authorization server's endpoints are, below the issuer. */
export const OAUTH_ROUTES = {
  authorization: "/oauth/authorize",
  token: "/oauth/token",
  registration: "/oauth/register",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
} as const;

/** The largest client metadata document read (the draft's suggested bound). */
export const CLIENT_METADATA_MAX_BYTES = 5 * 1024;
/** How long fetching one may take. */
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;

export interface ProviderOptions {
  /** The issuer: the API's base URL (no trailing slash); also the service's resource identifier. */
  issuer: string;
  /** Where the dashboard is served: its /connect page is where the person signs in and approves. */
  dashboardBase: string;
  tables: Tables;
  /** Signs what the authorization server signs and keys its cookies (OAUTH_SIGNING_KEYS). */
  keys: SigningKeyInput[];
  /** The one way out, for client metadata documents. */
  egress: EgressGuard;
  /** Where the library's unexpected failures are reported (its message only: never a token, a code or
   * a request's parameters). */
  onServerError?: (message: string) => void;
}

/** HMAC keys for the authorization server's cookies, derived from its signing keys (never the keys
 * themselves): a key rotation rotates them too, and the older keys still verify. */
function cookieKeysOf(keys: SigningKeyInput[]): string[] {
  return keys.map((key) => Buffer.from(hkdfSync("sha256", Buffer.from(String(key.privateJwk.d), "base64url"), Buffer.alloc(0), "oauth-cookies", 32)).toString("base64url"));
}

/** The person approves every authorization in the dashboard, even an app approved before: a wallet
 * signature is what says who is approving, and the browser's session is not. */
function policy() {
  const base = interactionPolicy.base();
  const consent = base.get("consent")!;
  consent.checks.add(
    new interactionPolicy.Check("dashboard_approval", "every authorization is approved in the dashboard", (ctx: KoaContextWithOIDC) =>
      ctx.oidc.result?.consent ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );
  return base;
}

export function createProvider(options: ProviderOptions): Provider {
  const issuer = canonicalBase(options.issuer);
  const dashboard = canonicalBase(options.dashboardBase);
  const configuration: Configuration = {
    adapter: createAdapterFactory(options.tables) as unknown as Configuration["adapter"],
    clients: [],
    clientAuthMethods: ["none", "client_secret_basic", "client_secret_post"],
    clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic", id_token_signed_response_alg: "ES256" },
    responseTypes: ["code"],
    // The authorization endpoint is GET only: POST (which OAuth 2.1 makes optional) would need the
    // library's long-lived cookies to be SameSite=None.
    // No OpenID Connect: no ID tokens, no userinfo. The scopes are the resource's (getResourceServerInfo),
    // listed here too so that a registration naming them (RFC 7591's `scope`, as MCP clients send it) is
    // valid; a grant holds them both ways (server.ts).
    scopes: ["offline_access", ...OAUTH_SCOPES],
    claims: {},
    pkce: { required: () => true },
    // An app may propose a spending limit for itself (`spend_limit=<currency>:<wei>:<period>`); the
    // consent page shows it and the person sets the limit (server.ts).
    extraParams: ["spend_limit"],
    routes: OAUTH_ROUTES,
    cookies: { keys: cookieKeysOf(options.keys), long: { httpOnly: true, sameSite: "lax", signed: true }, short: { httpOnly: true, sameSite: "lax", signed: true } },
    jwks: { keys: options.keys.map((key) => ({ ...key.privateJwk, kid: key.kid, alg: "ES256", use: "sig" })) },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    interactions: {
      url: (_ctx, interaction) => `${dashboard}/connect?request=${encodeURIComponent(interaction.uid)}`,
      policy: policy(),
    },
    // Refresh tokens for every client allowed the grant (not only on offline_access), rotated at every
    // use; tokens outlive the short browser session.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: OAUTH_LIFETIMES.accessToken,
      AuthorizationCode: OAUTH_LIFETIMES.authorizationCode,
      RefreshToken: OAUTH_LIFETIMES.refreshToken,
      Grant: OAUTH_LIFETIMES.grant,
      Interaction: OAUTH_LIFETIMES.interaction,
      Session: OAUTH_LIFETIMES.session,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      registration: { enabled: true, issueRegistrationAccessToken: false },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets a token for the service as a whole.
        defaultResource: async () => serviceResource(issuer),
        // A token request without `resource` continues with the one the person approved.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const audience = knownResource(issuer, indicator);
          if (audience === null) throw new errors.InvalidTarget(`${indicator} is not a resource of this server`);
          return { scope: OAUTH_SCOPES.join(" "), audience, accessTokenTTL: OAUTH_LIFETIMES.accessToken, accessTokenFormat: "opaque" };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: "draft-02",
        cacheDuration: { min: 30, max: 3600 },
        // OAuth 2.1's rule on redirect URIs, as for a registration (https, or http on the loopback).
        allowClient: async (_ctx, client) => (client.redirectUris ?? []).every((uri) => redirectUriProblem(uri) === null),
      },
    },
    fetchResponseBodyLimits: { "client_id metadata document": CLIENT_METADATA_MAX_BYTES } as Configuration["fetchResponseBodyLimits"],
    // A client's metadata document is fetched through the egress guard: public addresses only (in the
    // cloud), no redirect, bounded in size and time. The library's own dispatcher is not used.
    fetch: (async (url: string | URL, init: RequestInit) =>
      options.egress.fetch(url, { method: "GET", headers: init.headers, maxRedirects: 0, timeoutMs: CLIENT_METADATA_TIMEOUT_MS, ...(init.signal ? { signal: init.signal } : {}) })) as unknown as Configuration["fetch"],
    renderError: async (ctx, out) => {
      // The authorization endpoint's errors a browser sees when the client cannot be redirected to (an
      // unknown client, a redirect URI not registered): plain text, the OAuth error and its description.
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = `${out.error}: ${out.error_description ?? ""}\n`;
    },
  };
  const provider = new Provider(issuer, configuration);
  // The bridge (bridge.ts) sets X-Forwarded-Proto from the URL the service was called at; the client's
  // own forwarding headers never reach the provider.
  provider.proxy = true;
  askDefaultScopes(provider);
  provider.on("server_error", (_ctx: unknown, error: Error) => options.onServerError?.(`${error.name}: ${error.message}`));
  return provider;
}

/** An authorization request that names none of the scopes asks for the default ones (tasks:run): the
 * library would otherwise carry an empty request into the code, find that the approval granted nothing
 * it asked for, and answer access_denied after the person approved. Written into the query before the
 * library reads it, so the consent page, the grant, the code and the token all see the same scopes. A
 * parameter given twice is left to the library (invalid_request). */
function askDefaultScopes(provider: Provider): void {
  provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => {
    if (ctx.method === "GET" && ctx.path === OAUTH_ROUTES.authorization) {
      const scope = ctx.query.scope;
      if ((scope === undefined || typeof scope === "string") && scopesOf(scope).length === 0) {
        const query = new URLSearchParams(ctx.querystring);
        query.set("scope", [scope ?? "", ...DEFAULT_SCOPES].join(" ").trim());
        ctx.querystring = query.toString();
      }
    }
    return next();
  });
}

/** A stable short digest, for logs that must name a token without holding it. */
export const fingerprint = (secret: string) => createHash("sha256").update(secret).digest("hex").slice(0, 12);
