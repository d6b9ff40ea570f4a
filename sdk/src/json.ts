// JSON parsing that keeps `cost_wei` exact. The API writes wei amounts as plain JSON integers, which
// exceed 2^53; JSON.parse would round them. Before parsing, every `cost_wei` integer outside string
// values is turned into a string token, and the reviver turns it into a bigint.

// Either a JSON string (skipped as a whole, so nothing inside a string value is touched), or nothing.
// Outside strings JSON holds no quote character, so each match starts at a real string token.
const STRING_THEN_VALUE = /"(?:[^"\\]|\\.)*"(\s*:\s*)(-?\d+)(?=\s*[,}\]])|"(?:[^"\\]|\\.)*"/g;

const BIGINT_KEYS = new Set(["cost_wei"]);

function quoteWeiIntegers(text: string): string {
  return text.replace(STRING_THEN_VALUE, (match: string, colon: string | undefined, digits: string | undefined) => {
    if (colon === undefined || digits === undefined) return match;
    const key = match.slice(0, match.length - colon.length - digits.length);
    if (!BIGINT_KEYS.has(JSON.parse(key) as string)) return match;
    return `${key}${colon}"${digits}"`;
  });
}

/** Parses a JSON body, with `cost_wei` (at any depth) as a bigint. */
export function parseJson<T>(text: string): T {
  return JSON.parse(quoteWeiIntegers(text), (key, value: unknown) =>
    BIGINT_KEYS.has(key) && typeof value === "string" && /^-?\d+$/.test(value) ? BigInt(value) : value,
  ) as T;
}
