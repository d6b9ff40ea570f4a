// The rate-limit middleware on a minimal Hono app (request ids, a stand-in for authentication that sets
// the principal from test headers, each route with its declared rate limit, the error envelope): the
// three X-RateLimit-* headers on successes and errors, 429 with Retry-After, the keys, the execution
// rule, and the fail-open/closed decision a route declares for when the store is unreachable. Mostly on
// the in-process limiter; the same behaviour end to end through the Upstash adapter and a real Redis at
// the end. The service's own routes and what they declare: test/api/platform.ratelimit.test.ts.
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/api/env.ts";
import { renderError } from "../../src/api/errors.ts";
import { requestId } from "../../src/api/middleware/request-id.ts";
import { limitExecution, rateLimit, type RateLimitOptions } from "../../src/api/middleware/rate-limit.ts";
import type { RouteRateLimit } from "../../src/api/route.ts";
import { executionKey, executionRule, RATE_RULES } from "../../src/adapters/ratelimit/policy.ts";
import { createMemoryRateLimiter } from "../../src/adapters/ratelimit/memory.ts";
import { createUpstashRateLimiter } from "../../src/adapters/ratelimit/upstash.ts";
import { fixedWindow, type RateLimiter } from "../../src/adapters/ratelimit/port.ts";
import { freePort } from "../../local/ports.ts";
import { startRedis, type RedisBridge } from "../support/redis.ts";

const WALLET_A = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" as Address;
const WALLET_B = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc" as Address;

/** Headers that make the test app's stand-in authentication set a principal. */
const asKey = (keyId: string, wallet: Address = WALLET_A) => ({ "x-test-key-id": keyId, "x-test-wallet": wallet });
const asJwt = (wallet: Address) => ({ "x-test-wallet": wallet });

const READ: RouteRateLimit = { rule: "default", failMode: "open" };
const MINT: RouteRateLimit = { rule: "default", failMode: "closed" };
const RUN: RouteRateLimit = { rule: "execution", failMode: "closed" };

function buildTestApp(limiter: RateLimiter, options: Omit<RateLimitOptions, "limiter"> = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestId);
  app.use("*", async (c, next) => {
    const wallet = c.req.header("x-test-wallet") as Address | undefined;
    const keyId = c.req.header("x-test-key-id");
    if (wallet) c.set("principal", keyId ? { wallet, method: "api_key", keyId } : { wallet, method: "jwt" });
    await next();
  });
  const limited = (declared: RouteRateLimit) => rateLimit(declared, { ...options, limiter: () => limiter });
  app.get("/v1/health", limited(READ), (c) => c.json({ status: "ok" }));
  app.get("/v1/listings", limited(READ), (c) => c.json({ listings: [], total: 0, limit: 20, offset: 0 }));
  app.get("/v1/boom", limited(READ), () => {
    throw new Error("boom");
  });
  app.post("/v1/keys", limited(MINT), (c) => c.json({ key_id: "key_1" }, 201));
  app.delete("/v1/keys/:key_id", limited(READ), (c) => c.json({ key_id: c.req.param("key_id"), revoked: true }));
  app.post("/v1/execute", limited(RUN), async (c) => {
    const body = (await c.req.json()) as { agent_id: string; listing_rate_limit?: number };
    await limitExecution(c, body.agent_id, body.listing_rate_limit);
    return c.json({ run_id: "run_1", status: "completed" });
  });
  app.post("/v1/execute/misdeclared", limited(MINT), async (c) => {
    await limitExecution(c, "lst_1");
    return c.json({ run_id: "run_1", status: "completed" });
  });
  app.onError(renderError);
  return app;
}

async function errorOf(res: Response): Promise<{ code: string; status: number; message: string; request_id: string }> {
  return ((await res.json()) as { error: { code: string; status: number; message: string; request_id: string } }).error;
}

function figures(res: Response): { limit: number; remaining: number; reset: number } {
  return {
    limit: Number(res.headers.get("x-ratelimit-limit")),
    remaining: Number(res.headers.get("x-ratelimit-remaining")),
    reset: Number(res.headers.get("x-ratelimit-reset")),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function roomInWindow(windowSeconds: number, needMs: number): Promise<void> {
  const now = Date.now();
  const { resetMs } = fixedWindow(now, windowSeconds);
  if (resetMs - now < needMs) await sleep(resetMs - now + 20);
}
const windowEnd = (windowSeconds: number) => Math.ceil(fixedWindow(Date.now(), windowSeconds).resetMs / 1000);

const execute = (app: Hono<AppEnv>, headers: Record<string, string>, body: Record<string, unknown>) =>
  app.request("/v1/execute", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });

describe("rate-limit middleware", () => {
  beforeAll(async () => {
    await roomInWindow(60, 10_000);
  });

  it("sets X-RateLimit-Limit, -Remaining and -Reset on a successful response", async () => {
    const app = buildTestApp(createMemoryRateLimiter());
    const res = await app.request("/v1/listings", { headers: asKey("key_1") });
    expect(res.status).toBe(200);
    expect(figures(res)).toEqual({ limit: 100, remaining: 99, reset: windowEnd(60) });
    expect(res.headers.get("retry-after")).toBeNull();
  });

  it("admits 100 requests per minute per API key, then answers 429 rate_limit_exceeded with Retry-After", async () => {
    const app = buildTestApp(createMemoryRateLimiter());
    for (let i = 0; i < 100; i++) {
      const res = await app.request("/v1/listings", { headers: asKey("key_1") });
      expect(res.status).toBe(200);
      expect(figures(res).remaining).toBe(99 - i);
    }
    const res = await app.request("/v1/listings", { headers: asKey("key_1") });
    expect(res.status).toBe(429);
    const error = await errorOf(res);
    expect(error).toMatchObject({ code: "rate_limit_exceeded", status: 429 });
    expect(error.request_id).toBe(res.headers.get("x-request-id"));
    expect(figures(res)).toEqual({ limit: 100, remaining: 0, reset: windowEnd(60) });
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Math.abs(retryAfter - (figures(res).reset - Date.now() / 1000))).toBeLessThanOrEqual(1);
  });

  it("keeps the headers on other error responses too", async () => {
    const app = buildTestApp(createMemoryRateLimiter());
    const res = await app.request("/v1/boom", { headers: asKey("key_1") });
    expect(res.status).toBe(500);
    expect(figures(res)).toEqual({ limit: 100, remaining: 99, reset: windowEnd(60) });
  });

  it("counts per API key, per wallet for JWT callers, and per client IP on public routes", async () => {
    const app = buildTestApp(createMemoryRateLimiter(), { rule: { limit: 1, windowSeconds: 60 } });
    const status = async (headers: Record<string, string>, path = "/v1/listings") => (await app.request(path, { headers })).status;

    expect(await status(asKey("key_1", WALLET_A))).toBe(200);
    expect(await status(asKey("key_1", WALLET_A))).toBe(429);
    expect(await status(asKey("key_2", WALLET_A))).toBe(200); // another key of the same wallet
    expect(await status(asJwt(WALLET_A))).toBe(200); // the wallet's JWT bucket
    expect(await status(asJwt(WALLET_A.toLowerCase() as Address))).toBe(429); // one wallet, any spelling
    expect(await status(asJwt(WALLET_B))).toBe(200);

    expect(await status({ "x-forwarded-for": "203.0.113.7, 10.0.0.1" }, "/v1/health")).toBe(200);
    expect(await status({ "x-forwarded-for": "203.0.113.7" }, "/v1/health")).toBe(429);
    expect(await status({ "x-forwarded-for": "203.0.113.8" }, "/v1/health")).toBe(200);
    expect(await status({}, "/v1/health")).toBe(200); // the shared anonymous bucket
    expect(await status({ "x-forwarded-for": "not an address" }, "/v1/health")).toBe(429); // also anonymous
  });

  it("applies the execution rule per credential (listing + wallet), 60 per minute by default", async () => {
    const app = buildTestApp(createMemoryRateLimiter());
    const listing = `lst_${randomUUID()}`;
    for (let i = 0; i < 60; i++) expect((await execute(app, asKey(`key_${i}`), { agent_id: listing })).status).toBe(200);
    const refused = await execute(app, asKey("key_x"), { agent_id: listing });
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe("rate_limit_exceeded");
    expect(figures(refused)).toMatchObject({ limit: 60, remaining: 0 });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    expect((await execute(app, asKey("key_x"), { agent_id: `lst_${randomUUID()}` })).status).toBe(200); // another listing
    expect((await execute(app, asKey("key_y", WALLET_B), { agent_id: listing })).status).toBe(200); // another wallet
  });

  it("applies a listing's own execution limit, and reports the rule closer to refusing", async () => {
    const app = buildTestApp(createMemoryRateLimiter());
    const listing = `lst_${randomUUID()}`;
    const first = await execute(app, asKey("key_1"), { agent_id: listing, listing_rate_limit: 2 });
    expect(first.status).toBe(200);
    // The default rule has 99 left, the listing's rule 1: the headers show the listing's.
    expect(figures(first)).toMatchObject({ limit: 2, remaining: 1 });
    expect((await execute(app, asKey("key_1"), { agent_id: listing, listing_rate_limit: 2 })).status).toBe(200);
    const refused = await execute(app, asKey("key_1"), { agent_id: listing, listing_rate_limit: 2 });
    expect(refused.status).toBe(429);
    expect(figures(refused)).toMatchObject({ limit: 2, remaining: 0 });
    // A GET on the same key still reports the default rule (which counted the three executions).
    expect(figures(await app.request("/v1/listings", { headers: asKey("key_1") }))).toMatchObject({ limit: 100, remaining: 96 });
  });

  it("refuses to run a task on a route that does not declare the execution rule", async () => {
    const app = buildTestApp(createMemoryRateLimiter());
    const res = await app.request("/v1/execute/misdeclared", { method: "POST", headers: asKey("key_1") });
    expect(res.status).toBe(500);
    expect((await errorOf(res)).code).toBe("internal_error");
  });
});

describe("rate-limit middleware when the store is unreachable", () => {
  let app: Hono<AppEnv>;
  beforeAll(async () => {
    // The real Upstash adapter, pointed at a port where nothing listens.
    const limiter = createUpstashRateLimiter({ url: `http://127.0.0.1:${await freePort()}`, token: "t" });
    app = buildTestApp(limiter);
  });

  it("answers 503 service_unavailable on a money path (POST /v1/execute), quickly, with the headers", async () => {
    const started = performance.now();
    const res = await execute(app, asKey("key_1"), { agent_id: "lst_1" });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(res.headers.get("retry-after")).toBe("1");
    expect(figures(res)).toEqual({ limit: 100, remaining: 100, reset: windowEnd(60) });
  });

  it("answers 503 on a route that declares fail closed, and serves one that declares fail open", async () => {
    const statusOf = async (method: string, path: string) => (await app.request(path, { method, headers: asKey("key_1") })).status;
    expect(await statusOf("POST", "/v1/keys")).toBe(503);
    expect(await statusOf("DELETE", "/v1/keys/key_1")).toBe(200);
  });

  it("passes a read-only route (fail open), still reporting the configured limit", async () => {
    const res = await app.request("/v1/listings", { headers: asKey("key_1") });
    expect(res.status).toBe(200);
    expect(figures(res)).toEqual({ limit: 100, remaining: 100, reset: windowEnd(60) });
  });
});

describe("rate-limit middleware through the Upstash adapter and a real Redis", () => {
  let bridge: RedisBridge;
  let app: Hono<AppEnv>;
  beforeAll(async () => {
    bridge = await startRedis();
    app = buildTestApp(createUpstashRateLimiter({ url: bridge.url, token: bridge.token, prefix: `mw-${randomUUID()}` }), { rule: { limit: 3, windowSeconds: 60 } });
    await roomInWindow(60, 10_000);
  });
  afterAll(async () => {
    await bridge?.stop();
  });

  it("sets the headers, then refuses with 429 and Retry-After", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await app.request("/v1/listings", { headers: asJwt(WALLET_A) });
      expect(res.status).toBe(200);
      expect(figures(res)).toEqual({ limit: 3, remaining: 2 - i, reset: windowEnd(60) });
    }
    const res = await app.request("/v1/listings", { headers: asJwt(WALLET_A) });
    expect(res.status).toBe(429);
    expect((await errorOf(res)).code).toBe("rate_limit_exceeded");
    expect(figures(res)).toEqual({ limit: 3, remaining: 0, reset: windowEnd(60) });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("answers 503 on POST /v1/execute and passes GET /v1/listings once Redis is down", async () => {
    await bridge.stopRedis();
    const closed = await execute(app, asJwt(WALLET_B), { agent_id: "lst_1" });
    expect(closed.status).toBe(503);
    expect((await errorOf(closed)).code).toBe("service_unavailable");
    const open = await app.request("/v1/listings", { headers: asJwt(WALLET_B) });
    expect(open.status).toBe(200);
    expect(figures(open)).toMatchObject({ limit: 3, remaining: 3 });
  });
});

describe("rate-limit policy", () => {
  it("holds the specification's rules", () => {
    expect(RATE_RULES.default).toEqual({ limit: 100, windowSeconds: 60 });
    expect(RATE_RULES.execution).toEqual({ limit: 60, windowSeconds: 60 });
    expect(executionRule()).toEqual({ limit: 60, windowSeconds: 60 });
    expect(executionRule(600)).toEqual({ limit: 600, windowSeconds: 60 });
    expect(() => executionRule(0)).toThrow(RangeError);
    expect(() => executionRule(1.5)).toThrow(RangeError);
    expect(executionKey("lst_1", WALLET_A)).toBe(`exec:lst_1:${WALLET_A.toLowerCase()}`);
  });
});
