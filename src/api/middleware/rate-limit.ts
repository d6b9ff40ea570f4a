// Rate limiting of every route by what the route declares (route.ts: its rule and its fail mode): the
// default rule keyed by the caller, the execution rule for routes that run tasks, the three
// X-RateLimit-* headers on every response (errors included), 429 rate_limit_exceeded with Retry-After,
// and 503 or an uncounted pass when the limiter's store is unreachable.
import { BlockList, isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../errors.ts";
import type { Principal } from "../../auth/principal.ts";
import { isRateLimiterUnavailable, fixedWindow, type RateDecision, type RateLimiter, type RateRule } from "../../adapters/ratelimit/port.ts";
import { executionKey, executionRule, RATE_RULES, type FailMode } from "../../adapters/ratelimit/policy.ts";
import type { AppEnv, RateLimitOutcome } from "../env.ts";
import type { RouteRateLimit } from "../route.ts";

export const RATE_LIMIT_LIMIT_HEADER = "X-RateLimit-Limit";
export const RATE_LIMIT_REMAINING_HEADER = "X-RateLimit-Remaining";
export const RATE_LIMIT_RESET_HEADER = "X-RateLimit-Reset";

/** Picks the limiter for a request, typically from the services (`(c) => c.get("services").rateLimiter`). */
export type GetLimiter = (c: Context<AppEnv>) => RateLimiter;

export interface RateLimitOptions {
  /** The limiter (default: the services' `rateLimiter`). */
  limiter?: GetLimiter;
  /** The figures of the default rule (default: RATE_RULES.default, 100 per 60 s). */
  rule?: RateRule;
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

/** The address families Node's BlockList works with. */
function familyOf(address: string): "ipv4" | "ipv6" | undefined {
  const version = isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : undefined;
}

/** An IPv4 client seen on a dual-stack socket (`::ffff:203.0.113.7`) is the IPv4 address. */
function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/**
 * The proxies whose X-Forwarded-For is believed, from TRUSTED_PROXIES (addresses and CIDR ranges,
 * comma-separated). Node's BlockList does the range matching (IPv4 and IPv6).
 *
 * @example
 * const trusted = trustedProxies(["10.0.0.0/8", "::1"]);
 */
export function trustedProxies(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const family = familyOf(address);
    if (!family) throw new Error(`not an IP address or CIDR range: ${entry}`);
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const plain = plainAddress(address);
    const family = familyOf(plain);
    return family !== undefined && list.check(plain, family);
  };
}

const trustCache = new WeakMap<readonly string[], (address: string) => boolean>();

function trustOf(entries: readonly string[]): (address: string) => boolean {
  let trust = trustCache.get(entries);
  if (!trust) trustCache.set(entries, (trust = trustedProxies(entries)));
  return trust;
}

/**
 * The client named by X-Forwarded-For behind `peer`: hops are read from the right (the nearest proxy
 * appends last), skipping trusted proxies; the first untrusted hop is the client. A malformed hop ends
 * the walk at the last trusted address, so a forged entry cannot be reached through it.
 */
function forwardedClient(peer: string, header: string | undefined, trusted: (address: string) => boolean): string {
  let client = peer;
  const hops = (header ?? "").split(",").map((hop) => hop.trim()).filter(Boolean);
  while (trusted(client) && hops.length > 0) {
    const next = plainAddress(hops.pop()!);
    if (!familyOf(next)) break;
    client = next;
  }
  return client;
}

/** The caller's address, which decides its rate-limit bucket on public routes. The peer is the address
 * the platform saw, which a client cannot forge: on Lambda the source address API Gateway recorded in
 * the event, on the Node server the socket's peer. Only when that peer is one of the configured
 * TRUSTED_PROXIES (by default none) is its X-Forwarded-For believed, read from the right. Every server
 * the service ships hands the app the socket (src/api/server.ts, and the dashboard in front of it,
 * local/dashboard.ts). Only a request handed to the app in-process (no socket, no event: the caller is
 * code of this process, as in tests) is keyed by the first X-Forwarded-For hop, as that caller chose it. */
export function clientIp(c: Context<AppEnv>): string | undefined {
  const env = c.env as
    | { requestContext?: { identity?: { sourceIp?: unknown }; http?: { sourceIp?: unknown } }; incoming?: IncomingMessage }
    | undefined;
  const source = env?.requestContext?.identity?.sourceIp ?? env?.requestContext?.http?.sourceIp;
  const peer = typeof source === "string" && familyOf(plainAddress(source)) ? source : env?.incoming?.socket?.remoteAddress;
  const header = c.req.header("x-forwarded-for");
  if (peer !== undefined) {
    const trusted = trustOf(c.get("services")?.config.TRUSTED_PROXIES ?? []);
    return forwardedClient(plainAddress(peer), header, trusted);
  }
  // A socket already closed has no peer address any more: its request counts as anonymous, never by
  // the header it carried.
  if (env?.incoming !== undefined) return undefined;
  const first = header?.split(",")[0]?.trim();
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

/** The headers of a request that never reached the limiter (refused by the HTTP server before
 * routing, so its key is unknown and nothing was counted): the default rule's figures, like a
 * fail-open decision. */
export function nominalRateLimitHeaders(nowMs: number): Record<string, string> {
  return rateLimitHeaders(nominal(RATE_RULES.default, nowMs));
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
 * // a refused caller, counted by address under the default rule
 * await enforceRule(c, c.get("services").rateLimiter, rateLimitKey(c), RATE_RULES.default, "open");
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

const servicesLimiter: GetLimiter = (c) => c.get("services").rateLimiter;

/**
 * The rate limiting a route declares, as middleware in front of its handler (after authentication, so
 * the principal is known): the default rule, with the route's fail mode. On a route that declares the
 * execution rule it also provides `limitExecution`, which the run's admission calls once the listing
 * is known.
 *
 * @example
 * app.on("POST", "/v1/execute", authenticate, rateLimit({ rule: "execution", failMode: "closed" }), handler);
 */
export function rateLimit(declared: RouteRateLimit, options: RateLimitOptions = {}): MiddlewareHandler<AppEnv> {
  const rule = options.rule ?? RATE_RULES.default;
  const keyOf = options.key ?? rateLimitKey;
  const limiterOf = options.limiter ?? servicesLimiter;
  return createMiddleware<AppEnv>(async (c, next) => {
    await enforceRule(c, limiterOf(c), keyOf(c), rule, declared.failMode);
    if (declared.rule === "oauth") await enforceRule(c, limiterOf(c), `oauth:${keyOf(c)}`, RATE_RULES.oauth, declared.failMode);
    if (declared.rule === "execution") {
      c.set("limitExecution", async (listingId, perListingLimit) => {
        await enforceRule(c, limiterOf(c), executionKey(listingId, c.get("principal").wallet), executionRule(perListingLimit), declared.failMode);
      });
    }
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

/**
 * Applies the task execution rule to a run of `listingId` by the caller, with the route's fail mode
 * (the listing's own per-minute figure when it has one). Only a route that declares the execution rule
 * can run tasks: anywhere else this is a programming error.
 */
export async function limitExecution(c: Context<AppEnv>, listingId: string, perListingLimit?: number | null): Promise<void> {
  const limit = c.get("limitExecution");
  if (!limit) throw new Error(`${c.req.method} ${c.req.path} runs a task but does not declare the execution rate rule`);
  await limit(listingId, perListingLimit);
}
