// Agents as tools for OpenAI-style chat APIs: `tools` entries `{type: "function", function: {name,
// description, parameters}}` and a handler that runs a tool call (name + JSON arguments string) with
// `client.execute` and answers the tool message content. No dependency on the `openai` package: the
// shapes are structural, and assignable to its ChatCompletionTool and ChatCompletionToolMessageParam.
import type { AgentRentalClient } from "../client.ts";
import { agentToolDefinition, formatToolOutput, parseAgentToolArguments, toJsonText, type AgentToolArguments, type AgentToolDefinition } from "@agent-rental/core/agent-tools";
import { describeToolError, isAbort, runAgentTool } from "./run.ts";
import { RENTED_AGENT_TOOL_PARAMETERS, type RentedAgentTool } from "./rented.ts";

/** A `tools` array entry of OpenAI-style chat completion APIs. */
export interface OpenAIFunctionTool {
  type: "function";
  function: AgentToolDefinition;
}

/** A tool call as the model returns it (`message.tool_calls[i]`), or just its function part. */
export type OpenAIToolCallLike = { id?: string; type?: string; function: { name: string; arguments: string } } | { id?: string; name: string; arguments: string };

/** The tool message that answers a tool call. */
export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** The generic agent tool as a `tools` array entry. */
export const openAIAgentTool: OpenAIFunctionTool = { type: "function", function: agentToolDefinition };

export interface OpenAIAgentToolsOptions {
  /** Offer the generic tool (agent_id, task, input). Default true. */
  generic?: boolean;
  /** Rented agents to offer as tools of their own (from `listRentedAgentTools`). */
  agents?: RentedAgentTool[];
  /**
   * What a failed run, an API refusal or bad arguments give: `"content"` (default) answers a tool
   * message `{"error": {code, message, request_id, …}}`, so the model sees the failure and the
   * conversation goes on; `"throw"` throws the error (AgentRunFailedError, AgentToolInputError or the
   * SDK's ApiError). An abort through the signal is always thrown.
   */
  onError?: "content" | "throw";
  /**
   * The Idempotency-Key for a tool call (default: a fresh key per call). Deriving it from the tool call
   * id makes handling the same call twice (a replayed conversation) return the first run, uncharged.
   */
  idempotencyKey?: (call: { toolCallId: string | undefined; toolName: string; arguments: AgentToolArguments }) => string | undefined;
}

export interface OpenAIAgentTools {
  /** The `tools` entries to send with the chat request. */
  tools: OpenAIFunctionTool[];
  /** Whether a tool call is for one of these tools. */
  handles(call: OpenAIToolCallLike): boolean;
  /** Runs the tool call; answers the tool message content: the run's output (a string, or JSON text). */
  handle(call: OpenAIToolCallLike, options?: { signal?: AbortSignal }): Promise<string>;
  /** Runs the tool call; answers the whole tool message (needs the call's id). */
  toolMessage(call: OpenAIToolCallLike & { id: string }, options?: { signal?: AbortSignal }): Promise<OpenAIToolMessage>;
}

function partsOf(call: OpenAIToolCallLike): { name: string; arguments: string } {
  return "function" in call ? call.function : call;
}

/** The generic agent tool and, optionally, one tool per rented agent, for OpenAI-style chat APIs. */
export function createOpenAIAgentTools(client: AgentRentalClient, options: OpenAIAgentToolsOptions = {}): OpenAIAgentTools {
  const fixed = new Map<string, string>();
  const tools: OpenAIFunctionTool[] = [];
  if (options.generic !== false) tools.push(openAIAgentTool);
  for (const agent of options.agents ?? []) {
    fixed.set(agent.name, agent.agent_id);
    tools.push({ type: "function", function: { name: agent.name, description: agent.description, parameters: RENTED_AGENT_TOOL_PARAMETERS } });
  }
  const names = new Set(tools.map((t) => t.function.name));
  if (names.size !== tools.length) throw new TypeError("tool names must be unique");

  const handle = async (call: OpenAIToolCallLike, opts: { signal?: AbortSignal } = {}): Promise<string> => {
    const { name, arguments: raw } = partsOf(call);
    if (!names.has(name)) throw new TypeError(`not an agent tool: ${name}`);
    try {
      const agentId = fixed.get(name);
      const args = parseAgentToolArguments(raw, agentId === undefined ? {} : { agent_id: agentId });
      const run = await runAgentTool(client, args, {
        signal: opts.signal,
        idempotencyKey: options.idempotencyKey?.({ toolCallId: call.id, toolName: name, arguments: args }),
      });
      return formatToolOutput(run.output);
    } catch (error) {
      if (isAbort(opts.signal) || options.onError === "throw") throw error;
      return toJsonText({ error: describeToolError(error) });
    }
  };

  return {
    tools,
    handles: (call) => names.has(partsOf(call).name),
    handle,
    toolMessage: async (call, opts) => ({ role: "tool", tool_call_id: call.id, content: await handle(call, opts) }),
  };
}
