// DELETE /v1/mcp: ends an MCP session, of which this endpoint has none: it is stateless (no
// Mcp-Session-Id), so DELETE always answers 405 with Allow: POST.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { defineRoute } from "../route.ts";

const MESSAGE = "The MCP endpoint is stateless and has no session to end: send JSON-RPC messages with POST /v1/mcp.";

export const route = defineRoute({
  method: "delete",
  path: "/v1/mcp",
  operationId: "endMcpSession",
  tag: "Execution",
  access: "bearer",
  oauthScope: "tasks:run",
  checksOrigin: true,
  rateLimit: { rule: "default", failMode: "open" }, // answers 405 and changes nothing
  summary: "End an MCP session (not offered)",
  description: `Always 405 method_not_allowed with \`Allow: POST\`. ${MESSAGE}`,
  responses: {},
  errors: { 405: ["method_not_allowed"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, () => {
    throw new ApiError("method_not_allowed", MESSAGE, { headers: { Allow: "POST" } });
  });
}
