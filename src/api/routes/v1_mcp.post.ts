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
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { defineRoute } from "../route.ts";
import { admitRun } from "../../execution/admission.ts";
import { performRun, type RunResponse } from "../../execution/perform.ts";
import { limitExecution } from "../middleware/rate-limit.ts";
import { rentedAgentEntries, rentedAgentEntriesForCall, type RentedAgentEntry } from "../../mcp/agent-tools.ts";
import { createAgentToolServer } from "@agent-rental/core/mcp";
import type { AgentToolErrorInfo } from "@agent-rental/core/agent-tools";

class RunFailed extends Error {
  /** Why the call produced no result: the failed run's error, or (`settlement_pending`, a completed run
   * whose charge is not confirmed yet) a tool error of its own, which is no run failure code. */
  constructor(
    readonly run: RunResponse,
    readonly reason: { code: string; message: string } | undefined = run.error,
  ) {
    super(reason?.message ?? "the agent did not complete the task");
  }
}

/** The tool a single tools/call message names (a batch or anything else: none). */
function toolCalled(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
}

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
    "The Model Context Protocol over Streamable HTTP, stateless (no session id): send one JSON-RPC message or a batch; the answer is JSON, or an event stream while a tool call reports progress. Tools: run_agent (agent_id, task, input) and one per rented agent, with the agent's own input and output schemas. Refusals of a run are tool errors (isError) carrying the API's code and the request id, never HTTP errors; malformed JSON-RPC gets the protocol's own error.",
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
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      message = undefined;
    }
    // JSON-RPC 2.0: an empty batch is an Invalid Request, answered once (the transport would take it
    // for a batch of notifications and answer 202).
    if (Array.isArray(message) && message.length === 0) {
      return c.json({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: an empty batch" }, id: null }, 400);
    }
    const calledTool = toolCalled(message);
    let entries: Promise<RentedAgentEntry[]> | undefined;
    const tools = () => (entries ??= calledTool === undefined ? rentedAgentEntries(services, principal.wallet) : rentedAgentEntriesForCall(services, principal.wallet, calledTool));

    const describeError = (error: unknown): AgentToolErrorInfo => {
      if (error instanceof RunFailed) return { code: error.reason?.code ?? "run_failed", message: error.message, run_id: error.run.run_id };
      if (error instanceof ApiError) {
        return { code: error.code, message: error.message, status: error.status, request_id: requestId, ...(error.onChainError ? { on_chain_error: error.onChainError } : {}) };
      }
      services.logger.error("mcp tool call failed", { request_id: requestId, cause: error instanceof Error ? error.message : String(error) });
      return { code: "internal_error", message: "An unexpected error occurred; quote the request id to support if it persists.", status: 500, request_id: requestId };
    };

    /** A finished run as the tool's answer: its response, or the reason it has none. */
    const finish = ({ response, settlementPending }: Awaited<ReturnType<typeof performRun>>): RunResponse => {
      if (settlementPending) {
        // Not a 503: a client that retried would run (and pay for) the task again. The run is done; its
        // output is withheld until the charge lands, as POST /v1/execute answers it.
        throw new RunFailed(response, {
          code: "settlement_pending",
          message: `Run ${response.run_id} completed, but its charge is not confirmed on-chain yet; its output is released once it is (GET /v1/runs/${response.run_id}). Do not run the task again: that would be a new run, charged again.`,
        });
      }
      if (response.status !== "completed") throw new RunFailed(response);
      return response;
    };

    const server = createAgentToolServer({
      generic: true,
      tools,
      validateInput: (entry, input) => (entry as RentedAgentEntry).check(input),
      describeError,
      async run(call) {
        let offset = 0;
        const progress = call.progress;
        // While the agent works without a word, a heartbeat keeps a client that resets its timeout on
        // progress waiting (runs may take minutes; clients give up after one by default). It starts with
        // the call, not the run: admission (the credential read on the chain, the reservation) counts
        // against the client's patience too. Progress must grow with every notification: a heartbeat
        // adds a thousandth, so its whole part stays the characters produced (a run's 300 s at most never
        // reach a thousand beats).
        let beats = 0;
        const heartbeat = progress ? setInterval(() => progress(offset + ++beats / 1000, "working"), services.config.MCP_PROGRESS_INTERVAL_MS) : undefined;
        heartbeat?.unref();
        try {
          const admitted = await admitRun(services, principal, call.request, {
            // Progress notifications carry the output as it is produced: delivered output, as on a stream.
            delivery: progress ? "stream" : "sync",
            rateLimit: (listingId) => limitExecution(c, listingId),
          });
          // Without an Idempotency-Key no earlier run can be followed.
          if (admitted.kind !== "admitted") throw new ApiError("service_unavailable", "The run could not be started; retry.");
          c.set("runId", admitted.admission.run.run_id);
          return finish(
            await performRun(services, admitted.admission, {
              stream: progress !== undefined,
              ...(progress
                ? {
                    onDelta: (delta: string) => {
                      if (delta === "") return;
                      offset += delta.length;
                      beats = 0;
                      progress(offset, delta);
                    },
                  }
                : {}),
            }),
          );
        } finally {
          clearInterval(heartbeat);
        }
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // The server lives as long as this request: closed when the client goes away or the answer ends.
    c.req.raw.signal.addEventListener("abort", () => void server.close().catch(() => undefined), { once: true });
    if (message === undefined) return transport.handleRequest(new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body, signal: c.req.raw.signal }));
    return transport.handleRequest(c.req.raw, { parsedBody: message });
  });
}
