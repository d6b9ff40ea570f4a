// JSON that an agent produced (a connected agent's answer or stream event, a sandbox's result line),
// parsed with its nesting depth and size bounded BEFORE any recursive code sees it. JSON.parse itself
// copes with deep nesting, but everything after it recurses (JSON.stringify, schema validation,
// structured clone): an answer nested 20,000 levels deep throws RangeError there, far from any handler.
// A single linear pass counts brackets outside strings first; only text within the bounds reaches
// JSON.parse. Hand-written because it is one small loop, and the JSON libraries on npm either recurse
// themselves or bound nothing.

/** The bounds on agent-produced JSON (docs/reference/execution.md, docs/guides/connected-agents.md). */
export const JSON_LIMITS = {
  /** Deepest nesting of arrays and objects: 64 levels (a `{"a":{"b":…}}` chain 64 objects deep passes,
   * 65 fails). Far beyond any real result; far below what recursive code overflows on. */
  maxDepth: 64,
  /** Longest JSON text, in UTF-16 code units: 8 × the run's output limit (128 Ki characters), room for
   * the output's escaping and its envelope. */
  maxChars: 8 * 128 * 1024,
} as const;

/** Why an agent's output was refused for its depth: the one wording of every path that reads one. */
export const TOO_DEEP_OUTPUT = `the agent's output nests deeper than ${JSON_LIMITS.maxDepth} levels of arrays and objects; the service reads at most ${JSON_LIMITS.maxDepth}`;

export type BoundedJsonFailure = "too_deep" | "too_large" | "invalid_json";

export type BoundedJson = { ok: true; value: unknown } | { ok: false; reason: BoundedJsonFailure; message: string };

export interface BoundedJsonOptions {
  maxDepth?: number;
  maxChars?: number;
}

const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Parses `text` as JSON when its nesting is at most `maxDepth` levels and its length at most `maxChars`;
 * never throws. The depth counts open arrays and objects outside strings (`[]` is depth 1, `[[]]` 2, a
 * scalar 0); brackets inside strings, escaped quotes included, do not count.
 *
 * @example
 * const parsed = parseBoundedJson(body);
 * if (!parsed.ok) return failed(parsed.reason === "too_large" ? "output_too_large" : "invalid_output", parsed.message);
 */
export function parseBoundedJson(text: string, options: BoundedJsonOptions = {}): BoundedJson {
  const maxDepth = options.maxDepth ?? JSON_LIMITS.maxDepth;
  const maxChars = options.maxChars ?? JSON_LIMITS.maxChars;
  if (text.length > maxChars) return { ok: false, reason: "too_large", message: `the JSON is ${text.length} characters long; at most ${maxChars} are read` };
  const depth = jsonDepth(text, maxDepth);
  if (depth > maxDepth) return { ok: false, reason: "too_deep", message: `the JSON nests deeper than ${maxDepth} levels` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: "invalid_json", message: "the text is not valid JSON" };
  }
}

/** The deepest nesting of `text`'s arrays and objects outside strings, counted up to `stopAbove` + 1
 * (the scan stops there). Malformed text gets some count; JSON.parse judges its syntax afterwards. */
export function jsonDepth(text: string, stopAbove: number = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++; // the escaped character, a quote included, never ends the string
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}
