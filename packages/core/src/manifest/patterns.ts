// The regular expressions a creator puts in a manifest's schemas (`pattern` values and
// `patternProperties` keys): found, run on a linear-time engine, and checked for catastrophic
// backtracking at registration. JavaScript's own engine backtracks: `^(a+)+$` against thirty "a"s and a
// "!" blocks a Node process for seconds, so no creator pattern ever runs on it in the service.
// - Every Ajv instance that compiles a creator's schema takes `linearRegExp` as its engine (RE2, a
//   pure-JS port): matching time is linear in the input, whatever the pattern.
// - Registration refuses what RE2 cannot express (backreferences, lookaround) with a clear message,
//   and refuses patterns that recheck finds exponential (src/registration/pattern-safety.ts, on the
//   server: a worker thread), so a listing never advertises a pattern that would freeze a renter's own
//   (backtracking) validator either.
import { RE2JS } from "re2js";
import type { RegExpEngine } from "ajv/dist/types/index.js";

/** Caps on the patterns of one manifest (both schemas together). */
export const PATTERN_LIMITS = {
  /** Longest pattern accepted, in characters. */
  maxPatternChars: 1000,
  /** Distinct patterns checked per manifest; more are refused (each check may take up to checkTimeoutMs). */
  maxPatterns: 200,
  /** Time recheck may spend on one pattern before it is refused as not shown safe. */
  checkTimeoutMs: 2000,
  /** Time the whole manifest's patterns may take; patterns not reached in it are refused. */
  manifestBudgetMs: 10_000,
} as const;

/** One regular expression in a schema: where it is (RFC 6901 pointer into the manifest) and its text. */
export interface SchemaPattern {
  pointer: string;
  pattern: string;
}

/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas (draft 2020-12,
 * plus draft-07's `definitions` and `dependencies` that Ajv also reads). Only these are walked, so a
 * "pattern" key inside `const`, `enum`, `examples` or `default` (data, not schema) is not mistaken
 * for a keyword. */
const SCHEMA_VALUED = new Set(["additionalProperties", "items", "contains", "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** Every pattern Ajv would compile from `schema` (found at `pointer`), in document order. */
export function schemaPatterns(schema: unknown, pointer: string): SchemaPattern[] {
  const out: SchemaPattern[] = [];
  const walk = (node: unknown, at: string, depth: number): void => {
    // the manifest validator caps depth and size before this runs; this cap only keeps the walk finite
    if (depth > 64 || node === null || typeof node !== "object" || Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const keyAt = `${at}/${escape(key)}`;
      if (key === "pattern" && typeof value === "string") out.push({ pointer: keyAt, pattern: value });
      else if (SCHEMA_VALUED.has(key)) {
        if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${keyAt}/${i}`, depth + 1));
        else walk(value, keyAt, depth + 1);
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) value.forEach((item, i) => walk(item, `${keyAt}/${i}`, depth + 1));
      else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [name, child] of Object.entries(value)) {
          if (key === "patternProperties") out.push({ pointer: `${keyAt}/${escape(name)}`, pattern: name });
          walk(child, `${keyAt}/${escape(name)}`, depth + 1);
        }
      } else if (key === "dependencies" && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [name, child] of Object.entries(value)) if (!Array.isArray(child)) walk(child, `${keyAt}/${escape(name)}`, depth + 1);
      }
    }
  };
  walk(schema, pointer, 0);
  return out;
}

/** Why RE2 cannot run `pattern` (as JSON Schema means it: ECMAScript syntax, Unicode mode), or null
 * when it can. */
export function linearPatternProblem(pattern: string): string | null {
  try {
    compileLinear(pattern);
    return null;
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error);
    return detail.slice(0, 200);
  }
}

function compileLinear(pattern: string): RE2JS {
  // translateRegExp rewrites the ECMAScript spellings RE2 writes differently (\u{...}, (?<name>...));
  // what has no RE2 equivalent (backreferences, lookahead, lookbehind) then fails to compile.
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
}

/**
 * Ajv's regular expression engine for creator schemas: RE2 (re2js, pure JavaScript), whose matching
 * time is linear in the input for every pattern. Throws, as `new RegExp` would, on a pattern it cannot
 * run, so such a schema does not compile. Ajv passes "u" as the flags; RE2 is Unicode-aware already.
 *
 * @example
 * new Ajv2020({ code: { regExp: linearRegExp } })
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compileLinear(pattern);
    // Ajv shares one compiled expression per `toString()` across an instance's schemas: it must name
    // the pattern (as a RegExp's does), or every pattern would be tested with the first one compiled.
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  },
  // Ajv writes this into generated code only for standalone validators, which the service never emits.
  { code: "linearRegExp" },
);

function escape(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}
