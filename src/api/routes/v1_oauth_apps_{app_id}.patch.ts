// PATCH /v1/oauth/apps/{app_id}: changes a connected app's spending limits.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { limitCurrencies, parseSpendLimits } from "../../execution/money/spend-limits.ts";
import { ConnectedAppSchema } from "../schemas/oauth.ts";
import { SpendLimitsInputSchema } from "../schemas/spend.ts";
import { requireWalletSignIn, withSpending } from "../spending.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "patch",
  path: "/v1/oauth/apps/{app_id}",
  operationId: "updateConnectedApp",
  tag: "OAuth",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // lifts or lowers what an app may spend
  summary: "Change an app's spending limits",
  description:
    "Replaces the connected app's `spend_limits` (as set on the consent page; `[]` removes every limit). A limit kept over the same currency and period keeps counting what was spent this period; a limit over a period that had none counts from when it is set. Called with a wallet sign-in (JWT) only: never with an OAuth access token (an app cannot change its own limit) nor an API key (403 forbidden). A bad limit is 400 invalid_request and nothing changes. Another wallet's app is 404 not_found.",
  request: {
    params: z.object({ app_id: z.string().openapi({ description: "The app_id of GET /v1/oauth/apps" }) }),
    body: { content: { "application/json": { schema: z.object({ spend_limits: SpendLimitsInputSchema }).strict().openapi("ConnectedAppUpdate") } }, required: true },
  },
  responses: { 200: { description: "The app with its limits", content: { "application/json": { schema: ConnectedAppSchema } } } },
  errors: { 400: ["invalid_request"], 403: ["forbidden"], 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const principal = c.get("principal");
    requireWalletSignIn(principal, "an app");
    const limits = parseSpendLimits(c.req.valid("json").spend_limits, "spend_limits", limitCurrencies(services.chain.tokens));
    const appId = c.req.valid("param").app_id;
    if (!(await services.oauth.setAppSpendLimits(principal.wallet, appId, limits))) throw new ApiError("not_found", "No such connected app for this wallet.");
    const found = (await services.oauth.connectedApps(principal.wallet)).find((a) => a.app_id === appId);
    if (!found) throw new ApiError("not_found", "No such connected app for this wallet.");
    return c.json(await withSpending(services, { kind: "app", id: appId }, found), 200);
  });
}
