// The rate-limit policy: the rules of the specification's Limits section and the keys they count under.
// Which rule a route follows, and what it does when the limiter's store cannot be reached, the route
// declares itself (src/api/route.ts; docs/reference/rate-limits.md).
import { assertRule, type RateRule } from "./port.ts";

/** The specification's limits. Windows are fixed, aligned to the epoch (see port.ts). */
export const RATE_RULES = {
  /** 100 requests per minute per API key (per wallet for JWT callers, per client IP on public routes),
   * on all endpoints. */
  default: { limit: 100, windowSeconds: 60 },
  /** 60 task executions per minute per credential (listing + wallet), unless the listing's creator
   * configured another figure (`executionRule`). */
  execution: { limit: 60, windowSeconds: 60 },
  /** The service's own rule for OAuth dynamic client registration: 20 registrations per minute per
   * client address, on top of the default rule (a registration is a stored record for anyone who asks;
   * docs/reference/oauth.md#rate-limits). */
  oauth: { limit: 20, windowSeconds: 60 },
} as const satisfies Record<string, RateRule>;

/**
 * The execution rule for a listing: the creator's per-minute figure when it set one (a positive
 * integer), the default of 60 otherwise.
 *
 * @example
 * executionRule();    // { limit: 60, windowSeconds: 60 }
 * executionRule(600); // { limit: 600, windowSeconds: 60 }
 */
export function executionRule(perListingLimit?: number | null): RateRule {
  if (perListingLimit === undefined || perListingLimit === null) return { ...RATE_RULES.execution };
  const rule = { limit: perListingLimit, windowSeconds: RATE_RULES.execution.windowSeconds };
  assertRule(rule);
  return rule;
}

/** The key the execution rule counts under: one credential is one (listing, wallet) pair. Wallets are
 * lower-cased so checksum and plain spellings share one counter. */
export function executionKey(listingId: string, wallet: string): string {
  return `exec:${listingId}:${wallet.toLowerCase()}`;
}

/** What a route does when the store is unreachable: `closed` refuses with 503 service_unavailable,
 * `open` admits the request unlimited (and logs a warning). */
export type FailMode = "open" | "closed";
