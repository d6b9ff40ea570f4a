// GET /.well-known/oauth-authorization-server: the authorization server's metadata (RFC 8414).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { apiBaseOf } from "../../a2a/card.ts";

export const route = defineRoute({
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  operationId: "getAuthorizationServerMetadata",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get the authorization server's metadata",
  description:
    "RFC 8414 metadata of the service's OAuth 2.1 authorization server: `issuer` (the API's base URL), the authorization, token, registration and revocation endpoints, `response_types_supported` code, `grant_types_supported` authorization_code and refresh_token, `code_challenge_methods_supported` S256 only, `token_endpoint_auth_methods_supported`, `scopes_supported`, `authorization_response_iss_parameter_supported` (RFC 9207) and `client_id_metadata_document_supported`. Needs no token; cacheable for an hour.",
  responses: {
    200: {
      description: "The metadata",
      content: { "application/json": { schema: { type: "object", required: ["issuer", "authorization_endpoint", "token_endpoint"], additionalProperties: true, properties: { issuer: { type: "string" }, authorization_endpoint: { type: "string" }, token_endpoint: { type: "string" }, registration_endpoint: { type: "string" } } } } },
    },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    c.header("Cache-Control", "public, max-age=3600");
    return answerAs(route, c.json(await services.oauth.metadata(apiBaseOf(services)), 200));
  });
}
