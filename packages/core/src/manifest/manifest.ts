// The agent manifest validator: every rule of the specification's manifest table, checked in one pass
// that lists every problem with its JSON pointer (RFC 6901) and a short code, never just the first. The
// registration queue consumer calls `validateManifest`; the route calls `checkManifestSize` before
// queueing. The validator never throws on any JSON value, so a hostile manifest cannot crash the
// consumer. The rules, codes and decisions are in docs/reference/manifest.md.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { sample } from "openapi-sampler";
import { checkUrl } from "./hosts.ts";
import { linearPatternProblem, linearRegExp, PATTERN_LIMITS, schemaPatterns } from "./patterns.ts";
import { isToolName, parseToolScope, TOOL_NAMES, type ToolName } from "./tools.ts";
import { CATEGORIES, PROVIDERS, type Category } from "../vocabulary.ts";

/** Largest manifest accepted, in UTF-8 bytes of the request body. */
export const MANIFEST_MAX_BYTES = 65536;
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** The caps the specification leaves to us. */
export const MANIFEST_LIMITS = {
  maxTools: 10,
  maxTimeoutSeconds: 300,
  nameMinChars: 3,
  nameMaxChars: 64,
  descriptionMaxChars: 5000,
  systemPromptMaxChars: 32000,
  modelIdMaxChars: 128,
  schemaMaxDepth: 32,
  schemaMaxNodes: 10000,
  /** Errors listed at most; one more entry, `too_many_errors`, says the list was cut. */
  maxErrors: 100,
} as const;

export type ManifestModel = { provider: "provider_a" | "provider_b"; model: string } | { provider: "self_hosted"; endpoint_url: string; model?: string };

export interface ManifestTool {
  name: ToolName;
  scope: string;
}

/** A manifest that passed: only known fields, `tools` and `timeout_seconds` filled in, URLs in the form
 * the URL parser serializes them (the exact form that was checked). Exactly one of `system_prompt`
 * (declarative agent) and `entrypoint_url` (connected agent) is set. */
export interface AgentManifest {
  name: string;
  category: Category;
  description: string;
  model: ManifestModel;
  system_prompt?: string;
  entrypoint_url?: string;
  tools: ManifestTool[];
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  timeout_seconds: number;
  /** The listing's sample outputs (one to three, as text): the output schema's `examples`, or, when it
   * has none, one example generated from the schema. Every one matches the output schema. Absent on
   * manifests stored before it was derived here. */
  sample_output?: string[];
}

/** At most this many of the output schema's examples become the listing's sample outputs. */
export const MAX_SAMPLE_OUTPUTS = 3;

export type ManifestErrorCode =
  | "wrong_type"
  | "required"
  | "unknown_field"
  | "empty"
  | "too_long"
  | "not_kebab_case"
  | "unknown_category"
  | "unknown_provider"
  | "invalid_format"
  | "not_allowed"
  | "both_prompt_and_entrypoint"
  | "neither_prompt_nor_entrypoint"
  | "invalid_url"
  | "not_https"
  | "credentials_in_url"
  | "port_not_allowed"
  | "non_canonical_ip"
  | "forbidden_address"
  | "internal_hostname"
  | "too_many"
  | "unknown_tool"
  | "duplicate_tool"
  | "invalid_scope"
  | "invalid_schema"
  | "unsupported_dialect"
  | "remote_ref"
  | "too_deep"
  | "too_large"
  | "not_integer"
  | "out_of_range"
  | "unsupported_pattern"
  | "unsafe_pattern"
  | "invalid_example"
  | "too_many_errors";

/** One problem: where (RFC 6901 pointer into the manifest, "" for the root), what (code), and why. */
export interface ManifestError {
  pointer: string;
  code: ManifestErrorCode;
  message: string;
}

export type ManifestValidation = { ok: true; manifest: AgentManifest } | { ok: false; errors: ManifestError[] };

export interface ValidateManifestOptions {
  /** Local development only: let URLs point at loopback/private hosts over http (see hosts.ts). */
  allowPrivateHosts?: boolean;
}

const TOP_LEVEL = ["name", "category", "description", "model", "system_prompt", "entrypoint_url", "tools", "input_schema", "output_schema", "timeout_seconds"];
const MODEL_FIELDS = ["provider", "model", "endpoint_url"];
const TOOL_FIELDS = ["name", "scope"];
const KEBAB = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const MODEL_ID = /^[\x21-\x7e]+$/;
const DIALECT = "https://json-schema.org/draft/2020-12/schema";

type Json = Record<string, unknown>;

/** Validates a parsed manifest against every rule; all problems are listed. Never throws. */
export function validateManifest(input: unknown, options: ValidateManifestOptions = {}): ManifestValidation {
  const errors: ManifestError[] = [];
  const add = (pointer: string, code: ManifestErrorCode, message: string) => void errors.push({ pointer, code, message });
  if (!isObject(input)) return { ok: false, errors: [{ pointer: "", code: "wrong_type", message: `The manifest must be a JSON object, not ${describe(input)}.` }] };
  const urlOptions = { allowPrivateForDevelopment: options.allowPrivateHosts === true };
  const checkedUrl = (pointer: string, value: string): string | undefined => {
    const problem = checkUrl(value, urlOptions);
    if (problem === null) return new URL(value).href;
    add(pointer, problem.code, problem.message);
    return undefined;
  };

  const name = stringField(input, "name", "/name", true, add);
  if (name !== undefined && (name.length < MANIFEST_LIMITS.nameMinChars || name.length > MANIFEST_LIMITS.nameMaxChars || !KEBAB.test(name))) {
    add("/name", "not_kebab_case", `name must be kebab-case: ${MANIFEST_LIMITS.nameMinChars} to ${MANIFEST_LIMITS.nameMaxChars} lowercase letters and digits in words joined by single hyphens, starting with a letter (e.g. "contract-reviewer").`);
  }

  const category = stringField(input, "category", "/category", true, add);
  if (category !== undefined && !isOneOf(CATEGORIES, category)) add("/category", "unknown_category", `category must be one of ${CATEGORIES.join(", ")}.`);

  const description = stringField(input, "description", "/description", true, add);
  if (description !== undefined) checkText(description, "/description", "description", MANIFEST_LIMITS.descriptionMaxChars, add);

  const model = checkModel(get(input, "model"), add, checkedUrl);

  const prompt = stringField(input, "system_prompt", "/system_prompt", false, add);
  if (prompt !== undefined) checkText(prompt, "/system_prompt", "system_prompt", MANIFEST_LIMITS.systemPromptMaxChars, add);
  const entrypointRaw = stringField(input, "entrypoint_url", "/entrypoint_url", false, add);
  const entrypoint = entrypointRaw === undefined ? undefined : checkedUrl("/entrypoint_url", entrypointRaw);
  const hasPrompt = isPresent(get(input, "system_prompt"));
  const hasEntrypoint = isPresent(get(input, "entrypoint_url"));
  if (hasPrompt && hasEntrypoint) add("", "both_prompt_and_entrypoint", "Declare system_prompt (a declarative agent run in our sandbox) or entrypoint_url (a connected agent we call), never both.");
  if (!hasPrompt && !hasEntrypoint) add("", "neither_prompt_nor_entrypoint", "Declare system_prompt (a declarative agent run in our sandbox) or entrypoint_url (a connected agent we call).");

  // A connected agent runs on its own servers: tools of ours would never be used, so listing any is refused.
  const rawTools = get(input, "tools");
  const connectedWithTools = hasEntrypoint && !hasPrompt && Array.isArray(rawTools) && rawTools.length > 0;
  if (connectedWithTools) add("/tools", "not_allowed", "A connected agent (entrypoint_url) runs on its own servers and uses no tools of ours; remove tools.");
  const tools = connectedWithTools ? [] : checkTools(rawTools, add);

  const inputSchema = checkSchema(get(input, "input_schema"), "/input_schema", add);
  const outputSchema = checkSchema(get(input, "output_schema"), "/output_schema", add);
  const sampleOutput = outputSchema === undefined ? undefined : sampleOutputs(outputSchema, add);

  let timeout = DEFAULT_TIMEOUT_SECONDS;
  const rawTimeout = get(input, "timeout_seconds");
  if (rawTimeout !== undefined) {
    if (typeof rawTimeout !== "number") add("/timeout_seconds", "wrong_type", `timeout_seconds must be a number (an integer of seconds), not ${describe(rawTimeout)}.`);
    else if (!Number.isInteger(rawTimeout)) add("/timeout_seconds", "not_integer", "timeout_seconds must be a whole number of seconds.");
    else if (rawTimeout < 1 || rawTimeout > MANIFEST_LIMITS.maxTimeoutSeconds) add("/timeout_seconds", "out_of_range", `timeout_seconds must be 1 to ${MANIFEST_LIMITS.maxTimeoutSeconds}.`);
    else timeout = rawTimeout;
  }

  for (const key of Object.keys(input)) {
    if (!TOP_LEVEL.includes(key)) add(`/${escapePointer(key)}`, "unknown_field", unknownFieldMessage(key, TOP_LEVEL));
  }

  if (errors.length > 0) return { ok: false, errors: capErrors(errors) };
  if (name === undefined || category === undefined || description === undefined || model === undefined || inputSchema === undefined || outputSchema === undefined || sampleOutput === undefined) {
    return { ok: false, errors: [{ pointer: "", code: "invalid_format", message: "The manifest is incomplete." }] };
  }
  const manifest: AgentManifest = {
    name,
    category: category as Category,
    description,
    model,
    ...(prompt !== undefined ? { system_prompt: prompt } : {}),
    ...(entrypoint !== undefined ? { entrypoint_url: entrypoint } : {}),
    tools,
    input_schema: inputSchema,
    output_schema: outputSchema,
    timeout_seconds: timeout,
    sample_output: sampleOutput,
  };
  return { ok: true, manifest };
}

type Add = (pointer: string, code: ManifestErrorCode, message: string) => void;

function checkModel(value: unknown, add: Add, checkedUrl: (pointer: string, value: string) => string | undefined): ManifestModel | undefined {
  if (value === undefined) return void add("/model", "required", "model is required: {provider, model} or {provider: \"self_hosted\", endpoint_url}.");
  if (!isObject(value)) return void add("/model", "wrong_type", `model must be an object, not ${describe(value)}.`);
  for (const key of Object.keys(value)) {
    if (!MODEL_FIELDS.includes(key)) add(`/model/${escapePointer(key)}`, "unknown_field", unknownFieldMessage(key, MODEL_FIELDS));
  }
  const provider = stringField(value, "provider", "/model/provider", true, add);
  if (provider !== undefined && !isOneOf(PROVIDERS, provider)) add("/model/provider", "unknown_provider", `model.provider must be one of ${PROVIDERS.join(", ")}.`);
  const modelId = stringField(value, "model", "/model/model", false, add);
  if (modelId !== undefined) {
    if (modelId.length === 0) add("/model/model", "empty", "model.model must not be empty.");
    else if (modelId.length > MANIFEST_LIMITS.modelIdMaxChars) add("/model/model", "too_long", `model.model is at most ${MANIFEST_LIMITS.modelIdMaxChars} characters.`);
    else if (!MODEL_ID.test(modelId)) add("/model/model", "invalid_format", "model.model is a model identifier: printable ASCII, no spaces.");
  }
  const endpointRaw = stringField(value, "endpoint_url", "/model/endpoint_url", false, add);
  const hosted = provider === "provider_a" || provider === "provider_b";
  if (hosted && get(value, "model") === undefined) add("/model/model", "required", `model.model is required for ${provider}.`);
  if (hosted && get(value, "endpoint_url") !== undefined) add("/model/endpoint_url", "not_allowed", `model.endpoint_url is only for self_hosted; ${provider} is called at its own address.`);
  if (provider === "self_hosted" && get(value, "endpoint_url") === undefined) add("/model/endpoint_url", "required", "model.endpoint_url is required for self_hosted.");
  const endpoint = endpointRaw === undefined ? undefined : checkedUrl("/model/endpoint_url", endpointRaw);
  if (hosted && modelId !== undefined) return { provider, model: modelId };
  if (provider === "self_hosted" && endpoint !== undefined) return { provider, endpoint_url: endpoint, ...(modelId !== undefined ? { model: modelId } : {}) };
  return undefined;
}

function checkTools(value: unknown, add: Add): ManifestTool[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    add("/tools", "wrong_type", `tools must be an array of {name, scope}, not ${describe(value)}.`);
    return [];
  }
  if (value.length > MANIFEST_LIMITS.maxTools) add("/tools", "too_many", `At most ${MANIFEST_LIMITS.maxTools} tools; the manifest lists ${value.length}.`);
  const tools: ManifestTool[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of value.entries()) {
    const at = `/tools/${index}`;
    if (!isObject(entry)) {
      add(at, "wrong_type", `Each tool must be an object {name, scope}, not ${describe(entry)}.`);
      continue;
    }
    for (const key of Object.keys(entry)) {
      if (!TOOL_FIELDS.includes(key)) add(`${at}/${escapePointer(key)}`, "unknown_field", unknownFieldMessage(key, TOOL_FIELDS));
    }
    const name = stringField(entry, "name", `${at}/name`, true, add);
    const scope = stringField(entry, "scope", `${at}/scope`, true, add);
    if (name === undefined) continue;
    if (!isToolName(name)) {
      add(`${at}/name`, "unknown_tool", `"${clip(name)}" is not a tool of the catalogue (${TOOL_NAMES.join(", ")}).`);
      continue;
    }
    if (seen.has(name)) add(`${at}/name`, "duplicate_tool", `${name} is listed more than once; give it one scope.`);
    seen.add(name);
    if (scope === undefined) continue;
    const parsed = parseToolScope(name, scope);
    if (!parsed.ok) for (const problem of parsed.problems) add(`${at}/scope`, "invalid_scope", problem);
    else tools.push({ name, scope });
  }
  return tools;
}

/** Walks a schema (JSON values only, depth and size capped, local `$ref`s only), then compiles it. */
function checkSchema(value: unknown, pointer: string, add: Add): Record<string, unknown> | undefined {
  const field = pointer.slice(1);
  if (value === undefined) return void add(pointer, "required", `${field} is required (a JSON Schema object, draft 2020-12).`);
  if (!isObject(value)) return void add(pointer, "wrong_type", `${field} must be a JSON Schema object, not ${describe(value)}.`);
  let nodes = 0;
  let remoteRefs = 0;
  let stop = false;
  const walk = (node: unknown, at: string, depth: number): void => {
    if (stop) return;
    nodes += 1;
    if (nodes > MANIFEST_LIMITS.schemaMaxNodes) {
      stop = true;
      return add(pointer, "too_large", `${field} has more than ${MANIFEST_LIMITS.schemaMaxNodes} values.`);
    }
    if (node === null || typeof node === "string" || typeof node === "boolean") return;
    if (typeof node === "number") {
      if (Number.isFinite(node)) return;
      stop = true;
      return add(at, "invalid_schema", "Not a JSON value.");
    }
    if (typeof node !== "object" || (!Array.isArray(node) && Object.getPrototypeOf(node) !== Object.prototype && Object.getPrototypeOf(node) !== null)) {
      stop = true;
      return add(at, "invalid_schema", "Not a JSON value.");
    }
    if (depth >= MANIFEST_LIMITS.schemaMaxDepth) {
      stop = true;
      return add(at, "too_deep", `${field} nests deeper than ${MANIFEST_LIMITS.schemaMaxDepth} levels.`);
    }
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${at}/${i}`, depth + 1));
      return;
    }
    for (const [key, child] of Object.entries(node)) {
      const childAt = `${at}/${escapePointer(key)}`;
      if ((key === "$ref" || key === "$dynamicRef" || key === "$recursiveRef") && typeof child === "string" && !child.startsWith("#")) {
        add(childAt, "remote_ref", `${key} "${clip(child)}" points outside the schema; only references within it ("#...") are allowed.`);
        remoteRefs += 1;
      }
      walk(child, childAt, depth + 1);
    }
  };
  walk(value, pointer, 0);
  if (stop || remoteRefs > 0) return undefined;
  let badPatterns = 0;
  for (const { pointer: at, pattern } of schemaPatterns(value, pointer)) {
    if (pattern.length > PATTERN_LIMITS.maxPatternChars) {
      badPatterns += 1;
      add(at, "too_long", `A pattern is at most ${PATTERN_LIMITS.maxPatternChars} characters; this one has ${pattern.length}.`);
      continue;
    }
    // Not a regular expression at all: the schema check below reports it (invalid_schema).
    if (!isJsRegExp(pattern)) continue;
    const problem = linearPatternProblem(pattern);
    if (problem === null) continue;
    badPatterns += 1;
    add(at, "unsupported_pattern", `The pattern "${clip(pattern)}" cannot run on the service's linear-time regular expression engine (RE2): ${problem}. Backreferences and lookahead/lookbehind are not supported.`);
  }
  if (badPatterns > 0) return undefined;
  const dialect = value.$schema;
  if (dialect !== undefined && dialect !== DIALECT && dialect !== `${DIALECT}#`) {
    return void add(`${pointer}/$schema`, "unsupported_dialect", `Only JSON Schema draft 2020-12 is supported ($schema "${DIALECT}" or absent).`);
  }
  const compiled = compileJsonSchema(value);
  if (!compiled.ok) return void add(pointer, "invalid_schema", `${field} is not a valid JSON Schema: ${compiled.message}`);
  return structuredClone(value);
}

/**
 * The listing's sample outputs (the specification: one to three): the output schema's `examples`, each
 * of which must match the schema (the first three are shown), or, when it gives none, one example
 * generated from the schema (openapi-sampler: enum, const, defaults and types, the first branch of a
 * union), kept only if it matches. A schema no valid example can be generated for must give examples.
 */
function sampleOutputs(schema: Record<string, unknown>, add: Add): string[] | undefined {
  const compiled = compileJsonSchema(schema);
  if (!compiled.ok) return undefined;
  const { validate } = compiled;
  const asText = (example: unknown) => (typeof example === "string" ? example : JSON.stringify(example));
  const examples = schema.examples;
  if (examples !== undefined) {
    if (!Array.isArray(examples) || examples.length === 0) {
      return void add("/output_schema/examples", "wrong_type", `output_schema.examples must be an array of one to ${MAX_SAMPLE_OUTPUTS} example outputs (shown as the listing's sample_output).`);
    }
    let valid = true;
    examples.forEach((example, index) => {
      if (validate(example)) return;
      valid = false;
      const why = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`).join("; ");
      add(`/output_schema/examples/${index}`, "invalid_example", `Example ${index} does not match output_schema: ${why}.`);
    });
    return valid ? examples.slice(0, MAX_SAMPLE_OUTPUTS).map(asText) : undefined;
  }
  let generated: unknown;
  try {
    generated = sample(schema as Parameters<typeof sample>[0], { skipReadOnly: true, quiet: true }, schema);
  } catch {
    generated = undefined;
  }
  if (generated !== undefined && generated !== null && validate(generated)) return [asText(generated)];
  return void add("/output_schema/examples", "required", `output_schema has no examples and none could be generated that matches it; add one to ${MAX_SAMPLE_OUTPUTS} example outputs under output_schema.examples (shown as the listing's sample_output).`);
}

/** Ajv options for manifest schemas: draft 2020-12, every error listed, unknown keywords and formats
 * refused (strictSchema) so a typo like "requird" does not silently drop a rule, type-strictness off
 * (valid JSON Schema that Ajv merely finds loose is accepted), nothing logged, nothing fetched. */
export const SCHEMA_AJV_OPTIONS = {
  strict: true,
  strictSchema: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allErrors: true,
  addUsedSchema: false,
  logger: false,
  // Creator patterns run on RE2 (linear time), never on JavaScript's backtracking engine: see patterns.ts.
  code: { regExp: linearRegExp },
  // Otherwise Ajv tests every patternProperties key against the schema's property names with
  // `new RegExp` while compiling: a creator's pattern on the backtracking engine again.
  allowMatchingProperties: true,
} as const;

let ajv: Ajv2020 | undefined;
let compiles = 0;

/** Compiles a JSON Schema with the manifest's Ajv settings: the validator, or why it does not compile.
 * The runtime uses the same function to check renters' input and agents' output. */
export function compileJsonSchema(schema: Record<string, unknown>): { ok: true; validate: ValidateFunction } | { ok: false; message: string } {
  // Ajv caches every compiled schema for the life of the instance; start a fresh one now and then.
  if (ajv === undefined || compiles >= 256) {
    ajv = new Ajv2020(SCHEMA_AJV_OPTIONS);
    addFormats(ajv);
    compiles = 0;
  }
  compiles += 1;
  try {
    if (!ajv.validateSchema(schema)) {
      const messages = (ajv.errors ?? []).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`);
      return { ok: false, message: [...new Set(messages)].join("; ") };
    }
    return { ok: true, validate: ajv.compile(schema) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** The public metadata of a listing: what renters and the catalogue see. Never the prompt, the tool
 * scopes, the endpoint or entrypoint URL, or anything about the model. */
export interface PublicAgentMetadata {
  name: string;
  description: string;
  category: Category;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  tools: string[];
  timeout_seconds: number;
}

/** Projects a validated manifest to its public metadata (a copy: later changes do not leak through). */
export function publicMetadata(manifest: AgentManifest): PublicAgentMetadata {
  return {
    name: manifest.name,
    description: manifest.description,
    category: manifest.category,
    input_schema: structuredClone(manifest.input_schema),
    output_schema: structuredClone(manifest.output_schema),
    tools: manifest.tools.map((tool) => tool.name),
    timeout_seconds: manifest.timeout_seconds,
  };
}

export type ManifestSizeCheck = { ok: true; bytes: number } | { ok: false; bytes: number; message: string };

// TextEncoder rather than Node's Buffer: the rules also run in the dashboard.
const utf8 = new TextEncoder();

/** The synchronous size check of `POST /v1/agents`: the body's UTF-8 length against 64 KB. */
export function checkManifestSize(rawBody: string | Uint8Array): ManifestSizeCheck {
  const bytes = typeof rawBody === "string" ? utf8.encode(rawBody).byteLength : rawBody.byteLength;
  if (bytes <= MANIFEST_MAX_BYTES) return { ok: true, bytes };
  return { ok: false, bytes, message: `The manifest is ${bytes} bytes; the maximum is ${MANIFEST_MAX_BYTES} bytes (64 KB).` };
}

/** RFC 6901: "~" becomes "~0" and "/" becomes "~1". */
export function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function stringField(object: Json, key: string, pointer: string, required: boolean, add: Add): string | undefined {
  const value = get(object, key);
  if (value === undefined) {
    if (required) add(pointer, "required", `${pointer.slice(1).replace(/\//g, ".")} is required.`);
    return undefined;
  }
  if (typeof value !== "string") {
    add(pointer, "wrong_type", `${pointer.slice(1).replace(/\//g, ".")} must be a string, not ${describe(value)}.`);
    return undefined;
  }
  return value;
}

function checkText(value: string, pointer: string, label: string, max: number, add: Add): void {
  if (value.trim().length === 0) add(pointer, "empty", `${label} must not be empty.`);
  else if (value.length > max) add(pointer, "too_long", `${label} is at most ${max} characters; it has ${value.length}.`);
}

/** Whether `pattern` compiles as JSON Schema reads it (ECMAScript, Unicode mode). Compiling never runs it. */
function isJsRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** The list cut at MANIFEST_LIMITS.maxErrors, with one `too_many_errors` entry saying how many more. */
export function capErrors(errors: ManifestError[]): ManifestError[] {
  if (errors.length <= MANIFEST_LIMITS.maxErrors) return errors;
  return [...errors.slice(0, MANIFEST_LIMITS.maxErrors), { pointer: "", code: "too_many_errors", message: `${errors.length - MANIFEST_LIMITS.maxErrors} more problems are not listed.` }];
}

function unknownFieldMessage(key: string, known: readonly string[]): string {
  const near = known.find((k) => editDistance(k, key) <= 2);
  return `"${clip(key)}" is not a manifest field${near !== undefined ? `; did you mean "${near}"?` : ` (known: ${known.join(", ")}).`}`;
}

/** Own properties only, so "constructor" and friends never come from the prototype. */
function get(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || b.length > 64) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 3;
}
