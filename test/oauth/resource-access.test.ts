// What an OAuth access token opens, and what it never does: the protected resource metadata (the
// service, the MCP endpoint, each A2A agent), the challenge on every 401 (REST, MCP, A2A's JSON-RPC),
// the audience rule (a token for one resource refused at another), the scopes (each route's, and the
// routes that take no OAuth token at all: API keys, ratings, creators, agents, connected apps), the
// Connected apps list and its revocation (the next call fails 401), and clients identified by a Client
// ID Metadata Document served over HTTPS (fetched through the egress guard: no redirect, bounded size,
// no private address unless allowed).
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { makeTestCertificates, startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { registerClient, signInApp, startAuthorization, decide, tokenRequest, type RegisteredClient } from "../support/oauth.ts";

let world: World;
let base: string;
let jwt: string;
let otherJwt: string;
let client: RegisteredClient;
let agent: PublishedAgent;
let metadataServer: HttpsTestServer;
/** What the metadata server answers, by path. */
const documents = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
const certificates = makeTestCertificates();

beforeAll(async () => {
  metadataServer = await startHttpsServer((req, res) => {
    const handler = documents.get(req.url ?? "");
    if (handler) return handler(req, res);
    res.writeHead(404).end();
  }, { certificates });
  world = await startWorld({ agent: true, adapters: { clientMetadataEgress: createEgressGuard({ ca: certificates.ca, allowHosts: ["127.0.0.1"], timeoutMs: 2_000, maxResponseBytes: 5 * 1024 }) } });
  base = world.url;
  agent = await world.publishConnected("oauth-researcher", { rental: "one_time" });
  const renter = await world.account();
  await world.rent(renter, agent);
  jwt = await world.signIn(renter);
  otherJwt = await world.signIn(await world.account());
  client = await registerClient(base, { client_name: "Resource test app" });
}, 180_000);
afterAll(async () => {
  await world?.close();
  await metadataServer?.stop();
});

const get = (path: string, token?: string) => fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe("GET /.well-known/oauth-protected-resource", () => {
  it("describes the service as one resource: its base URL, its authorization server, its scopes, header tokens only", async () => {
    const res = await get("/.well-known/oauth-protected-resource");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: base,
      authorization_servers: [base],
      scopes_supported: ["tasks:run", "credentials:read", "listings:read"],
      bearer_methods_supported: ["header"],
      resource_name: expect.any(String),
      resource_documentation: `${base}/v1/docs`,
    });
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
  });
});

describe("GET /.well-known/oauth-protected-resource/v1/mcp", () => {
  it("describes the MCP endpoint alone (the path form)", async () => {
    const res = await get("/.well-known/oauth-protected-resource/v1/mcp");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: `${base}/v1/mcp`, authorization_servers: [base], bearer_methods_supported: ["header"] });
  });
});

describe("GET /.well-known/oauth-protected-resource/a2a/{agent_id}", () => {
  it("describes one published agent's A2A endpoint, and answers 404 listing_not_found for an unknown one and 400 for a malformed id", async () => {
    const res = await get(`/.well-known/oauth-protected-resource/a2a/${agent.agent_id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: `${base}/a2a/${agent.agent_id}`, authorization_servers: [base] });
    const unknown = await get("/.well-known/oauth-protected-resource/a2a/nobody-00000000");
    expect(unknown.status).toBe(404);
    expect(await codeOf(unknown)).toBe("listing_not_found");
    const malformed = await get("/.well-known/oauth-protected-resource/a2a/a%20b");
    expect(malformed.status).toBe(400);
    expect(await codeOf(malformed)).toBe("invalid_listing_id");
  });
});

describe("the challenge on every 401", () => {
  it("names the service's metadata and the route's scope, with the error envelope and the rate headers unchanged (REST, MCP)", async () => {
    for (const [path, scope] of [["/v1/credentials", "credentials:read"], ["/v1/listings", "listings:read"], ["/v1/runs/run_x", "tasks:run"]] as const) {
      const res = await get(path);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", scope="${scope}"`);
      expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
      expect(await res.json()).toEqual({ error: { code: "unauthorized", message: expect.any(String), status: 401, request_id: expect.any(String) } });
    }
    const mcp = await fetch(`${base}/v1/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", scope="tasks:run"`);
    const wrong = await get("/v1/credentials", "svc_test_" + "0".repeat(40));
    expect(wrong.headers.get("www-authenticate")).toContain(`error="invalid_token"`);
  });

  it("is on A2A's JSON-RPC refusals too", async () => {
    const res = await fetch(`${base}/a2a/${agent.agent_id}`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "t" } }) });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", scope="tasks:run"`);
    // A JSON-RPC error (the request's id is not read before authentication).
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
  });

  it("leaves out the scope on routes no OAuth token may call", async () => {
    const res = await get("/v1/keys");
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
  });
});

describe("an access token's audience", () => {
  it("opens every route of its scopes when issued for the service", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "tasks:run credentials:read listings:read" });
    expect((await get("/v1/credentials", tokens.access_token)).status).toBe(200);
    expect((await get("/v1/listings", tokens.access_token)).status).toBe(200);
    expect((await get(`/v1/listings/${agent.listing_id}`, tokens.access_token)).status).toBe(200);
  });

  it("refuses a token issued for the MCP endpoint at the REST routes and at an A2A agent (401 invalid_token)", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "tasks:run credentials:read", resource: `${base}/v1/mcp` });
    const rest = await get("/v1/credentials", tokens.access_token);
    expect(rest.status).toBe(401);
    expect(await codeOf(rest)).toBe("invalid_token");
    expect(rest.headers.get("www-authenticate")).toContain(`error="invalid_token"`);
    const a2a = await fetch(`${base}/a2a/${agent.agent_id}`, { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } }) });
    expect(a2a.status).toBe(401);
  });

  it("refuses a token issued for one A2A agent at the MCP endpoint and at another agent", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "tasks:run", resource: `${base}/a2a/${agent.agent_id}` });
    const mcp = await fetch(`${base}/v1/mcp`, { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(mcp.status).toBe(401);
    const otherAgent = await fetch(`${base}/a2a/someone-else-00000000`, { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } }) });
    expect(otherAgent.status).toBe(401);
  });

  it("is one issuer and one resource whatever origin the server is reached at: a resource named by another origin is refused (invalid_target), a sign-in started there is for the configured base", async () => {
    const elsewhere = base.replace("127.0.0.1", "localhost");
    const metadata = (await (await fetch(`${elsewhere}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
    expect(metadata.issuer).toBe(base);
    const other = await registerClient(elsewhere);
    const refused = await startAuthorization(elsewhere, other, { resource: elsewhere });
    const back = new URL(refused.location!);
    expect(back.searchParams.get("error")).toBe("invalid_target");
    expect(back.searchParams.get("iss")).toBe(base);
    const tokens = await signInApp(elsewhere, other, jwt, { scope: "credentials:read", resource: base });
    expect((await get("/v1/credentials", tokens.access_token)).status).toBe(200);
  });
});

describe("an access token's scopes", () => {
  it("refuses a route whose scope the token lacks with 403 insufficient_scope and the challenge naming it", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "listings:read" });
    const res = await get("/v1/credentials", tokens.access_token);
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe("insufficient_scope");
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", scope="credentials:read", error="insufficient_scope"`);
    const run = await fetch(`${base}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agent.agent_id, task: "t" }) });
    expect(run.status).toBe(403);
    expect(await codeOf(run)).toBe("insufficient_scope");
  });

  it("never creates API keys, rates, registers or changes agents, applies as a creator, reviews or manages apps: those routes refuse every OAuth token (403)", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "tasks:run credentials:read listings:read" });
    const calls: [string, string, unknown?][] = [
      ["POST", "/v1/keys/challenge", { label: "x" }],
      ["POST", "/v1/keys", { nonce: "n", signature: "0x00" }],
      ["GET", "/v1/keys"],
      ["DELETE", "/v1/keys/key_x"],
      ["PUT", `/v1/listings/${agent.listing_id}/rating`, { rating: 5 }],
      ["POST", "/v1/agents", { name: "x" }],
      ["POST", "/v1/creators", { display_name: "x" }],
      ["GET", "/v1/creators/me"],
      ["PUT", `/v1/listings/${agent.listing_id}/provider-key`, { api_key: "k" }],
      ["POST", `/v1/listings/${agent.listing_id}/webhook-secret`],
      ["GET", "/v1/reviews/creators"],
      ["GET", "/v1/oauth/apps"],
      ["DELETE", "/v1/oauth/apps/x"],
      ["GET", "/v1/oauth/requests/x"],
      ["POST", "/v1/oauth/requests/x/approve"],
    ];
    for (const [method, path, body] of calls) {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await codeOf(res), `${method} ${path}`).toBe("insufficient_scope");
    }
  });
});

describe("GET /v1/oauth/apps", () => {
  it("lists the wallet's apps with their scopes and last use, and nobody else's", async () => {
    const app = await registerClient(base, { client_name: "Listed app", redirect_uris: ["http://127.0.0.1:9/listed"] });
    const tokens = await signInApp(base, app, jwt, { scope: "credentials:read" });
    expect((await get("/v1/credentials", tokens.access_token)).status).toBe(200);
    const listed = (await (await get("/v1/oauth/apps", jwt)).json()) as { apps: Record<string, unknown>[] };
    const mine = listed.apps.find((a) => a.client_id === app.client_id);
    expect(mine).toMatchObject({ name: "Listed app", kind: "registered", redirect_host: "127.0.0.1:9", scopes: ["credentials:read"], resources: [base] });
    expect(Date.parse(String(mine?.last_used_at))).toBeGreaterThan(Date.now() - 60_000);
    const others = (await (await get("/v1/oauth/apps", otherJwt)).json()) as { apps: unknown[] };
    expect(others.apps).toEqual([]);
  });
});

describe("DELETE /v1/oauth/apps/{app_id}", () => {
  it("revokes the app: its access token fails at once (401), its refresh token too; another wallet cannot (404)", async () => {
    const app = await registerClient(base, { client_name: "Revoked app" });
    const tokens = await signInApp(base, app, jwt, { scope: "credentials:read" });
    const { apps } = (await (await get("/v1/oauth/apps", jwt)).json()) as { apps: { app_id: string; client_id: string }[] };
    const appId = apps.find((a) => a.client_id === app.client_id)!.app_id;
    const foreign = await fetch(`${base}/v1/oauth/apps/${appId}`, { method: "DELETE", headers: { authorization: `Bearer ${otherJwt}` } });
    expect(foreign.status).toBe(404);
    expect((await get("/v1/credentials", tokens.access_token)).status).toBe(200);
    const revoked = await fetch(`${base}/v1/oauth/apps/${appId}`, { method: "DELETE", headers: { authorization: `Bearer ${jwt}` } });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ app_id: appId, revoked_at: expect.any(String) });
    const after = await get("/v1/credentials", tokens.access_token);
    expect(after.status).toBe(401);
    expect(await codeOf(after)).toBe("invalid_token");
    const refresh = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: app.client_id });
    expect(refresh.status).toBe(400);
    const again = await fetch(`${base}/v1/oauth/apps/${appId}`, { method: "DELETE", headers: { authorization: `Bearer ${jwt}` } });
    expect(again.status).toBe(404);
  });
});

describe("clients identified by a Client ID Metadata Document", () => {
  const serve = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    documents.set(path, (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", ...headers }).end(typeof body === "string" ? body : JSON.stringify(body));
    });

  it("signs in with no registration: the client id is the document's https URL, fetched through the egress guard", async () => {
    const clientId = `${metadataServer.url}/oauth/client.json`;
    serve("/oauth/client.json", { client_id: clientId, client_name: "Metadata app", redirect_uris: ["http://127.0.0.1:9/cimd"], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
    const started = await startAuthorization(base, { client_id: clientId, redirect_uri: "http://127.0.0.1:9/cimd" }, { scope: "credentials:read" });
    expect(started.response.status).toBe(303);
    const request = (await (await get(`/v1/oauth/requests/${started.requestId}`, jwt)).json()) as { client: Record<string, unknown> };
    expect(request.client).toMatchObject({ client_id: clientId, name: "Metadata app", kind: "metadata_document", redirect_host: "127.0.0.1:9" });
    const code = (await decide(base, started, jwt)).searchParams.get("code")!;
    const res = await tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: started.pkce.verifier, redirect_uri: "http://127.0.0.1:9/cimd", client_id: clientId });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await get("/v1/credentials", access_token)).status).toBe(200);
    const { apps } = (await (await get("/v1/oauth/apps", jwt)).json()) as { apps: Record<string, unknown>[] };
    expect(apps.find((a) => a.client_id === clientId)).toMatchObject({ name: "Metadata app", kind: "metadata_document" });
  });

  it("refuses a document whose client_id is not its URL, one too large, one behind a redirect, one that is not JSON, a redirect URI it does not list, and one listing an http redirect off the loopback (400, never redirected)", async () => {
    const cases: [string, () => void][] = [
      ["/oauth/mismatch.json", () => serve("/oauth/mismatch.json", { client_id: "https://elsewhere.example/client.json", redirect_uris: ["http://127.0.0.1:9/cimd"] })],
      ["/oauth/large.json", () => serve("/oauth/large.json", { client_id: `${metadataServer.url}/oauth/large.json`, redirect_uris: ["http://127.0.0.1:9/cimd"], client_name: "x".repeat(10_000) })],
      ["/oauth/moved.json", () => documents.set("/oauth/moved.json", (_req, res) => res.writeHead(302, { location: `${metadataServer.url}/oauth/client.json` }).end())],
      ["/oauth/garbage.json", () => serve("/oauth/garbage.json", "<html>not json</html>")],
      ["/oauth/other-redirect.json", () => serve("/oauth/other-redirect.json", { client_id: `${metadataServer.url}/oauth/other-redirect.json`, redirect_uris: ["http://127.0.0.1:9/somewhere-else"], token_endpoint_auth_method: "none" })],
      ["/oauth/plain-http.json", () => serve("/oauth/plain-http.json", { client_id: `${metadataServer.url}/oauth/plain-http.json`, redirect_uris: ["http://127.0.0.1:9/cimd", "http://app.example/cb"], token_endpoint_auth_method: "none" })],
    ];
    for (const [path, setUp] of cases) {
      setUp();
      const started = await startAuthorization(base, { client_id: `${metadataServer.url}${path}`, redirect_uri: "http://127.0.0.1:9/cimd" });
      expect(started.response.status, path).toBe(400);
      expect(started.location, path).toBeNull();
      // Refused for its own reason, not for being a confidential client without a secret.
      expect(await started.response.text(), path).not.toMatch(/client_secret is mandatory/);
    }
  });

  it("gives up on a document that never comes, within its time bound (400, the sign-in not hung)", async () => {
    documents.set("/oauth/slow.json", () => undefined); // never answers
    const started = Date.now();
    const attempt = await startAuthorization(base, { client_id: `${metadataServer.url}/oauth/slow.json`, redirect_uri: "http://127.0.0.1:9/cimd" });
    expect(attempt.response.status).toBe(400);
    expect(await attempt.response.text()).toMatch(/invalid_client/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("never fetches a document from a private address unless the operator allows it (the cloud's rule)", async () => {
    const strict = await startWorld({ serve: true });
    try {
      const clientId = `${metadataServer.url}/oauth/client.json`;
      const before = metadataServer.connections;
      const started = await startAuthorization(strict.url, { client_id: clientId, redirect_uri: "http://127.0.0.1:9/cimd" });
      expect(started.response.status).toBe(400);
      expect(await started.response.text()).toMatch(/invalid_client/);
      expect(metadataServer.connections).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
