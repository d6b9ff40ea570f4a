// json_transform: a small declarative language that reshapes JSON (select, rename, filter, map, sort,
// group, aggregate). A program is data, interpreted step by step: there is no expression syntax, no
// eval and no I/O, and every program is bounded in size, depth and work. The language is described in
// docs/design/runtime.md ("json_transform").
import { ToolInputError, type RuntimeTool } from "./types.ts";

export const JSON_TRANSFORM_LIMITS = {
  maxProgramNodes: 200,
  maxProgramDepth: 16,
  maxDataBytes: 1024 * 1024,
  maxResultBytes: 256 * 1024,
  /** Values visited by one run of a program (elements filtered, mapped, compared...). */
  maxWork: 1_000_000,
} as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Step = Record<string, unknown>;
type Program = Step | Step[];

const STEP_NAMES = [
  "get", "pick", "omit", "rename", "set", "object", "literal", "default", "map", "filter", "find", "sort", "slice",
  "unique", "flatten", "group", "count", "sum", "min", "max", "avg", "keys", "values", "entries", "fromEntries", "join",
] as const;
const COMPARISONS = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "startsWith", "endsWith", "exists", "type"] as const;

class Budget {
  private used = 0;
  spend(n = 1): void {
    this.used += n;
    if (this.used > JSON_TRANSFORM_LIMITS.maxWork) throw new ToolInputError(`the program does more than ${JSON_TRANSFORM_LIMITS.maxWork} steps of work`);
  }
}

/** Runs `program` on `data`. Throws ToolInputError with the reason for a malformed program. */
export function runJsonTransform(data: unknown, program: unknown): Json {
  checkProgram(program);
  const size = byteLength(data);
  if (size > JSON_TRANSFORM_LIMITS.maxDataBytes) throw new ToolInputError(`data is larger than ${JSON_TRANSFORM_LIMITS.maxDataBytes / 1024} KiB`);
  const budget = new Budget();
  const result = apply(program as Program, toJson(data), budget);
  if (byteLength(result) > JSON_TRANSFORM_LIMITS.maxResultBytes) throw new ToolInputError(`the result is larger than ${JSON_TRANSFORM_LIMITS.maxResultBytes / 1024} KiB; select less`);
  return result;
}

export function createJsonTransform(runInput: unknown): RuntimeTool {
  return {
    description:
      "Reshape JSON declaratively. `program` is one step or a list of steps applied in order; each step is an object with one key: " +
      "get (JSON pointer), pick (list of pointers, or {newKey: pointer}), omit (keys), rename ({old: new}), set ({key: value}), object ({key: program}), literal, default, " +
      "map (program per element), filter (condition), find (condition), sort (pointer or {by, order}), slice ([start, end]), unique (pointer), flatten, group (pointer), " +
      "count, sum/min/max/avg (pointer), keys, values, entries, fromEntries, join (separator). " +
      'A condition is {path, eq|ne|gt|gte|lt|lte|in|contains|startsWith|endsWith|exists|type: operand} or {and: [...]}, {or: [...]}, {not: condition}. ' +
      "Pointers are RFC 6901 (\"\" is the whole value, \"/items/0/name\"). Omit `data` to transform the run's input.",
    inputSchema: {
      type: "object",
      properties: {
        data: { description: "The JSON to transform (default: the run's input)" },
        program: { description: "A step object or an array of step objects", anyOf: [{ type: "object" }, { type: "array", items: { type: "object" } }] },
      },
      required: ["program"],
    },
    async execute(raw) {
      if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new ToolInputError("the arguments must be an object {data?, program}");
      const args = raw as Record<string, unknown>;
      const data = Object.hasOwn(args, "data") ? args.data : runInput;
      return { result: runJsonTransform(data, args.program) };
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Program check (before any work)

function checkProgram(program: unknown): void {
  let nodes = 0;
  const visitProgram = (p: unknown, depth: number, at: string): void => {
    if (Array.isArray(p)) {
      if (p.length === 0) throw new ToolInputError(`${at}: an empty list of steps`);
      p.forEach((step, i) => visitStep(step, depth, `${at}[${i}]`));
    } else visitStep(p, depth, at);
  };
  const visitStep = (step: unknown, depth: number, at: string): void => {
    nodes++;
    if (nodes > JSON_TRANSFORM_LIMITS.maxProgramNodes) throw new ToolInputError(`the program has more than ${JSON_TRANSFORM_LIMITS.maxProgramNodes} steps`);
    if (depth > JSON_TRANSFORM_LIMITS.maxProgramDepth) throw new ToolInputError(`the program nests deeper than ${JSON_TRANSFORM_LIMITS.maxProgramDepth} levels`);
    if (step === null || typeof step !== "object" || Array.isArray(step)) throw new ToolInputError(`${at}: a step must be an object with one key`);
    const keys = Object.keys(step);
    if (keys.length !== 1) throw new ToolInputError(`${at}: a step has exactly one key (${STEP_NAMES.join(", ")}), not ${keys.length}`);
    const name = keys[0]!;
    const arg = (step as Step)[name];
    const here = `${at}.${name}`;
    switch (name) {
      case "get":
      case "unique":
      case "group":
      case "sum":
      case "min":
      case "max":
      case "avg":
        if (!(name === "unique" && arg === true)) pointer(arg, here);
        return;
      case "pick":
        if (Array.isArray(arg)) arg.forEach((p, i) => pointer(p, `${here}[${i}]`));
        else if (isPlainObject(arg)) for (const [k, p] of Object.entries(arg)) pointer(p, `${here}.${k}`);
        else throw new ToolInputError(`${here}: a list of pointers or {newKey: pointer}`);
        return;
      case "omit":
        if (!Array.isArray(arg) || !arg.every((k) => typeof k === "string")) throw new ToolInputError(`${here}: a list of keys`);
        return;
      case "rename":
        if (!isPlainObject(arg) || !Object.values(arg).every((k) => typeof k === "string")) throw new ToolInputError(`${here}: an object {oldKey: newKey}`);
        return;
      case "set":
        if (!isPlainObject(arg)) throw new ToolInputError(`${here}: an object {key: value}`);
        return;
      case "object":
        if (!isPlainObject(arg)) throw new ToolInputError(`${here}: an object {key: program}`);
        for (const [k, sub] of Object.entries(arg)) visitProgram(sub, depth + 1, `${here}.${k}`);
        return;
      case "literal":
      case "default":
        return;
      case "map":
        visitProgram(arg, depth + 1, here);
        return;
      case "filter":
      case "find":
        checkCondition(arg, depth + 1, here);
        return;
      case "sort":
        if (typeof arg === "string") pointer(arg, here);
        else if (isPlainObject(arg)) {
          pointer(arg.by ?? "", `${here}.by`);
          if (arg.order !== undefined && arg.order !== "asc" && arg.order !== "desc") throw new ToolInputError(`${here}.order: "asc" or "desc"`);
        } else throw new ToolInputError(`${here}: a pointer or {by, order}`);
        return;
      case "slice":
        if (!Array.isArray(arg) || arg.length < 1 || arg.length > 2 || !arg.every((n) => Number.isInteger(n))) throw new ToolInputError(`${here}: [start] or [start, end] (integers)`);
        return;
      case "join":
        if (typeof arg !== "string") throw new ToolInputError(`${here}: a separator string`);
        return;
      case "flatten":
      case "count":
      case "keys":
      case "values":
      case "entries":
      case "fromEntries":
        if (arg !== true) throw new ToolInputError(`${here}: write {"${name}": true}`);
        return;
      default:
        throw new ToolInputError(`${at}: unknown step "${name.slice(0, 40)}" (steps: ${STEP_NAMES.join(", ")})`);
    }
  };
  const checkCondition = (cond: unknown, depth: number, at: string): void => {
    nodes++;
    if (nodes > JSON_TRANSFORM_LIMITS.maxProgramNodes) throw new ToolInputError(`the program has more than ${JSON_TRANSFORM_LIMITS.maxProgramNodes} steps`);
    if (depth > JSON_TRANSFORM_LIMITS.maxProgramDepth) throw new ToolInputError(`the program nests deeper than ${JSON_TRANSFORM_LIMITS.maxProgramDepth} levels`);
    if (!isPlainObject(cond)) throw new ToolInputError(`${at}: a condition must be an object`);
    if ("and" in cond || "or" in cond) {
      const list = cond.and ?? cond.or;
      if (Object.keys(cond).length !== 1 || !Array.isArray(list) || list.length === 0) throw new ToolInputError(`${at}: {and: [conditions]} or {or: [conditions]}`);
      list.forEach((c, i) => checkCondition(c, depth + 1, `${at}[${i}]`));
      return;
    }
    if ("not" in cond) {
      if (Object.keys(cond).length !== 1) throw new ToolInputError(`${at}: {not: condition} stands alone`);
      checkCondition(cond.not, depth + 1, `${at}.not`);
      return;
    }
    pointer(cond.path ?? "", `${at}.path`);
    const ops = Object.keys(cond).filter((k) => k !== "path");
    if (ops.length === 0) throw new ToolInputError(`${at}: a condition needs one of ${COMPARISONS.join(", ")}`);
    for (const op of ops) {
      if (!(COMPARISONS as readonly string[]).includes(op)) throw new ToolInputError(`${at}: unknown comparison "${op.slice(0, 40)}" (${COMPARISONS.join(", ")})`);
      if (op === "in" && !Array.isArray(cond.in)) throw new ToolInputError(`${at}.in: a list of values`);
      if (op === "exists" && typeof cond.exists !== "boolean") throw new ToolInputError(`${at}.exists: true or false`);
      if ((op === "startsWith" || op === "endsWith") && typeof cond[op] !== "string") throw new ToolInputError(`${at}.${op}: a string`);
      if (op === "type" && !["null", "boolean", "number", "string", "array", "object"].includes(cond.type as string)) throw new ToolInputError(`${at}.type: null, boolean, number, string, array or object`);
    }
  };
  if (program === undefined) throw new ToolInputError("program is required: a step object or an array of step objects");
  visitProgram(program, 0, "program");
}

function pointer(value: unknown, at: string): string[] {
  if (typeof value !== "string") throw new ToolInputError(`${at}: a JSON pointer string ("" or "/a/0/b")`);
  return parsePointer(value, at);
}

function parsePointer(value: string, at = "pointer"): string[] {
  if (value === "") return [];
  if (!value.startsWith("/")) throw new ToolInputError(`${at}: "${value.slice(0, 40)}" is not a JSON pointer (it starts with "/")`);
  return value
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

// ---------------------------------------------------------------------------------------------------
// Interpreter

function apply(program: Program, value: Json, budget: Budget): Json {
  if (Array.isArray(program)) {
    let current = value;
    for (const step of program) current = applyStep(step, current, budget);
    return current;
  }
  return applyStep(program, value, budget);
}

function applyStep(step: Step, value: Json, budget: Budget): Json {
  budget.spend();
  const name = Object.keys(step)[0]!;
  const arg = step[name];
  switch (name) {
    case "get":
      return resolve(value, arg as string);
    case "pick": {
      const obj = requireObject(value, name);
      const pairs: [string, Json][] = Array.isArray(arg)
        ? (arg as string[]).map((p) => [parsePointer(p).at(-1) ?? "", resolve(obj, p)])
        : Object.entries(arg as Record<string, string>).map(([k, p]) => [k, resolve(obj, p)]);
      return Object.fromEntries(pairs);
    }
    case "omit": {
      const obj = requireObject(value, name);
      const drop = new Set(arg as string[]);
      return Object.fromEntries(Object.entries(obj).filter(([k]) => !drop.has(k)));
    }
    case "rename": {
      const obj = requireObject(value, name);
      const names = arg as Record<string, string>;
      return Object.fromEntries(Object.entries(obj).map(([k, v]) => [Object.hasOwn(names, k) ? names[k]! : k, v]));
    }
    case "set":
      return Object.fromEntries([...Object.entries(requireObject(value, name)), ...Object.entries(toJson(arg) as Record<string, Json>)]);
    case "object":
      return Object.fromEntries(Object.entries(arg as Record<string, Program>).map(([k, sub]) => [k, apply(sub, value, budget)]));
    case "literal":
      return toJson(arg);
    case "default":
      return value === null ? toJson(arg) : value;
    case "map":
      return requireArray(value, name).map((item) => apply(arg as Program, item, budget));
    case "filter":
      return requireArray(value, name).filter((item) => test(arg as Record<string, unknown>, item, budget));
    case "find":
      return requireArray(value, name).find((item) => test(arg as Record<string, unknown>, item, budget)) ?? null;
    case "sort": {
      const list = requireArray(value, name);
      const by = typeof arg === "string" ? arg : (((arg as Record<string, unknown>).by as string | undefined) ?? "");
      const desc = typeof arg === "object" && (arg as Record<string, unknown>).order === "desc";
      budget.spend(list.length * Math.max(1, Math.ceil(Math.log2(list.length + 1))));
      const keyed = list.map((item, index) => ({ item, key: resolve(item, by), index }));
      keyed.sort((a, b) => compareForSort(a.key, b.key, desc) || a.index - b.index);
      return keyed.map((k) => k.item);
    }
    case "slice": {
      const [start, end] = arg as number[];
      if (typeof value === "string") return value.slice(start, end);
      return requireArray(value, name).slice(start, end);
    }
    case "unique": {
      const list = requireArray(value, name);
      const seen = new Set<string>();
      return list.filter((item) => {
        budget.spend();
        const key = canonical(arg === true ? item : resolve(item, arg as string));
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
    case "flatten":
      return requireArray(value, name).flatMap((item) => (Array.isArray(item) ? item : [item]));
    case "group": {
      const groups = new Map<string, Json[]>();
      for (const item of requireArray(value, name)) {
        budget.spend();
        const key = resolve(item, arg as string);
        const label = typeof key === "string" ? key : canonical(key);
        const bucket = groups.get(label);
        if (bucket) bucket.push(item);
        else groups.set(label, [item]);
      }
      return Object.fromEntries(groups);
    }
    case "count":
      if (Array.isArray(value)) return value.length;
      if (typeof value === "string") return value.length;
      return Object.keys(requireObject(value, name)).length;
    case "sum":
    case "min":
    case "max":
    case "avg": {
      const numbers = requireArray(value, name)
        .map((item) => resolve(item, arg as string))
        .filter((n): n is number => typeof n === "number" && Number.isFinite(n));
      budget.spend(numbers.length);
      if (name === "sum") return numbers.reduce((a, b) => a + b, 0);
      if (numbers.length === 0) return null;
      if (name === "avg") return numbers.reduce((a, b) => a + b, 0) / numbers.length;
      return name === "min" ? Math.min(...numbers) : Math.max(...numbers);
    }
    case "keys":
      return Object.keys(requireObject(value, name));
    case "values":
      return Object.values(requireObject(value, name));
    case "entries":
      return Object.entries(requireObject(value, name)).map(([key, v]) => ({ key, value: v }));
    case "fromEntries": {
      const pairs: [string, Json][] = requireArray(value, name).map((item) => {
        if (Array.isArray(item) && item.length === 2 && typeof item[0] === "string") return [item[0], item[1]!];
        if (isPlainObject(item) && typeof item.key === "string") return [item.key, (item.value as Json | undefined) ?? null];
        throw new ToolInputError("fromEntries: each element must be [key, value] or {key, value}");
      });
      return Object.fromEntries(pairs);
    }
    case "join":
      return requireArray(value, name)
        .map((item) => (typeof item === "string" ? item : canonical(item)))
        .join(arg as string);
    default:
      throw new ToolInputError(`unknown step "${name}"`);
  }
}

function test(cond: Record<string, unknown>, value: Json, budget: Budget): boolean {
  budget.spend();
  if (Array.isArray(cond.and)) return cond.and.every((c) => test(c as Record<string, unknown>, value, budget));
  if (Array.isArray(cond.or)) return cond.or.some((c) => test(c as Record<string, unknown>, value, budget));
  if ("not" in cond) return !test(cond.not as Record<string, unknown>, value, budget);
  const tokens = parsePointer((cond.path as string | undefined) ?? "");
  const found = lookup(value, tokens);
  const subject = found.found ? found.value : null;
  for (const op of Object.keys(cond)) {
    if (op === "path") continue;
    const operand = toJson(cond[op]);
    let ok: boolean;
    switch (op) {
      case "eq":
        ok = equal(subject, operand);
        break;
      case "ne":
        ok = !equal(subject, operand);
        break;
      case "gt":
      case "gte":
      case "lt":
      case "lte": {
        const order = compareValues(subject, operand);
        ok = order !== undefined && (op === "gt" ? order > 0 : op === "gte" ? order >= 0 : op === "lt" ? order < 0 : order <= 0);
        break;
      }
      case "in":
        ok = (operand as Json[]).some((candidate) => equal(subject, candidate));
        break;
      case "contains":
        if (typeof subject === "string") ok = typeof operand === "string" && subject.includes(operand);
        else if (Array.isArray(subject)) {
          budget.spend(subject.length);
          ok = subject.some((item) => equal(item, operand));
        } else ok = false;
        break;
      case "startsWith":
        ok = typeof subject === "string" && subject.startsWith(operand as string);
        break;
      case "endsWith":
        ok = typeof subject === "string" && subject.endsWith(operand as string);
        break;
      case "exists":
        ok = found.found === operand;
        break;
      case "type":
        ok = typeOf(subject) === operand;
        break;
      default:
        throw new ToolInputError(`unknown comparison "${op}"`);
    }
    if (!ok) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Values

function resolve(value: Json, path: string): Json {
  const found = lookup(value, parsePointer(path));
  return found.found ? found.value : null;
}

/** Follows own properties and array indices only (never a prototype's). */
function lookup(value: Json, tokens: string[]): { found: boolean; value: Json } {
  let current: Json = value;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= current.length) return { found: false, value: null };
      current = current[Number(token)]!;
    } else if (isPlainObject(current)) {
      if (!Object.hasOwn(current, token)) return { found: false, value: null };
      current = current[token] as Json;
    } else return { found: false, value: null };
  }
  return { found: true, value: current };
}

function toJson(value: unknown): Json {
  if (value === undefined) return null;
  // a structured clone through JSON: drops anything that is not JSON and copies what is
  return JSON.parse(JSON.stringify(value)) as Json;
}

function byteLength(value: unknown): number {
  const text = JSON.stringify(value === undefined ? null : value);
  return text === undefined ? 0 : Buffer.byteLength(text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function requireArray(value: Json, step: string): Json[] {
  if (!Array.isArray(value)) throw new ToolInputError(`${step} needs an array, got ${typeOf(value)}`);
  return value;
}

function requireObject(value: Json, step: string): Record<string, Json> {
  if (!isPlainObject(value)) throw new ToolInputError(`${step} needs an object, got ${typeOf(value)}`);
  return value as Record<string, Json>;
}

function typeOf(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** A stable text for a JSON value: object keys sorted. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k] as Json)}`).join(",")}}`;
  return JSON.stringify(value);
}

function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return canonical(a) === canonical(b);
}

/** Numbers with numbers, strings with strings (code point order); anything else is not ordered. */
function compareValues(a: Json, b: Json): number | undefined {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/** Sort order: numbers, then strings, then booleans, then everything else; null and missing last. */
function compareForSort(a: Json, b: Json, desc: boolean): number {
  const rank = (v: Json) => (v === null ? 4 : typeof v === "number" ? 0 : typeof v === "string" ? 1 : typeof v === "boolean" ? 2 : 3);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 4) return 0;
  let order = compareValues(a, b);
  if (order === undefined) order = ra === 2 ? Number(a) - Number(b) : canonical(a) < canonical(b) ? -1 : canonical(a) > canonical(b) ? 1 : 0;
  return desc ? -order : order;
}
