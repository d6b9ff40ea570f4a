// GET /v1/oauth/requests/{request_id}: an app's sign-in request, as the consent page shows it.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { oauthRequestError } from "../oauth.ts";
import { ConsentRequestSchema, RequestIdParamSchema } from "../schemas/oauth.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/oauth/requests/{request_id}",
  operationId: "getOAuthRequest",
  tag: "OAuth",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Read an app's sign-in request",
  description:
    "What the dashboard's consent page shows: which app asks (its name as it gives it, its client id and whether that id is a metadata document URL or a registration, the host the browser returns to) and for what (the scopes in words, the resources). Called with the person's wallet sign-in (a JWT) or an API key; never with an OAuth access token. An unknown or expired request: 404 request_not_found.",
  request: { params: RequestIdParamSchema },
  responses: { 200: { description: "The request", content: { "application/json": { schema: ConsentRequestSchema } } } },
  errors: { 404: ["request_not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    try {
      return c.json(await services.oauth.consentRequest(apiBaseOf(services), c.req.valid("param").request_id), 200);
    } catch (error) {
      throw oauthRequestError(error);
    }
  });
}
