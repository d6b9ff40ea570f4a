// GET /v1/mcp: a standalone MCP event stream, which this endpoint does not offer: it is stateless (POST
// /v1/mcp serves each message on its own), so GET always answers 405 with Allow: POST, as Streamable
// HTTP permits.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { defineRoute } from "../route.ts";

const MESSAGE = "The MCP endpoint is stateless and offers no standalone event stream: send JSON-RPC messages with POST /v1/mcp.";

export const route = defineRoute({
  method: "get",
  path: "/v1/mcp",
  operationId: "openMcpStream",
  tag: "Execution",
  access: "bearer",
  oauthScope: "tasks:run",
  checksOrigin: true,
  rateLimit: { rule: "default", failMode: "open" }, // answers 405 and changes nothing
  summary: "Open an MCP event stream (not offered)",
  description: `Always 405 method_not_allowed with \`Allow: POST\`, as Streamable HTTP permits. ${MESSAGE}`,
  responses: {},
  errors: { 405: ["method_not_allowed"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, () => {
    throw new ApiError("method_not_allowed", MESSAGE, { headers: { Allow: "POST" } });
  });
}
