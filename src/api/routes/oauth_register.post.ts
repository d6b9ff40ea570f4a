// POST /oauth/register: dynamic client registration (RFC 7591).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { clientIp } from "../middleware/rate-limit.ts";
import { defineRoute } from "../route.ts";
import { OAUTH_ERROR_SCHEMA } from "../oauth.ts";
import { redirectUriProblem } from "../../oauth/resources.ts";

export const route = defineRoute({
  method: "post",
  path: "/oauth/register",
  operationId: "registerOAuthClient",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "oauth", failMode: "closed" }, // stores a record for anyone who asks
  summary: "Register an app (dynamic client registration)",
  description:
    "RFC 7591: an app registers its metadata (`redirect_uris` required, each https or http on the loopback interface (127.0.0.1, [::1], localhost), otherwise 400 invalid_redirect_uri; `client_name`, `client_uri`, `logo_uri`, `grant_types` authorization_code and refresh_token, `token_endpoint_auth_method` none, client_secret_basic or client_secret_post) and gets its `client_id` (and a `client_secret` for a confidential client), answered 201. No registration access token: a registration cannot be read back or changed. Apps that can should use a Client ID Metadata Document instead (an https `client_id`; nothing to register). Limited to 20 registrations per minute per address, on top of the default rule. Errors are OAuth's (`invalid_client_metadata`, `invalid_redirect_uri`).",
  request: { body: { required: true, content: { "application/json": { schema: { type: "object", description: "The client's metadata (RFC 7591 §2)" } } } } },
  responses: {
    201: { description: "The registered client", content: { "application/json": { schema: { type: "object", required: ["client_id"], properties: { client_id: { type: "string" }, client_secret: { type: "string" } } } } } },
    400: { description: "An OAuth error", content: { "application/json": { schema: OAUTH_ERROR_SCHEMA } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    // OAuth 2.1 §2.3.1's rule on redirect URIs, which the library leaves to its users: https, or http on
    // the loopback interface (a desktop app's listener). Read here (the body is bounded), then handed on.
    const text = await c.req.text();
    let metadata: unknown;
    try {
      metadata = JSON.parse(text);
    } catch {
      metadata = undefined;
    }
    const uris = (metadata as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    const problem = Array.isArray(uris) ? uris.map((uri) => (typeof uri === "string" ? redirectUriProblem(uri) : null)).find((p) => p !== null) : undefined;
    if (problem) {
      return c.json({ error: "invalid_redirect_uri", error_description: problem }, 400, { "Cache-Control": "no-store" }) as never;
    }
    const request = new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body: text });
    const services = c.get("services");
    const answer = await services.oauth.handle(apiBaseOf(services), request, clientIp(c));
    return new Response(answer.body, { status: answer.status, headers: answer.headers }) as never;
  });
}
