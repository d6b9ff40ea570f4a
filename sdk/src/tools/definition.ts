// An agent as a tool: the tool definition of the execute request in the common function-calling
// format (agent_id, task, input), the validation of a tool call's arguments, running it with the
// client, and turning the run (or the error) into the text a model reads. No framework dependency:
// the adapters (OpenAI-style tools, the AI SDK, MCP) build on this.
import type { AgentRentalClient } from "../client.ts";
import { AgentRentalError } from "../errors.ts";
import type { Run } from "../types.ts";

/** A JSON Schema object, as function-calling APIs take it. */
export type JsonSchemaObject = { [key: string]: unknown };

/** The arguments of the agent tool: the tool-calling fields of the execute request. */
export interface AgentToolArguments {
  /** The rented agent: its agent id, listing id or on-chain id. */
  agent_id: string;
  /** What to do, in natural language. */
  task: string;
  /** Input matching the agent's input schema (text for an agent that takes text). */
  input?: string | Record<string, unknown>;
}

/** A tool definition in the common function-calling format. */
export interface AgentToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
}

/** The default name of the generic agent tool. */
export const AGENT_TOOL_NAME = "run_agent";

export const AGENT_TOOL_DESCRIPTION =
  "Run a task on a rented AI agent of the agent rental service and return the agent's finished output. " +
  "Each call runs in a fresh sandbox with no memory of earlier calls; to use several agents, call the tool once per agent.";

/** The JSON Schema of the tool's parameters: agent_id and task required, input an optional object. */
export const AGENT_TOOL_PARAMETERS = {
  type: "object",
  properties: {
    agent_id: { type: "string", minLength: 1, description: "The rented agent to run: its agent id (for example contract-reviewer-1a2b3c4d) or listing id." },
    task: { type: "string", minLength: 1, maxLength: 32768, description: "What the agent should do, in natural language." },
    input: { type: "object", additionalProperties: true, description: "Structured input for the agent, shaped by its input schema. Omit when the task says everything." },
  },
  required: ["agent_id", "task"],
  additionalProperties: false,
} as const satisfies JsonSchemaObject;

/** The generic agent tool (spec: agent_id and task required, input optional; the result is the run's output). */
export const agentToolDefinition: AgentToolDefinition = {
  name: AGENT_TOOL_NAME,
  description: AGENT_TOOL_DESCRIPTION,
  parameters: AGENT_TOOL_PARAMETERS,
};

/** Tool arguments that do not match the tool's parameters (or are not JSON). */
export class AgentToolInputError extends Error {
  readonly code = "invalid_tool_arguments";
  constructor(message: string) {
    super(message);
    this.name = "AgentToolInputError";
  }
}

/** A run that finished with status `failed`: the tool call did not produce a result. */
export class AgentRunFailedError extends Error {
  readonly code: string;
  readonly run: Run;
  constructor(run: Run) {
    const code = run.error?.code ?? "run_failed";
    super(`Run ${run.run_id} of agent ${run.agent_id} failed (${code}): ${run.error?.message ?? "the agent did not complete the task"}`);
    this.name = "AgentRunFailedError";
    this.code = code;
    this.run = run;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks tool-call arguments: a JSON string (as chat APIs send them) or an already parsed object.
 * `fixed` supplies fields the tool itself determines (a per-agent tool's agent_id); the caller must not
 * send them. Throws AgentToolInputError with a message a model can act on.
 */
export function parseAgentToolArguments(raw: unknown, fixed: { agent_id?: string } = {}): AgentToolArguments {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = raw.trim() === "" ? {} : (JSON.parse(raw) as unknown);
    } catch {
      throw new AgentToolInputError("The tool arguments are not valid JSON.");
    }
  }
  if (!isPlainObject(value)) throw new AgentToolInputError("The tool arguments must be a JSON object.");
  const allowed = fixed.agent_id === undefined ? ["agent_id", "task", "input"] : ["task", "input"];
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new AgentToolInputError(`Unknown argument${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Allowed: ${allowed.join(", ")}.`);
  const agentId = fixed.agent_id ?? value.agent_id;
  if (typeof agentId !== "string" || agentId.trim() === "") throw new AgentToolInputError("agent_id is required: a non-empty string naming the rented agent.");
  const { task, input } = value;
  if (typeof task !== "string" || task.trim() === "") throw new AgentToolInputError("task is required: a non-empty string saying what the agent should do.");
  if (task.length > 32768) throw new AgentToolInputError("task is too long: at most 32768 characters.");
  if (input !== undefined && input !== null && !isPlainObject(input)) throw new AgentToolInputError("input must be a JSON object when given.");
  return { agent_id: agentId, task, ...(isPlainObject(input) ? { input } : {}) };
}

/** Options of one agent tool call. */
export interface AgentToolCallOptions {
  /** Aborts the call (the run itself goes on server side and stays readable with `client.runs.get`). */
  signal?: AbortSignal | undefined;
  /** The Idempotency-Key of the execute request (default: a random key per call, still reused by the SDK's own retries). */
  idempotencyKey?: string | undefined;
}

/** Runs the tool call with `client.execute`; answers the completed Run, throws AgentRunFailedError for a failed one. */
export async function runAgentTool(client: AgentRentalClient, args: AgentToolArguments, options: AgentToolCallOptions = {}): Promise<Run> {
  const run = await client.execute(
    { agent_id: args.agent_id, task: args.task, ...(args.input !== undefined ? { input: args.input } : {}) },
    { ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}), ...(options.signal ? { signal: options.signal } : {}) },
  );
  if (run.status !== "completed") throw new AgentRunFailedError(run);
  // Completed, but its per-task charge is not confirmed on-chain yet: the output is withheld until it is
  // (client.runs.get releases it). Running the task again would be a second, charged run: say so.
  if (run.settlement === "pending") {
    throw new AgentRunFailedError({
      ...run,
      error: { code: "settlement_pending", message: `Run ${run.run_id} completed, but its charge is not confirmed on-chain yet; its output is released once it is (runs.get("${run.run_id}")). Do not run the task again: that would be a new run, charged again.` },
    });
  }
  return run;
}

/** JSON text of a value, with bigints as decimal strings. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? "null";
}

/** The tool result a model reads: a string output as it is, structured output as JSON text. */
export function formatToolOutput(output: unknown): string {
  return typeof output === "string" ? output : toJsonText(output);
}

/** What went wrong, in a form safe to show a model or a user (no credentials), with code and request id. */
export interface AgentToolErrorInfo {
  code: string;
  message: string;
  status?: number;
  request_id?: string;
  run_id?: string;
  on_chain_error?: { contract: string; error: string };
}

/** Describes an error of a tool call: an API refusal, a failed run, bad arguments or a connection failure. */
export function describeToolError(error: unknown): AgentToolErrorInfo {
  if (error instanceof AgentRunFailedError) return { code: error.code, message: error.run.error?.message ?? error.message, run_id: error.run.run_id };
  if (error instanceof AgentToolInputError) return { code: error.code, message: error.message };
  if (error instanceof AgentRentalError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.status !== 0 ? { status: error.status } : {}),
      ...(error.requestId !== undefined ? { request_id: error.requestId } : {}),
      ...(error.onChainError !== undefined ? { on_chain_error: error.onChainError } : {}),
    };
  }
  return { code: "tool_error", message: error instanceof Error ? error.message : String(error) };
}

/** A tool call that did not produce a result, with a message that names the code and the request id. */
export class AgentToolCallError extends Error {
  readonly code: string;
  readonly info: AgentToolErrorInfo;
  constructor(cause: unknown) {
    super(formatToolError(cause), { cause });
    this.name = "AgentToolCallError";
    this.info = describeToolError(cause);
    this.code = this.info.code;
  }
}

/** One line for a tool error: `Error credential_not_found (HTTP 403, request id req_…): message`. */
export function formatToolError(error: unknown): string {
  return formatToolErrorInfo(describeToolError(error));
}

/** One line for a described tool error (see formatToolError). */
export function formatToolErrorInfo(info: AgentToolErrorInfo): string {
  const details = [
    info.status !== undefined ? `HTTP ${info.status}` : undefined,
    info.request_id !== undefined ? `request id ${info.request_id}` : undefined,
    info.run_id !== undefined ? `run id ${info.run_id}` : undefined,
    info.on_chain_error !== undefined ? `contract error ${info.on_chain_error.error}` : undefined,
  ].filter((d): d is string => d !== undefined);
  return `Error ${info.code}${details.length > 0 ? ` (${details.join(", ")})` : ""}: ${info.message}`;
}

/** Whether the call was aborted by its caller: the abort is rethrown, never turned into a tool result. */
export function isAbort(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
