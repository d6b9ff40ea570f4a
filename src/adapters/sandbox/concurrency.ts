// A per-key concurrency limiter for runs: at most `limit` runs in flight per key (a listing), the next
// one refused at once with a typed error rather than queued — a queued run would spend its caller's
// timeout waiting, and the caller can retry with backoff. The API maps ConcurrencyLimitError to HTTP 429
// with `Retry-After: 1` (see docs/sandbox.md). In-process only: across instances the count lives in the
// shared store (the cloud runner's reserved concurrency or a counter), which this does not replace.

/** The specification's limit on concurrent runs per listing. */
export const DEFAULT_RUNS_PER_LISTING = 20;

export class ConcurrencyLimitError extends Error {
  readonly code = "concurrency_limit_exceeded";
  constructor(
    readonly key: string,
    readonly limit: number,
  ) {
    super(`at most ${limit} concurrent runs are allowed for this listing; retry when one finishes`);
    this.name = "ConcurrencyLimitError";
  }
}

/** One admitted run's slot; `release()` is idempotent. */
export interface Lease {
  release(): void;
}

export interface ConcurrencyLimiter {
  readonly limit: number;
  /** Takes a slot for `key`, or throws ConcurrencyLimitError when `limit` are already taken. */
  acquire(key: string): Lease;
  /** Runs `task` inside a slot for `key` and releases it however the task ends. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Slots currently taken for `key`. */
  active(key: string): number;
}

export function createConcurrencyLimiter(options: { limit?: number } = {}): ConcurrencyLimiter {
  const limit = options.limit ?? DEFAULT_RUNS_PER_LISTING;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError("limit must be a positive integer");
  const counts = new Map<string, number>();

  function acquire(key: string): Lease {
    const current = counts.get(key) ?? 0;
    if (current >= limit) throw new ConcurrencyLimitError(key, limit);
    counts.set(key, current + 1);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left <= 0) counts.delete(key);
        else counts.set(key, left);
      },
    };
  }

  async function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lease = acquire(key);
    try {
      return await task();
    } finally {
      lease.release();
    }
  }

  return { limit, acquire, run, active: (key) => counts.get(key) ?? 0 };
}
