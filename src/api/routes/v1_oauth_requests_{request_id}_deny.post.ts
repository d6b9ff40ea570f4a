// POST /v1/oauth/requests/{request_id}/deny: the person's decision on an app's sign-in request.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { oauthRequestError } from "../oauth.ts";
import { DecisionSchema, RequestIdParamSchema } from "../schemas/oauth.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/oauth/requests/{request_id}/deny",
  operationId: "denyOAuthRequest",
  tag: "OAuth",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // grants or refuses access
  summary: "Deny an app's sign-in request",
  description: "The person denies: the browser, sent to `redirect_to`, returns to the app with `error=access_denied` (and its `state` and `iss`). Nothing is granted. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token. 404 request_not_found, 409 request_decided.",
  request: { params: RequestIdParamSchema },
  responses: { 200: { description: "Where the browser goes next", content: { "application/json": { schema: DecisionSchema } } } },
  errors: { 404: ["request_not_found"], 409: ["request_decided"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    try {
      return c.json(await services.oauth.decide(apiBaseOf(services), c.req.valid("param").request_id, c.get("principal").wallet, "deny"), 200);
    } catch (error) {
      throw oauthRequestError(error);
    }
  });
}
