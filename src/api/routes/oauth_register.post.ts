// POST /oauth/register: dynamic client registration (RFC 7591).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { clientIp } from "../middleware/rate-limit.ts";
import { answerAs, defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "post",
  path: "/oauth/register",
  operationId: "registerOAuthClient",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "oauth", failMode: "closed" }, // stores a record for anyone who asks
  summary: "Register an app (dynamic client registration)",
  description:
    "RFC 7591: an app registers its metadata (`redirect_uris` required, each https or http on the loopback interface (127.0.0.1, [::1], localhost), otherwise 400 invalid_redirect_uri; `client_name`, `client_uri`, `logo_uri`, `grant_types` authorization_code and refresh_token, `token_endpoint_auth_method` none, client_secret_basic or client_secret_post) and gets its `client_id` (and a `client_secret` for a confidential client), answered 201. No registration access token: a registration cannot be read back or changed. Apps that can should use a Client ID Metadata Document instead (an https `client_id`; nothing to register). Limited to 20 registrations per minute per address, on top of the default rule. Bounded: the metadata at most 8 KiB, at most 10 redirect URIs, each URL at most 2,048 characters, `client_name` at most 200, any other list at most 10 entries (400 `invalid_client_metadata` or `invalid_redirect_uri`). A registered client lapses 7 days after its registration unless someone approves it (then it lives as long as the approval can, 90 days from the latest); one address holds at most 50 clients no one has approved yet (429 `too_many_clients`). Errors are OAuth's (`invalid_client_metadata`, `invalid_redirect_uri`, `too_many_clients`).",
  request: { body: { required: true, content: { "application/json": { schema: { type: "object", description: "The client's metadata (RFC 7591 §2)" } } } } },
  responses: {
    201: { description: "The registered client", content: { "application/json": { schema: { type: "object", required: ["client_id"], properties: { client_id: { type: "string" }, client_secret: { type: "string" } } } } } },
  },
  errors: {},
  // too_many_clients: the address holds 50 registered clients no one has approved yet; the per-minute
  // limit's 429 is the service's envelope (both are declared under 429).
  oauthErrors: { 400: ["invalid_request", "invalid_client_metadata", "invalid_redirect_uri"], 429: ["too_many_clients"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    // Bounded (sizes, redirect URIs, what one address holds) before the library reads it: src/oauth/registration.ts.
    const answer = await services.oauth.register(apiBaseOf(services), c.req.raw, clientIp(c));
    return answerAs(route, new Response(answer.body, { status: answer.status, headers: answer.headers }));
  });
}
