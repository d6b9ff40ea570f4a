// GET /v1/alerts/settings: where the wallet's alerts go, and its low-balance threshold.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
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
  description: "The wallet's webhook URL and low-balance threshold, never the signing secret. Before any are set: no webhook, no threshold, and null times (limit alerts are still raised and listed).",
  responses: { 200: { description: "The settings", content: { "application/json": { schema: AlertSettingsSchema } } } },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const settings = await getAlertSettings(c.get("services"), c.get("principal").wallet);
    if (!settings) return c.json({ webhook_url: null, low_balance_runs: null, created_at: null, updated_at: null }, 200);
    return c.json({ webhook_url: settings.url, low_balance_runs: settings.lowBalanceRuns, created_at: settings.createdAt, updated_at: settings.updatedAt }, 200);
  });
}
