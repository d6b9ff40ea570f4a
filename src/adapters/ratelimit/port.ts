// The rate-limit port: one decision per request for a key under a rule. Two adapters implement it with
// the same algorithm, a fixed window aligned to the Unix epoch: Upstash Redis in the cloud (upstash.ts)
// and an in-process counter locally (memory.ts). The window arithmetic lives here so both agree.

/** A limit of `limit` requests per `windowSeconds`, counted in fixed windows aligned to the epoch. */
export interface RateRule {
  limit: number;
  windowSeconds: number;
}

/** The outcome of one `limit()` call; the figures behind the X-RateLimit-* headers. */
export interface RateDecision {
  allowed: boolean;
  /** The rule's limit. */
  limit: number;
  /** Requests still admitted in the current window after this one (never negative). */
  remaining: number;
  /** Unix seconds when the current window ends and `remaining` returns to `limit`. */
  reset: number;
  /** 0 when allowed; otherwise whole seconds until the window resets (at least 1). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `key` under `rule` and says whether it is admitted. Throws
   * `RateLimiterUnavailableError` when the store cannot be reached in time; never hangs. */
  limit(key: string, rule: RateRule): Promise<RateDecision>;
}

/** The limiter's store could not be reached (refused, failed, or did not answer within its bound).
 * The caller decides, per route, whether to fail open or closed (see policy.ts). */
export class RateLimiterUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RateLimiterUnavailableError";
  }
}

export function isRateLimiterUnavailable(error: unknown): error is RateLimiterUnavailableError {
  return error instanceof RateLimiterUnavailableError;
}

/** Refuses rules that would make the arithmetic meaningless (a programming error, not a user error). */
export function assertRule(rule: RateRule): void {
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) throw new RangeError(`rate rule limit must be a positive integer, got ${rule.limit}`);
  if (!Number.isSafeInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
    throw new RangeError(`rate rule windowSeconds must be a positive integer, got ${rule.windowSeconds}`);
  }
}

/** The window containing `nowMs`: its index and its end in epoch milliseconds. Windows are aligned to
 * the epoch, so every instance (and both adapters) agrees on where a window starts and ends. */
export function fixedWindow(nowMs: number, windowSeconds: number): { index: number; resetMs: number } {
  const windowMs = windowSeconds * 1000;
  const index = Math.floor(nowMs / windowMs);
  return { index, resetMs: (index + 1) * windowMs };
}

/** The decision for a window in which `used` requests (this one included) have been counted. */
export function decisionFor(used: number, limit: number, resetMs: number, nowMs: number): RateDecision {
  const allowed = used <= limit;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - used),
    reset: Math.ceil(resetMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
  };
}
