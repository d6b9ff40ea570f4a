// GET /v1/alerts: the wallet's newest alerts, with their delivery (the dashboard's notices).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { listAlerts } from "../../alerts/alert.store.ts";
import { AlertSchema } from "../schemas/alerts.ts";
import { defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/alerts",
  operationId: "listAlerts",
  tag: "Alerts",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List alerts",
  description: "The wallet's alerts, newest first (at most `limit`, default 20, up to 100): each crossing of a spending limit's 80% or 100%, or of the low-balance threshold, with what crossed and how its webhook delivery went.",
  request: { query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "How many, newest first (1 to 100)" }) }) },
  responses: { 200: { description: "The alerts, newest first", content: { "application/json": { schema: z.object({ alerts: z.array(AlertSchema) }).openapi("AlertList") } } } },
  errors: { 400: ["invalid_request"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const alerts = await listAlerts(services.tables, c.get("principal").wallet, c.req.valid("query").limit);
    return c.json({ alerts: alerts.map(({ wallet: _wallet, ...alert }) => alert) }, 200);
  });
}
