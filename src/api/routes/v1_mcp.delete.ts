// DELETE /v1/mcp: ends an MCP session, of which this endpoint has none: it is stateless (no
// Mcp-Session-Id), so DELETE always answers 405 with Allow: POST.
import { mcpMethodNotOffered } from "../mcp.ts";

export const { route, register } = mcpMethodNotOffered({
  method: "delete",
  path: "/v1/mcp",
  operationId: "endMcpSession",
  access: "bearer",
  oauthScope: "tasks:run",
  summary: "End an MCP session (not offered)",
  description: "Always 405 method_not_allowed with `Allow: POST`.",
  message: "The MCP endpoint is stateless and has no session to end: send JSON-RPC messages with POST /v1/mcp.",
});
