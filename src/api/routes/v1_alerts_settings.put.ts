// PUT /v1/alerts/settings: sets where the wallet's alerts go and when a low balance alerts.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { putAlertSettings } from "../../alerts/alert-settings.store.ts";
import { checkWebhookUrl } from "../../alerts/webhook-url.ts";
import { AlertSettingsInputSchema, AlertSettingsSchema } from "../schemas/alerts.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "put",
  path: "/v1/alerts/settings",
  operationId: "setAlertSettings",
  tag: "Alerts",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "closed" }, // makes a signing secret and points deliveries at a URL
  summary: "Set alert settings",
  description:
    "Sets the wallet's alert webhook (an https URL, or null for dashboard notices only) and the low-balance threshold in runs. The first call, and any with `rotate_secret`, makes the webhook's signing secret (Standard Webhooks, `whsec_…`) and returns it in this answer only. Alerts are raised at 80% and 100% of every spending limit of the wallet's keys and apps, and when a per-task balance falls below the threshold, once per crossing; each is delivered signed, retried with backoff. Called with a wallet sign-in (JWT) only: a key or app cannot redirect its holder's alerts (403 forbidden).",
  request: { body: { content: { "application/json": { schema: AlertSettingsInputSchema } }, required: true } },
  responses: { 200: { description: "The settings (with the secret when one was made)", content: { "application/json": { schema: AlertSettingsSchema } } } },
  errors: { 400: ["invalid_request"], 403: ["forbidden"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const principal = c.get("principal");
    if (principal.method !== "jwt") throw new ApiError("forbidden", "Changing alert settings needs a wallet sign-in (a JWT from POST /v1/auth/token): a key or an app could otherwise send its holder's alerts elsewhere.");
    const body = c.req.valid("json");
    const url = body.webhook_url === null ? null : checkWebhookUrl(body.webhook_url, services.config.ALLOW_PRIVATE_AGENT_HOSTS);
    const { webhook, secret } = await putAlertSettings(services, principal.wallet, { url, lowBalanceRuns: body.low_balance_runs, rotate: body.rotate_secret });
    return c.json(
      { webhook_url: webhook.url, low_balance_runs: webhook.lowBalanceRuns, ...(secret ? { webhook_secret: secret } : {}), created_at: webhook.createdAt, updated_at: webhook.updatedAt },
      200,
    );
  });
}
