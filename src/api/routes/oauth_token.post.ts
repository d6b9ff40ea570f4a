// POST /oauth/token: the token endpoint (authorization code with PKCE, and refresh tokens, rotated).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { OAUTH_ERROR_SCHEMA, serveOAuthRequest } from "../oauth.ts";

const clientFields = {
  client_id: { type: "string" as const, description: "A public client's id (client_secret_basic sends it in the Authorization header instead)" },
  client_secret: { type: "string" as const, description: "client_secret_post only" },
  resource: { type: "string" as const, description: "RFC 8707: the resource the token is for (the one approved when none)" },
};

/** The token request, by grant type (RFC 6749 §4.1.3 with PKCE's code_verifier, and §6). */
const TOKEN_REQUEST_SCHEMA = {
  oneOf: [
    {
      type: "object" as const,
      title: "authorization_code",
      required: ["grant_type", "code", "code_verifier", "redirect_uri"],
      properties: {
        grant_type: { type: "string" as const, enum: ["authorization_code"] },
        code: { type: "string" as const, description: "The code the app received at its redirect URI (one use, one minute)" },
        code_verifier: { type: "string" as const, description: "PKCE: the verifier of the S256 challenge sent to /oauth/authorize" },
        redirect_uri: { type: "string" as const, description: "The redirect URI the authorization used" },
        ...clientFields,
      },
    },
    {
      type: "object" as const,
      title: "refresh_token",
      required: ["grant_type", "refresh_token"],
      properties: {
        grant_type: { type: "string" as const, enum: ["refresh_token"] },
        refresh_token: { type: "string" as const, description: "The latest refresh token (each is spent by its use)" },
        scope: { type: "string" as const, description: "A narrower scope than the one approved" },
        ...clientFields,
      },
    },
  ],
};

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
  // One schema per grant type. Described, not checked here: the authorization server reads the form and
  // answers OAuth's own errors (RFC 6749 §5.2), which the service's envelope would not be.
  request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: TOKEN_REQUEST_SCHEMA } } } },
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
