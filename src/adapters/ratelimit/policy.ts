// The rate-limit policy: the rules of the specification's Limits section, the keys they count under,
// and, per route, what happens when the limiter's store cannot be reached (docs/rate-limits.md).
import { assertRule, type RateRule } from "./port.ts";

/** The specification's limits. Windows are fixed, aligned to the epoch (see port.ts). */
export const RATE_RULES = {
  /** 100 requests per minute per API key (per wallet for JWT callers, per client IP on public routes),
   * on all endpoints. */
  default: { limit: 100, windowSeconds: 60 },
  /** 60 task executions per minute per credential (listing + wallet), unless the listing's creator
   * configured another figure (`executionRule`). */
  execution: { limit: 60, windowSeconds: 60 },
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

interface RoutePolicy {
  method: string;
  path: RegExp;
  failMode: FailMode;
  why: string;
}

/**
 * The per-route decisions. The first match wins; a route not listed falls to `defaultFailMode`.
 *
 * Fail closed where an unlimited burst costs money or mints power: executions spend the renter's
 * balance and our compute (and `consumeQuery` gas), and key creation mints long-lived credentials.
 * Fail open where the request only reads, or where refusing would do more harm than an unlimited
 * burst: sign-in (the signature check and single-use challenge are the guard) and key revocation
 * (a leaked key must be revocable during an outage). Registration is queued and validated
 * asynchronously; no money moves, so it stays available.
 */
export const ROUTE_POLICIES: readonly RoutePolicy[] = [
  { method: "POST", path: /^\/v1\/execute$/, failMode: "closed", why: "runs a task: spends balance and compute" },
  { method: "POST", path: /^\/v1\/execute\/stream$/, failMode: "closed", why: "runs a task: spends balance and compute" },
  { method: "POST", path: /^\/v1\/keys$/, failMode: "closed", why: "mints a long-lived API key" },
  { method: "POST", path: /^\/v1\/keys\/challenge$/, failMode: "closed", why: "step one of key creation" },
  { method: "DELETE", path: /^\/v1\/keys\/[^/]+$/, failMode: "open", why: "revocation must work during an outage" },
  { method: "POST", path: /^\/v1\/auth\/token$/, failMode: "open", why: "sign-in; guarded by the signature and single-use challenge" },
  { method: "POST", path: /^\/v1\/agents$/, failMode: "open", why: "queued registration; no money moves" },
];

/** Routes not listed: reads fail open; any other write fails closed, so a new money path added
 * without a policy line is safe by default. */
export function defaultFailMode(method: string): FailMode {
  return ["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase()) ? "open" : "closed";
}

/** The fail mode of a request, by method and path. */
export function failModeFor(method: string, path: string): FailMode {
  const upper = method.toUpperCase();
  const policy = ROUTE_POLICIES.find((p) => p.method === upper && p.path.test(path));
  return policy ? policy.failMode : defaultFailMode(upper);
}
