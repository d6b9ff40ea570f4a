// What the two remote MCP endpoints share (POST /v1/mcp for callers with a credential, POST /v1/mcp/x402
// for payers with a wallet; decision 0230): reading the JSON-RPC message (to see which tool a call names),
// turning a finished run into the tool's answer or the reason it has none, describing a refusal for the
// model, the heartbeat of a silent run, and serving the message with a stateless Streamable HTTP
// transport for the life of the request.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AgentToolErrorInfo } from "@agent-rental/core/agent-tools";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { performRun, RunResponse } from "../execution/perform.ts";

export class RunFailed extends Error {
  /** Why the call produced no result: the failed run's error, or (`settlement_pending`, a completed run
   * whose charge is not confirmed yet) a tool error of its own, which is no run failure code. */
  constructor(
    readonly run: RunResponse,
    readonly reason: { code: string; message: string } | undefined = run.error,
  ) {
    super(reason?.message ?? "the agent did not complete the task");
  }
}

/** The request's JSON-RPC message: `message` undefined when the body does not parse (handed on as it came,
 * for the transport's own error); `invalid` set for what JSON-RPC answers once itself. */
export function readMessage(body: string): { message: unknown; invalid?: { jsonrpc: "2.0"; error: { code: number; message: string }; id: null } } {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { message: undefined };
  }
  // JSON-RPC 2.0: an empty batch is an Invalid Request, answered once (the transport would take it for a
  // batch of notifications and answer 202).
  if (Array.isArray(message) && message.length === 0) return { message, invalid: { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: an empty batch" }, id: null } };
  return { message };
}

/** The tool a single tools/call message names (a batch or anything else: none). */
export function toolCalled(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
}

/** What a refusal or a failed run tells the model: the API's code, the request id, the run id. */
export function errorDescriber(logger: Logger, requestId: string): (error: unknown) => AgentToolErrorInfo {
  return (error) => {
    if (error instanceof RunFailed) return { code: error.reason?.code ?? "run_failed", message: error.message, run_id: error.run.run_id };
    if (error instanceof ApiError) {
      return { code: error.code, message: error.message, status: error.status, request_id: requestId, ...(error.onChainError ? { on_chain_error: error.onChainError } : {}) };
    }
    logger.error("mcp tool call failed", { request_id: requestId, cause: error instanceof Error ? error.message : String(error) });
    return { code: "internal_error", message: "An unexpected error occurred; quote the request id to support if it persists.", status: 500, request_id: requestId };
  };
}

/** A finished run as the tool's answer: its response, or the reason it has none. */
export function finishedRun({ response, settlementPending }: Awaited<ReturnType<typeof performRun>>): RunResponse {
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
}

/**
 * While the agent works without a word, a heartbeat keeps a client that resets its timeout on progress
 * waiting (runs may take minutes; clients give up after one by default). It starts with the call, not
 * the run: admission (the credential read on the chain, the reservation) counts against the client's
 * patience too. Progress must grow with every notification: a heartbeat adds a thousandth, so its whole
 * part stays the characters produced (a run's 300 s at most never reach a thousand beats).
 */
export function heartbeat(progress: ((progress: number, message: string) => void) | undefined, intervalMs: number) {
  let offset = 0;
  let beats = 0;
  const timer = progress ? setInterval(() => progress(offset + ++beats / 1000, "working"), intervalMs) : undefined;
  timer?.unref();
  return {
    /** Output produced: reported, and the beats start again from it. */
    delta(delta: string) {
      if (delta === "" || !progress) return;
      offset += delta.length;
      beats = 0;
      progress(offset, delta);
    },
    stop: () => clearInterval(timer),
  };
}

/** Serves the message with `server` on a stateless transport that lives as long as the request. */
export async function serveMessage(server: Server, request: Request, body: string, message: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  // Closed when the client goes away or the answer ends.
  request.signal.addEventListener("abort", () => void server.close().catch(() => undefined), { once: true });
  if (message === undefined) return transport.handleRequest(new Request(request.url, { method: "POST", headers: request.headers, body, signal: request.signal }));
  return transport.handleRequest(request, { parsedBody: message });
}
