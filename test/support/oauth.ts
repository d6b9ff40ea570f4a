// An OAuth client for tests that drive the authorization server over HTTP by hand (the end-to-end tests
// use the MCP SDK's own client instead): registration, PKCE, a browser's cookie jar across the
// authorize → approve → resume hops, the person's decision through the API with their wallet sign-in,
// and the token endpoint.
import { createHash, randomBytes } from "node:crypto";

/** How the helpers reach the service: `fetch` over HTTP by default, or an app's in-process `request`
 * (the benchmarks), set with `useFetch`. */
let send: (url: string, init?: RequestInit) => Promise<Response> = (url, init) => fetch(url, init);

/** Sends the helpers' requests through `fetchFn` (an app's `request`, for in-process measurements). */
export function useFetch(fetchFn: (url: string, init?: RequestInit) => Promise<Response> | Response): void {
  send = async (url, init) => fetchFn(url, init);
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A browser's cookies for one origin: enough for the authorization server's two cookies. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uri: string;
}

export async function registerClient(base: string, metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const redirect_uri = (metadata.redirect_uris as string[] | undefined)?.[0] ?? "http://127.0.0.1:9/callback";
  const res = await send(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Test app", redirect_uris: [redirect_uri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], ...metadata }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { client_id: string; client_secret?: string };
  return { ...body, redirect_uri };
}

export interface AuthorizeOptions {
  scope?: string;
  resource?: string | null;
  state?: string;
  redirect_uri?: string;
  pkce?: Pkce;
  /** The spending limit the app proposes (`<currency>:<wei>:<period>`). */
  spend_limit?: string;
  /** The spending limits the person sets on approval. */
  spend_limits?: { currency?: string; period: string; amount: string }[];
}

/** GET /oauth/authorize as a browser: the answer (not followed), the jar holding its cookies. */
export async function startAuthorization(base: string, client: RegisteredClient, options: AuthorizeOptions = {}) {
  const challenge = options.pkce ?? pkce();
  const url = new URL(`${base}/oauth/authorize`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.client_id);
  url.searchParams.set("redirect_uri", options.redirect_uri ?? client.redirect_uri);
  url.searchParams.set("code_challenge", challenge.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", options.state ?? "st-1");
  if (options.scope !== undefined) url.searchParams.set("scope", options.scope);
  if (options.resource !== null) url.searchParams.set("resource", options.resource ?? base);
  if (options.spend_limit !== undefined) url.searchParams.set("spend_limit", options.spend_limit);
  const jar = new CookieJar();
  const response = await send(url.href, { redirect: "manual" });
  jar.take(response);
  const location = response.headers.get("location");
  const requestId = location && URL.canParse(location) ? new URL(location).searchParams.get("request") : null;
  return { response, jar, pkce: challenge, requestId, location };
}

/** The person's decision through the API (their wallet JWT), then the browser's return to the app:
 * the redirect's URL (with `code` or `error`, `state` and `iss`). */
export async function decide(base: string, started: Awaited<ReturnType<typeof startAuthorization>>, bearer: string, decision: "approve" | "deny" = "approve", spendLimits?: AuthorizeOptions["spend_limits"]): Promise<URL> {
  const body = spendLimits === undefined ? {} : { headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, body: JSON.stringify({ spend_limits: spendLimits }) };
  const res = await send(`${base}/v1/oauth/requests/${started.requestId}/${decision}`, { method: "POST", headers: { authorization: `Bearer ${bearer}` }, ...body });
  if (res.status !== 200) throw new Error(`${decision} failed: ${res.status} ${await res.text()}`);
  const { redirect_to } = (await res.json()) as { redirect_to: string };
  const back = await send(redirect_to, { redirect: "manual", headers: { cookie: started.jar.header() } });
  const location = back.headers.get("location");
  if (!location) throw new Error(`no redirect back to the app: ${back.status} ${await back.text()}`);
  return new URL(location);
}

export async function tokenRequest(base: string, params: Record<string, string>): Promise<Response> {
  return send(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(params) });
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope?: string;
  token_type: string;
}

/** The whole flow to tokens: authorize, approve, exchange the code. */
export async function signInApp(base: string, client: RegisteredClient, bearer: string, options: AuthorizeOptions = {}): Promise<Tokens> {
  const started = await startAuthorization(base, client, options);
  const back = await decide(base, started, bearer, "approve", options.spend_limits);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back}`);
  const res = await tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: started.pkce.verifier, redirect_uri: options.redirect_uri ?? client.redirect_uri, client_id: client.client_id, ...(options.resource !== null ? { resource: options.resource ?? base } : {}) });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Tokens;
}
