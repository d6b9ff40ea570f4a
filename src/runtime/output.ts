// Output shaping: whether the agent answers in free text or in JSON to its output schema, and how the
// JSON is asked of the model. Providers take an object at the root of a structured answer, so any other
// root (an array, a number, an enum, a union) is asked for as the property `value` of a wrapper object
// and unwrapped afterwards, in the result and in the streamed text alike.

export type OutputShape =
  | { kind: "text" }
  | { kind: "json"; schema: Record<string, unknown>; wrapped: boolean };

/** Keywords that constrain a value beyond "some text". */
const CONSTRAINTS = ["properties", "items", "prefixItems", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "$dynamicRef", "required", "additionalProperties", "patternProperties", "if"];
const STRING_CONSTRAINTS = ["enum", "const", "format", "pattern", "anyOf", "oneOf", "allOf", "not", "$ref"];
const WRAPPER_KEY = "value";

/** Text for `{type: "string"}` (length bounds allowed) or a schema that constrains nothing; JSON for
 * everything else. */
export function outputShape(schema: Record<string, unknown> | null | undefined): OutputShape {
  const s = schema && typeof schema === "object" && !Array.isArray(schema) ? schema : {};
  const type = s.type;
  if (type === "string" && !STRING_CONSTRAINTS.some((k) => k in s)) return { kind: "text" };
  if (type === undefined && !CONSTRAINTS.some((k) => k in s)) return { kind: "text" };
  const objectRoot = type === "object" || (type === undefined && ("properties" in s || "additionalProperties" in s) && !["anyOf", "oneOf", "allOf", "enum", "const", "$ref", "not"].some((k) => k in s));
  if (objectRoot) {
    const { $schema: _dialect, ...rest } = s;
    return { kind: "json", schema: { ...rest, type: "object" }, wrapped: false };
  }
  return { kind: "json", schema: wrap(s), wrapped: true };
}

/** `{type: "object", properties: {value: schema}}` with the schema's definitions lifted to the root and
 * its other local references re-pointed into the property. */
function wrap(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, $defs, definitions, $id: _id, ...inner } = schema;
  const rewritten = rewriteRefs(inner) as Record<string, unknown>;
  return {
    type: "object",
    properties: { [WRAPPER_KEY]: rewritten },
    required: [WRAPPER_KEY],
    additionalProperties: false,
    ...($defs !== undefined ? { $defs: rewriteRefs($defs) } : {}),
    ...(definitions !== undefined ? { definitions: rewriteRefs(definitions) } : {}),
  };
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    let next = rewriteRefs(value);
    if ((key === "$ref" || key === "$dynamicRef") && typeof value === "string" && value.startsWith("#")) {
      const pointer = value.slice(1);
      const intoDefinitions = pointer.startsWith("/$defs/") || pointer.startsWith("/definitions/");
      next = intoDefinitions ? value : `#/properties/${WRAPPER_KEY}${pointer}`;
    }
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The result the agent returns for a wrapped schema. */
export function unwrap(shape: OutputShape, value: unknown): unknown {
  if (shape.kind !== "json" || !shape.wrapped) return value;
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[WRAPPER_KEY] : value;
}

/**
 * The streamed JSON text of one model step, as the caller should see it: a step whose text does not
 * start as the expected JSON (prose before a tool call) is not streamed, and for a wrapped schema the
 * wrapper (`{"value":` … `}`) is cut off so the deltas join to the unwrapped JSON text.
 */
export class JsonStepStream {
  private state: "prefix" | "pass" | "silent" = "prefix";
  private matched = 0;
  private held = "";
  private readonly prefix: string;

  constructor(private readonly wrapped: boolean) {
    this.prefix = wrapped ? `{"${WRAPPER_KEY}":` : "{";
  }

  /** The text to emit for `delta` (possibly empty). */
  push(delta: string): string {
    if (this.state === "pass") return this.passthrough(delta);
    if (this.state === "silent") return "";
    for (let i = 0; i < delta.length; i++) {
      const ch = delta[i]!;
      if (this.matched === this.prefix.length) {
        // the wrapper's key is matched: skip whitespace up to the value
        if (/\s/.test(ch)) continue;
        this.state = "pass";
        return this.passthrough(delta.slice(i));
      }
      // whitespace may stand between JSON tokens, never inside the key
      const betweenTokens = this.matched === 0 || (this.wrapped && (this.matched === 1 || this.matched === this.prefix.length - 1));
      if (/\s/.test(ch) && betweenTokens) continue;
      if (ch !== this.prefix[this.matched]) {
        this.state = "silent";
        return "";
      }
      this.matched++;
      if (!this.wrapped) {
        this.state = "pass";
        return "{" + delta.slice(i + 1);
      }
    }
    return "";
  }

  private passthrough(text: string): string {
    if (!this.wrapped) return text;
    // hold back a trailing "}" (and whitespace): it may be the wrapper's closing brace
    const buffer = this.held + text;
    const tail = /\s*\}?\s*$/.exec(buffer);
    const cut = tail ? tail.index : buffer.length;
    this.held = buffer.slice(cut);
    return buffer.slice(0, cut);
  }
}
