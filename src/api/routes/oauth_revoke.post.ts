// POST /oauth/revoke: token revocation (RFC 7009), for an app signing out.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { serveOAuthRequest } from "../oauth.ts";

export const route = defineRoute({
  method: "post",
  path: "/oauth/revoke",
  operationId: "revokeOAuthToken",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  bodyFormat: "form",
  summary: "Revoke a token (an app signing out)",
  description:
    "RFC 7009, form-encoded: `token` (an access or refresh token) and the client's authentication. Revoking a refresh token revokes the whole approval, as removing the app in Connected apps does. Answers 200 with an empty body, also for a token that was not live.",
  request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object", description: "token, token_type_hint, client authentication" } } } } },
  responses: {
    200: { description: "Revoked (or was not live)" },
  },
  errors: {},
  oauthErrors: { 400: ["invalid_request", "unsupported_token_type"], 401: ["invalid_client"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => answerAs(route, await serveOAuthRequest(c)));
}
