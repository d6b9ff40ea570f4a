// DELETE /v1/oauth/apps/{app_id}: revokes an app's access (Connected apps).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { defineRoute } from "../route.ts";
import { ApiError } from "../../errors.ts";

export const route = defineRoute({
  method: "delete",
  path: "/v1/oauth/apps/{app_id}",
  operationId: "revokeConnectedApp",
  tag: "OAuth",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Revoke an app's access",
  description:
    "Revokes the approval and every code, access token and refresh token issued under it, at once: the app's next request fails 401 invalid_token, and it must ask the person again. Another wallet's app is 404 not_found, as one that does not exist. Answers the revoked app's id and when it was revoked. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token.",
  request: { params: z.object({ app_id: z.string().openapi({ description: "The app_id of GET /v1/oauth/apps" }) }) },
  responses: {
    200: {
      description: "Revoked",
      content: { "application/json": { schema: z.object({ app_id: z.string(), revoked_at: z.string().openapi({ description: "ISO 8601" }) }).openapi("RevokedApp") } },
    },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const revoked = await c.get("services").oauth.revokeApp(c.get("principal").wallet, c.req.valid("param").app_id);
    if (!revoked) throw new ApiError("not_found", "No such connected app for this wallet.");
    return c.json({ app_id: c.req.valid("param").app_id, revoked_at: new Date().toISOString() }, 200);
  });
}
