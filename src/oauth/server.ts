// The authorization server as the rest of the service meets it: the protocol requests (handed to
// oidc-provider through the bridge), its metadata, the check of an access token a client presents, and
// what the dashboard does for the person approving: read a sign-in request, approve or deny it, list
// the apps with access and revoke one. No Hono here: the routes (src/api/routes/oauth_*, v1_oauth_*)
// call these.
import { getAddress, type Address } from "viem";
import type Provider from "oidc-provider";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { EgressGuard } from "../adapters/egress/guard.ts";
import type { SigningKeyInput } from "../auth/jwt.ts";
import { callProvider } from "./bridge.ts";
import { approvalSecret, bindApprovalsToBrowser, withApproval } from "./browser-binding.ts";
import { createProvider, OAUTH_LIFETIMES } from "./provider.ts";
import { canonicalBase, knownResource, serviceResource } from "./resources.ts";
import { askedScopes, OAUTH_SCOPES, OAUTH_SCOPE_WORDS, scopesOf, type OAuthScope } from "./scopes.ts";
import { findRecord } from "./record.store.ts";
import { keepClient, MAX_UNUSED_CLIENTS_PER_ADDRESS, noteRegistrant, unusedClientsOf, UNUSED_CLIENT_TTL_SECONDS } from "./client.store.ts";
import { registrationProblem } from "./registration.ts";
import { TooManyClientsError } from "./errors.ts";
import { describeGrant, getGrant, listGrantsOf, revokeGrantFamily, setGrantSpendLimits, touchGrant, type ConnectedAppInfo } from "./grant.store.ts";
import { ETH_LIMIT_CURRENCY, parseSpendLimits, storedSpendLimits, type LimitCurrency, type SpendLimit } from "../execution/money/spend-limits.ts";

/** What a valid access token says about its holder. */
export interface OAuthAccess {
  wallet: Address;
  clientId: string;
  /** The grant (the person's approval of the app) the token was issued under: the Connected app. */
  grantId: string;
  scopes: OAuthScope[];
  /** The resource the token was issued for (its audience). */
  audience: string;
  /** The spending limits the person set for the app. */
  spendLimits: SpendLimit[];
}

/** The limit an app proposes in its authorization request (`spend_limit=<currency>:<units>:<period>`, in
 * ETH or a token listings are priced in, as a key's limit may be), when it is one the rules accept;
 * anything else proposes nothing (the person still decides). */
export function proposedSpendLimits(param: unknown, currencies: readonly LimitCurrency[] = [ETH_LIMIT_CURRENCY]): SpendLimit[] {
  if (typeof param !== "string") return [];
  const [currency, amount, period] = param.split(":");
  try {
    return parseSpendLimits([{ currency, amount, period }], "spend_limit", currencies);
  } catch {
    return [];
  }
}

/** A sign-in request as the consent page shows it. */
export interface ConsentRequest {
  request_id: string;
  client: { client_id: string; name: string | null; kind: ConnectedAppInfo["client_kind"]; redirect_host: string; client_uri: string | null; logo_uri: string | null };
  scopes: { scope: OAuthScope; description: string }[];
  /** The resources the app's tokens will open. */
  resources: string[];
  expires_at: string;
  /** The spending limit the app proposes for itself, if any (the person sets the limit). */
  proposed_spend_limits: SpendLimit[];
}

export interface ConnectedApp {
  app_id: string;
  client_id: string;
  name: string | null;
  kind: ConnectedAppInfo["client_kind"];
  redirect_host: string | null;
  scopes: OAuthScope[];
  resources: string[];
  approved_at: string;
  expires_at: string;
  last_used_at: string | null;
  spend_limits: SpendLimit[];
}

/** Refusals the routes turn into the API's errors. */
export class OAuthRequestError extends Error {
  constructor(
    readonly reason: "request_not_found" | "request_decided",
    message: string,
  ) {
    super(message);
  }
}

export interface OAuthServer {
  /** Serves an OAuth protocol request (authorize, its resumption, token, register, revoke) for the
   * issuer `base` (the API's base URL). */
  handle(base: string, request: Request, clientIp: string | undefined): Promise<Response>;
  /** Dynamic client registration (RFC 7591) from the address `clientIp`, within the bounds of
   * registration.ts and client.store.ts, then as the library answers it. */
  register(base: string, request: Request, clientIp: string | undefined): Promise<Response>;
  /** RFC 8414 metadata of the issuer `base`. */
  metadata(base: string): Promise<Record<string, unknown>>;
  /** The access this token grants, or null when it is not a live token of this server (unknown,
   * expired, or its grant revoked). */
  authenticate(token: string): Promise<OAuthAccess | null>;
  consentRequest(base: string, requestId: string): Promise<ConsentRequest>;
  /** Records the person's decision; returns where their browser goes next (the authorization server,
   * which sends it on to the app with a code, or with access_denied). */
  decide(base: string, requestId: string, wallet: Address, decision: "approve" | "deny", spendLimits?: SpendLimit[]): Promise<{ redirect_to: string }>;
  connectedApps(wallet: Address): Promise<ConnectedApp[]>;
  /** Revokes an app's grant and every token under it; false when the wallet has no such app. */
  revokeApp(wallet: Address, appId: string): Promise<boolean>;
  /** Replaces an app's spending limits; false when the wallet has no such app. */
  setAppSpendLimits(wallet: Address, appId: string, spendLimits: SpendLimit[]): Promise<boolean>;
}

export interface OAuthServerOptions {
  tables: Tables;
  keys: SigningKeyInput[];
  egress: EgressGuard;
  /** The dashboard's base URL when it is not on the API's origin (DASHBOARD_URL). */
  dashboardUrl?: string | undefined;
  /** Reports the authorization server's unexpected failures (answered 500 server_error). */
  onServerError?: (message: string) => void;
  /** The currencies an app may propose a spending limit in (ETH alone unless given). */
  limitCurrencies?: readonly LimitCurrency[];
}

/** How stale an app's recorded last use may be. */
const LAST_USE_INTERVAL_MS = 60_000;

/** Issuers a process serves at once (the API's configured URL makes it one; without it, each origin
 * the API is reached at is its own issuer, and a few are kept). */
const MAX_ISSUERS = 8;

const epoch = () => Math.floor(Date.now() / 1000);
const iso = (seconds: number | undefined) => new Date((seconds ?? 0) * 1000).toISOString();

function clientKind(clientId: string): ConnectedAppInfo["client_kind"] {
  return clientId.startsWith("https://") ? "metadata_document" : "registered";
}

function resourcesOf(resource: unknown, base: string): string[] {
  const listed = Array.isArray(resource) ? resource : typeof resource === "string" ? [resource] : [];
  return listed.length === 0 ? [serviceResource(base)] : listed.map(String);
}

/** RFC 8414's fields of the library's discovery document (the OpenID-only ones left out), with what
 * this server supports stated outright. */
const METADATA_FIELDS = [
  "issuer",
  "authorization_endpoint",
  "token_endpoint",
  "registration_endpoint",
  "revocation_endpoint",
  "response_types_supported",
  "response_modes_supported",
  "grant_types_supported",
  "token_endpoint_auth_methods_supported",
  "revocation_endpoint_auth_methods_supported",
  "code_challenge_methods_supported",
  "authorization_response_iss_parameter_supported",
  "client_id_metadata_document_supported",
];

function serverMetadata(discovered: Record<string, unknown>): Record<string, unknown> {
  return {
    ...Object.fromEntries(METADATA_FIELDS.filter((name) => discovered[name] !== undefined).map((name) => [name, discovered[name]])),
    scopes_supported: [...OAUTH_SCOPES],
    code_challenge_methods_supported: ["S256"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    response_types_supported: ["code"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/** The caller an access token stands for, or null (unknown, expired, or its app revoked). */
async function authenticateAccessToken(tables: Tables, token: string): Promise<OAuthAccess | null> {
  const access = await findRecord(tables, "AccessToken", token);
  if (!access || typeof access.grantId !== "string" || typeof access.accountId !== "string" || typeof access.clientId !== "string") return null;
  // The grant is read too: an app revoked while a token was being issued has no live token.
  const grant = await getGrant(tables, access.grantId);
  if (!grant) return null;
  // Its last use, kept to the minute (as an API key's): one write a minute per app, not per request.
  const now = new Date();
  if (!grant.last_used_at || now.getTime() - Date.parse(grant.last_used_at) >= LAST_USE_INTERVAL_MS) await touchGrant(tables, access.grantId, now.toISOString());
  return {
    wallet: getAddress(access.accountId),
    clientId: access.clientId,
    grantId: access.grantId,
    scopes: scopesOf(typeof access.scope === "string" ? access.scope : ""),
    audience: typeof access.aud === "string" ? access.aud : Array.isArray(access.aud) ? String(access.aud[0]) : "",
    spendLimits: storedSpendLimits(grant.spend_limits),
  };
}

/** A grant as the wallet's connected apps list it. */
function connectedAppOf(grant: Awaited<ReturnType<typeof listGrantsOf>>[number]): ConnectedApp {
  const resources = (grant.payload.resources ?? {}) as Record<string, string>;
  const clientId = String(grant.payload.clientId ?? grant.app?.client_id ?? "");
  return {
    app_id: grant.grant_id,
    client_id: clientId,
    name: grant.app?.client_name ?? null,
    kind: grant.app?.client_kind ?? clientKind(clientId),
    redirect_host: grant.app?.redirect_host ?? null,
    scopes: scopesOf(Object.values(resources).join(" ")),
    resources: Object.keys(resources),
    approved_at: iso(grant.payload.iat as number | undefined),
    expires_at: iso(grant.payload.exp as number | undefined),
    last_used_at: grant.last_used_at ?? null,
    spend_limits: storedSpendLimits(grant.spend_limits),
  };
}

export function createOAuthServer(options: OAuthServerOptions): OAuthServer {
  const providers = new Map<string, Provider>();
  const providerFor = (base: string): Provider => {
    const issuer = canonicalBase(base);
    let provider = providers.get(issuer);
    if (!provider) {
      if (providers.size >= MAX_ISSUERS) providers.delete(providers.keys().next().value!);
      provider = createProvider({ issuer, dashboardBase: options.dashboardUrl ?? issuer, tables: options.tables, keys: options.keys, egress: options.egress, ...(options.onServerError ? { onServerError: options.onServerError } : {}) });
      bindApprovalsToBrowser(provider, options.tables);
      providers.set(issuer, provider);
    }
    return provider;
  };

  const interactionOf = async (base: string, requestId: string) => {
    const interaction = /^[A-Za-z0-9_-]{1,64}$/.test(requestId) ? await providerFor(base).Interaction.find(requestId) : undefined;
    if (!interaction) throw new OAuthRequestError("request_not_found", "No such sign-in request, or it has expired: start again from the app.");
    return interaction;
  };

  return {
    handle: (base, request, clientIp) => callProvider(providerFor(base), request, clientIp),

    async register(base, request, clientIp) {
      const text = await request.text();
      const problem = registrationProblem(text);
      if (problem) return problem.toResponse();
      if ((await unusedClientsOf(options.tables, clientIp)) >= MAX_UNUSED_CLIENTS_PER_ADDRESS) {
        return new TooManyClientsError(
          `This address holds ${MAX_UNUSED_CLIENTS_PER_ADDRESS} registered clients no one has approved yet; each lapses ${UNUSED_CLIENT_TTL_SECONDS / 86_400} days after its registration. Reuse a client you registered, or use a Client ID Metadata Document.`,
        ).toResponse();
      }
      const answer = await callProvider(providerFor(base), new Request(request.url, { method: "POST", headers: request.headers, body: text }), clientIp);
      if (answer.status !== 201) return answer;
      const body = await answer.text();
      const clientId = (JSON.parse(body) as { client_id?: unknown }).client_id;
      if (typeof clientId === "string") await noteRegistrant(options.tables, clientId, clientIp);
      return new Response(body, { status: answer.status, headers: answer.headers });
    },

    async metadata(base) {
      const answer = await callProvider(providerFor(base), new Request(`${canonicalBase(base)}/.well-known/openid-configuration`), undefined);
      return serverMetadata((await answer.json()) as Record<string, unknown>);
    },

    authenticate: (token) => authenticateAccessToken(options.tables, token),

    async consentRequest(base, requestId) {
      const interaction = await interactionOf(base, requestId);
      const params = interaction.params as Record<string, unknown>;
      const clientId = String(params.client_id ?? "");
      const client = await providerFor(base).Client.find(clientId);
      const metadata = (client?.metadata() ?? {}) as Record<string, unknown>;
      const redirectUri = String(params.redirect_uri ?? (Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris[0] : ""));
      const scopes = askedScopes(typeof params.scope === "string" ? params.scope : undefined);
      return {
        request_id: requestId,
        client: {
          client_id: clientId,
          name: typeof metadata.client_name === "string" ? metadata.client_name : null,
          kind: clientKind(clientId),
          redirect_host: URL.canParse(redirectUri) ? new URL(redirectUri).host : "",
          client_uri: typeof metadata.client_uri === "string" ? metadata.client_uri : null,
          logo_uri: typeof metadata.logo_uri === "string" ? metadata.logo_uri : null,
        },
        scopes: scopes.map((scope) => ({ scope, description: OAUTH_SCOPE_WORDS[scope] })),
        resources: resourcesOf(params.resource, base).map((resource) => knownResource(base, resource) ?? resource),
        expires_at: iso(interaction.exp),
        proposed_spend_limits: proposedSpendLimits(params.spend_limit, options.limitCurrencies),
      };
    },

    async decide(base, requestId, wallet, decision, spendLimits = []) {
      const provider = providerFor(base);
      const interaction = await interactionOf(base, requestId);
      if (interaction.result) throw new OAuthRequestError("request_decided", "This sign-in request was already approved or denied: start again from the app.");
      const params = interaction.params as Record<string, unknown>;
      const ttl = Math.max(1, (interaction.exp ?? epoch() + OAUTH_LIFETIMES.interaction) - epoch());
      if (decision === "deny") {
        interaction.result = { error: "access_denied", error_description: "The person signing in denied the request." };
        await interaction.save(ttl);
        return { redirect_to: interaction.returnTo };
      }
      const clientId = String(params.client_id ?? "");
      const client = await provider.Client.find(clientId);
      const metadata = (client?.metadata() ?? {}) as Record<string, unknown>;
      const scopes = askedScopes(typeof params.scope === "string" ? params.scope : undefined);
      const accountId = getAddress(wallet);
      const grant = new provider.Grant({ accountId, clientId });
      for (const resource of resourcesOf(params.resource, base)) grant.addResourceScope(resource, scopes.join(" "));
      // The library also counts the scopes it lists among its own (provider.ts); the approval covers both.
      grant.addOIDCScope(scopes.join(" "));
      const grantId = await grant.save();
      // A registered client approved lives as long as the grant (client.store.ts).
      if (clientKind(clientId) === "registered") await keepClient(options.tables, clientId, OAUTH_LIFETIMES.grant);
      const redirectUri = String(params.redirect_uri ?? "");
      await describeGrant(options.tables, grantId, {
        client_id: clientId,
        client_name: typeof metadata.client_name === "string" ? metadata.client_name : clientId,
        client_kind: clientKind(clientId),
        redirect_host: URL.canParse(redirectUri) ? new URL(redirectUri).host : "",
      }, spendLimits);
      // Only the browser that started the sign-in, and approved it, can finish it (browser-binding.ts).
      const approval = approvalSecret();
      interaction.result = { login: { accountId }, consent: { grantId }, ...approval.result };
      await interaction.save(ttl);
      return { redirect_to: withApproval(interaction.returnTo, approval.secret) };
    },

    async connectedApps(wallet) {
      return (await listGrantsOf(options.tables, wallet)).map(connectedAppOf);
    },

    async setAppSpendLimits(wallet, appId, spendLimits) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(appId)) return false;
      const grant = await getGrant(options.tables, appId);
      if (!grant || String(grant.payload.accountId ?? "").toLowerCase() !== wallet.toLowerCase()) return false;
      return setGrantSpendLimits(options.tables, appId, spendLimits);
    },

    async revokeApp(wallet, appId) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(appId)) return false;
      const grant = await getGrant(options.tables, appId);
      if (!grant || String(grant.payload.accountId ?? "").toLowerCase() !== wallet.toLowerCase()) return false;
      await revokeGrantFamily(options.tables, appId);
      return true;
    },
  };
}
