// Attacks on sign-in and keys: malformed input, replays, expired and foreign challenges, forged JWTs,
// one wallet reaching another's keys. Each is refused with the right 4xx in the envelope, never a 500,
// and nothing stored changes.
import { beforeAll, describe, expect, it } from "vitest";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { SignJWT, base64url, importJWK, type JWK } from "jose";
import { privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import { issueChallenge } from "../../src/auth/challenges.ts";
import { createJwtIssuer, generateSigningKey } from "../../src/auth/jwt.ts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
const alice = privateKeyToAccount(DEV_ACCOUNTS[4].privateKey);
const bob = privateKeyToAccount(DEV_ACCOUNTS[5].privateKey);

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: { code: string; status: number; request_id: string } };
  expect(body.error).toMatchObject({ code, status });
  expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
}

async function tableCounts() {
  const count = async (table: "keys" | "challenges") => (await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name(table), Select: "COUNT" }))).Count;
  return { keys: await count("keys"), challenges: await count("challenges") };
}

describe("sign-in attacks", () => {
  it("answers a malformed wallet with 400 invalid_request", async () => {
    for (const wallet of ["", "0x123", "not-a-wallet", `0x${"g".repeat(40)}`, `0x${"a".repeat(41)}`, "0x" + "a".repeat(40) + "%00"]) {
      await expectError(await app.request(`/v1/auth/challenge?wallet=${encodeURIComponent(wallet)}`), 400, "invalid_request");
    }
    await expectError(await app.request("/v1/auth/challenge"), 400, "invalid_request");
  });

  it("refuses malformed token requests with 400 invalid_request", async () => {
    await expectError(await post("/v1/auth/token", "{not json"), 400, "invalid_request");
    await expectError(await post("/v1/auth/token", { wallet: alice.address }), 400, "invalid_request");
    await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge: "x", signature: "0xzz" }), 400, "invalid_request");
    await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge: "x".repeat(500), signature: "0x00" }), 400, "invalid_request");
    await expectError(await post("/v1/auth/token", [1, 2, 3]), 400, "invalid_request");
  });

  it("refuses a replayed challenge, even inside its 60 seconds", async () => {
    const { challenge } = (await (await app.request(`/v1/auth/challenge?wallet=${alice.address}`)).json()) as { challenge: string };
    const signature = await alice.signMessage({ message: challenge });
    expect((await post("/v1/auth/token", { wallet: alice.address, challenge, signature })).status).toBe(200);
    await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge, signature }), 401, "invalid_signature");
  });

  it("lets only one of many concurrent exchanges of one challenge succeed", async () => {
    const { challenge } = (await (await app.request(`/v1/auth/challenge?wallet=${alice.address}`)).json()) as { challenge: string };
    const signature = await alice.signMessage({ message: challenge });
    const results = await Promise.all(Array.from({ length: 10 }, () => post("/v1/auth/token", { wallet: alice.address, challenge, signature })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
  });

  it("refuses an expired challenge", async () => {
    const { challenge } = await issueChallenge(ctx.services.tables, "agents", alice.address, Math.floor(Date.now() / 1000) - 61);
    const signature = await alice.signMessage({ message: challenge });
    await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge, signature }), 401, "invalid_signature");
  });

  it("refuses a well-formed challenge the service never issued", async () => {
    const challenge = `agents:auth:${Math.floor(Date.now() / 1000)}:${"ab".repeat(16)}`;
    const signature = await alice.signMessage({ message: challenge });
    await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge, signature }), 401, "invalid_signature");
  });

  it("refuses a signature by another wallet, and the challenge stays usable by its owner", async () => {
    const { challenge } = (await (await app.request(`/v1/auth/challenge?wallet=${alice.address}`)).json()) as { challenge: string };
    const forged = await bob.signMessage({ message: challenge });
    await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge, signature: forged }), 401, "invalid_signature");
    // Bob cannot take Alice's challenge for himself either.
    await expectError(await post("/v1/auth/token", { wallet: bob.address, challenge, signature: forged }), 401, "invalid_signature");
    const good = await alice.signMessage({ message: challenge });
    expect((await post("/v1/auth/token", { wallet: alice.address, challenge, signature: good })).status).toBe(200);
  });

  it("refuses garbage signatures without a 500", async () => {
    const { challenge } = (await (await app.request(`/v1/auth/challenge?wallet=${alice.address}`)).json()) as { challenge: string };
    for (const signature of ["0x00", `0x${"00".repeat(65)}`, `0x${"ff".repeat(65)}`, `0x${"12".repeat(300)}`]) {
      await expectError(await post("/v1/auth/token", { wallet: alice.address, challenge, signature }), 401, "invalid_signature");
    }
  });
});

describe("JWT attacks", () => {
  const expectRefused = async (token: string, code = "unauthorized") => expectError(await app.request("/v1/keys", { headers: { authorization: `Bearer ${token}` } }), 401, code);

  it("refuses alg none", async () => {
    const header = base64url.encode(JSON.stringify({ alg: "none", typ: "JWT", kid: ctx.config.JWT_SIGNING_KEYS[0]!.kid }));
    const now = Math.floor(Date.now() / 1000);
    const payload = base64url.encode(JSON.stringify({ sub: alice.address, iss: "agents", aud: "agents-api", iat: now, exp: now + 3600 }));
    await expectRefused(`${header}.${payload}.`);
  });

  it("refuses a JWT signed with a foreign key, even one that claims our kid", async () => {
    const foreign = generateSigningKey();
    const key = await importJWK(foreign.privateJwk as JWK, "ES256");
    const token = await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: ctx.config.JWT_SIGNING_KEYS[0]!.kid }).setSubject(alice.address).setIssuer("agents").setAudience("agents-api").setIssuedAt().setExpirationTime("1h").sign(key);
    await expectRefused(token);
  });

  it("refuses a JWT whose payload was altered", async () => {
    const { token } = await signIn(app, alice);
    const [h, , s] = token.split(".");
    const now = Math.floor(Date.now() / 1000);
    const payload = base64url.encode(JSON.stringify({ sub: bob.address, iss: "agents", aud: "agents-api", iat: now, exp: now + 3600 }));
    await expectRefused(`${h}.${payload}.${s}`);
  });

  it("answers an expired JWT with 401 jwt_expired", async () => {
    const issuer = createJwtIssuer({ keys: ctx.config.JWT_SIGNING_KEYS, issuer: "agents", audience: "agents-api" });
    const { token } = await issuer.issue(alice.address, Math.floor(Date.now() / 1000) - 3601);
    await expectRefused(token, "jwt_expired");
  });

  it("keeps accepting tokens signed by a rotated-out key while it is still listed", async () => {
    const oldKey = ctx.config.JWT_SIGNING_KEYS[0]!;
    const { token } = await createJwtIssuer({ keys: [oldKey], issuer: "agents", audience: "agents-api" }).issue(alice.address);
    const rotated = createJwtIssuer({ keys: [generateSigningKey(), oldKey], issuer: "agents", audience: "agents-api" });
    expect((await rotated.verify(token)).wallet).toBe(alice.address);
    const dropped = createJwtIssuer({ keys: [generateSigningKey()], issuer: "agents", audience: "agents-api" });
    await expect(dropped.verify(token)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("refuses malformed tokens and keys in the header", async () => {
    for (const token of ["a.b", "a.b.c.d", "svc_test_!!", "svc_live_" + "a".repeat(40), "x".repeat(4096)]) {
      const res = await app.request("/v1/keys", { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
    }
  });
});

describe("one wallet cannot reach another's keys", () => {
  it("lists only the caller's keys and refuses to revoke another wallet's key, which keeps working", async () => {
    const aliceToken = (await signIn(app, alice)).token;
    const bobToken = (await signIn(app, bob)).token;
    const bobKey = await createKey(app, bob, bobToken, "bob's");
    const aliceList = (await (await app.request("/v1/keys", { headers: { authorization: `Bearer ${aliceToken}` } })).json()) as { keys: { key_id: string }[] };
    expect(aliceList.keys.map((k) => k.key_id)).not.toContain(bobKey.key_id);
    const before = await tableCounts();
    await expectError(await app.request(`/v1/keys/${bobKey.key_id}`, { method: "DELETE", headers: { authorization: `Bearer ${aliceToken}` } }), 404, "not_found");
    await expectError(await app.request(`/v1/keys/../../etc`, { method: "DELETE", headers: { authorization: `Bearer ${aliceToken}` } }), 404, "not_found");
    expect(await tableCounts()).toEqual(before);
    expect((await app.request("/v1/keys", { headers: { authorization: `Bearer ${bobKey.key}` } })).status).toBe(200);
  });

  it("cannot mint a key with a JWT alone: the key request must be signed by the wallet", async () => {
    const aliceToken = (await signIn(app, alice)).token;
    const headers = { authorization: `Bearer ${aliceToken}` };
    const request = (await (await post("/v1/keys/challenge", { label: "stolen" }, headers)).json()) as { nonce: string; message: string };
    const before = await tableCounts();
    // Signed by someone else.
    await expectError(await post("/v1/keys", { nonce: request.nonce, signature: await bob.signMessage({ message: request.message }) }, headers), 401, "invalid_signature");
    // Alice's signature over a different message.
    await expectError(await post("/v1/keys", { nonce: request.nonce, signature: await alice.signMessage({ message: "something else" }) }, headers), 401, "invalid_signature");
    // Bob presenting Alice's signed request.
    const bobToken = (await signIn(app, bob)).token;
    await expectError(await post("/v1/keys", { nonce: request.nonce, signature: await alice.signMessage({ message: request.message }) }, { authorization: `Bearer ${bobToken}` }), 401, "invalid_signature");
    const after = await tableCounts();
    expect(after.keys).toBe(before.keys);
    // A request is used once.
    const signature = await alice.signMessage({ message: request.message });
    expect((await post("/v1/keys", { nonce: request.nonce, signature }, headers)).status).toBe(201);
    await expectError(await post("/v1/keys", { nonce: request.nonce, signature }, headers), 401, "invalid_signature");
  });

  it("refuses invalid labels and nonces with 400", async () => {
    const headers = { authorization: `Bearer ${(await signIn(app, alice)).token}` };
    await expectError(await post("/v1/keys/challenge", { label: "" }, headers), 400, "invalid_request");
    await expectError(await post("/v1/keys/challenge", { label: "x".repeat(65) }, headers), 400, "invalid_request");
    await expectError(await post("/v1/keys/challenge", { label: "line\nbreak" }, headers), 400, "invalid_request");
    await expectError(await post("/v1/keys", { nonce: "nope", signature: "0x00" }, headers), 400, "invalid_request");
  });
});
