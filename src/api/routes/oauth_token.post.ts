// POST /oauth/token: the token endpoint (authorization code with PKCE, and refresh tokens, rotated).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { serveOAuthRequest } from "../oauth.ts";
import { readTokenRequest, tokenRequestJsonSchema } from "../../oauth/token-request.ts";
import { OAuthError } from "../../oauth/errors.ts";

export const route = defineRoute({
  method: "post",
  path: "/oauth/token",
  operationId: "issueOAuthToken",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "closed" }, // mints access: refuse when the limiter cannot count
  bodyFormat: "form",
  summary: "Exchange a code or a refresh token for tokens",
  description:
    "OAuth 2.1's token endpoint, form-encoded. `grant_type=authorization_code` with `code`, `code_verifier` (PKCE S256), `redirect_uri` and `resource`; `grant_type=refresh_token` with `refresh_token` (and optionally a narrower `scope` or `resource`). Public clients (token_endpoint_auth_method none) send `client_id`; confidential ones authenticate with client_secret_basic or client_secret_post. Answers `access_token` (opaque, one hour), `token_type` Bearer, `expires_in`, `scope` and a new `refresh_token`: every refresh returns a new one and the old one is spent; presenting a spent refresh token, or a code a second time, revokes the whole approval (every token of it). Errors are OAuth's (`invalid_grant` for a wrong verifier, an expired or replayed code or refresh token; `invalid_client`; `invalid_target` for a resource not of this server), never cached.",
  // One schema per grant type (src/oauth/token-request.ts), checked by the handler: a refusal is OAuth's
  // error object (RFC 6749 §5.2), which the service's envelope would not be.
  request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: tokenRequestJsonSchema() } } } },
  responses: {
    200: {
      description: "The tokens",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["access_token", "token_type", "expires_in"],
            properties: { access_token: { type: "string" }, token_type: { type: "string", enum: ["Bearer"] }, expires_in: { type: "integer" }, scope: { type: "string" }, refresh_token: { type: "string" } },
          },
        },
      },
    },
  },
  errors: {},
  oauthErrors: { 400: ["invalid_request", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "invalid_target"], 401: ["invalid_client"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    try {
      readTokenRequest(new URLSearchParams(await c.req.raw.clone().text()));
    } catch (error) {
      if (error instanceof OAuthError) return answerAs(route, error.toResponse());
      throw error;
    }
    return answerAs(route, await serveOAuthRequest(c));
  });
}
