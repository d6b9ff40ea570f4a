// GET /v1/mcp: a standalone MCP event stream, which this endpoint does not offer: it is stateless (POST
// /v1/mcp serves each message on its own), so GET always answers 405 with Allow: POST, as Streamable
// HTTP permits.
import { mcpEventStreamNotOffered } from "../mcp.ts";

export const { route, register } = mcpEventStreamNotOffered({
  path: "/v1/mcp",
  operationId: "openMcpStream",
  access: "bearer",
  oauthScope: "tasks:run",
  summary: "Open an MCP event stream (not offered)",
});
