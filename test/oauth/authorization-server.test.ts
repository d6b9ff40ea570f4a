// The OAuth 2.1 authorization server over HTTP (the served API, a real DynamoDB emulator, oidc-provider
// through the bridge), driven by hand as a client and a browser would: discovery, dynamic registration,
// authorization with PKCE, the person's decision through the API, the code exchange, refresh rotation,
// revocation; and every refusal: a wrong verifier, a replayed code, a reused refresh token (both revoke
// the whole grant), a redirect URI not registered, no PKCE or plain PKCE, a resource not of this server,
// bad bodies and parameters (never a 500, never a hang).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { startWorld, type World } from "../support/world.ts";
import { createLogger } from "../../src/logger.ts";
import { hashId } from "../../src/oauth/record.store.ts";
import { decide, pkce, registerClient, signInApp, startAuthorization, tokenRequest, type RegisteredClient } from "../support/oauth.ts";

let world: World;
let base: string;
let jwt: string;
let client: RegisteredClient;
const logLines: string[] = [];

beforeAll(async () => {
  world = await startWorld({ adapters: { logger: createLogger("debug", (line) => logLines.push(line)) } });
  base = world.url;
  jwt = await world.signIn(await world.account());
  client = await registerClient(base, { client_name: "Protocol test app" });
}, 120_000);
afterAll(() => world?.close());

/** Every value of a form-encoded or JSON answer that must never reach a log line. */
const secretsSeen: string[] = [];
const keep = (...values: (string | undefined | null)[]) => secretsSeen.push(...values.filter((v): v is string => typeof v === "string" && v.length > 0));

describe("GET /.well-known/oauth-authorization-server", () => {
  it("publishes RFC 8414 metadata: the issuer, the endpoints, code with S256 only, iss in the response, metadata documents and registration", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const metadata = (await res.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      scopes_supported: ["tasks:run", "credentials:read", "listings:read"],
    });
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(["none", "client_secret_post", "client_secret_basic"]));
  });
});

describe("POST /oauth/register", () => {
  it("registers a public client (201) and a confidential one with its secret", async () => {
    const open = await registerClient(base, { client_name: "Public" });
    expect(open.client_id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(open.client_secret).toBeUndefined();
    const confidential = await registerClient(base, { client_name: "Confidential", token_endpoint_auth_method: "client_secret_post" });
    expect(confidential.client_secret).toMatch(/.{32,}/);
    keep(confidential.client_secret);
  });

  it("refuses metadata without redirect URIs, with a redirect URI carrying a fragment, of another scheme, or http off the loopback, as invalid metadata (400), never a 500", async () => {
    for (const metadata of [{ redirect_uris: [] }, { redirect_uris: ["http://app.example/cb"] }, { redirect_uris: ["https://ok.example/cb", "http://192.168.1.5/cb"] }, { redirect_uris: ["not a url"] }, { redirect_uris: ["https://app.example/cb#frag"] }, { redirect_uris: ["javascript:alert(1)"] }, { redirect_uris: "https://app.example/cb" }, { grant_types: ["implicit"], response_types: ["token"], redirect_uris: ["https://app.example/cb"] }]) {
      const res = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Bad", ...metadata }) });
      expect(res.status, JSON.stringify(metadata)).toBe(400);
      const body = (await res.json()) as { error: string };
      expect(["invalid_client_metadata", "invalid_redirect_uri"]).toContain(body.error);
      expect(res.headers.get("x-request-id")).toBeTruthy();
    }
  });

  it("refuses a body that is not JSON (415, in the envelope) and malformed JSON (400)", async () => {
    const form = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "redirect_uris=x" });
    expect(form.status).toBe(415);
    expect(((await form.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
    const broken = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(broken.status).toBe(400);
  });
});

describe("GET /oauth/authorize", () => {
  it("sends a valid request to the dashboard's consent page and sets the browser binding cookies", async () => {
    const started = await startAuthorization(base, client, { scope: "tasks:run" });
    expect(started.response.status).toBe(303);
    expect(started.location).toMatch(new RegExp(`^${base}/connect\\?request=[A-Za-z0-9_-]+$`));
    expect(started.jar.header()).toContain("_interaction");
    expect(started.response.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
  });

  it("answers an unknown client and an unregistered redirect URI with 400 in plain text, never redirecting", async () => {
    const unknown = await startAuthorization(base, { client_id: "no-such-client", redirect_uri: client.redirect_uri });
    expect(unknown.response.status).toBe(400);
    expect(unknown.location).toBeNull();
    expect(await unknown.response.text()).toMatch(/invalid_client/);
    const elsewhere = await startAuthorization(base, client, { redirect_uri: "https://attacker.example/callback" });
    expect(elsewhere.response.status).toBe(400);
    expect(elsewhere.location).toBeNull();
    expect(await elsewhere.response.text()).toMatch(/redirect_uri/);
  });

  it("refuses a request without PKCE, or with the plain method, back to the app with the error, its state and the issuer", async () => {
    for (const [name, value] of [["code_challenge_method", "plain"], ["code_challenge", ""]] as const) {
      const url = new URL(`${base}/oauth/authorize`);
      const params = { response_type: "code", client_id: client.client_id, redirect_uri: client.redirect_uri, code_challenge: pkce().challenge, code_challenge_method: "S256", state: "s-pkce", resource: base, [name]: value };
      for (const [k, v] of Object.entries(params)) if (v !== "") url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: "manual" });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get("location")!);
      expect(back.origin + back.pathname).toBe(client.redirect_uri);
      expect(back.searchParams.get("error")).toBe("invalid_request");
      expect(back.searchParams.get("state")).toBe("s-pkce");
      expect(back.searchParams.get("iss")).toBe(base);
    }
  });

  it("refuses a resource that is not this server's (another origin, another path, a fragment) with invalid_target", async () => {
    for (const resource of ["https://elsewhere.example", `${base}/v1/listings`, `${base}/v1/mcp#x`]) {
      const started = await startAuthorization(base, client, { resource, state: "s-target" });
      expect(started.response.status, resource).toBe(303);
      const back = new URL(started.location!);
      expect(back.searchParams.get("error"), resource).toBe("invalid_target");
      expect(back.searchParams.get("iss")).toBe(base);
    }
  });

  it("refuses a response type other than code, and a request with a parameter given twice, never with a 500", async () => {
    const url = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: "token", client_id: client.client_id, redirect_uri: client.redirect_uri, code_challenge: pkce().challenge, code_challenge_method: "S256", state: "s-rt" })) url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: "manual" });
    // Answered in the fragment, as that response type would be.
    const answer = res.headers.get("location") ?? (await res.text());
    expect(res.status).toBeLessThan(500);
    expect(answer).toMatch(/unsupported_response_type|invalid_request/);
    url.searchParams.set("response_type", "code");
    url.searchParams.append("state", "twice");
    const twice = await fetch(url, { redirect: "manual" });
    expect(twice.status).toBeLessThan(500);
    expect(twice.headers.get("location") ?? (await twice.text())).toMatch(/invalid_request/);
  });
});

describe("GET /oauth/authorize by another method", () => {
  it("answers POST with 404: the authorization endpoint takes GET only", async () => {
    const res = await fetch(`${base}/oauth/authorize`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "response_type=code" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});

describe("GET /v1/oauth/requests/{request_id}", () => {
  it("shows the consent page which app asks, where it returns, and for what, in words", async () => {
    const started = await startAuthorization(base, client, { scope: "tasks:run credentials:read", resource: `${base}/v1/mcp` });
    const res = await fetch(`${base}/v1/oauth/requests/${started.requestId}`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(res.status).toBe(200);
    const request = (await res.json()) as Record<string, unknown>;
    expect(request).toMatchObject({
      request_id: started.requestId,
      client: { client_id: client.client_id, name: "Protocol test app", kind: "registered", redirect_host: "127.0.0.1:9" },
      scopes: [
        { scope: "tasks:run", description: expect.stringMatching(/Run tasks/) },
        { scope: "credentials:read", description: expect.stringMatching(/rentals/) },
      ],
      resources: [`${base}/v1/mcp`],
    });
  });

  it("answers 404 request_not_found for an unknown or malformed id, and 401 with the challenge without a token", async () => {
    for (const id of ["nope", "x".repeat(200), "a.b"]) {
      const res = await fetch(`${base}/v1/oauth/requests/${id}`, { headers: { authorization: `Bearer ${jwt}` } });
      expect(res.status, id).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("request_not_found");
    }
    const anonymous = await fetch(`${base}/v1/oauth/requests/nope`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
  });
});

describe("POST /v1/oauth/requests/{request_id}/approve", () => {
  it("returns the browser to the app with a code, the state and the issuer (RFC 9207); the code exchanges once for tokens bound to the resource", async () => {
    const started = await startAuthorization(base, client, { scope: "credentials:read", state: "s-ok" });
    const back = await decide(base, started, jwt);
    expect(back.origin + back.pathname).toBe(client.redirect_uri);
    expect(back.searchParams.get("state")).toBe("s-ok");
    expect(back.searchParams.get("iss")).toBe(base);
    const code = back.searchParams.get("code")!;
    keep(code);
    const res = await tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: started.pkce.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id, resource: base });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/no-store/);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string };
    keep(tokens.access_token, tokens.refresh_token);
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: "credentials:read" });
    expect(tokens.expires_in).toBeGreaterThan(3500);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    const credentials = await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(credentials.status).toBe(200);
  });

  it("grants tasks:run to an app that asks for no scope, as the reference says (the code exchanges for a token of that scope)", async () => {
    const started = await startAuthorization(base, client, { state: "s-default" });
    const back = await decide(base, started, jwt);
    expect(back.searchParams.get("error_description")).toBeNull();
    expect(back.searchParams.get("error")).toBeNull();
    const code = back.searchParams.get("code");
    expect(code).toMatch(/^[A-Za-z0-9_-]+$/);
    keep(code);
    const res = await tokenRequest(base, { grant_type: "authorization_code", code: code!, code_verifier: started.pkce.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id, resource: base });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; scope: string };
    keep(tokens.access_token);
    expect(tokens.scope).toBe("tasks:run");
    // A tasks:run token reads the renter's runs, and no more (credentials:read was not asked for).
    const credentials = await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(credentials.status).toBe(403);
  });

  it("answers 409 request_decided for a request already decided, and 404 once the browser has finished it", async () => {
    const started = await startAuthorization(base, client);
    const approve = () => fetch(`${base}/v1/oauth/requests/${started.requestId}/approve`, { method: "POST", headers: { authorization: `Bearer ${jwt}` } });
    expect((await approve()).status).toBe(200);
    const denyAfter = await fetch(`${base}/v1/oauth/requests/${started.requestId}/deny`, { method: "POST", headers: { authorization: `Bearer ${jwt}` } });
    expect(denyAfter.status).toBe(409);
    const again = await approve();
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("request_decided");
  });

  it("lets only the browser that started the sign-in finish it: GET /oauth/authorize/{request_id} without its cookie is refused", async () => {
    const started = await startAuthorization(base, client);
    const res = await fetch(`${base}/v1/oauth/requests/${started.requestId}/approve`, { method: "POST", headers: { authorization: `Bearer ${jwt}` } });
    const { redirect_to } = (await res.json()) as { redirect_to: string };
    const elsewhere = await fetch(redirect_to, { redirect: "manual" });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get("location")).toBeNull();
  });
});

describe("POST /v1/oauth/requests/{request_id}/deny", () => {
  it("returns the browser to the app with access_denied, the state and the issuer, and grants nothing", async () => {
    const started = await startAuthorization(base, client, { state: "s-deny" });
    const back = await decide(base, started, jwt, "deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s-deny");
    expect(back.searchParams.get("iss")).toBe(base);
    expect(back.searchParams.get("code")).toBeNull();
  });
});

describe("POST /oauth/token", () => {
  it("refuses a wrong PKCE verifier with invalid_grant, and the code is then spent", async () => {
    const started = await startAuthorization(base, client);
    const code = (await decide(base, started, jwt)).searchParams.get("code")!;
    const wrong = await tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: pkce().verifier, redirect_uri: client.redirect_uri, client_id: client.client_id });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("refuses a replayed code with invalid_grant and revokes the tokens the first exchange gave", async () => {
    const started = await startAuthorization(base, client, { scope: "credentials:read" });
    const code = (await decide(base, started, jwt)).searchParams.get("code")!;
    const exchange = () => tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: started.pkce.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id });
    const first = await exchange();
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as { access_token: string };
    expect((await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(200);
    const replay = await exchange();
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    const after = await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
  });

  it("never gives two sets of tokens for one code when exchanges race: the losers revoke what the winner got", async () => {
    const started = await startAuthorization(base, client, { scope: "credentials:read" });
    const code = (await decide(base, started, jwt)).searchParams.get("code")!;
    const answers = await Promise.all([0, 1, 2].map(() => tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: started.pkce.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id })));
    const won = answers.filter((a) => a.status === 200);
    expect(won.length).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.status === 400).length).toBeGreaterThanOrEqual(2);
    for (const answer of won) {
      const { access_token } = (await answer.json()) as { access_token: string };
      expect((await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(401);
    }
  });

  it("refuses an exchange whose redirect URI differs from the authorization's", async () => {
    const other = await registerClient(base, { redirect_uris: ["http://127.0.0.1:9/one", "http://127.0.0.1:9/two"] });
    const started = await startAuthorization(base, other, { redirect_uri: "http://127.0.0.1:9/one" });
    const code = (await decide(base, started, jwt)).searchParams.get("code")!;
    const res = await tokenRequest(base, { grant_type: "authorization_code", code, code_verifier: started.pkce.verifier, redirect_uri: "http://127.0.0.1:9/two", client_id: other.client_id });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("rotates refresh tokens: each refresh returns a new one, and reusing a spent one revokes the whole grant", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "credentials:read" });
    keep(tokens.access_token, tokens.refresh_token);
    const refresh = (token: string) => tokenRequest(base, { grant_type: "refresh_token", refresh_token: token, client_id: client.client_id });
    const second = await refresh(tokens.refresh_token!);
    expect(second.status).toBe(200);
    const rotated = (await second.json()) as { access_token: string; refresh_token: string };
    keep(rotated.access_token, rotated.refresh_token);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${rotated.access_token}` } })).status).toBe(200);
    const reused = await refresh(tokens.refresh_token!);
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: string }).error).toBe("invalid_grant");
    // The family is gone: the newest access token and refresh token too.
    expect((await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${rotated.access_token}` } })).status).toBe(401);
    expect((await refresh(rotated.refresh_token)).status).toBe(400);
  });

  it("refuses an expired access token with 401 invalid_token", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "credentials:read" });
    // An hour later, as the store sees it: the record's own expiry is in the past.
    await world.services.tables.doc.send(
      new UpdateCommand({ TableName: world.services.tables.name("oauth"), Key: { pk: `AccessToken#${hashId(tokens.access_token)}`, sk: "record" }, UpdateExpression: "SET expires_at = :past", ExpressionAttributeValues: { ":past": Math.floor(Date.now() / 1000) - 1 } }),
    );
    const res = await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
    expect(res.headers.get("www-authenticate")).toContain(`error="invalid_token"`);
  });

  it("answers bad requests with OAuth errors or the envelope, never a 500: unknown grant types, missing fields, JSON bodies, huge bodies", async () => {
    const unknown = await tokenRequest(base, { grant_type: "password", username: "a", password: "b", client_id: client.client_id });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/unsupported_grant_type|unauthorized_client|invalid_request/);
    const missing = await tokenRequest(base, { grant_type: "authorization_code", client_id: client.client_id });
    expect(missing.status).toBe(400);
    const noClient = await tokenRequest(base, { grant_type: "authorization_code", code: "x", code_verifier: pkce().verifier });
    expect([400, 401]).toContain(noClient.status);
    const json = await fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "authorization_code" }) });
    expect(json.status).toBe(415);
    const huge = await fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=refresh_token&refresh_token=${"a".repeat(70 * 1024)}` });
    expect(huge.status).toBe(413);
    const garbage = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: "\u0000".repeat(10), client_id: client.client_id });
    expect(garbage.status).toBe(400);
  });
});

describe("POST /oauth/revoke", () => {
  it("revokes the whole grant when the app revokes its refresh token (200, and its access token fails next)", async () => {
    const tokens = await signInApp(base, client, jwt, { scope: "credentials:read" });
    const res = await fetch(`${base}/oauth/revoke`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.client_id }) });
    expect(res.status).toBe(200);
    expect((await fetch(`${base}/v1/credentials`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
  });
});

describe("secrets", () => {
  it("never log a code, an access token, a refresh token or a client secret", () => {
    expect(secretsSeen.length).toBeGreaterThan(5);
    const log = logLines.join("\n");
    for (const secret of secretsSeen) expect(log.includes(secret)).toBe(false);
    expect(logLines.length).toBeGreaterThan(10);
  });
});
