// GET /oauth/authorize: the authorization endpoint (OAuth 2.1 authorization code with PKCE).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { serveOAuthRequest } from "../oauth.ts";

export const route = defineRoute({
  method: "get",
  path: "/oauth/authorize",
  operationId: "authorize",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Start an app's sign-in (authorization endpoint)",
  description:
    "OAuth 2.1's authorization endpoint: `response_type=code`, `client_id` (a registered client's id, or the https URL of the app's client metadata document), `redirect_uri` (one the client registered), `code_challenge` with `code_challenge_method=S256` (required; no other method), `scope` (tasks:run, credentials:read, listings:read; tasks:run when none), `resource` (RFC 8707: the API's base URL, `{api}/v1/mcp` or `{api}/a2a/{agent_id}`; the base URL when none), `state`. A valid request is redirected (302) to the dashboard's /connect page, where the person signs in with their wallet and approves or denies; the app then gets `code`, `state` and `iss` (RFC 9207), or `error=access_denied`. A request whose client or redirect URI cannot be trusted is answered 400 here, in plain text, never redirected; other errors are redirected to the app with `error`, `state` and `iss`.",
  responses: {
    302: { description: "To the dashboard's consent page, or back to the app with an error" },
    400: { description: "An unknown client, or a redirect URI it did not register (plain text; nothing is redirected)", content: { "text/plain": { schema: { type: "string" } } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => answerAs(route, await serveOAuthRequest(c)));
}
