// POST /v1/mcp: the remote MCP endpoint (Streamable HTTP), for LLM clients that connect to tools by URL.
// Stateless: each request gets a new server and transport (no session id), so it runs unchanged on
// Lambda; the caller authenticates on every request with the same API keys and JWTs as the REST API
// (a refused one gets 401 in the error envelope before MCP is spoken). Tools: `run_agent` (agent_id,
// task, input) and one per rented agent with the agent's own input and output schemas. A run goes
// through the same admission and execution as POST /v1/execute; while it runs, a client that sent a
// progressToken receives the output as progress notifications. Every refusal is a tool error with the
// API's code and the request id. GET and DELETE are not offered (v1_mcp.get.ts, v1_mcp.delete.ts).
// While a run is silent the client that asked for progress gets a heartbeat every
// MCP_PROGRESS_INTERVAL_MS, so a run longer than its patience is still answered.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { defineRoute } from "../route.ts";
import { admitRun } from "../../execution/admission.ts";
import { performRun } from "../../execution/perform.ts";
import { limitExecution } from "../middleware/rate-limit.ts";
import { rentedAgentEntries, rentedAgentEntriesForCall, type RentedAgentEntry } from "../../mcp/agent-tools.ts";
import { errorDescriber, finishedRun, heartbeat, readMessage, serveMessage, toolCalled } from "../../mcp/endpoint.ts";
import { createAgentToolServer } from "@agent-rental/core/mcp";

export const route = defineRoute({
  method: "post",
  path: "/v1/mcp",
  operationId: "callMcp",
  tag: "Execution",
  access: "bearer",
  oauthScope: "tasks:run",
  checksOrigin: true,
  rateLimit: { rule: "execution", failMode: "closed" }, // a tool call is a run: it spends balance, compute and gas
  summary: "Remote MCP endpoint (Streamable HTTP)",
  description:
    "The Model Context Protocol over Streamable HTTP, stateless (no session id): send one JSON-RPC message or a batch; the answer is JSON, or an event stream while a tool call reports progress. Tools: run_agent (agent_id, task, input) and one per rented agent, with the agent's own input and output schemas. Refusals of a run are tool errors (isError) carrying the API's code and the request id, never HTTP errors; malformed JSON-RPC gets the protocol's own error. A payer with only a wallet calls the listings sold per run by x402 on POST /v1/mcp/x402, without a credential.",
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

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const principal = c.get("principal");
    const requestId = c.get("requestId");
    // Read here (bounded by the app's body limit) to see which tool a call names: a call of a per-agent
    // tool resolves it from the wallet's recent listing. What does not parse is handed on as it came,
    // for the transport's own error.
    const body = await c.req.text();
    const { message, invalid } = readMessage(body);
    if (invalid) return c.json(invalid, 400);
    const calledTool = toolCalled(message);
    let entries: Promise<RentedAgentEntry[]> | undefined;
    const tools = () => (entries ??= calledTool === undefined ? rentedAgentEntries(services, principal.wallet) : rentedAgentEntriesForCall(services, principal.wallet, calledTool));

    const server = createAgentToolServer({
      generic: true,
      tools,
      validateInput: (entry, input) => (entry as RentedAgentEntry).check(input),
      describeError: errorDescriber(services.logger, requestId),
      async run(call) {
        const beat = heartbeat(call.progress, services.config.MCP_PROGRESS_INTERVAL_MS);
        try {
          const admitted = await admitRun(services, principal, call.request, {
            // Progress notifications carry the output as it is produced: delivered output, as on a stream.
            delivery: call.progress ? "stream" : "sync",
            rateLimit: (listingId) => limitExecution(c, listingId),
          });
          // Without an Idempotency-Key no earlier run can be followed.
          if (admitted.kind !== "admitted") throw new ApiError("service_unavailable", "The run could not be started; retry.");
          c.set("runId", admitted.admission.run.run_id);
          return finishedRun(await performRun(services, admitted.admission, { stream: call.progress !== undefined, ...(call.progress ? { onDelta: beat.delta } : {}) }));
        } finally {
          beat.stop();
        }
      },
    });
    return serveMessage(server, c.req.raw, body, message);
  });
}
