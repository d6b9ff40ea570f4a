// The tool catalogue: the only tools a declarative agent can use, each with a scope grammar. A manifest
// names a tool and a scope string; registration parses the scope here and refuses it if it does not
// parse, and the runtime parses the same string again to configure the tool for a run. The scope is
// the whole of what a tool may reach: nothing outside it is granted by default.
import { checkUrl } from "./hosts.ts";

/** The catalogue's tool names. */
export const TOOL_NAMES = ["http_fetch", "web_search", "js_eval", "json_transform", "pdf_extract"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A scope once parsed: what the runtime configures the tool with. */
export type ParsedScope =
  | { tool: "http_fetch"; hosts: { host: string; subdomains: boolean }[] }
  | { tool: "web_search"; index: "public" }
  | { tool: "js_eval"; memoryMb: number; timeoutMs: number }
  | { tool: "json_transform" }
  | { tool: "pdf_extract"; source: "input" };

export type ScopeResult = { ok: true; scope: ParsedScope } | { ok: false; problems: string[] };

export interface ToolDefinition {
  name: ToolName;
  description: string;
  /** The scope grammar, as shown to creators. */
  scopeGrammar: string;
  /** Scope examples that parse. */
  examples: string[];
  parseScope(scope: string): ScopeResult;
}

/** Limits of the scopes. */
export const HTTP_FETCH_MAX_HOSTS = 20;
export const JS_EVAL_MAX_MEMORY_MB = 128;
export const JS_EVAL_MIN_MEMORY_MB = 8;
export const JS_EVAL_MAX_TIMEOUT_MS = 5000;
export const JS_EVAL_DEFAULT = { memoryMb: 64, timeoutMs: 1000 } as const;

/** The catalogue, by name. */
export const TOOL_CATALOGUE: Readonly<Record<ToolName, ToolDefinition>> = {
  http_fetch: {
    name: "http_fetch",
    description: "HTTPS GET/POST to the listed hosts only (port 443, no redirects off the list), through the egress guard.",
    scopeGrammar: "host[,host...]: 1 to 20 DNS names, each optionally prefixed with \"*.\" for its subdomains (the name itself excluded) and optionally suffixed with \":443\"; no IP addresses, schemes, paths, other ports, spaces or internal names",
    examples: ["api.example.com", "api.example.com,*.cdn.example.org"],
    parseScope: parseHttpFetch,
  },
  web_search: {
    name: "web_search",
    description: "Search the public web through the service's search provider; returns titles, URLs and snippets.",
    scopeGrammar: "public",
    examples: ["public"],
    parseScope: (scope) => exact(scope, "public", { tool: "web_search", index: "public" }),
  },
  js_eval: {
    name: "js_eval",
    description: "Evaluate JavaScript in a fresh isolate (isolated-vm) with no network, file system or host objects.",
    scopeGrammar: `default (memory=${JS_EVAL_DEFAULT.memoryMb},timeout=${JS_EVAL_DEFAULT.timeoutMs}) | memory=<MB ${JS_EVAL_MIN_MEMORY_MB}..${JS_EVAL_MAX_MEMORY_MB}>,timeout=<ms 1..${JS_EVAL_MAX_TIMEOUT_MS}> (both, either order)`,
    examples: ["default", "memory=128,timeout=5000"],
    parseScope: parseJsEval,
  },
  json_transform: {
    name: "json_transform",
    description: "Reshape JSON the agent already holds (select, rename, filter, map) with a declarative expression; no I/O.",
    scopeGrammar: "default",
    examples: ["default"],
    parseScope: (scope) => exact(scope, "default", { tool: "json_transform" }),
  },
  pdf_extract: {
    name: "pdf_extract",
    description: "Extract text and tables from the PDF file attached to the run's input; no other file.",
    scopeGrammar: "input",
    examples: ["input"],
    parseScope: (scope) => exact(scope, "input", { tool: "pdf_extract", source: "input" }),
  },
};

/** True when `name` is a tool of the catalogue. */
export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/** Parses `scope` for the tool `name`: the parsed scope, or every problem with it. */
export function parseToolScope(name: string, scope: string): ScopeResult {
  if (!isToolName(name)) return { ok: false, problems: [`"${name}" is not a tool of the catalogue (${TOOL_NAMES.join(", ")}).`] };
  if (typeof scope !== "string" || scope.length === 0) return { ok: false, problems: [`The scope is empty; ${name} takes ${TOOL_CATALOGUE[name].scopeGrammar}.`] };
  if (scope.length > 4096) return { ok: false, problems: ["The scope is longer than 4096 characters."] };
  return TOOL_CATALOGUE[name].parseScope(scope);
}

function exact(scope: string, word: string, parsed: ParsedScope): ScopeResult {
  return scope === word ? { ok: true, scope: parsed } : { ok: false, problems: [`The scope must be exactly "${word}", not "${clip(scope)}".`] };
}

const HOST_ENTRY = /^(\*\.)?([^:]*)(?::(\d+))?$/;

function parseHttpFetch(scope: string): ScopeResult {
  const problems: string[] = [];
  const hosts: { host: string; subdomains: boolean }[] = [];
  const seen = new Set<string>();
  const entries = scope.split(",");
  if (entries.length > HTTP_FETCH_MAX_HOSTS) problems.push(`At most ${HTTP_FETCH_MAX_HOSTS} hosts; the scope lists ${entries.length}.`);
  for (const [index, entry] of entries.entries()) {
    const at = `Host ${index + 1} ("${clip(entry)}")`;
    if (entry === "") {
      problems.push(`Host ${index + 1} is empty; separate hosts with single commas and no spaces.`);
      continue;
    }
    if (/\s/.test(entry)) {
      problems.push(`${at} contains whitespace.`);
      continue;
    }
    if (entry.includes("://") || entry.includes("/") || entry.includes("?") || entry.includes("#") || entry.includes("@")) {
      problems.push(`${at} must be a bare host name: no scheme, credentials, path, query or fragment.`);
      continue;
    }
    if (entry.includes("[") || entry.includes("]") || entry.split(":").length > 2) {
      problems.push(`${at} is an IP address; list host names only.`);
      continue;
    }
    const match = HOST_ENTRY.exec(entry.toLowerCase());
    const name = match?.[2] ?? "";
    const port = match?.[3];
    if (match === null || name.includes("*")) {
      problems.push(`${at}: a wildcard is allowed only as a leading "*." before a name.`);
      continue;
    }
    if (port !== undefined && port !== "443") {
      problems.push(`${at}: only port 443 is allowed.`);
      continue;
    }
    const subdomains = match[1] !== undefined;
    if (subdomains && name.split(".").length < 2) {
      problems.push(`${at}: a wildcard must cover a name of at least two labels (not "*.${name}").`);
      continue;
    }
    // The URL check refuses internal names and IPv4 in odd spellings; public dotted quads pass it.
    const urlProblem = checkUrl(`https://${name}/`);
    if (urlProblem !== null || /^[\d.]+$/.test(name)) {
      problems.push(urlProblem === null ? `${at} is an IP address; list host names only.` : `${at}: ${urlProblem.message}`);
      continue;
    }
    const key = `${subdomains ? "*." : ""}${name}`;
    if (seen.has(key)) {
      problems.push(`${at} is listed twice.`);
      continue;
    }
    seen.add(key);
    hosts.push({ host: name, subdomains });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, scope: { tool: "http_fetch", hosts } };
}

const JS_EVAL_PART = /^(memory|timeout)=(0|[1-9]\d{0,8})$/;

function parseJsEval(scope: string): ScopeResult {
  if (scope === "default") return { ok: true, scope: { tool: "js_eval", ...JS_EVAL_DEFAULT } };
  const problems: string[] = [];
  const values: Partial<Record<"memory" | "timeout", number>> = {};
  for (const part of scope.split(",")) {
    const match = JS_EVAL_PART.exec(part);
    if (match === null) {
      problems.push(`"${clip(part)}" is not memory=<MB> or timeout=<ms> (decimal integers, no spaces).`);
      continue;
    }
    const key = match[1] as "memory" | "timeout";
    if (values[key] !== undefined) {
      problems.push(`${key} is given twice.`);
      continue;
    }
    values[key] = Number(match[2]);
  }
  const { memory, timeout } = values;
  if (memory === undefined && problems.length === 0) problems.push(`memory=<MB> is missing (${JS_EVAL_MIN_MEMORY_MB}..${JS_EVAL_MAX_MEMORY_MB}); or use "default".`);
  if (timeout === undefined && problems.length === 0) problems.push(`timeout=<ms> is missing (1..${JS_EVAL_MAX_TIMEOUT_MS}); or use "default".`);
  if (memory !== undefined && (memory < JS_EVAL_MIN_MEMORY_MB || memory > JS_EVAL_MAX_MEMORY_MB)) problems.push(`memory must be ${JS_EVAL_MIN_MEMORY_MB}..${JS_EVAL_MAX_MEMORY_MB} MB, not ${memory}.`);
  if (timeout !== undefined && (timeout < 1 || timeout > JS_EVAL_MAX_TIMEOUT_MS)) problems.push(`timeout must be 1..${JS_EVAL_MAX_TIMEOUT_MS} ms, not ${timeout}.`);
  if (problems.length > 0 || memory === undefined || timeout === undefined) return { ok: false, problems };
  return { ok: true, scope: { tool: "js_eval", memoryMb: memory, timeoutMs: timeout } };
}

/** A user-supplied fragment, shortened for a message. */
function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
