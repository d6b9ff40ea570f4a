// POST /v1/keys: creates an API key from a signed key request. The key is in this response only.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Hex } from "viem";
import type { AppEnv } from "../env.ts";
import { createApiKey } from "../../auth/api-keys.ts";
import { ApiKeySchema } from "../schemas/keys.ts";
import { SignatureSchema } from "../schemas/common.ts";
import { defineRoute } from "../route.ts";
import { SpendLimitsInputSchema } from "../schemas/spend.ts";
import { limitCurrencies, parseSpendLimits } from "../../execution/money/spend-limits.ts";
import { withSpending } from "../spending.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/keys",
  operationId: "createApiKey",
  tag: "Keys",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // mints a long-lived API key
  summary: "Create an API key",
  description: "Exchanges the signed message from POST /v1/keys/challenge for a new API key, scoped to the wallet. The key is shown once; only its hash is stored. A key does not expire; revoke it with DELETE /v1/keys/{key_id}. Optional `spend_limits` bound what the key may spend on per-task runs (per day or month, UTC, or in total; change them with PATCH /v1/keys/{key_id}); a run past one is refused with 402 spend_limit_reached. A bad limit is 400 invalid_request and no key is created.",
  request: {
    body: { content: { "application/json": { schema: z.object({ nonce: z.string().regex(/^[0-9a-f]{32}$/, "must be the nonce from POST /v1/keys/challenge"), signature: SignatureSchema, spend_limits: SpendLimitsInputSchema.optional() }).openapi("ApiKeyCreate") } }, required: true },
  },
  responses: {
    201: { description: "The new key", content: { "application/json": { schema: ApiKeySchema.extend({ key: z.string().openapi({ description: "The API key; shown only here" }) }).openapi("ApiKeyCreated") } } },
  },
  errors: { 400: ["invalid_request"], 401: ["invalid_signature"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const body = c.req.valid("json");
    // The limits are checked before the key request is taken: a bad limit creates nothing.
    const spendLimits = parseSpendLimits(body.spend_limits ?? [], "spend_limits", limitCurrencies(services.chain.tokens));
    const created = await createApiKey({ tables: services.tables, chain: services.chain, keyPrefix: services.config.keyPrefix }, c.get("principal").wallet, { nonce: body.nonce, signature: body.signature as Hex, spendLimits });
    return c.json(await withSpending(services, { kind: "key", id: created.key_id }, created), 201);
  });
}
