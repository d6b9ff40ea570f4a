// Generates the Python SDK's models (python/src/agent_rental/models.py) from the API's own OpenAPI
// document, GET /v1/openapi.json: rendered in-process from the routes (the document that route serves),
// or, with `--from <api url>`, fetched from a running API. One TypedDict per component schema (an allOf
// of references extends them), enums as Literal, required fields required. `--check` exits 1 when the
// committed file differs (test/sdk/python-models.test.ts checks the in-process document in the test
// command, and the Python lane the document its served API answers).
//
//   node --import tsx scripts/generate-python-models.ts [--check] [--from http://127.0.0.1:8787]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../src/api/openapi-document.ts";

export const PYTHON_MODELS_FILE = join(dirname(fileURLToPath(import.meta.url)), "../python/src/agent_rental/models.py");
export const PYTHON_MODELS_COMMAND = "node --import tsx scripts/generate-python-models.ts";

type Schema = { [key: string]: unknown };
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set(["False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"]);
const pascal = (name: string) => name.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _s: string, c: string) => c.toUpperCase());

/** The text models.py should hold for an OpenAPI document: by default the routes' as they are now. */
export async function generatePythonModels(served?: unknown): Promise<string> {
  const document = (served ?? (await openApiDocument())) as { components?: { schemas?: Record<string, unknown> } };
  const schemas = document.components?.schemas ?? {};
  const classes: string[] = [];
  const names = Object.keys(schemas).sort();

  /** The Python type of a schema; inline objects with properties become classes named after their place. */
  function typeOf(schema: unknown, place: string): string {
    if (!isObject(schema)) return "Any";
    if (typeof schema.$ref === "string") return schema.$ref.split("/").at(-1)!;
    const variants = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
    if (Array.isArray(variants)) {
      const types = [...new Set(variants.map((v, i) => typeOf(v, `${place}${i}`)))];
      return types.length === 1 ? types[0]! : `Union[${types.join(", ")}]`;
    }
    if (schema.const !== undefined) return `Literal[${JSON.stringify(schema.const)}]`;
    if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) return `Literal[${schema.enum.map((v) => JSON.stringify(v)).join(", ")}]`;
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
    const nullable = types.includes("null") || schema.nullable === true;
    const real = types.filter((t) => t !== "null");
    let base: string;
    if (real.length === 0) base = isObject(schema.properties) ? classFor(schema, place) : "Any";
    else if (real.length > 1) base = "Any";
    else {
      switch (real[0]) {
        case "string": base = "str"; break;
        case "integer": base = "int"; break;
        case "number": base = "float"; break;
        case "boolean": base = "bool"; break;
        case "array": base = `list[${typeOf(schema.items, `${place}Item`)}]`; break;
        case "object":
          base = isObject(schema.properties) && Object.keys(schema.properties).length > 0 ? classFor(schema, place) : isObject(schema.additionalProperties) ? `dict[str, ${typeOf(schema.additionalProperties, `${place}Value`)}]` : "dict[str, Any]";
          break;
        default: base = "Any";
      }
    }
    return nullable && base !== "Any" ? `Optional[${base}]` : base;
  }

  /** Emits a TypedDict for an object schema and answers its name; `bases` are the TypedDicts it extends
   * (an allOf's references), whose fields it does not declare again. */
  function classFor(schema: Schema, name: string, bases: string[] = [], inherited = new Set<string>()): string {
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const base = bases.length > 0 ? bases.join(", ") : "TypedDict";
    const fields = Object.keys(properties).filter((key) => !inherited.has(key)).sort().map((key) => ({ key, type: typeOf(properties[key], `${name}${pascal(key)}`), required: required.has(key), doc: isObject(properties[key]) && typeof properties[key].description === "string" ? (properties[key].description as string) : undefined }));
    const doc = typeof schema.description === "string" ? schema.description : undefined;
    const plain = fields.every((f) => IDENTIFIER.test(f.key) && !KEYWORDS.has(f.key));
    const lines: string[] = [];
    const part = (suffix: string, list: typeof fields, total: boolean, bases: string) => {
      if (plain) {
        lines.push(`class ${name}${suffix}(${bases}${total ? "" : ", total=False"}):`);
        if (suffix === "" && doc) lines.push(`    ${pyDoc(doc)}`);
        if (list.length === 0 && !(suffix === "" && doc)) lines.push("    pass");
        for (const f of list) {
          lines.push(`    ${f.key}: ${f.type}`);
          if (f.doc) lines.push(`    ${pyDoc(f.doc)}`);
        }
      } else {
        lines.push(`${name}${suffix} = TypedDict(${JSON.stringify(name + suffix)}, {${list.map((f) => `${JSON.stringify(f.key)}: ${JSON.stringify(f.type)}`).join(", ")}}${total ? "" : ", total=False"})`);
      }
      lines.push("");
    };
    const requiredFields = fields.filter((f) => f.required);
    const optionalFields = fields.filter((f) => !f.required);
    if (requiredFields.length > 0 && optionalFields.length > 0) {
      part("Required", requiredFields, true, base);
      if (plain) part("", optionalFields, false, `${name}Required`);
      else {
        part("Optional_", optionalFields, false, "TypedDict");
        lines.push(`class ${name}(${name}Required, ${name}Optional_):`, doc ? `    ${pyDoc(doc)}` : "    pass", "");
      }
    } else part("", fields, requiredFields.length > 0 || fields.length === 0, base);
    classes.push(lines.join("\n"));
    return name;
  }

  const isClass = (schema: unknown): schema is Schema => isObject(schema) && (schema.type === "object" || isObject(schema.properties)) && isObject(schema.properties) && Object.keys(schema.properties).length > 0;
  /** An allOf of references to object schemas and inline objects: a TypedDict extending the references. */
  const extension = (schema: unknown): { bases: string[]; own: Schema[] } | undefined => {
    if (!isObject(schema) || !Array.isArray(schema.allOf)) return undefined;
    const bases: string[] = [];
    const own: Schema[] = [];
    for (const part of schema.allOf as unknown[]) {
      if (isObject(part) && typeof part.$ref === "string") {
        const ref = part.$ref.split("/").at(-1)!;
        if (!isClass(schemas[ref]) && !extension(schemas[ref])) return undefined;
        bases.push(ref);
      } else if (isObject(part) && (part.type === "object" || isObject(part.properties)) && Object.keys(part).every((k) => ["type", "properties", "required", "description"].includes(k))) own.push(part);
      else return undefined;
    }
    return bases.length > 0 ? { bases, own } : undefined;
  };
  /** The field names a schema's TypedDict has, its bases' included. */
  const fieldsOf = (name: string): string[] => {
    const schema = schemas[name];
    const ext = extension(schema);
    if (ext) return [...ext.bases.flatMap(fieldsOf), ...ext.own.flatMap((o) => Object.keys((o.properties ?? {}) as object))];
    return isClass(schema) ? Object.keys(schema.properties as object) : [];
  };
  // Extensions come after every other class, each after its bases (Python evaluates a class's bases when
  // it defines it).
  const extensions = names.filter((name) => extension(schemas[name]) !== undefined);
  for (const name of names) {
    const schema = schemas[name];
    if (extensions.includes(name)) continue;
    if (isClass(schema)) classFor(schema, name);
    else classes.push(`${name} = ${typeOf(schema, `${name}Value`)}\n`);
  }
  const emitted = new Set<string>();
  while (emitted.size < extensions.length) {
    const before = emitted.size;
    for (const name of extensions) {
      const ext = extension(schemas[name])!;
      if (emitted.has(name) || ext.bases.some((b) => extensions.includes(b) && !emitted.has(b))) continue;
      const merged: Schema = {
        type: "object",
        properties: Object.assign({}, ...ext.own.map((o) => o.properties ?? {})) as Schema,
        required: ext.own.flatMap((o) => (Array.isArray(o.required) ? (o.required as string[]) : [])),
        ...(typeof (schemas[name] as Schema).description === "string" ? { description: (schemas[name] as Schema).description } : {}),
      };
      classFor(merged, name, ext.bases, new Set(ext.bases.flatMap(fieldsOf)));
      emitted.add(name);
    }
    if (emitted.size === before) throw new Error(`allOf schemas that extend each other in a circle: ${extensions.filter((n) => !emitted.has(n)).join(", ")}`);
  }
  return [
    "# Generated from the API's OpenAPI document (GET /v1/openapi.json) by scripts/generate-python-models.ts.",
    `# Do not edit: change the routes' schemas, then run \`${PYTHON_MODELS_COMMAND}\`.`,
    '"""The API\'s request and response shapes, as TypedDicts (plain dicts at run time)."""',
    "",
    "from __future__ import annotations",
    "",
    "from typing import Any, Literal, Optional, TypedDict, Union",
    "",
    "",
    classes.join("\n"),
  ].join("\n").replace(/\n{3,}/g, "\n\n\n").trimEnd() + "\n";
}

function pyDoc(text: string): string {
  return `"""${text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"').replace(/\s+/g, " ").replace(/"$/, '" ').trim()}"""`;
}

/** GET <api>/v1/openapi.json. */
export async function fetchOpenApiDocument(apiUrl: string): Promise<unknown> {
  const response = await fetch(`${apiUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/openapi.json`);
  if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  return response.json();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const from = process.argv.includes("--from") ? process.argv[process.argv.indexOf("--from") + 1] : undefined;
  const text = await generatePythonModels(from ? await fetchOpenApiDocument(from) : undefined);
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(PYTHON_MODELS_FILE, "utf8");
    } catch {
      // a missing file is stale too
    }
    if (current !== text) {
      process.stderr.write(`python/src/agent_rental/models.py is stale: run \`${PYTHON_MODELS_COMMAND}\` and commit it.\n`);
      process.exit(1);
    }
    process.stdout.write("python/src/agent_rental/models.py is current\n");
  } else {
    mkdirSync(dirname(PYTHON_MODELS_FILE), { recursive: true });
    writeFileSync(PYTHON_MODELS_FILE, text);
    process.stdout.write(`wrote ${PYTHON_MODELS_FILE}\n`);
  }
}
