// The bounds of dynamic client registration (POST /oauth/register, RFC 7591), over HTTP against a test
// world: the size of the metadata and of its lists, what one address may hold, and the lifetime of a
// client no one approves. Every refusal is OAuth's error object, never a 500.
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../support/world.ts";
import { registerClient, signInApp, startAuthorization } from "../support/oauth.ts";
import { keyOf, upsertRecord } from "../../src/oauth/record.store.ts";
import { MAX_UNUSED_CLIENTS_PER_ADDRESS, noteRegistrant, UNUSED_CLIENT_TTL_SECONDS } from "../../src/oauth/client.store.ts";
import { OAUTH_LIFETIMES } from "../../src/oauth/provider.ts";

let world: World;
let base: string;

beforeAll(async () => {
  // The loopback is the proxy here: each test speaks for an address of its own (X-Forwarded-For).
  world = await startWorld({ env: { TRUSTED_PROXIES: "127.0.0.1,::1" } });
  base = world.url;
}, 120_000);
afterAll(() => world?.close());

let addresses = 0;
const newAddress = () => `203.0.113.${++addresses}`;

async function register(body: unknown, address = newAddress()): Promise<Response> {
  return fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": address }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

const ok = { client_name: "Bounded app", redirect_uris: ["http://127.0.0.1:9/callback"], token_endpoint_auth_method: "none" };

async function clientItem(clientId: string): Promise<Record<string, unknown> | undefined> {
  const out = await world.services.tables.doc.send(new GetCommand({ TableName: world.services.tables.name("oauth"), Key: keyOf("Client", clientId), ConsistentRead: true }));
  return out.Item;
}

describe("POST /oauth/register: sizes", () => {
  it("refuses 1,000 redirect URIs, an 11th one, an over-long one, an over-long name, a long list and an oversized body with 400 and OAuth's error, never storing them", async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `https://app${i}.example/cb`);
    const cases: [unknown, string][] = [
      [{ ...ok, redirect_uris: many(1_000) }, "invalid_client_metadata"],
      [{ ...ok, redirect_uris: many(11) }, "invalid_client_metadata"],
      [{ ...ok, redirect_uris: [`https://app.example/${"a".repeat(2_100)}`] }, "invalid_redirect_uri"],
      [{ ...ok, client_name: "n".repeat(201) }, "invalid_client_metadata"],
      [{ ...ok, contacts: Array.from({ length: 11 }, (_, i) => `a${i}@app.example`) }, "invalid_client_metadata"],
      [{ ...ok, client_uri: `https://app.example/${"u".repeat(2_100)}` }, "invalid_client_metadata"],
      [{ ...ok, jwks: { keys: Array.from({ length: 40 }, () => ({ kty: "EC", x: "x".repeat(200) })) } }, "invalid_client_metadata"],
      ["[]", "invalid_client_metadata"],
      ['"a string"', "invalid_client_metadata"],
      ["null", "invalid_client_metadata"],
    ];
    for (const [body, error] of cases) {
      const res = await register(body);
      const label = typeof body === "string" ? body : JSON.stringify(body).slice(0, 80);
      expect(res.status, label).toBe(400);
      expect(res.headers.get("content-type"), label).toMatch(/application\/json/);
      expect(((await res.json()) as { error: string }).error, label).toBe(error);
    }
  });

  it("accepts metadata at the bounds: 10 redirect URIs and a 200-character name", async () => {
    const res = await register({ ...ok, client_name: "n".repeat(200), redirect_uris: Array.from({ length: 10 }, (_, i) => `https://app${i}.example/cb`) });
    expect(res.status).toBe(201);
  });
});

describe("POST /oauth/register: what one address holds", () => {
  it(`refuses the ${MAX_UNUSED_CLIENTS_PER_ADDRESS + 1}st client no one has approved from one address with 429 too_many_clients; other addresses are not affected`, async () => {
    const address = newAddress();
    // The address already holds all but one (registered earlier: written as a registration writes them).
    for (let i = 0; i < MAX_UNUSED_CLIENTS_PER_ADDRESS - 1; i++) {
      const id = `seeded-${address}-${i}`;
      await upsertRecord(world.services.tables, "Client", id, { client_id: id, redirect_uris: ["http://127.0.0.1:9/cb"] }, UNUSED_CLIENT_TTL_SECONDS);
      await noteRegistrant(world.services.tables, id, address);
    }
    expect((await register(ok, address)).status).toBe(201);
    const refused = await register(ok, address);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe("too_many_clients");
    expect(body.error_description).toContain(String(MAX_UNUSED_CLIENTS_PER_ADDRESS));
    expect((await register(ok, newAddress())).status).toBe(201);
  });

  it("no longer counts a client once someone approves it", async () => {
    const address = newAddress();
    for (let i = 0; i < MAX_UNUSED_CLIENTS_PER_ADDRESS - 1; i++) {
      const id = `seeded-${address}-${i}`;
      await upsertRecord(world.services.tables, "Client", id, { client_id: id, redirect_uris: ["http://127.0.0.1:9/cb"] }, UNUSED_CLIENT_TTL_SECONDS);
      await noteRegistrant(world.services.tables, id, address);
    }
    const res = await register(ok, address);
    expect(res.status).toBe(201);
    const { client_id } = (await res.json()) as { client_id: string };
    // Approved by a person: the app is used.
    const jwt = await world.signIn(await world.account());
    await signInApp(base, { client_id, redirect_uri: ok.redirect_uris[0]! }, jwt, { scope: "tasks:run" });
    expect((await register(ok, address)).status).toBe(201);
  });
});

describe("a registered client's lifetime", () => {
  it("lapses a week after registration when no one approves it; an approval keeps it as long as the grant", async () => {
    const unused = await registerClient(base, { client_name: "Never used" });
    const item = await clientItem(unused.client_id);
    const now = Math.floor(Date.now() / 1000);
    expect(item?.expires_at).toBeGreaterThan(now + UNUSED_CLIENT_TTL_SECONDS - 120);
    expect(item?.expires_at).toBeLessThanOrEqual(now + UNUSED_CLIENT_TTL_SECONDS + 5);

    const used = await registerClient(base, { client_name: "Used" });
    await signInApp(base, used, await world.signIn(await world.account()), { scope: "tasks:run" });
    const kept = await clientItem(used.client_id);
    expect(kept?.expires_at).toBeGreaterThan(now + OAUTH_LIFETIMES.grant - 120);
    expect(kept?.gsi1pk).toBeUndefined();

    // Once its week is over, the unused client is gone: the authorization endpoint does not know it.
    await world.services.tables.doc.send(new UpdateCommand({ TableName: world.services.tables.name("oauth"), Key: keyOf("Client", unused.client_id), UpdateExpression: "SET expires_at = :past", ExpressionAttributeValues: { ":past": now - 1 } }));
    const started = await startAuthorization(base, unused);
    expect(started.response.status).toBe(400);
    expect(await started.response.text()).toMatch(/^invalid_client/);
  });
});
