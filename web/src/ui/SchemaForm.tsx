// A form for an agent's input, generated from its JSON Schema: one labelled control per top-level
// property (text, number, yes/no, a choice for enums; JSON for nested values). Hand-written because
// agents' input schemas are small flat objects here, and a full schema-form library would add more
// than the whole first page weighs; anything the form cannot express is edited in the raw JSON tab.

type Value = Record<string, unknown>;

function kindOf(s: JsonSchema): "enum" | "string" | "number" | "integer" | "boolean" | "json" {
  if (s.enum) return "enum";
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  return t === "string" || t === "number" || t === "integer" || t === "boolean" ? t : "json";
}

/** Whether the schema is one the form can express (an object with properties). */

/** The part of a JSON Schema the form reads (the agent's input schema, from its public metadata). */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  examples?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

export function formable(schema: JsonSchema | undefined): boolean {
  return Boolean(schema && (schema.type === "object" || schema.properties) && schema.properties && Object.keys(schema.properties).length > 0);
}

export function SchemaForm({ schema, value, onChange, idPrefix }: { schema: JsonSchema; value: Value; onChange: (v: Value) => void; idPrefix: string }) {
  const required = new Set(schema.required ?? []);
  const set = (key: string, v: unknown) => {
    const next = { ...value };
    if (v === undefined || v === "") delete next[key];
    else next[key] = v;
    onChange(next);
  };
  return (
    <div className="stack">
      {Object.entries(schema.properties ?? {}).map(([key, prop]) => {
        const id = `${idPrefix}-${key}`;
        const kind = kindOf(prop);
        const label = (
          <label htmlFor={id}>
            {prop.title ?? key}
            {required.has(key) ? <span aria-hidden="true"> *</span> : <span className="muted small"> (optional)</span>}
          </label>
        );
        const hint = prop.description ? <span className="hint" id={`${id}-hint`}>{prop.description}</span> : null;
        const describedBy = prop.description ? `${id}-hint` : undefined;
        const current = value[key];
        return (
          <div className="field" key={key}>
            {kind === "boolean" ? (
              <label className="row" htmlFor={id} style={{ fontWeight: 600 }}>
                <input id={id} type="checkbox" checked={current === true} onChange={(e) => set(key, e.target.checked)} aria-describedby={describedBy} /> {prop.title ?? key}
              </label>
            ) : (
              label
            )}
            {kind === "enum" ? (
              <select id={id} value={current === undefined ? "" : String(current)} required={required.has(key)} onChange={(e) => set(key, prop.enum!.find((o) => String(o) === e.target.value))} aria-describedby={describedBy}>
                <option value="">Choose…</option>
                {prop.enum!.map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
            ) : kind === "string" ? (
              <textarea id={id} rows={4} style={{ minHeight: 90 }} value={typeof current === "string" ? current : ""} required={required.has(key)} onChange={(e) => set(key, e.target.value)} aria-describedby={describedBy} />
            ) : kind === "number" || kind === "integer" ? (
              <input id={id} type="number" step={kind === "integer" ? 1 : "any"} value={typeof current === "number" ? current : ""} required={required.has(key)} onChange={(e) => set(key, Number.isNaN(e.target.valueAsNumber) ? undefined : e.target.valueAsNumber)} aria-describedby={describedBy} />
            ) : kind === "json" ? (
              <textarea
                id={id}
                className="code"
                style={{ minHeight: 90 }}
                defaultValue={current === undefined ? "" : JSON.stringify(current, null, 2)}
                onBlur={(e) => {
                  try {
                    set(key, e.target.value.trim() ? JSON.parse(e.target.value) : undefined);
                  } catch {
                    // Left as typed; the raw JSON tab shows what is sent.
                  }
                }}
                aria-describedby={describedBy}
              />
            ) : null}
            {hint}
          </div>
        );
      })}
    </div>
  );
}
