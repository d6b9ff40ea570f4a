// CORS for browser clients: the dashboard on its own origin in the cloud and any third-party browser
// app. Registered before authentication and rate limiting, so a preflight (OPTIONS, which carries no
// Authorization header) is answered here and never counted or refused as unauthenticated. Its answer
// still carries the rate-limit headers every response carries, with the default rule's figures as for
// any answer nothing was counted for (docs/reference/rate-limits.md).
import type { MiddlewareHandler } from "hono";
import { cors as honoCors } from "hono/cors";
import { nominalRateLimitHeaders, RATE_LIMIT_LIMIT_HEADER, RATE_LIMIT_REMAINING_HEADER, RATE_LIMIT_RESET_HEADER } from "./rate-limit.ts";
import { REQUEST_ID_HEADER } from "./request-id.ts";

/** Request headers a browser client may send beyond the CORS-safelisted ones. */
export const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID", REQUEST_ID_HEADER, "PAYMENT-SIGNATURE"];
/** (PAYMENT-SIGNATURE, PAYMENT-REQUIRED and PAYMENT-RESPONSE carry x402 payments on the execute routes.) */
/** Response headers a browser client may read (the rest are hidden from scripts by the browser). */
export const CORS_EXPOSED_HEADERS = [RATE_LIMIT_LIMIT_HEADER, RATE_LIMIT_REMAINING_HEADER, RATE_LIMIT_RESET_HEADER, "Retry-After", REQUEST_ID_HEADER, "X-Run-Id", "PAYMENT-REQUIRED", "PAYMENT-RESPONSE"];

/**
 * The CORS middleware for a list of allowed origins; `*` allows any origin. Credentials (cookies) are
 * never allowed: the API authenticates with a bearer header, so no origin gains ambient authority.
 *
 * @example app.use("*", cors(["https://dashboard.example.com"]))
 */
export function cors(origins: readonly string[]): MiddlewareHandler {
  const any = origins.includes("*");
  const allowed = new Set(origins);
  const answer = honoCors({
    // An origin not on the list gets no Access-Control-Allow-Origin header, so the browser refuses
    // the response; the request itself is still served normally to non-browser clients.
    origin: any ? "*" : (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    credentials: false,
  });
  return async (c, next) => {
    const preflight = await answer(c, next);
    // Hono's cors answers every OPTIONS itself, with a Response of its own (mutable headers).
    if (preflight instanceof Response) {
      for (const [name, value] of Object.entries(nominalRateLimitHeaders(Date.now()))) preflight.headers.set(name, value);
      return preflight;
    }
  };
}
