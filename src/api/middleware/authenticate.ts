// Authentication (step one of the two-step check): `Authorization: Bearer <API key or JWT>` on every
// endpoint except the public ones. Proves identity only; access to a listing is checked per route.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../errors.ts";
import { RATE_RULES } from "../../adapters/ratelimit/policy.ts";
import { enforceRule, rateLimitKey } from "./rate-limit.ts";
import type { AppEnv } from "../env.ts";

/** Paths served without a bearer token: sign-in, the API description and its rendered reference, the
 * health check, and the metadata gateway (below). */
const PUBLIC_PATHS = new Set(["/v1/auth/challenge", "/v1/auth/token", "/v1/openapi.json", "/v1/docs", "/v1/docs/scalar.js", "/v1/health"]);
/** A bearer token is printable ASCII without spaces; anything longer than this is not one of ours. */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;

export function isPublicPath(path: string): boolean {
  // Listings' public metadata is public by definition.
  return PUBLIC_PATHS.has(path) || path.startsWith("/v1/metadata/");
}

async function principalOf(c: Context<AppEnv>) {
  const header = c.req.header("authorization");
  if (!header) throw new ApiError("unauthorized", "Missing Authorization header: send Authorization: Bearer <API key or JWT>.");
  const match = /^Bearer +(.+)$/i.exec(header.trim());
  if (!match || !TOKEN.test(match[1]!)) {
    throw new ApiError("unauthorized", "Malformed Authorization header: expected Bearer <API key or JWT>.");
  }
  return c.get("services").authenticator.authenticate(match[1]!);
}

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  if (isPublicPath(c.req.path)) return next();
  try {
    c.set("principal", await principalOf(c));
  } catch (error) {
    // A refused caller is counted by address under the default rule: the 401 carries the rate-limit
    // headers like every response, and guessing keys or tokens runs into 429.
    if (error instanceof ApiError && error.status === 401) {
      await enforceRule(c, c.get("services").rateLimiter, rateLimitKey(c), RATE_RULES.default, "open");
    }
    throw error;
  }
  return next();
});
