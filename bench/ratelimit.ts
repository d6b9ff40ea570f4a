// Rate-limit decision latency, each beside its floor measured in the same run:
//  1. The Upstash adapter (one EVALSHA of the fixed-window script over the REST protocol, through the
//     test bridge to a real redis-server) beside a bare PING sent the same way (@upstash/redis over
//     the same bridge): the ratio is what the limiter adds on top of one store round trip.
//  2. The in-process adapter beside an empty async call.
// Sequential calls (one request at a time, as a Lambda instance serves them).
// Run: npm run bench -- ratelimit   (or: node --import tsx bench/ratelimit.ts)
import { randomUUID } from "node:crypto";
import { Redis } from "@upstash/redis";
import { createMemoryRateLimiter } from "../src/adapters/ratelimit/memory.ts";
import { createUpstashRateLimiter } from "../src/adapters/ratelimit/upstash.ts";
import type { RateRule } from "../src/adapters/ratelimit/port.ts";
import { startRedis } from "../test/support/redis.ts";
import { summarize, ms } from "./stats.ts";

async function time(n: number, warmup: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await op(i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await op(i);
    times.push(performance.now() - started);
  }
  return times;
}

const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;

export async function runRateLimitBench(): Promise<string[]> {
  const rows: string[] = [];
  const rule: RateRule = { limit: 1_000_000, windowSeconds: 60 };
  const bridge = await startRedis();
  try {
    const n = 1000;
    const redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false, retry: { retries: 0, backoff: () => 0 } });
    const upstash = createUpstashRateLimiter({ url: bridge.url, token: bridge.token, prefix: `bench-${randomUUID()}` });
    const keys = Array.from({ length: 50 }, (_, i) => `key:bench_${i}`);
    const ping = summarize(await time(n, 100, () => redis.ping()));
    const decision = summarize(await time(n, 100, (i) => upstash.limit(keys[i % keys.length]!, rule)));
    rows.push(`upstash adapter limit() via REST bridge → redis-server, n=${decision.n}: p50 ${ms(decision.p50)}, p95 ${ms(decision.p95)}`);
    rows.push(
      `  baseline: bare PING via the same client and bridge, n=${ping.n}: p50 ${ms(ping.p50)}, p95 ${ms(ping.p95)}; ratio p50 ${(decision.p50 / ping.p50).toFixed(2)}x, p95 ${(decision.p95 / ping.p95).toFixed(2)}x`,
    );

    const memory = createMemoryRateLimiter();
    const m = summarize(await time(20_000, 1000, (i) => memory.limit(keys[i % keys.length]!, rule)));
    const noop = summarize(await time(20_000, 1000, () => Promise.resolve()));
    rows.push(`memory adapter limit(), n=${m.n}: p50 ${us(m.p50)}, p95 ${us(m.p95)}`);
    rows.push(`  baseline: an empty async call, n=${noop.n}: p50 ${us(noop.p50)}, p95 ${us(noop.p95)}; ratio p50 ${(m.p50 / noop.p50).toFixed(2)}x`);
  } finally {
    await bridge.stop();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await runRateLimitBench()) console.log(row);
}
