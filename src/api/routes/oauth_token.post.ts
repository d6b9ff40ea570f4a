// POST /oauth/token: the token endpoint (authorization code with PKCE, and refresh tokens, rotated).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { OAUTH_ERROR_SCHEMA, serveOAuthRequest } from "../oauth.ts";

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
  request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object", description: "The token request's parameters (RFC 6749 §4.1.3, §6)" } } } } },
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
    400: { description: "An OAuth error", content: { "application/json": { schema: OAUTH_ERROR_SCHEMA } } },
    401: { description: "invalid_client: the client could not be authenticated", content: { "application/json": { schema: OAUTH_ERROR_SCHEMA } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => answerAs(route, await serveOAuthRequest(c)));
}
