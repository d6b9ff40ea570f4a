// Rate limiting at the edge of every route: the default rule keyed by the caller, the three
// X-RateLimit-* headers on every response (errors included), 429 rate_limit_exceeded with Retry-After,
// and the per-route fail-open/closed decision when the limiter's store is unreachable (policy.ts).
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../errors.ts";
import type { Principal } from "../../auth/principal.ts";
import { isRateLimiterUnavailable, fixedWindow, type RateDecision, type RateLimiter, type RateRule } from "../../adapters/ratelimit/port.ts";
import { failModeFor, RATE_RULES, type FailMode } from "../../adapters/ratelimit/policy.ts";
import type { AppEnv, RateLimitOutcome } from "../env.ts";

export const RATE_LIMIT_LIMIT_HEADER = "X-RateLimit-Limit";
export const RATE_LIMIT_REMAINING_HEADER = "X-RateLimit-Remaining";
export const RATE_LIMIT_RESET_HEADER = "X-RateLimit-Reset";

/** Picks the limiter for a request, typically from the services (`(c) => c.get("services").rateLimiter`). */
export type GetLimiter = (c: Context<AppEnv>) => RateLimiter;

export interface RateLimitOptions {
  /** The rule applied to every request (default: RATE_RULES.default, 100 per 60 s). */
  rule?: RateRule;
  /** The fail mode, fixed or per request (default: `failModeFor(method, path)` from policy.ts). */
  failMode?: FailMode | ((c: Context<AppEnv>) => FailMode);
  /** The key a request counts under (default: `rateLimitKey(c)`). */
  key?: (c: Context<AppEnv>) => string;
}

/** A decision as enforced: `degraded` is true when the store was unreachable and the route failed
 * open (the figures are then the configured rule's, nothing was counted). */
export interface EnforcedDecision extends RateDecision {
  degraded: boolean;
}

/** The three header values of a decision. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    [RATE_LIMIT_LIMIT_HEADER]: String(decision.limit),
    [RATE_LIMIT_REMAINING_HEADER]: String(decision.remaining),
    [RATE_LIMIT_RESET_HEADER]: String(decision.reset),
  };
}

const IP = /^[0-9A-Fa-f:.]{2,45}$/;

/** The caller's address: the one API Gateway saw (from the Lambda event, which a client cannot forge)
 * when present, else the first hop of X-Forwarded-For (the local server has no proxy in front). */
export function clientIp(c: Context<AppEnv>): string | undefined {
  const env = c.env as { requestContext?: { identity?: { sourceIp?: unknown }; http?: { sourceIp?: unknown } } } | undefined;
  const source = env?.requestContext?.identity?.sourceIp ?? env?.requestContext?.http?.sourceIp;
  if (typeof source === "string" && IP.test(source)) return source;
  const first = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
  return first && IP.test(first) ? first : undefined;
}

/** The key the default rule counts under: the API key's id for API key callers, the wallet for JWT
 * callers, the client IP on public routes, and one shared "anonymous" bucket when there is none. */
export function rateLimitKey(c: Context<AppEnv>): string {
  const principal = c.get("principal") as Principal | undefined;
  if (principal?.method === "api_key" && principal.keyId) return `key:${principal.keyId}`;
  if (principal) return `wallet:${principal.wallet.toLowerCase()}`;
  const ip = clientIp(c);
  return ip ? `ip:${ip}` : "anonymous";
}

// The decision whose figures the response reports. When a request passes two rules (the default and
// the execution rule) the headers show the one closer to refusing.
const published = new WeakMap<Context<AppEnv>, RateDecision>();

function publish(c: Context<AppEnv>, decision: RateDecision): void {
  const current = published.get(c);
  const tighter = !current || (!decision.allowed && current.allowed) || (decision.allowed === current.allowed && decision.remaining < current.remaining);
  if (!tighter) return;
  published.set(c, decision);
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
}

/** The figures reported when the store is unreachable and nothing could be counted. */
function nominal(rule: RateRule, nowMs: number): RateDecision {
  return { allowed: true, limit: rule.limit, remaining: rule.limit, reset: Math.ceil(fixedWindow(nowMs, rule.windowSeconds).resetMs / 1000), retryAfterSeconds: 0 };
}

const SEVERITY: Record<RateLimitOutcome, number> = { allowed: 0, fail_open: 1, limited: 2, unavailable: 3 };

/** Notes the decision for the access log; of two rules on one request, the more severe outcome stands. */
function noteOutcome(c: Context<AppEnv>, outcome: RateLimitOutcome): void {
  const current = c.get("rateLimit");
  if (current === undefined || SEVERITY[outcome] > SEVERITY[current]) c.set("rateLimit", outcome);
}

/**
 * Applies one rule to the request: counts it under `key`, sets the X-RateLimit-* headers, and throws
 * 429 rate_limit_exceeded (with Retry-After) on refusal. When the store is unreachable, `closed`
 * throws 503 service_unavailable and `open` admits the request (logged) with the configured figures.
 *
 * @example
 * // in the execute route, after the default rule ran in the middleware
 * await enforceRule(c, c.get("services").rateLimiter, executionKey(listingId, principal.wallet), executionRule(listing.rate_limit), "closed");
 */
export async function enforceRule(c: Context<AppEnv>, limiter: RateLimiter, key: string, rule: RateRule, failMode: FailMode): Promise<EnforcedDecision> {
  let decision: RateDecision;
  try {
    decision = await limiter.limit(key, rule);
  } catch (error) {
    if (!isRateLimiterUnavailable(error)) throw error;
    const figures = nominal(rule, Date.now());
    publish(c, figures);
    const fields = { request_id: c.get("requestId"), method: c.req.method, path: c.req.path, fail_mode: failMode, cause: error.message };
    if (failMode === "closed") {
      noteOutcome(c, "unavailable");
      throw new ApiError("service_unavailable", "Rate limiting is temporarily unavailable, so this request cannot be admitted. Retry with exponential backoff.", {
        headers: { "Retry-After": "1", ...rateLimitHeaders(figures) },
        cause: error,
      });
    }
    c.get("services")?.logger.warn("rate limiter unavailable; failing open", fields);
    noteOutcome(c, "fail_open");
    return { ...figures, degraded: true };
  }
  publish(c, decision);
  if (!decision.allowed) {
    noteOutcome(c, "limited");
    throw new ApiError("rate_limit_exceeded", `Rate limit exceeded: ${decision.limit} requests per ${rule.windowSeconds} s. Retry after ${decision.retryAfterSeconds} s.`, {
      headers: { "Retry-After": String(decision.retryAfterSeconds), ...rateLimitHeaders(decision) },
    });
  }
  noteOutcome(c, "allowed");
  return { ...decision, degraded: false };
}

/**
 * The default rule on every route it is mounted on (after authentication, so the principal is known).
 *
 * @example
 * app.use("/v1/*", rateLimit((c) => c.get("services").rateLimiter));
 */
export function rateLimit(getLimiter: GetLimiter, options: RateLimitOptions = {}): MiddlewareHandler<AppEnv> {
  const rule = options.rule ?? RATE_RULES.default;
  const keyOf = options.key ?? rateLimitKey;
  const failModeOf = (c: Context<AppEnv>): FailMode =>
    typeof options.failMode === "function" ? options.failMode(c) : (options.failMode ?? failModeFor(c.req.method, c.req.path));
  return createMiddleware<AppEnv>(async (c, next) => {
    await enforceRule(c, getLimiter(c), keyOf(c), rule, failModeOf(c));
    await next();
    // A handler that built its own Response bypassed c.header(); put the figures on it as well.
    const decision = published.get(c);
    if (!decision) return;
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) {
      try {
        c.res.headers.set(name, value);
      } catch {
        // immutable headers (a proxied Response): nothing more can be done
      }
    }
  });
}
