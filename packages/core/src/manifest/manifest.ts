// The agent manifest, defined once: `manifestSchema` (zod) holds every rule of the specification's
// manifest table and ours, and `validateManifest` checks a manifest with it in one pass that lists every
// problem with its JSON pointer (RFC 6901) and a short code, never just the first. The registration
// queue consumer, the CLI and the dashboard's editor call `validateManifest`; the route calls
// `checkManifestSize` before queueing and describes the body with `manifestJsonSchema`. The validator
// never throws on any JSON value, so a hostile manifest cannot crash the consumer. The rules, codes and
// decisions are in docs/reference/manifest.md.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { sample } from "openapi-sampler";
import { checkUrl } from "./hosts.ts";
import { linearPatternProblem, linearRegExp, PATTERN_LIMITS, schemaPatterns } from "./patterns.ts";
import { isToolName, parseToolScope, TOOL_CATALOGUE, TOOL_NAMES, type ToolName } from "./tools.ts";
import { z } from "zod";
import { CATEGORIES, PROVIDERS, type Category, type Provider } from "../vocabulary.ts";

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

/** Validates a parsed manifest against every rule of the manifest's one schema ({@link manifestSchema});
 * all problems are listed, each with its JSON pointer and code. Never throws. */
export function validateManifest(input: unknown, options: ValidateManifestOptions = {}): ManifestValidation {
  let parsed: ReturnType<ManifestSchema["safeParse"]>;
  try {
    parsed = manifestSchema(options).safeParse(input);
  } catch {
    return { ok: false, errors: [{ pointer: "", code: "invalid_format", message: "The manifest could not be read." }] };
  }
  if (!parsed.success) return { ok: false, errors: manifestErrorsOf(parsed.error.issues, input) };
  return { ok: true, manifest: normalized(input as Json) };
}

/** A manifest that passed, in its normal form: only known fields, defaults filled in, URLs as the URL
 * parser serializes them (the exact form that was checked), the schemas deep-copied, the sample outputs. */
function normalized(input: Json): AgentManifest {
  const href = (url: string) => new URL(url).href;
  const model = input.model as { provider: Provider; model?: string; endpoint_url?: string };
  const outputSchema = structuredClone(input.output_schema) as Record<string, unknown>;
  // Derived while the schema was checked (deriving compiles the schema: not twice).
  const sampleOutput = samplesOf.get(input.output_schema as object) ?? sampleOutputs(outputSchema, () => undefined) ?? [];
  return {
    name: input.name as string,
    category: input.category as Category,
    description: input.description as string,
    model: model.provider === "self_hosted" ? { provider: "self_hosted", endpoint_url: href(model.endpoint_url as string), ...(model.model !== undefined ? { model: model.model } : {}) } : { provider: model.provider, model: model.model as string },
    ...(typeof input.system_prompt === "string" ? { system_prompt: input.system_prompt } : {}),
    ...(typeof input.entrypoint_url === "string" ? { entrypoint_url: href(input.entrypoint_url) } : {}),
    tools: ((input.tools as ManifestTool[] | undefined) ?? []).map((tool) => ({ name: tool.name, scope: tool.scope })),
    input_schema: structuredClone(input.input_schema) as Record<string, unknown>,
    output_schema: outputSchema,
    timeout_seconds: (input.timeout_seconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
    sample_output: sampleOutput,
  };
}

type Add = (pointer: string, code: ManifestErrorCode, message: string) => void;

/** The sample outputs derived from an output schema (the creator's object) while it was checked. */
const samplesOf = new WeakMap<object, string[]>();

// ── The one schema ──────────────────────────────────────────────────────────────────────────────────
// Every rule of the manifest is a part of this zod schema: the types, lengths, patterns and enums zod
// checks (and writes into the JSON Schema the API document and the docs show), and the rules no JSON
// Schema can state (the URL rules, the scope grammars, the schemas' own rules, the sample outputs, the
// rules across fields) as refinements of the same fields, which report with the codes and pointers of
// docs/reference/manifest.md. manifestErrorsOf turns zod's issues into ManifestErrors.

/** A custom issue's payload: the manifest's code, its pointer when the refinement knows the absolute one,
 * and whether it replaces what was found under that pointer (a connected agent's tools are not read). */
interface RuleParams {
  code: ManifestErrorCode;
  pointer?: string;
  supersedes?: boolean;
}

type Ctx = z.RefinementCtx;
/** A rule's problem at `path` below the refined value. */
const problem = (ctx: Ctx, path: (string | number)[], code: ManifestErrorCode, message: string) => ctx.addIssue({ code: "custom", path, message, params: { code } satisfies RuleParams });
/** A rule's problem at an absolute pointer (the schema rules compute their own). */
const problemAt = (ctx: Ctx): Add => (pointer, code, message) => ctx.addIssue({ code: "custom", path: [], message, params: { code, pointer } satisfies RuleParams });
/** A refinement runs whatever else failed (every problem is listed at once), as long as the value has
 * the shape it reads: an object, an array. */
const whenObject = { when: (payload: { value: unknown }) => isObject(payload.value) } as const;
const whenArray = { when: (payload: { value: unknown }) => Array.isArray(payload.value) } as const;

const dotted = (path: readonly PropertyKey[]) => path.map(String).join(".");
/** zod's message for a missing field or one of the wrong type, in the manifest's words. */
function typeMessage(expected: string, required = (field: string) => `${field} is required.`) {
  return (issue: { input?: unknown; path?: readonly PropertyKey[] }) => {
    const field = dotted(issue.path ?? []);
    return issue.input === undefined ? required(field) : `${field} must be ${expected}, not ${describe(issue.input)}.`;
  };
}
/** A field's error map: type problems as above, its own checks' problems with `messages[code]`. */
function fieldError(expected: string, messages: Partial<Record<string, (input: unknown) => string>> = {}, required?: (field: string) => string) {
  const type = typeMessage(expected, required);
  return (issue: z.core.$ZodRawIssue) => {
    const own = messages[issue.code];
    if (own !== undefined && !(issue.code === "invalid_value" && typeof issue.input !== "string")) return own(issue.input);
    if (issue.code === "invalid_type" || issue.code === "invalid_value") return type({ input: issue.input, path: issue.path ?? [] });
    return undefined;
  };
}

const text = (label: string, max: number) =>
  z
    .string({ error: fieldError("a string", { invalid_format: () => `${label} must not be empty.`, too_big: (v) => `${label} is at most ${max} characters; it has ${String(v).length}.` }) })
    .regex(/\S/)
    .max(max);

const url = (options: ValidateManifestOptions) =>
  z.string({ error: fieldError("a string") }).superRefine((value, ctx) => {
    const found = checkUrl(value, { allowPrivateForDevelopment: options.allowPrivateHosts === true });
    if (found !== null) problem(ctx, [], found.code, found.message);
  });

// A creator's JSON Schema is read as written: a zod record would copy it, and a key such as
// "__proto__" would not survive the copy (the schema rules walk the creator's own object instead).
const jsonSchema = (field: "input_schema" | "output_schema") =>
  z
    .custom<Record<string, unknown>>(isObject, { abort: false, error: typeMessage("a JSON Schema object", (name) => `${name} is required (a JSON Schema object, draft 2020-12).`) })
    .meta({ type: "object", additionalProperties: {} })
    .describe(
    `A JSON Schema (draft 2020-12) object: at most ${MANIFEST_LIMITS.schemaMaxDepth} levels deep and ${MANIFEST_LIMITS.schemaMaxNodes} values, references only within the schema ("#..."), patterns of at most ${PATTERN_LIMITS.maxPatternChars} characters that run on a linear-time engine (RE2: no backreferences or lookaround) and are not catastrophic.${field === "output_schema" ? ` Its examples (one to ${MAX_SAMPLE_OUTPUTS}, or one generated from it) are the listing's sample outputs.` : ""}`,
  );

function buildManifestSchema(options: ValidateManifestOptions) {
  const Model = z
    .object(
      {
        provider: z.enum(PROVIDERS, { error: fieldError("a string", { invalid_value: () => `model.provider must be one of ${PROVIDERS.join(", ")}.` }) }).describe("provider_a or provider_b (hosted, called at its own address with the listing's provider key) or self_hosted"),
        model: z
          .string({ error: fieldError("a string", { too_small: () => "model.model must not be empty.", too_big: () => `model.model is at most ${MANIFEST_LIMITS.modelIdMaxChars} characters.`, invalid_format: () => "model.model is a model identifier: printable ASCII, no spaces." }) })
          .min(1)
          .max(MANIFEST_LIMITS.modelIdMaxChars)
          .regex(MODEL_ID)
          .optional()
          .describe("The provider's model identifier: printable ASCII, no spaces. Required for provider_a and provider_b; optional for self_hosted"),
        endpoint_url: url(options).optional().describe("self_hosted only, and required there: the model's HTTPS endpoint, a public host, port 443, no credentials in the URL"),
      },
      { error: typeMessage("an object", () => 'model is required: {provider, model} or {provider: "self_hosted", endpoint_url}.') },
    )
    .strict()
    .superRefine((model, ctx) => {
      const provider = model.provider as unknown;
      const hosted = provider === "provider_a" || provider === "provider_b";
      if (hosted && model.model === undefined) problem(ctx, ["model"], "required", `model.model is required for ${String(provider)}.`);
      if (hosted && model.endpoint_url !== undefined) problem(ctx, ["endpoint_url"], "not_allowed", `model.endpoint_url is only for self_hosted; ${String(provider)} is called at its own address.`);
      if (provider === "self_hosted" && model.endpoint_url === undefined) problem(ctx, ["endpoint_url"], "required", "model.endpoint_url is required for self_hosted.");
    }, whenObject);

  const Tool = z
    .object(
      {
        name: z.enum(TOOL_NAMES, { error: fieldError("a string", { invalid_value: (v) => `"${clip(String(v))}" is not a tool of the catalogue (${TOOL_NAMES.join(", ")}).` }) }).describe(TOOL_NAMES.map((name) => `${name}: ${TOOL_CATALOGUE[name].description}`).join(" ")),
        scope: z.string({ error: fieldError("a string") }).describe(TOOL_NAMES.map((name) => `${name}: ${TOOL_CATALOGUE[name].scopeGrammar}`).join("; ")),
      },
      { error: (issue) => `Each tool must be an object {name, scope}, not ${describe(issue.input)}.` },
    )
    .strict()
    .superRefine((tool, ctx) => {
      // A scope is read by its tool's grammar, so only for a tool of the catalogue.
      if (typeof tool.name !== "string" || !isToolName(tool.name) || typeof tool.scope !== "string") return;
      const parsed = parseToolScope(tool.name, tool.scope);
      if (!parsed.ok) for (const message of parsed.problems) problem(ctx, ["scope"], "invalid_scope", message);
    }, whenObject);

  const Tools = z
    .array(Tool, { error: typeMessage("an array of {name, scope}") })
    // The cap is a refinement (zod checks an array's length before its items, and would then not list
    // the items' own problems); the JSON Schema states it as maxItems.
    .superRefine((tools, ctx) => {
      if (tools.length > MANIFEST_LIMITS.maxTools) problem(ctx, [], "too_many", `At most ${MANIFEST_LIMITS.maxTools} tools; the manifest lists ${tools.length}.`);
      const seen = new Set<string>();
      tools.forEach((tool, index) => {
        const name = isObject(tool) ? tool.name : undefined;
        if (typeof name !== "string" || !isToolName(name)) return;
        if (seen.has(name)) problem(ctx, [index, "name"], "duplicate_tool", `${name} is listed more than once; give it one scope.`);
        seen.add(name);
      });
    }, whenArray)
    .meta({ maxItems: MANIFEST_LIMITS.maxTools })
    .optional()
    .describe("Tools of the catalogue a declarative agent may use, each once, with its scope (none for a connected agent; default none)");

  const InputSchema = jsonSchema("input_schema").superRefine((schema, ctx) => void checkSchema(schema, "/input_schema", problemAt(ctx)), whenObject);
  const OutputSchema = jsonSchema("output_schema").superRefine((schema, ctx) => {
    const add = problemAt(ctx);
    const checked = checkSchema(schema, "/output_schema", add);
    const samples = checked === undefined ? undefined : sampleOutputs(checked, add);
    if (samples !== undefined) samplesOf.set(schema, samples);
  }, whenObject);

  return z
    .object(
      {
        name: z
          .string({ error: fieldError("a string", Object.fromEntries(["too_small", "too_big", "invalid_format"].map((code) => [code, () => KEBAB_MESSAGE]))) })
          .min(MANIFEST_LIMITS.nameMinChars)
          .max(MANIFEST_LIMITS.nameMaxChars)
          .regex(KEBAB)
          .describe("Kebab-case: lowercase letters and digits in words joined by single hyphens, starting with a letter; becomes part of the agent_id"),
        category: z.enum(CATEGORIES, { error: fieldError("a string", { invalid_value: () => `category must be one of ${CATEGORIES.join(", ")}.` }) }).describe("The listing's category (case-sensitive); the search filters by it"),
        description: text("description", MANIFEST_LIMITS.descriptionMaxChars).describe("What the agent does, for renters; not blank"),
        model: Model,
        system_prompt: text("system_prompt", MANIFEST_LIMITS.systemPromptMaxChars).optional().describe("A declarative agent: the prompt the service runs in its sandbox (private; never published). Exactly one of system_prompt and entrypoint_url."),
        entrypoint_url: url(options).optional().describe("A connected agent: the HTTPS URL the service calls with each task, signed per Standard Webhooks. Exactly one of system_prompt and entrypoint_url."),
        tools: Tools,
        input_schema: InputSchema,
        output_schema: OutputSchema,
        timeout_seconds: z
          .number({ error: fieldError("a number (an integer of seconds)", { not_multiple_of: () => "timeout_seconds must be a whole number of seconds.", too_small: () => TIMEOUT_MESSAGE, too_big: () => TIMEOUT_MESSAGE }) })
          // A whole number as multipleOf(1): zod's own integer check ends the parse of the whole manifest
          // at the first fraction (so the rules across fields would go unreported).
          .multipleOf(1)
          .meta({ type: "integer" })
          .min(1)
          .max(MANIFEST_LIMITS.maxTimeoutSeconds)
          .optional()
          .describe(`Longest run, in seconds (default ${DEFAULT_TIMEOUT_SECONDS})`),
      },
      { error: (issue) => `The manifest must be a JSON object, not ${describe(issue.input)}.` },
    )
    .strict()
    .superRefine((manifest, ctx) => {
      const hasPrompt = isPresent(manifest.system_prompt);
      const hasEntrypoint = isPresent(manifest.entrypoint_url);
      if (hasPrompt && hasEntrypoint) problem(ctx, [], "both_prompt_and_entrypoint", "Declare system_prompt (a declarative agent run in our sandbox) or entrypoint_url (a connected agent we call), never both.");
      if (!hasPrompt && !hasEntrypoint) problem(ctx, [], "neither_prompt_nor_entrypoint", "Declare system_prompt (a declarative agent run in our sandbox) or entrypoint_url (a connected agent we call).");
      // A connected agent runs on its own servers: tools of ours would never be used, so listing any is
      // refused, and what the list holds is not read.
      const tools = manifest.tools as unknown;
      if (hasEntrypoint && !hasPrompt && Array.isArray(tools) && tools.length > 0) {
        ctx.addIssue({ code: "custom", path: ["tools"], message: "A connected agent (entrypoint_url) runs on its own servers and uses no tools of ours; remove tools.", params: { code: "not_allowed", supersedes: true } satisfies RuleParams });
      }
    }, whenObject)
    .meta({ description: `The agent manifest (${MANIFEST_MAX_BYTES / 1024} KB at most).` });
}

const KEBAB_MESSAGE = `name must be kebab-case: ${MANIFEST_LIMITS.nameMinChars} to ${MANIFEST_LIMITS.nameMaxChars} lowercase letters and digits in words joined by single hyphens, starting with a letter (e.g. "contract-reviewer").`;
const TIMEOUT_MESSAGE = `timeout_seconds must be 1 to ${MANIFEST_LIMITS.maxTimeoutSeconds}.`;

export type ManifestSchema = ReturnType<typeof buildManifestSchema>;
const schemas = new Map<boolean, ManifestSchema>();

/**
 * The manifest's one schema (zod): what validateManifest checks, what the OpenAPI document describes
 * (`z.toJSONSchema`) and what docs/reference/manifest.md lists. `allowPrivateHosts` is the URL rules'
 * development switch.
 */
export function manifestSchema(options: ValidateManifestOptions = {}): ManifestSchema {
  const key = options.allowPrivateHosts === true;
  let schema = schemas.get(key);
  if (schema === undefined) schemas.set(key, (schema = buildManifestSchema({ allowPrivateHosts: key })));
  return schema;
}

/** The manifest's fields as JSON Schema (draft 2020-12), from the one schema. */
export function manifestJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(manifestSchema(), { io: "input", target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  return schema;
}

/** The fields each object of the manifest knows, for a near miss's suggestion. */
function knownFields(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return TOP_LEVEL;
  if (path[0] === "model") return MODEL_FIELDS;
  return TOOL_FIELDS;
}

/** The manifest's code for one of zod's issues on a field. */
function codeOf(issue: z.core.$ZodIssue, value: unknown, pointer: string): ManifestErrorCode {
  // The manifest itself is never absent, only of the wrong type.
  if (issue.code === "invalid_type" || issue.code === "custom") return value === undefined && pointer !== "" ? "required" : "wrong_type";
  if (issue.code === "not_multiple_of") return "not_integer";
  if (issue.code === "invalid_value") return typeof value !== "string" ? (value === undefined ? "required" : "wrong_type") : pointer === "/category" ? "unknown_category" : pointer === "/model/provider" ? "unknown_provider" : "unknown_tool";
  const field = pointer.replace(/\/\d+\//g, "/*/");
  if (field === "/name") return "not_kebab_case";
  if (field === "/timeout_seconds") return "out_of_range";
  if (field === "/tools") return "too_many";
  if (issue.code === "too_big") return "too_long";
  if (issue.code === "too_small") return "empty";
  if (issue.code === "invalid_format") return field === "/model/model" ? "invalid_format" : "empty";
  return "invalid_format";
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) node = isObject(node) || Array.isArray(node) ? (Object.hasOwn(node, key as string) ? (node as Record<string, unknown>)[key as string] : undefined) : undefined;
  return node;
}

const toPointer = (path: readonly PropertyKey[]) => path.map((key) => `/${escapePointer(String(key))}`).join("");

/**
 * zod's issues as the manifest's errors, in the order of docs/reference/manifest.md's table (the fields
 * in their order, the rules across fields after entrypoint_url, then the unknown fields; within a
 * nested object its unknown fields first), capped.
 */
export function manifestErrorsOf(issues: readonly z.core.$ZodIssue[], input: unknown): ManifestError[] {
  const errors: ManifestError[] = [];
  const seenBuiltin = new Set<string>();
  const superseding: string[] = [];
  for (const issue of issues) {
    const params = (issue as { params?: RuleParams }).params;
    if (issue.code === "custom" && params?.code !== undefined) {
      const pointer = params.pointer ?? toPointer(issue.path);
      if (params.supersedes) superseding.push(pointer);
      errors.push({ pointer, code: params.code, message: issue.message });
    } else if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) errors.push({ pointer: toPointer([...issue.path, key]), code: "unknown_field", message: unknownFieldMessage(key, knownFields(issue.path)) });
    } else {
      // One problem per field from zod's own checks (an empty name fails its length and its pattern).
      const pointer = toPointer(issue.path);
      if (seenBuiltin.has(pointer)) continue;
      seenBuiltin.add(pointer);
      errors.push({ pointer, code: codeOf(issue, valueAt(input, issue.path), pointer), message: issue.message });
    }
  }
  const kept = errors.filter((e) => !superseding.some((at) => e.pointer.startsWith(`${at}/`) || (e.pointer === at && !isSuperseding(e))));
  return capErrors(sortErrors(kept));
}

const isSuperseding = (error: ManifestError) => error.code === "not_allowed" && error.pointer === "/tools";

/** Within `model`: its unknown fields, the provider, the model id, the endpoint's type, the rules that
 * join them (a hosted provider's model, self_hosted's endpoint), then the endpoint URL's own rules. */
function modelRank(error: ManifestError): number {
  const conditional = (error.code === "required" && error.message.endsWith(" for provider_a.")) || (error.code === "required" && error.message.endsWith(" for provider_b.")) || error.code === "not_allowed" || (error.code === "required" && error.pointer === "/model/endpoint_url");
  if (error.code === "unknown_field") return 1;
  if (conditional) return 5;
  if (error.pointer === "/model/provider") return 2;
  if (error.pointer === "/model/model") return 3;
  return error.code === "wrong_type" ? 4 : 6;
}

/** Where an error sits in the list: by top-level field, then array index, then within an entry. */
function sortErrors(errors: ManifestError[]): ManifestError[] {
  const rank = (error: ManifestError): number[] => {
    const [, top = "", second] = error.pointer.split("/");
    if (error.pointer === "") return [TOP_LEVEL.indexOf("entrypoint_url") + 0.5];
    const field = TOP_LEVEL.indexOf(top);
    if (field < 0) return [TOP_LEVEL.length];
    const nested = error.pointer.split("/").length > 2;
    const index = second !== undefined && /^\d+$/.test(second) ? Number(second) : -1;
    const within = !nested ? 0 : top === "model" ? modelRank(error) : error.code === "unknown_field" ? 1 : ["required", "wrong_type"].includes(error.code) ? 2 : ["unknown_tool", "duplicate_tool"].includes(error.code) ? 3 : 4;
    return [field, top === "tools" ? index : 0, top === "tools" || top === "model" ? within : 0];
  };
  const keyed = errors.map((error, order) => ({ error, key: [...rank(error), order] }));
  keyed.sort((a, b) => {
    for (let i = 0; i < Math.max(a.key.length, b.key.length); i++) {
      const d = (a.key[i] ?? 0) - (b.key[i] ?? 0);
      if (d !== 0) return d;
    }
    return 0;
  });
  return keyed.map(({ error }) => error);
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

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
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
