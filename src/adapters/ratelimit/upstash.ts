// The rate-limit port's cloud adapter: `@upstash/ratelimit` (fixed window) over `@upstash/redis`.
// Each decision is one Lua script run atomically in Redis, so concurrent Lambdas never admit more than
// the limit. The library's own fail-safes are switched off because they would fail open silently:
// its `timeout` resolves a *successful* response, its client retries five times with backoff, and an
// aborted request surfaces as a 200 unless the signal is a function. Here a store that does not answer
// within `timeoutMs` raises RateLimiterUnavailableError, and the route's policy decides.
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { assertRule, decisionFor, RateLimiterUnavailableError, type RateDecision, type RateLimiter, type RateRule } from "./port.ts";

export interface UpstashRateLimiterOptions {
  /** The Upstash REST URL (UPSTASH_REDIS_REST_URL). */
  url: string;
  /** The Upstash REST token. */
  token: string;
  /** Prefix of every Redis key this limiter writes. */
  prefix?: string;
  /** Upper bound on one decision, in milliseconds, connection included (default 1000). */
  timeoutMs?: number;
}

/**
 * Creates the Upstash limiter. One `Ratelimit` instance is kept per distinct rule.
 *
 * @example
 * const limiter = createUpstashRateLimiter({ url, token, prefix: "rl" });
 * const decision = await limiter.limit("key:key_1", { limit: 100, windowSeconds: 60 });
 */
export function createUpstashRateLimiter(options: UpstashRateLimiterOptions): RateLimiter {
  const timeoutMs = options.timeoutMs ?? 1000;
  const prefix = options.prefix ?? "ratelimit";
  const redis = new Redis({
    url: options.url,
    token: options.token,
    // One attempt: a retry loop with backoff would blow the time bound; the caller's policy decides.
    retry: { retries: 0, backoff: () => 0 },
    // A function, so every HTTP request gets its own deadline and an abort throws (a plain signal
    // makes the client resolve a fake 200 instead).
    signal: () => AbortSignal.timeout(timeoutMs),
    enableTelemetry: false,
    enableAutoPipelining: false,
  });
  const limiters = new Map<string, Ratelimit>();

  const limiterFor = (rule: RateRule): Ratelimit => {
    const id = `${rule.limit}/${rule.windowSeconds}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        prefix,
        limiter: Ratelimit.fixedWindow(rule.limit, `${rule.windowSeconds} s`),
        // 0 disables the library's timeout, which would answer `success: true` (fail open, unseen).
        timeout: 0,
        // The ephemeral cache only remembers refusals, but it is per instance, unbounded and would make
        // decisions that the store never saw; every decision here is the store's, like memory.ts's.
        ephemeralCache: false,
        analytics: false,
        enableProtection: false,
        enableTelemetry: false,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return {
    async limit(key: string, rule: RateRule): Promise<RateDecision> {
      assertRule(rule);
      const limiter = limiterFor(rule);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RateLimiterUnavailableError(`rate-limit store did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      const pending = limiter.limit(key);
      pending.catch(() => undefined); // the deadline may win; its late failure is not an unhandled one
      try {
        const response = await Promise.race([pending, deadline]);
        if (response.reason === "timeout" || response.reason === "cacheBlock" || response.reason === "denyList") {
          throw new RateLimiterUnavailableError(`unexpected rate-limit response (${response.reason})`);
        }
        // The script counts this request too, so an admitted one leaves `limit - used` remaining.
        const used = response.success ? rule.limit - response.remaining : rule.limit + 1;
        return decisionFor(used, rule.limit, response.reset, Date.now());
      } catch (error) {
        if (error instanceof RateLimiterUnavailableError) throw error;
        throw new RateLimiterUnavailableError("rate-limit store unreachable", { cause: error });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
