// What the OAuth protocol routes share: each hands its request to the authorization server
// (src/oauth/server.ts) for the issuer the API is reached at, with the caller's address, and answers
// what it answers (OAuth's own JSON errors, redirects with `code`/`error`, `state` and `iss`); the
// platform's headers (request id, rate limits) are added around it as on every route.
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { apiBaseOf } from "../a2a/card.ts";
import { clientIp } from "./middleware/rate-limit.ts";
import { ApiError } from "../errors.ts";
import { OAuthRequestError } from "../oauth/server.ts";

export async function serveOAuthRequest(c: Context<AppEnv>): Promise<Response> {
  const services = c.get("services");
  const answer = await services.oauth.handle(apiBaseOf(services), c.req.raw, clientIp(c));
  // A fresh Response, so the platform can add its headers to it.
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** The authorization server's refusal of a sign-in request, as the API's error. */
export function oauthRequestError(error: unknown): unknown {
  if (error instanceof OAuthRequestError) return new ApiError(error.reason, error.message);
  return error;
}
