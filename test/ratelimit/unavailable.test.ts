// The Upstash adapter when its store cannot be reached: refused connections, a store that accepts and
// never answers, and Redis stopped behind a working REST endpoint. Each must end quickly in
// RateLimiterUnavailableError, never hang and never answer "allowed".
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createUpstashRateLimiter } from "../../src/adapters/ratelimit/upstash.ts";
import { RateLimiterUnavailableError, type RateLimiter } from "../../src/adapters/ratelimit/port.ts";
import { RATE_RULES } from "../../src/adapters/ratelimit/policy.ts";
import { freePort } from "../../local/ports.ts";
import { startRedis, type RedisBridge } from "../support/redis.ts";
import { until } from "../support/until.ts";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.allSettled(cleanups.map((cleanup) => cleanup()));
});

/** Runs one decision and returns what it threw and how long it took. */
async function failure(limiter: RateLimiter): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    const decision = await limiter.limit("key:k", RATE_RULES.default);
    return { error: new Error(`expected a failure, got ${JSON.stringify(decision)}`), ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

describe("upstash adapter with an unreachable store", () => {
  it("raises RateLimiterUnavailableError at once when nothing listens on the port", async () => {
    const port = await freePort();
    const limiter = createUpstashRateLimiter({ url: `http://127.0.0.1:${port}`, token: "t" });
    const { error, ms } = await failure(limiter);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(ms).toBeLessThan(2000);
  });

  it("raises RateLimiterUnavailableError within its bound when the store accepts but never answers", async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const address = silent.address();
    if (address === null || typeof address === "string") throw new Error("no port");

    const limiter = createUpstashRateLimiter({ url: `http://127.0.0.1:${address.port}`, token: "t", timeoutMs: 1000 });
    const { error, ms } = await failure(limiter);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(2000);

    // Concurrent callers are each bounded too.
    const started = performance.now();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => limiter.limit("key:k", RATE_RULES.default)));
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof RateLimiterUnavailableError)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("raises RateLimiterUnavailableError when Redis stops behind a working REST endpoint", async () => {
    const bridge: RedisBridge = await startRedis();
    cleanups.push(() => bridge.stop());
    const limiter = createUpstashRateLimiter({ url: bridge.url, token: bridge.token, prefix: "down" });
    // Working first: its first answer (a fresh connection, a loaded machine) may take past the 1 s deadline.
    await until("the store to answer while Redis runs", async () => (await limiter.limit("key:k", RATE_RULES.default).catch(() => ({ allowed: false }))).allowed, 30_000, 100);

    await bridge.stopRedis();
    const { error, ms } = await failure(limiter);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
    expect((error as Error).cause).toBeDefined();
    expect(ms).toBeLessThan(2000);
  });

  it("raises RateLimiterUnavailableError for a wrong token (the store refuses us)", async () => {
    const bridge: RedisBridge = await startRedis();
    cleanups.push(() => bridge.stop());
    const limiter = createUpstashRateLimiter({ url: bridge.url, token: "not-the-token" });
    const { error } = await failure(limiter);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
  });
});
