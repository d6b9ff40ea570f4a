// A rented agent's own schemas as a tool's schemas: the tool's input is the agent's input_schema with
// `task` beside its properties (or, when that cannot be merged, the agent's schema under `input`), and
// the tool's output schema is the agent's output_schema when it describes an object (MCP's
// outputSchema must). One definition for every adapter (the stdio MCP server, the API's remote MCP
// endpoint), so a model sees exactly what the agent accepts.
import type { JsonSchemaObject } from "./definition.ts";

/** The `task` property every agent tool takes. */
export const TASK_PROPERTY = { type: "string", minLength: 1, maxLength: 32768, description: "What the agent should do, in natural language." } as const;

/** How a call's arguments carry the agent's input: beside `task` ("flat") or as `input` ("nested"). */
export type AgentInputShape = "flat" | "nested";

export interface AgentToolSchemas {
  inputSchema: JsonSchemaObject & { type: "object" };
  /** Present when the agent's output schema describes an object (the tool then answers structuredContent). */
  outputSchema?: JsonSchemaObject & { type: "object" };
  shape: AgentInputShape;
  /** The agent's input schema as registered (what the service validates the input against). */
  agentInputSchema: JsonSchemaObject | undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

// Top-level keywords whose meaning changes when another property is added beside the agent's own.
const NOT_MERGEABLE = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef", "patternProperties", "propertyNames", "dependentSchemas", "dependentRequired", "unevaluatedProperties", "minProperties", "maxProperties"];

/** The tool schemas of an agent whose schemas are unknown: task, and any JSON object as input. */
export const UNKNOWN_AGENT_SCHEMAS: AgentToolSchemas = {
  inputSchema: {
    type: "object",
    properties: {
      task: TASK_PROPERTY,
      input: { type: "object", additionalProperties: true, description: "Structured input for the agent, shaped by its input schema. Omit when the task says everything." },
    },
    required: ["task"],
    additionalProperties: false,
  },
  shape: "nested",
  agentInputSchema: undefined,
};

/** Builds the tool schemas from the agent's input_schema and output_schema (its public metadata). */
export function agentToolSchemas(inputSchema: unknown, outputSchema: unknown): AgentToolSchemas {
  if (!isPlainObject(inputSchema)) return UNKNOWN_AGENT_SCHEMAS;
  const { $schema: _dialect, $id: _id, ...schema } = inputSchema;
  const output = isPlainObject(outputSchema) && outputSchema.type === "object" ? (outputSchema as JsonSchemaObject & { type: "object" }) : undefined;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const flat = schema.type === "object" && !("task" in properties) && !NOT_MERGEABLE.some((keyword) => keyword in schema);
  if (flat) {
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
    return {
      inputSchema: { ...schema, type: "object", properties: { task: TASK_PROPERTY, ...properties }, required: ["task", ...required] },
      ...(output ? { outputSchema: output } : {}),
      shape: "flat",
      agentInputSchema: inputSchema,
    };
  }
  // Nested: definitions stay at the root, so the agent's "#/$defs/…" references still resolve.
  const { $defs, definitions, ...rest } = schema;
  const needsInput = schema.type === "object" ? Array.isArray(schema.required) && schema.required.length > 0 : schema.type !== undefined;
  return {
    inputSchema: {
      type: "object",
      ...($defs === undefined ? {} : { $defs }),
      ...(definitions === undefined ? {} : { definitions }),
      properties: { task: TASK_PROPERTY, input: { ...rest, description: typeof rest.description === "string" ? rest.description : "The agent's input, shaped by its input schema." } },
      required: needsInput ? ["task", "input"] : ["task"],
      additionalProperties: false,
    },
    ...(output ? { outputSchema: output } : {}),
    shape: "nested",
    agentInputSchema: inputSchema,
  };
}

/** The task and input of a per-agent tool call, or a message saying what is wrong with the arguments. */
export function agentCallOf(schemas: AgentToolSchemas, args: unknown): { ok: true; task: string; input?: string | Record<string, unknown> } | { ok: false; message: string } {
  if (!isPlainObject(args)) return { ok: false, message: "The tool arguments must be a JSON object." };
  const { task, ...rest } = args;
  if (typeof task !== "string" || task.trim() === "") return { ok: false, message: task === "" ? "task must not be empty: say what the agent should do." : "task is required: a non-empty string saying what the agent should do." };
  if (task.length > TASK_PROPERTY.maxLength) return { ok: false, message: `task is longer than ${TASK_PROPERTY.maxLength} characters.` };
  const allowed = Object.keys((schemas.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const closed = schemas.shape === "nested" || schemas.inputSchema.additionalProperties === false;
  const unknown = closed ? Object.keys(rest).filter((key) => !allowed.includes(key)) : [];
  if (unknown.length > 0) return { ok: false, message: `Unknown argument${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Allowed: ${allowed.join(", ")}.` };
  if (schemas.shape === "flat") return Object.keys(rest).length === 0 ? { ok: true, task } : { ok: true, task, input: rest };
  const input = rest.input;
  if (input === undefined) return { ok: true, task };
  if (typeof input === "string" || isPlainObject(input)) return { ok: true, task, input };
  return { ok: false, message: "input must be a JSON object (or text, when the agent takes text)." };
}
