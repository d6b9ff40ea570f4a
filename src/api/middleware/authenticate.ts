// Authentication (step one of the two-step check): `Authorization: Bearer <API key or JWT>`, in front
// of every route of the authenticated group (route-groups.ts); public routes are mounted without it.
// Proves identity only; access to a listing is checked per route.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../errors.ts";
import { RATE_RULES } from "../../adapters/ratelimit/policy.ts";
import { enforceRule, rateLimitKey } from "./rate-limit.ts";
import type { AppEnv } from "../env.ts";

/** A bearer token is printable ASCII without spaces; anything longer than this is not one of ours. */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;

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
