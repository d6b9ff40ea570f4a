// JSON parsing that keeps wei amounts exact. The API writes wei amounts (`cost_wei`, and any field named
// `*_wei` written as a number) as plain JSON integers, which exceed 2^53: JSON.parse alone would round
// them. Where the runtime passes the reviver the number's source text (JSON.parse source text access:
// Node 22+, current browsers and edge runtimes), the reviver reads the digits themselves. Elsewhere
// (Node 20), a pre-pass turns each such integer outside string values into a marked string token first,
// and the reviver turns it into a bigint.

const WEI_KEY = /_wei$/;
const INTEGER = /^-?\d+$/;

type SourceReviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** Whether this runtime gives revivers the source text of primitives. */
export const HAS_JSON_SOURCE: boolean = (() => {
  let seen = false;
  JSON.parse("1", ((_key: string, value: unknown, context?: { source?: string }) => {
    seen = typeof context?.source === "string";
    return value;
  }) as SourceReviver as Parameters<typeof JSON.parse>[1]);
  return seen;
})();

/** Parses with the reviver's source text (exact digits straight from the document). */
export function parseJsonWithSource<T>(text: string): T {
  const reviver: SourceReviver = (key, value, context) =>
    WEI_KEY.test(key) && typeof value === "number" && context?.source !== undefined && INTEGER.test(context.source) ? BigInt(context.source) : value;
  return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]) as T;
}

// A marker no JSON number can produce, so only the pre-pass's own tokens become bigints (a real string
// value under a `*_wei` key stays a string, as it does with source text access).
const MARK = "\uFDD0wei:";

// Either a JSON string followed by a colon and an integer (a key and its value), or any JSON string
// (skipped as a whole, so nothing inside a string value is touched). Outside strings JSON holds no
// quote character, so each match starts at a real string token.
const STRING_THEN_VALUE = /"(?:[^"\\]|\\.)*"(\s*:\s*)(-?\d+)(?=\s*[,}\]])|"(?:[^"\\]|\\.)*"/g;

/** Parses after a regex pre-pass: the fallback for runtimes without source text access. */
export function parseJsonWithPrepass<T>(text: string): T {
  const marked = text.replace(STRING_THEN_VALUE, (match: string, colon: string | undefined, digits: string | undefined) => {
    if (colon === undefined || digits === undefined) return match;
    const key = match.slice(0, match.length - colon.length - digits.length);
    if (!WEI_KEY.test(JSON.parse(key) as string)) return match;
    return `${key}${colon}"${MARK}${digits}"`;
  });
  return JSON.parse(marked, (key, value: unknown) => (WEI_KEY.test(key) && typeof value === "string" && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value)) as T;
}

/** Parses a JSON body, with every integer under a `*_wei` key (at any depth), `cost_wei` first, as an exact bigint. */
export function parseJson<T>(text: string): T {
  return HAS_JSON_SOURCE ? parseJsonWithSource<T>(text) : parseJsonWithPrepass<T>(text);
}
