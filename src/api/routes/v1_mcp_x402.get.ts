// GET /v1/mcp/x402: a standalone MCP event stream, which the payers' endpoint does not offer: it is
// stateless, as POST /v1/mcp is, so GET always answers 405 with Allow: POST, as Streamable HTTP permits
// (an MCP client tries it once after initializing and goes on without it).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { defineRoute } from "../route.ts";

const MESSAGE = "The MCP endpoint is stateless and offers no standalone event stream: send JSON-RPC messages with POST /v1/mcp/x402.";

export const route = defineRoute({
  method: "get",
  path: "/v1/mcp/x402",
  operationId: "openPaidMcpStream",
  tag: "Execution",
  access: "public",
  checksOrigin: true,
  rateLimit: { rule: "default", failMode: "open" }, // answers 405 and changes nothing
  summary: "Open an MCP event stream on the x402 endpoint (not offered)",
  description: `Always 405 method_not_allowed with \`Allow: POST\`, as Streamable HTTP permits. ${MESSAGE}`,
  responses: {},
  errors: { 405: ["method_not_allowed"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, () => {
    throw new ApiError("method_not_allowed", MESSAGE, { headers: { Allow: "POST" } });
  });
}
