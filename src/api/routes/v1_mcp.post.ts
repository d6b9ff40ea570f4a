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
import { mcpMessagesRoute, serveMcpRequest } from "../mcp.ts";
import { admitRun } from "../../execution/admission.ts";
import { performRun } from "../../execution/perform.ts";
import { limitExecution } from "../middleware/rate-limit.ts";
import { rentedAgentEntries, rentedAgentEntriesForCall, type RentedAgentEntry } from "../../mcp/agent-tools.ts";
import { finishedRun, heartbeat, toolCalled } from "../../mcp/endpoint.ts";

export const route = mcpMessagesRoute({
  path: "/v1/mcp",
  operationId: "callMcp",
  access: "bearer",
  oauthScope: "tasks:run",
  summary: "Remote MCP endpoint (Streamable HTTP)",
  description:
    "The Model Context Protocol over Streamable HTTP, stateless (no session id): send one JSON-RPC message or a batch; the answer is JSON, or an event stream while a tool call reports progress. Tools: run_agent (agent_id, task, input) and one per rented agent, with the agent's own input and output schemas. Refusals of a run are tool errors (isError) carrying the API's code and the request id, never HTTP errors; malformed JSON-RPC gets the protocol's own error. A payer with only a wallet calls the listings sold per run by x402 on POST /v1/mcp/x402, without a credential.",
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, (c) =>
    serveMcpRequest(c, (message) => {
      const services = c.get("services");
      const principal = c.get("principal");
      // A call of a per-agent tool resolves it from the wallet's recent listing.
      const calledTool = toolCalled(message);
      let entries: Promise<RentedAgentEntry[]> | undefined;
      return {
        tools: () => (entries ??= calledTool === undefined ? rentedAgentEntries(services, principal.wallet) : rentedAgentEntriesForCall(services, principal.wallet, calledTool)),
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
      };
    }),
  );
}
