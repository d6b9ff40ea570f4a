// GET /v1/mcp/x402: a standalone MCP event stream, which the payers' endpoint does not offer: it is
// stateless, as POST /v1/mcp is, so GET always answers 405 with Allow: POST, as Streamable HTTP permits
// (an MCP client tries it once after initializing and goes on without it).
import { mcpEventStreamNotOffered } from "../mcp.ts";

export const { route, register } = mcpEventStreamNotOffered({
  path: "/v1/mcp/x402",
  operationId: "openPaidMcpStream",
  access: "public",
  summary: "Open an MCP event stream on the x402 endpoint (not offered)",
});
