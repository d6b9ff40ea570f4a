// An agent as a tool: the tool definition of the execute request in the common function-calling
// format (agent_id, task, input), the validation of a tool call's arguments, and turning a run's output
// (or an error) into the text a model reads. No framework and no client: the SDK runs the calls with
// its client (sdk/src/tools/run.ts), the API's remote MCP endpoint in process, and the adapters
// (OpenAI-style tools, the AI SDK, MCP) build on this.

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
