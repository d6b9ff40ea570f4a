// Both rate-limit adapters against the same expectations: the in-process one, and the Upstash one
// against a real redis-server through the Upstash REST bridge (test/support/redis.ts).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "../../src/adapters/ratelimit/memory.ts";
import { createUpstashRateLimiter } from "../../src/adapters/ratelimit/upstash.ts";
import { fixedWindow, type RateLimiter, type RateRule } from "../../src/adapters/ratelimit/port.ts";
import { startRedis, type RedisBridge } from "../support/redis.ts";

let bridge: RedisBridge;

beforeAll(async () => {
  bridge = await startRedis();
});

afterAll(async () => {
  await bridge?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Windows are aligned to the epoch; a test that must stay inside one window waits for the next one
 * when fewer than `needMs` are left in the current one. */
async function roomInWindow(windowSeconds: number, needMs: number): Promise<void> {
  const now = Date.now();
  const { resetMs } = fixedWindow(now, windowSeconds);
  if (resetMs - now < needMs) await sleep(resetMs - now + 20);
}

/** How long the two bursts of 500 calls may take, all inside one window of the minute rule (a clean-clone
 * run beside the other lanes took 22.8 s over Upstash's REST bridge). */
const BURST_BUDGET_MS = 40_000;

const adapters: [string, () => RateLimiter][] = [
  ["memory", () => createMemoryRateLimiter()],
  // A generous bound: 500 requests in flight share this process with the bridge, on a machine that may
  // be running other suites; the bound itself is tested in unavailable.test.ts.
  ["upstash (real redis)", () => createUpstashRateLimiter({ url: bridge.url, token: bridge.token, prefix: `t-${randomUUID()}`, timeoutMs: BURST_BUDGET_MS })],
];

describe.each(adapters)("%s adapter", (_name, make) => {
  let limiter: RateLimiter;
  beforeAll(() => {
    limiter = make();
  });

  it("admits exactly the limit, then refuses with remaining 0, the window's reset and a Retry-After", async () => {
    const rule: RateRule = { limit: 5, windowSeconds: 60 };
    const key = `key:${randomUUID()}`;
    await roomInWindow(rule.windowSeconds, 5000);
    const reset = Math.ceil(fixedWindow(Date.now(), rule.windowSeconds).resetMs / 1000);

    for (let i = 0; i < rule.limit; i++) {
      expect(await limiter.limit(key, rule)).toEqual({ allowed: true, limit: 5, remaining: rule.limit - 1 - i, reset, retryAfterSeconds: 0 });
    }
    const refused = await limiter.limit(key, rule);
    const expectedRetry = Math.ceil((reset * 1000 - Date.now()) / 1000);
    expect(refused).toMatchObject({ allowed: false, limit: 5, remaining: 0, reset });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(Math.abs(refused.retryAfterSeconds - expectedRetry)).toBeLessThanOrEqual(1);
    // Refusals keep refusing for the rest of the window.
    expect((await limiter.limit(key, rule)).allowed).toBe(false);
  });

  it("admits exactly 100 of 500 concurrent calls on one key with limit 100, never more", async () => {
    const rule: RateRule = { limit: 100, windowSeconds: 60 };
    const key = `key:${randomUUID()}`;
    await roomInWindow(rule.windowSeconds, BURST_BUDGET_MS);
    const started = performance.now();

    const decisions = await Promise.all(Array.from({ length: 500 }, () => limiter.limit(key, rule)));
    const admitted = decisions.filter((d) => d.allowed);
    expect(admitted).toHaveLength(100);
    // Every admitted call saw a distinct count: the decisions were atomic.
    expect(new Set(admitted.map((d) => d.remaining)).size).toBe(100);
    expect(Math.min(...admitted.map((d) => d.remaining))).toBe(0);
    expect(Math.max(...admitted.map((d) => d.remaining))).toBe(99);
    for (const d of decisions.filter((d) => !d.allowed)) expect(d).toMatchObject({ remaining: 0, limit: 100 });

    const again = await Promise.all(Array.from({ length: 500 }, () => limiter.limit(key, rule)));
    expect(again.filter((d) => d.allowed)).toHaveLength(0);
    // Both bursts stayed inside the window the test waited for.
    expect(performance.now() - started).toBeLessThan(BURST_BUDGET_MS);
  }, 2 * BURST_BUDGET_MS + 10_000);

  it("admits again once the window resets", async () => {
    // Two-second windows: the three calls fit in one even when each takes a few hundred milliseconds.
    const rule: RateRule = { limit: 2, windowSeconds: 2 };
    const key = `key:${randomUUID()}`;
    await roomInWindow(rule.windowSeconds, 1500);

    expect((await limiter.limit(key, rule)).allowed).toBe(true);
    expect((await limiter.limit(key, rule)).allowed).toBe(true);
    const refused = await limiter.limit(key, rule);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    // The wait is what is left of the window, in whole seconds.
    expect([1, 2]).toContain(refused.retryAfterSeconds);

    await sleep(refused.reset * 1000 - Date.now() + 50);
    const next = await limiter.limit(key, rule);
    expect(next).toMatchObject({ allowed: true, remaining: 1, reset: refused.reset + rule.windowSeconds, retryAfterSeconds: 0 });
  });

  it("counts distinct keys independently", async () => {
    const rule: RateRule = { limit: 1, windowSeconds: 60 };
    const [a, b] = [`key:${randomUUID()}`, `wallet:${randomUUID()}`];
    await roomInWindow(rule.windowSeconds, 5000);

    expect((await limiter.limit(a, rule)).allowed).toBe(true);
    expect((await limiter.limit(a, rule)).allowed).toBe(false);
    expect(await limiter.limit(b, rule)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.limit(b, rule)).allowed).toBe(false);
  });

  it("refuses a meaningless rule as a programming error", async () => {
    await expect(limiter.limit("k", { limit: 0, windowSeconds: 60 })).rejects.toThrow(RangeError);
    await expect(limiter.limit("k", { limit: 10, windowSeconds: 0.5 })).rejects.toThrow(RangeError);
  });
});

describe("memory adapter", () => {
  it("drops expired windows, so memory stays bounded by the keys active in a window", async () => {
    let now = 1_700_000_000_000;
    const limiter = createMemoryRateLimiter({ now: () => now, sweepIntervalMs: 1000 });
    const rule: RateRule = { limit: 3, windowSeconds: 60 };
    for (let i = 0; i < 1000; i++) await limiter.limit(`ip:${i}`, rule);
    expect(limiter.size()).toBe(1000);

    now += 61_000;
    await limiter.limit("ip:new", rule);
    expect(limiter.size()).toBe(1);
  });

  it("takes each decision on the given clock, window by window", async () => {
    let now = Date.UTC(2025, 0, 1, 0, 0, 59, 500); // 0.5 s before a minute boundary
    const limiter = createMemoryRateLimiter({ now: () => now });
    const rule: RateRule = { limit: 1, windowSeconds: 60 };
    const boundary = Date.UTC(2025, 0, 1, 0, 1, 0) / 1000;
    expect(await limiter.limit("k", rule)).toEqual({ allowed: true, limit: 1, remaining: 0, reset: boundary, retryAfterSeconds: 0 });
    expect(await limiter.limit("k", rule)).toEqual({ allowed: false, limit: 1, remaining: 0, reset: boundary, retryAfterSeconds: 1 });
    now += 500;
    expect(await limiter.limit("k", rule)).toEqual({ allowed: true, limit: 1, remaining: 0, reset: boundary + 60, retryAfterSeconds: 0 });
  });
});

describe("upstash adapter through the bridge", () => {
  it("needs the bridge: Redis 7.0 itself refuses the scripts' allow-key-locking flag", async () => {
    const reply = await bridge.command(["EVAL", "#!lua flags=allow-key-locking\nreturn 1", 0]);
    expect(String(reply)).toMatch(/allow-key-locking/);
  });

  it("runs the library's script by its SHA once it is known (EVALSHA, no repeated EVAL)", async () => {
    const limiter = createUpstashRateLimiter({ url: bridge.url, token: bridge.token, prefix: `t-${randomUUID()}` });
    const rule: RateRule = { limit: 10, windowSeconds: 60 };
    await limiter.limit(`key:${randomUUID()}`, rule); // the first call may need EVAL after NOSCRIPT
    const before = { eval: bridge.commandCounts.get("EVAL") ?? 0, evalsha: bridge.commandCounts.get("EVALSHA") ?? 0 };
    for (let i = 0; i < 3; i++) expect((await limiter.limit(`key:${randomUUID()}`, rule)).allowed).toBe(true);
    expect(bridge.commandCounts.get("EVAL") ?? 0).toBe(before.eval);
    expect(bridge.commandCounts.get("EVALSHA")).toBe(before.evalsha + 3);
  });

  it("writes one expiring counter per key and window, under the prefix", async () => {
    const prefix = `t-${randomUUID()}`;
    const limiter = createUpstashRateLimiter({ url: bridge.url, token: bridge.token, prefix });
    const rule: RateRule = { limit: 10, windowSeconds: 60 };
    await roomInWindow(rule.windowSeconds, 5000);
    await limiter.limit("key:k1", rule);
    await limiter.limit("key:k1", rule);
    const { index } = fixedWindow(Date.now(), rule.windowSeconds);
    const redisKey = `${prefix}:key:k1:${index}`;
    expect(await bridge.command(["GET", redisKey])).toBe("2");
    const ttl = await bridge.command(["PTTL", redisKey]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
