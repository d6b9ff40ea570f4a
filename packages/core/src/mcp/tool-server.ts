// The MCP server of agent tools, independent of where runs happen: the SDK's stdio server runs them
// through the REST API with its client, the API's remote endpoint (POST /v1/mcp) runs them in process.
// Tools: the generic `run_agent` (agent_id, task, input?) and one per rented agent whose input schema
// is the agent's own (plus task) and whose output schema is the agent's (structuredContent in the
// result). Every refusal, failed run and bad argument is a tool error (isError) naming the code and the
// request id, so a model reads what happened; an unknown tool is the protocol's error (JSON-RPC -32602),
// as MCP 2025-11-25 has it: the tool list, not the arguments, is what is wrong. Built on the SDK's low-level Server:
// McpServer takes only zod schemas, and these schemas are JSON Schema documents registered by creators.
// A call's `_meta` reaches the host's run, and a run's `meta` the result's `_meta`; a host may answer an
// error with a result of its own (the API's payers' endpoint: x402's payment-required result over MCP).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  AGENT_TOOL_DESCRIPTION,
  AGENT_TOOL_NAME,
  AGENT_TOOL_PARAMETERS,
  AgentToolInputError,
  formatToolErrorInfo,
  formatToolOutput,
  parseAgentToolArguments,
  type AgentToolArguments,
  type AgentToolErrorInfo,
} from "../agent-tools/definition.ts";
import { agentCallOf, type AgentToolSchemas } from "../agent-tools/agent-schema.ts";

export const MCP_SERVER_NAME = "agent-rental";
export const MCP_SERVER_VERSION = "0.1.0";

/** A rented agent offered as a tool. */
export interface AgentToolEntry {
  name: string;
  title: string;
  description: string;
  agent_id: string;
  schemas: AgentToolSchemas;
}

export interface AgentToolCall {
  toolName: string;
  request: AgentToolArguments;
  signal: AbortSignal;
  /** Present when the client asked for progress (a progressToken): report how far the run got. */
  progress?: (progress: number, message: string) => void;
  /** The call's `_meta` as sent, without the progress token (x402's `x402/payment` travels here). */
  meta?: Record<string, unknown>;
}

/** What a tool call produced: the run's output, with the run's figures for `_meta` (a Run of the API,
 * whose wei amount is a bigint in the SDK and a number or string elsewhere). */
export interface AgentToolRun {
  run_id: string;
  agent_id: string;
  output?: unknown;
  duration_ms: number;
  cost_wei: bigint | string | number;
  /** More for the result's `_meta`, beside `run` (x402's `x402/payment-response`). */
  meta?: Record<string, unknown>;
}

export interface AgentToolHost {
  /** The per-agent tools now (read on each tools/list and tools/call). */
  tools(signal: AbortSignal): Promise<AgentToolEntry[]>;
  /** Offer the generic tool. */
  generic: boolean;
  /** Checks a per-agent call's input against the agent's input schema: a message when it does not match. */
  validateInput?(entry: AgentToolEntry, input: string | Record<string, unknown> | undefined): string | undefined;
  /** Runs the call; throws for a refusal or a failed run (described by describeError). */
  run(call: AgentToolCall): Promise<AgentToolRun>;
  /** What went wrong, safe to show (no secret): code, message, status, request id, run id. */
  describeError(error: unknown): AgentToolErrorInfo;
  /** A result of the host's own for an error of `run` (x402's payment-required result), or undefined for
   * the usual tool error. `entry`: the per-agent tool called, undefined for the generic one. */
  errorResult?(error: unknown, entry: AgentToolEntry | undefined): CallToolResult | undefined;
  /** Applied to every text the client receives (secrets never leave). */
  redact?(text: string): string;
  log?(message: string): void;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** The tools/list entry of a rented agent. */
export function toolOf(entry: AgentToolEntry): Tool {
  return {
    name: entry.name,
    title: entry.title,
    description: `${entry.description}\n\nRuns a task on this rented agent (agent id ${entry.agent_id}) and returns its finished output.`,
    inputSchema: entry.schemas.inputSchema as Tool["inputSchema"],
    ...(entry.schemas.outputSchema ? { outputSchema: entry.schemas.outputSchema as NonNullable<Tool["outputSchema"]> } : {}),
    annotations,
  };
}

export const GENERIC_TOOL: Tool = {
  name: AGENT_TOOL_NAME,
  title: "Run a rented agent",
  description: AGENT_TOOL_DESCRIPTION,
  inputSchema: AGENT_TOOL_PARAMETERS as unknown as Tool["inputSchema"],
  annotations,
};

/** A server with the agent tools; connect it to a transport. `notifyToolsChanged` tells connected clients. */
export function createAgentToolServer(host: AgentToolHost): Server {
  const redact = host.redact ?? ((text: string) => text);
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: { listChanged: true } } });

  const toolError = (info: AgentToolErrorInfo): CallToolResult => {
    const text = redact(formatToolErrorInfo(info));
    return { content: [{ type: "text", text }], isError: true, _meta: { error: JSON.parse(redact(JSON.stringify(info))) as Record<string, unknown> } };
  };

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const entries = await host.tools(extra.signal);
    return { tools: [...(host.generic ? [GENERIC_TOOL] : []), ...entries.map(toolOf)] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    let call: AgentToolArguments;
    let entry: AgentToolEntry | undefined;
    let known = true;
    try {
      if (host.generic && name === AGENT_TOOL_NAME) {
        call = parseAgentToolArguments(args);
      } else {
        entry = (await host.tools(extra.signal)).find((tool) => tool.name === name);
        if (!entry) {
          known = false;
          throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. List the tools again (a rental may have ended).`);
        }
        const parsed = agentCallOf(entry.schemas, args);
        if (!parsed.ok) throw new AgentToolInputError(parsed.message);
        const mismatch = host.validateInput?.(entry, parsed.input);
        if (mismatch !== undefined) return toolError({ code: "invalid_input", message: `The arguments do not match the agent's input schema: ${mismatch}` });
        call = { agent_id: entry.agent_id, task: parsed.task, ...(parsed.input === undefined ? {} : { input: parsed.input }) };
      }
    } catch (error) {
      if (!known) throw error;
      if (error instanceof AgentToolInputError) return toolError({ code: error.code, message: error.message });
      return toolError(host.describeError(error));
    }
    const { progressToken, ...meta } = request.params._meta ?? {};
    try {
      const run = await host.run({
        toolName: name,
        request: call,
        signal: extra.signal,
        ...(Object.keys(meta).length > 0 ? { meta } : {}),
        ...(progressToken === undefined
          ? {}
          : {
              progress: (progress: number, message: string) =>
                void extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, message: redact(message) } }).catch(() => undefined),
            }),
      });
      host.log?.(`${name}: run ${run.run_id} completed in ${run.duration_ms} ms`);
      const structured = isPlainObject(run.output) ? (JSON.parse(redact(JSON.stringify(run.output))) as Record<string, unknown>) : undefined;
      return {
        content: [{ type: "text", text: redact(formatToolOutput(run.output)) }],
        ...(structured ? { structuredContent: structured } : {}),
        _meta: { ...run.meta, run: { run_id: run.run_id, agent_id: run.agent_id, cost_wei: String(run.cost_wei), duration_ms: run.duration_ms } },
      };
    } catch (error) {
      if (extra.signal.aborted) throw error;
      const result = host.errorResult?.(error, entry) ?? toolError(host.describeError(error));
      host.log?.(`${name}: ${(result.content[0] as { text: string }).text}`);
      return result;
    }
  });
  return server;
}
