// Wallet sign-in and API keys through the real endpoints, on real tables and a real chain.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { deployOwnedWallet, deployWalletFactory, predictWallet, wrap6492 } from "../support/wallets.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
const renter = privateKeyToAccount(DEV_ACCOUNTS[4].privateKey);

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
});

const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("wallet sign-in (GET /v1/auth/challenge, POST /v1/auth/token)", () => {
  it("issues a challenge of the form <service>:auth:<unix_timestamp>:<random_hex> valid 60 seconds", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await app.request(`/v1/auth/challenge?wallet=${renter.address}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { challenge: string; expires_at: number };
    const match = /^agents:auth:(\d+):([0-9a-f]+)$/.exec(body.challenge);
    expect(match).not.toBeNull();
    const issuedAt = Number(match![1]);
    expect(issuedAt).toBeGreaterThanOrEqual(before);
    expect(body.expires_at).toBe(issuedAt + 60);
  });

  it("exchanges a personal_sign signature for a one-hour JWT bound to the wallet", async () => {
    const { token, expires_at } = await signIn(app, renter);
    const claims = decodeJwt(token);
    expect(claims.sub).toBe(renter.address);
    expect(claims.exp).toBe(expires_at);
    expect(expires_at - claims.iat!).toBe(3600);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "ES256", kid: ctx.config.JWT_SIGNING_KEYS[0]!.kid });
    const res = await app.request("/v1/keys", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it("accepts a deployed smart-contract wallet's signature (ERC-1271)", async () => {
    const rpcUrl = inject("rpcUrl");
    const owner = privateKeyToAccount(DEV_ACCOUNTS[6].privateKey);
    const factory = await deployWalletFactory(rpcUrl, ctx.authority);
    const salt = keccak256(toHex("erc1271"));
    const wallet = await deployOwnedWallet(rpcUrl, factory, owner.address, salt, ctx.authority);
    const { challenge } = (await (await app.request(`/v1/auth/challenge?wallet=${wallet}`)).json()) as { challenge: string };
    const signature = await owner.signMessage({ message: challenge });
    const res = await app.request("/v1/auth/token", json({ wallet, challenge, signature }));
    expect(res.status).toBe(200);
    expect(decodeJwt(((await res.json()) as { token: string }).token).sub).toBe(wallet);
  });

  it("accepts an undeployed smart-contract wallet's signature (ERC-6492)", async () => {
    const rpcUrl = inject("rpcUrl");
    const owner = privateKeyToAccount(DEV_ACCOUNTS[7].privateKey);
    const factory = await deployWalletFactory(rpcUrl, ctx.authority);
    const salt = keccak256(toHex("erc6492"));
    const wallet = await predictWallet(rpcUrl, factory, owner.address, salt);
    const { challenge } = (await (await app.request(`/v1/auth/challenge?wallet=${wallet}`)).json()) as { challenge: string };
    const signature = wrap6492(factory, owner.address, salt, await owner.signMessage({ message: challenge }));
    const res = await app.request("/v1/auth/token", json({ wallet, challenge, signature }));
    expect(res.status).toBe(200);
  });
});

describe("API keys (POST /v1/keys/challenge, POST /v1/keys, GET /v1/keys, DELETE /v1/keys/{key_id})", () => {
  it("creates a key from a signed request, shows it once, lists it without the secret, and revokes it", async () => {
    const { token } = await signIn(app, renter);
    const created = await createKey(app, renter, token, "ci server");
    expect(created.key).toMatch(/^svc_test_[A-Za-z0-9]{40}$/);

    // The key authenticates as the wallet.
    const listed = await app.request("/v1/keys", { headers: { authorization: `Bearer ${created.key}` } });
    expect(listed.status).toBe(200);
    const { keys } = (await listed.json()) as { keys: Record<string, unknown>[] };
    const mine = keys.find((k) => k.key_id === created.key_id)!;
    expect(mine).toMatchObject({ label: "ci server", revoked: false });
    expect(mine.prefix).toBe(`${created.key.slice(0, 13)}…`);
    expect(JSON.stringify(keys)).not.toContain(created.key);

    // Revoked: its very next request fails.
    const revoked = await app.request(`/v1/keys/${created.key_id}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ key_id: created.key_id, revoked: true });
    const after = await app.request("/v1/keys", { headers: { authorization: `Bearer ${created.key}` } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
  });

  it("records when a key was last used", async () => {
    const { token } = await signIn(app, renter);
    const created = await createKey(app, renter, token, "usage");
    await app.request("/v1/keys", { headers: { authorization: `Bearer ${created.key}` } });
    let lastUsed: unknown = null;
    for (let i = 0; i < 50 && !lastUsed; i++) {
      const { keys } = (await (await app.request("/v1/keys", { headers: { authorization: `Bearer ${token}` } })).json()) as { keys: { key_id: string; last_used_at: string | null }[] };
      lastUsed = keys.find((k) => k.key_id === created.key_id)?.last_used_at;
      if (!lastUsed) await new Promise((r) => setTimeout(r, 20));
    }
    expect(typeof lastUsed).toBe("string");
  });

  it("documents the sign-in and key endpoints in the OpenAPI document", async () => {
    const doc = (await (await app.request("/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/auth/challenge", "/v1/auth/token", "/v1/keys", "/v1/keys/challenge", "/v1/keys/{key_id}"]));
    expect(doc.paths["/v1/keys/{key_id}"]).toHaveProperty("delete");
  });
});
