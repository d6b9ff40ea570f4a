// What the remote MCP endpoints' routes share (POST /v1/mcp for callers with a credential, POST
// /v1/mcp/x402 for payers with a wallet; decision 0230): the declaration of the POST that carries the
// JSON-RPC messages, serving one message with a server of the agent tools made for the request, and
// the methods a stateless endpoint does not offer (GET's standalone event stream, DELETE's session
// end), declared so that clients see their 405 rather than guess. What a call does is the route's own.
import type { Context } from "hono";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createAgentToolServer, type AgentToolHost } from "@agent-rental/core/mcp";
import type { AppEnv } from "./env.ts";
import { defineRoute, type Access } from "./route.ts";
import { ApiError } from "../errors.ts";
import type { OAuthScope } from "../oauth/scopes.ts";
import type { RentedAgentEntry } from "../mcp/agent-tools.ts";
import { errorDescriber, readMessage, serveMessage } from "../mcp/endpoint.ts";

/** What tells one MCP route from the other: its path and operation, who may call it, and its words. */
interface McpRouteNaming {
  path: string;
  operationId: string;
  access: Access;
  /** On a bearer route: the scope an OAuth access token must hold. */
  oauthScope?: OAuthScope;
  summary: string;
}

/** What every route of an MCP endpoint declares alike: the Origin check (Streamable HTTP's DNS
 * rebinding rule) and the Execution tag, beside its naming. */
function mcpDeclaration({ path, operationId, access, oauthScope, summary }: McpRouteNaming) {
  return { path, operationId, tag: "Execution" as const, access, ...(oauthScope ? { oauthScope } : {}), checksOrigin: true, summary };
}

/** The POST of an MCP endpoint, which carries its JSON-RPC messages. */
export function mcpMessagesRoute({ description, ...naming }: McpRouteNaming & { description: string }) {
  return defineRoute({
    method: "post",
    ...mcpDeclaration(naming),
    rateLimit: { rule: "execution", failMode: "closed" }, // a tool call is a run: it spends the caller's balance or tokens, our compute and gas
    description,
    // The messages are MCP's JSON-RPC (modelcontextprotocol.io), read by the transport, not by a schema here.
    request: { body: { required: true, content: { "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 request, notification or batch (MCP)" } } } } },
    responses: {
      200: {
        description: "The JSON-RPC answer, or an event stream of progress notifications ending with it",
        content: { "application/json": { schema: { type: "object" } }, "text/event-stream": { schema: { type: "string" } } },
      },
      202: { description: "A notification or a response was accepted (nothing to answer)" },
      400: { description: "Malformed JSON-RPC (the protocol's own error object)", content: { "application/json": { schema: { type: "object" } } } },
    },
    errors: {},
  });
}

/** What the route's tool server does for the request's message: its tools, how a call runs, and any
 * result of its own for a refusal. */
export type McpToolHost = Pick<AgentToolHost, "tools" | "run" | "errorResult">;

/**
 * Serves one request of an MCP endpoint. The body is read here (bounded by the app's body limit), so
 * that `hostFor` sees the message (a call of a per-agent tool names its tool); what does not parse is
 * handed on as it came, for the transport's own error, and an empty batch is answered 400 at once. The
 * server offers the generic tool, checks a per-agent call's input against the agent's schema and
 * describes refusals with the request id; it lives as long as the request.
 */
export async function serveMcpRequest(c: Context<AppEnv>, hostFor: (message: unknown) => McpToolHost): Promise<Response> {
  const body = await c.req.text();
  const { message, invalid } = readMessage(body);
  if (invalid) return c.json(invalid, 400);
  const server = createAgentToolServer({
    generic: true,
    validateInput: (entry, input) => (entry as RentedAgentEntry).check(input),
    describeError: errorDescriber(c.get("services").logger, c.get("requestId")),
    ...hostFor(message),
  });
  return serveMessage(server, c.req.raw, body, message);
}

/**
 * A method the stateless endpoint does not offer: declared, and always answered 405 method_not_allowed
 * with `Allow: POST`. `description` leads the operation's description; `message` is the error's, and
 * ends it.
 */
export function mcpMethodNotOffered({ method, description, message, ...naming }: McpRouteNaming & { method: "get" | "delete"; description: string; message: string }) {
  const route = defineRoute({
    method,
    ...mcpDeclaration(naming),
    rateLimit: { rule: "default", failMode: "open" }, // answers 405 and changes nothing
    description: `${description} ${message}`,
    responses: {},
    errors: { 405: ["method_not_allowed"] },
  });
  function register(app: OpenAPIHono<AppEnv>): void {
    app.openapi(route, () => {
      throw new ApiError("method_not_allowed", message, { headers: { Allow: "POST" } });
    });
  }
  return { route, register };
}

/** GET on an MCP endpoint: the standalone event stream, which a stateless endpoint does not offer, as
 * Streamable HTTP permits (a client tries it once after initializing and goes on without it). */
export function mcpEventStreamNotOffered(naming: McpRouteNaming) {
  return mcpMethodNotOffered({
    ...naming,
    method: "get",
    description: "Always 405 method_not_allowed with `Allow: POST`, as Streamable HTTP permits.",
    message: `The MCP endpoint is stateless and offers no standalone event stream: send JSON-RPC messages with POST ${naming.path}.`,
  });
}
