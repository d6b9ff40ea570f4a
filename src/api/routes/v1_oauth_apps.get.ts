// GET /v1/oauth/apps: Connected apps, the wallet's approvals of apps signed in with OAuth.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { withSpending } from "../spending.ts";
import { ConnectedAppSchema } from "../schemas/oauth.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/oauth/apps",
  operationId: "listConnectedApps",
  tag: "OAuth",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List the apps with access (Connected apps)",
  description:
    "Every live approval the wallet gave an app: the app (name, client id, kind, redirect host), its scopes and resources, when it was approved and lapses, the last request made with its tokens, and each spending limit with what was spent this period and what remains. Oldest first. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token.",
  responses: { 200: { description: "The apps", content: { "application/json": { schema: z.object({ apps: z.array(ConnectedAppSchema) }) } } } },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const apps = await services.oauth.connectedApps(c.get("principal").wallet);
    return c.json({ apps: await Promise.all(apps.map((found) => withSpending(services, { kind: "app", id: found.app_id }, found))) }, 200);
  });
}
