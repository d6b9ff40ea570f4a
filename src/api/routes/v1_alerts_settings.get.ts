// GET /v1/alerts/settings: where the wallet's alerts go, and its low-balance threshold.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { getAlertSettings } from "../../alerts/alert-settings.store.ts";
import { AlertSettingsSchema } from "../schemas/alerts.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/alerts/settings",
  operationId: "getAlertSettings",
  tag: "Alerts",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get alert settings",
  description: "The wallet's webhook URL and low-balance threshold, never the signing secret. 404 not_found until they are set with PUT.",
  responses: { 200: { description: "The settings", content: { "application/json": { schema: AlertSettingsSchema } } } },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const settings = await getAlertSettings(c.get("services"), c.get("principal").wallet);
    if (!settings) throw new ApiError("not_found", "No alert settings yet: set them with PUT /v1/alerts/settings.");
    return c.json({ webhook_url: settings.url, low_balance_runs: settings.lowBalanceRuns, created_at: settings.createdAt, updated_at: settings.updatedAt }, 200);
  });
}
