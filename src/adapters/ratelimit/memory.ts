// The rate-limit port's local adapter: fixed windows counted in this process, the same algorithm and
// the same decision fields as the Upstash adapter. The decision is taken synchronously (no await
// between reading and writing a counter), so it is exact however many calls are in flight.
import { assertRule, decisionFor, fixedWindow, type RateDecision, type RateLimiter, type RateRule } from "./port.ts";

export interface MemoryRateLimiterOptions {
  /** The clock, in epoch milliseconds; tests pass their own. */
  now?: () => number;
  /** How often, at most, expired windows are swept out (default 1000 ms). */
  sweepIntervalMs?: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** How many windows are held (expired ones are dropped at the next sweep). */
  size(): number;
}

interface Counter {
  /** Requests counted in the window, refused ones included (as the Redis script counts them). */
  used: number;
  resetMs: number;
}

/**
 * Creates the in-process limiter.
 *
 * @example
 * const limiter = createMemoryRateLimiter();
 * const decision = await limiter.limit("key:key_1", { limit: 100, windowSeconds: 60 });
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): MemoryRateLimiter {
  const now = options.now ?? Date.now;
  const sweepIntervalMs = options.sweepIntervalMs ?? 1000;
  const counters = new Map<string, Counter>();
  let nextSweepAt = 0;

  // Memory stays bounded by the keys active within the longest window: every window that has ended
  // is dropped, at most once per sweep interval (amortised O(1) per call).
  const sweep = (at: number) => {
    if (at < nextSweepAt) return;
    nextSweepAt = at + sweepIntervalMs;
    for (const [id, counter] of counters) if (counter.resetMs <= at) counters.delete(id);
  };

  const decide = (key: string, rule: RateRule): RateDecision => {
    assertRule(rule);
    const at = now();
    sweep(at);
    const { index, resetMs } = fixedWindow(at, rule.windowSeconds);
    // The window length is part of the id, as it is of the Redis key (via the window index).
    const id = `${key}\u0000${rule.windowSeconds}:${index}`;
    let counter = counters.get(id);
    if (!counter) {
      counter = { used: 0, resetMs };
      counters.set(id, counter);
    }
    counter.used += 1;
    return decisionFor(counter.used, rule.limit, resetMs, at);
  };

  return {
    limit: (key, rule) => {
      try {
        return Promise.resolve(decide(key, rule));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    size: () => counters.size,
  };
}
