// PATCH /v1/keys/{key_id}: changes an API key's spending limits.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { setApiKeySpendLimits } from "../../auth/api-keys.ts";
import { limitCurrencies, parseSpendLimits } from "../../execution/money/spend-limits.ts";
import { ApiKeySchema } from "../schemas/keys.ts";
import { SpendLimitsInputSchema } from "../schemas/spend.ts";
import { requireWalletSignIn, withSpending } from "../spending.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "patch",
  path: "/v1/keys/{key_id}",
  operationId: "updateApiKey",
  tag: "Keys",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // lifts or lowers what a key may spend
  summary: "Change an API key's spending limits",
  description:
    "Replaces the key's `spend_limits` (an amount of wei per day or per month, UTC, or in total, per currency; `[]` removes every limit). A limit kept over the same currency and period keeps counting what was spent this period (a limit lowered under it refuses the next run at once); a limit over a period that had none counts from when it is set. Runs already admitted keep what they hold. Called with a wallet sign-in (JWT) only: an API key cannot change limits (403 forbidden), so a key given away cannot lift its own. A bad limit is 400 invalid_request and nothing changes. Another wallet's key is not found.",
  request: {
    params: z.object({ key_id: z.string().max(64) }),
    body: { content: { "application/json": { schema: z.object({ spend_limits: SpendLimitsInputSchema }).strict().openapi("ApiKeyUpdate") } }, required: true },
  },
  responses: { 200: { description: "The key with its limits", content: { "application/json": { schema: ApiKeySchema } } } },
  errors: { 400: ["invalid_request"], 403: ["forbidden"], 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const principal = c.get("principal");
    requireWalletSignIn(principal, "a key");
    const limits = parseSpendLimits(c.req.valid("json").spend_limits, "spend_limits", limitCurrencies(services.chain.tokens));
    const key = await setApiKeySpendLimits(services.tables, principal.wallet, c.req.valid("param").key_id, limits);
    return c.json(await withSpending(services, { kind: "key", id: key.key_id }, key), 200);
  });
}
