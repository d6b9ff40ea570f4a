// POST /v1/oauth/requests/{request_id}/approve: the person's decision on an app's sign-in request.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { oauthRequestError } from "../oauth.ts";
import { DecisionSchema, RequestIdParamSchema } from "../schemas/oauth.ts";
import { SpendLimitsInputSchema } from "../schemas/spend.ts";
import { limitCurrencies, parseSpendLimits } from "../../execution/money/spend-limits.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/oauth/requests/{request_id}/approve",
  operationId: "approveOAuthRequest",
  tag: "OAuth",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // grants or refuses access
  summary: "Approve an app's sign-in request",
  description: "The person (the wallet signed in) approves: a grant of the asked scopes on the asked resources to the app, for 90 days or until revoked in Connected apps. Answers where to send the browser (`redirect_to`, on the API's origin), which then returns to the app with a code. Only the browser that started the sign-in can finish it. The optional `spend_limits` are the app's spending limits as the person set them (the consent page shows what the app proposed, `proposed_spend_limits`); a bad limit is 400 invalid_request and nothing is approved. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token. 404 request_not_found for an unknown or expired request, 409 request_decided for one already approved or denied.",
  request: {
    params: RequestIdParamSchema,
    body: { content: { "application/json": { schema: z.object({ spend_limits: SpendLimitsInputSchema.optional() }).strict().openapi("OAuthApproval") } }, required: false },
  },
  responses: { 200: { description: "Where the browser goes next", content: { "application/json": { schema: DecisionSchema } } } },
  errors: { 400: ["invalid_request"], 404: ["request_not_found"], 409: ["request_decided"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const spendLimits = parseSpendLimits(((await c.req.json().catch(() => ({}))) as { spend_limits?: unknown }).spend_limits ?? [], "spend_limits", limitCurrencies(services.chain.tokens));
    try {
      return c.json(await services.oauth.decide(apiBaseOf(services), c.req.valid("param").request_id, c.get("principal").wallet, "approve", spendLimits), 200);
    } catch (error) {
      throw oauthRequestError(error);
    }
  });
}
