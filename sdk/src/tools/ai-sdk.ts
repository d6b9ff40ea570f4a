// Agents as tools for the AI SDK (`ai`): `tool()` definitions whose execute runs the agent with
// `client.execute`. The tool result is the run's output (structured output stays an object). A failed
// run, an API refusal or bad arguments throw an AgentToolCallError (message with code and request id),
// which the AI SDK reports as a tool error to the model; the framework's abort signal is honoured.
// Import from "@agent-rental/sdk/ai"; `ai` is an optional peer dependency of the SDK.
import { jsonSchema, tool, type Tool, type ToolSet } from "ai";
import type { AgentRentalClient } from "../client.ts";
import { AGENT_TOOL_DESCRIPTION, AGENT_TOOL_NAME, AGENT_TOOL_PARAMETERS, parseAgentToolArguments, type AgentToolArguments } from "@agent-rental/core/agent-tools";
import { AgentToolCallError, runAgentTool } from "./run.ts";
import { listRentedAgentTools, RENTED_AGENT_TOOL_PARAMETERS, type ListRentedAgentToolsOptions, type RentedAgentTool } from "./rented.ts";

export interface AiSdkAgentToolOptions {
  /** The tool's description (default: the generic agent tool's). */
  description?: string;
  /**
   * The Idempotency-Key for a tool call (default: a fresh key per call). Deriving it from the tool call
   * id makes executing the same call twice return the first run, uncharged.
   */
  idempotencyKey?: (call: { toolCallId: string; toolName: string; arguments: AgentToolArguments }) => string | undefined;
}

/** The per-agent tool input. */
export interface RentedAgentToolInput {
  task: string;
  input?: string | Record<string, unknown>;
}

type Validation<T> = { success: true; value: T } | { success: false; error: Error };

function validator<T>(fixedAgentId: string | undefined, pick: (args: AgentToolArguments) => T): (value: unknown) => Validation<T> {
  return (value) => {
    try {
      return { success: true, value: pick(parseAgentToolArguments(value, fixedAgentId === undefined ? {} : { agent_id: fixedAgentId })) };
    } catch (error) {
      return { success: false, error: error as Error };
    }
  };
}

async function execute(client: AgentRentalClient, args: AgentToolArguments, toolName: string, context: { toolCallId: string; abortSignal?: AbortSignal | undefined }, options: AiSdkAgentToolOptions): Promise<unknown> {
  try {
    const run = await runAgentTool(client, args, {
      signal: context.abortSignal,
      idempotencyKey: options.idempotencyKey?.({ toolCallId: context.toolCallId, toolName, arguments: args }),
    });
    return run.output;
  } catch (error) {
    if (context.abortSignal?.aborted) throw error;
    throw new AgentToolCallError(error);
  }
}

// Our parameter schemas are `as const` (readonly arrays); @types/json-schema's JSONSchema7 wants mutable ones.
type JsonSchemaArgument = Exclude<Parameters<typeof jsonSchema>[0], PromiseLike<unknown> | (() => unknown)>;

/** The generic agent tool (agent_id, task, input?) for `generateText` / `streamText`: `tools: { run_agent: agentTool(client) }`. */
export function agentTool(client: AgentRentalClient, options: AiSdkAgentToolOptions = {}): Tool<AgentToolArguments, unknown> {
  return tool<AgentToolArguments, unknown, {}>({
    description: options.description ?? AGENT_TOOL_DESCRIPTION,
    inputSchema: jsonSchema<AgentToolArguments>(AGENT_TOOL_PARAMETERS as unknown as JsonSchemaArgument, { validate: validator(undefined, (args) => args) }),
    execute: (args, context) => execute(client, args, AGENT_TOOL_NAME, context, options),
  });
}

/** A tool that runs one rented agent (input {task, input?}). */
export function rentedAgentTool(client: AgentRentalClient, agent: Pick<RentedAgentTool, "agent_id" | "name" | "description">, options: AiSdkAgentToolOptions = {}): Tool<RentedAgentToolInput, unknown> {
  return tool<RentedAgentToolInput, unknown, {}>({
    description: options.description ?? agent.description,
    inputSchema: jsonSchema<RentedAgentToolInput>(RENTED_AGENT_TOOL_PARAMETERS as unknown as JsonSchemaArgument, {
      validate: validator(agent.agent_id, ({ task, input }) => (input === undefined ? { task } : { task, input })),
    }),
    execute: (args, context) => execute(client, { agent_id: agent.agent_id, ...args }, agent.name, context, options),
  });
}

/**
 * The caller's rented agents as a tool set, one tool per active credential (see `listRentedAgentTools`),
 * plus the generic tool under its name unless `generic` is false.
 */
export async function rentedAgentTools(client: AgentRentalClient, options: AiSdkAgentToolOptions & ListRentedAgentToolsOptions & { generic?: boolean } = {}): Promise<ToolSet> {
  const { description: _description, ...rest } = options;
  const agents = await listRentedAgentTools(client, rest);
  const tools: ToolSet = {};
  if (options.generic !== false) tools[AGENT_TOOL_NAME] = agentTool(client, rest);
  for (const agent of agents) tools[agent.name] = rentedAgentTool(client, agent, rest);
  return tools;
}
