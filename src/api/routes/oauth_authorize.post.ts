// POST /oauth/authorize: the authorization endpoint with its parameters form-encoded (OAuth 2.1 §4.1.1).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { serveOAuthRequest } from "../oauth.ts";

export const route = defineRoute({
  method: "post",
  path: "/oauth/authorize",
  operationId: "authorizeByForm",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  bodyFormat: "form",
  summary: "Start an app's sign-in, parameters in a form",
  description: "The authorization endpoint (GET /oauth/authorize) with its parameters in an `application/x-www-form-urlencoded` body; answered the same way.",
  request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object", description: "The authorization request's parameters" } } } } },
  responses: {
    302: { description: "To the dashboard's consent page, or back to the app with an error" },
    400: { description: "An unknown client, or a redirect URI it did not register (plain text)", content: { "text/plain": { schema: { type: "string" } } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) => serveOAuthRequest(c) as never);
}
