// Attacks on the credentials API: malformed listing ids and query parameters, one wallet reaching
// another's credentials, no or bad authentication, and an unreachable chain. Each is answered with the
// right status in the error envelope, never a 500, and nothing stored changes.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { toHex, type Address, type Hex } from "viem";
import { randomBytes } from "node:crypto";
import { buildApp } from "../../src/api/app.ts";
import { createServices } from "../../src/services.ts";
import { createChainClient } from "../../src/chain/client.ts";
import { catchUp } from "../../src/credentials/indexer.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { fundAccount, market, DAYS_30, type Account, type Market } from "../support/chain-actions.ts";

const P = 10n ** 15n;
const apiId = (onChainId: Hex) => `lst_${onChainId.slice(2)}`;
type AppLike = ReturnType<typeof buildApp>;

let ctx: TestContext;
let world: World | undefined;
let app: AppLike;
let m: Market;
let alice: Account;
let bob: Account;
let creator: Account;
let aliceToken: string;
let bobToken: string;
const aliceListings: Hex[] = [];

async function expectError(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as { error: { code: string; status: number; message: string; request_id: string } };
  expect(body.error).toMatchObject({ code, status });
  expect(typeof body.error.message).toBe("string");
  expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
}

async function scanAll() {
  const scan = async (table: "credentials" | "chain_listings" | "meta" | "keys") => {
    const out = await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name(table), ConsistentRead: true }));
    return (out.Items ?? []).sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
  };
  return { credentials: await scan("credentials"), chain_listings: await scan("chain_listings"), meta: await scan("meta"), keys: await scan("keys") };
}

const get = (path: string, token?: string, targetApp: AppLike = app) => targetApp.request(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});

beforeAll(async () => {
  const rpcUrl = inject("rpcUrl");
  // No settler: nothing here runs a task, and its lease (renewed in `meta` every few seconds) is not
  // something these cases store.
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  m = market({ rpcUrl, marketplace: ctx.config.MARKETPLACE_ADDRESS as Address });
  [alice, bob, creator] = await Promise.all([fundAccount(rpcUrl), fundAccount(rpcUrl), fundAccount(rpcUrl)]);
  const oneTime = (await m.createListing(creator, { accessType: "one_time", price: P })).listingId;
  await m.purchaseOneTime(alice, oneTime);
  const subscription = (await m.createListing(creator, { accessType: "subscription", price: P })).listingId;
  await m.purchaseSubscription(alice, subscription, DAYS_30);
  const perQuery = (await m.createListing(creator, { accessType: "per_query", price: P })).listingId;
  await m.purchasePerQuery(alice, perQuery, 2n * P);
  aliceListings.push(oneTime, subscription, perQuery);
  await catchUp({ tables: ctx.services.tables, chain: ctx.services.chain, logger: ctx.services.logger, fromBlock: 0n, confirmations: 0 });
  const [a, b] = await Promise.all([signIn(app, alice), signIn(app, bob)]);
  aliceToken = a.token;
  bobToken = b.token;
}, 60_000);

describe("malformed listing ids", () => {
  const valid = "a".repeat(64);
  const malformed: [string, string][] = [
    ["empty-ish", "lst_"],
    ["too short", `lst_${"a".repeat(63)}`],
    ["too long by one", `lst_${"a".repeat(65)}`],
    ["uppercase hex after lst_", `lst_${"A".repeat(64)}`],
    ["mixed-case hex after lst_", `lst_${"aB".repeat(32)}`],
    ["wrong prefix", `lsx_${valid}`],
    ["uppercase prefix", `LST_${valid}`],
    ["no prefix", valid],
    ["0x with 63 hex", `0x${"a".repeat(63)}`],
    ["0x with 65 hex", `0x${"a".repeat(65)}`],
    ["0x with a non-hex character", `0x${"a".repeat(63)}g`],
    ["0X prefix", `0X${valid}`],
    ["a number", "12345"],
    ["whitespace", `%20lst_${valid}`],
    ["trailing newline", `lst_${valid}%0a`],
    ["NUL byte", `lst_${valid}%00`],
    ["encoded path traversal", "..%2F..%2Fkeys"],
    ["traversal inside an id", `lst_..%2f..%2f${"a".repeat(56)}`],
    ["backslash traversal", "..%5C..%5Cwindows"],
    ["SQL-ish", "lst_'%20OR%20'1'%3D'1"],
    ["unicode", `lst_${"а".repeat(64)}`],
    ["very long hex", `lst_${"a".repeat(200)}`],
    ["very long junk", "x".repeat(5000)],
  ];

  it.each(malformed)("answers %s with 400 invalid_listing_id", async (_name, id) => {
    const res = await get(`/v1/credentials/${id}`, aliceToken);
    await expectError(res, 400, "invalid_listing_id");
  });

  it("answers a very long id with a 400 in the envelope, never a 500", async () => {
    for (const id of [`lst_${"a".repeat(200)}`, "x".repeat(5000)]) {
      const res = await get(`/v1/credentials/${id}`, aliceToken);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; status: number } };
      expect(body.error.code).toBe("invalid_listing_id");
      expect(body.error.status).toBe(400);
    }
  });

  it("never resolves a traversal path to another route", async () => {
    // Literal ../ is normalized by URL parsing before routing; the result must not be the keys list.
    const res = await get(`/v1/credentials/..%2Fkeys`, aliceToken);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { keys?: unknown }).keys).toBeUndefined();
    // An encoded dot-dot segment is a dot-dot segment to the URL parser: /v1/credentials/%2e%2e is /v1/.
    for (const path of ["/v1/credentials/%2e%2e", "/v1/credentials/%2e%2e/%2e%2e"]) {
      const other = await get(path, aliceToken);
      expect(other.status).toBeGreaterThanOrEqual(400);
      expect(other.status).toBeLessThan(500);
      expect(((await other.json()) as { keys?: unknown }).keys).toBeUndefined();
    }
  });

  it("leaves every table unchanged", async () => {
    const before = await scanAll();
    for (const [, id] of malformed) await get(`/v1/credentials/${id}`, bobToken);
    expect(await scanAll()).toEqual(before);
  });
});

describe("bad query parameters", () => {
  const bad = [
    "status=bogus",
    "status=ACTIVE",
    "status=not_found",
    "status=",
    "limit=0",
    "limit=101",
    "limit=-1",
    "limit=abc",
    "limit=1.5",
    "limit=1e3",
    "offset=-1",
    "offset=abc",
    "offset=0.5",
    "limit=10&offset=-5",
  ];
  it.each(bad)("answers ?%s with 400 invalid_request", async (query) => {
    await expectError(await get(`/v1/credentials?${query}`, aliceToken), 400, "invalid_request");
  });

  it("accepts the bounds (limit 1 and 100, offset 0)", async () => {
    for (const query of ["limit=1", "limit=100", "offset=0", "status=active&limit=100&offset=0"]) {
      expect((await get(`/v1/credentials?${query}`, aliceToken)).status).toBe(200);
    }
  });
});

describe("one wallet reaching another's credentials", () => {
  it("lists none of A's credentials for B, whatever B puts in the query", async () => {
    const a = (await (await get("/v1/credentials", aliceToken)).json()) as { total: number };
    expect(a.total).toBe(3);
    for (const query of ["", `?wallet=${alice.address}`, `?address=${alice.address}`, "?limit=100"]) {
      const res = await get(`/v1/credentials${query}`, bobToken);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ credentials: [], total: 0 });
    }
  });

  it("answers B's verification of A's listings with not_found and changes nothing", async () => {
    const before = await scanAll();
    for (const id of aliceListings) {
      for (const form of [apiId(id), id]) {
        const res = await get(`/v1/credentials/${form}`, bobToken);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ listing_id: apiId(id), valid: false, status: "not_found", on_chain_verified: false });
      }
    }
    expect(await scanAll()).toEqual(before);
  });

  it("keeps B's API key scoped to B", async () => {
    const { key } = await createKey(app, bob, bobToken, "bob reads credentials");
    const before = await scanAll();
    const list = await get(`/v1/credentials?wallet=${alice.address}`, key);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ credentials: [], total: 0 });
    const one = await get(`/v1/credentials/${apiId(aliceListings[0]!)}`, key);
    expect(((await one.json()) as { status: string }).status).toBe("not_found");
    // Only the key's last_used_at may move.
    const after = await scanAll();
    expect(after.credentials).toEqual(before.credentials);
    expect(after.chain_listings).toEqual(before.chain_listings);
    expect(after.meta).toEqual(before.meta);
  });
});

describe("authentication", () => {
  const id = () => apiId(aliceListings[0]!);

  it("answers no Authorization header with 401 unauthorized on both routes", async () => {
    await expectError(await get("/v1/credentials"), 401, "unauthorized");
    await expectError(await get(`/v1/credentials/${id()}`), 401, "unauthorized");
    // Even a malformed id is refused for authentication first, not validated for strangers.
    await expectError(await get("/v1/credentials/not-an-id"), 401, "unauthorized");
  });

  it("answers a malformed, forged or unknown bearer with 401", async () => {
    const forged = `${aliceToken.slice(0, -4)}AAAA`;
    for (const header of ["Bearer", "Basic abc", `Bearer ${forged}`, "Bearer svc_test_" + "a".repeat(40), `Bearer ${"x".repeat(5000)}`, `Token ${aliceToken}`]) {
      const res = await app.request("/v1/credentials", { headers: { authorization: header } });
      expect(res.status, header.slice(0, 40)).toBe(401);
      const body = (await res.json()) as { error: { code: string } };
      expect(["unauthorized", "invalid_api_key", "invalid_signature"]).toContain(body.error.code);
    }
  });
});

describe("chain unreachable", () => {
  it("answers the verification with 503 service_unavailable, still lists from the index, and stores nothing", async () => {
    const broken = createServices(ctx.config, {
      logger: ctx.services.logger,
      tables: ctx.services.tables,
      chain: createChainClient({ rpcUrl: "http://127.0.0.1:1", chainId: LOCAL_CHAIN_ID, marketplace: ctx.config.MARKETPLACE_ADDRESS as Address }),
    });
    const brokenApp = buildApp(broken);
    const before = await scanAll();
    const unknown = toHex(randomBytes(32));
    for (const target of [...aliceListings, unknown]) {
      const res = await get(`/v1/credentials/${apiId(target)}`, aliceToken, brokenApp);
      await expectError(res, 503, "service_unavailable");
    }
    // The list reads the index only.
    const list = await get("/v1/credentials", aliceToken, brokenApp);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { total: number }).total).toBe(3);
    // A malformed id is still a 400 (validated before the chain is asked).
    await expectError(await get("/v1/credentials/lst_zz", aliceToken, brokenApp), 400, "invalid_listing_id");
    expect(await scanAll()).toEqual(before);
  });
});
