// The manifest validator against every rule of the specification's manifest table: valid manifests
// pass normalized, each rule fails with its exact pointer and code, every problem is listed at once,
// the size check counts UTF-8 bytes, the public projection leaks nothing private, and no JSON value
// (random or a mutation of a valid manifest) makes the validator throw.
import { describe, expect, it } from "vitest";
import {
  checkManifestSize,
  compileJsonSchema,
  MANIFEST_MAX_BYTES,
  publicMetadata,
  validateManifest,
  type AgentManifest,
  type ManifestError,
} from "./manifest.ts";
import { parseToolScope, TOOL_CATALOGUE, TOOL_NAMES } from "./tools.ts";

type Json = Record<string, unknown>;

const PROMPT = "You review commercial contracts and flag unusual clauses. SECRET-PROMPT-MARKER";
const INPUT_SCHEMA = {
  type: "object",
  properties: { contract_text: { type: "string", minLength: 1 }, jurisdiction: { enum: ["us", "eu", "uk"] } },
  required: ["contract_text"],
  additionalProperties: false,
};
const OUTPUT_SCHEMA = {
  type: "object",
  properties: { risks: { type: "array", items: { $ref: "#/$defs/risk" } }, summary: { type: "string" } },
  required: ["risks"],
  $defs: { risk: { type: "object", properties: { clause: { type: "string" }, severity: { type: "integer", minimum: 1, maximum: 5 } } } },
  examples: [{ risks: [{ clause: "12.3", severity: 4 }], summary: "One unusual indemnity." }],
};

function declarative(): Json {
  return {
    name: "contract-reviewer",
    category: "legal",
    description: "Reviews contracts and lists risky clauses.",
    model: { provider: "provider_a", model: "chat-large-2025-01" },
    system_prompt: PROMPT,
    tools: [
      { name: "http_fetch", scope: "api.secret-scope-host.example.com,*.cdn.example.org" },
      { name: "js_eval", scope: "memory=64,timeout=2000" },
      { name: "pdf_extract", scope: "input" },
    ],
    input_schema: structuredClone(INPUT_SCHEMA),
    output_schema: structuredClone(OUTPUT_SCHEMA),
  };
}

function connected(): Json {
  return {
    name: "deal-scout-2",
    category: "sales",
    description: "Finds deals.",
    model: { provider: "self_hosted", endpoint_url: "https://llm.private-endpoint.example.net/v1/chat" },
    entrypoint_url: "https://hooks.example.org/agent/run",
    input_schema: { type: "object" },
    output_schema: { type: "object", properties: { deals: { type: "array" } } },
    timeout_seconds: 300,
  };
}

function errorsOf(input: unknown, options?: { allowPrivateHosts?: boolean }): ManifestError[] {
  const result = validateManifest(input, options);
  if (result.ok) throw new Error(`expected errors, got a valid manifest: ${JSON.stringify(result.manifest)}`);
  return result.errors;
}

function pointersAndCodes(errors: ManifestError[]): [string, string][] {
  return errors.map((e) => [e.pointer, e.code]);
}

/** A copy of `base` with `patch` applied; a value of `undefined` deletes the key. */
function edit(base: Json, patch: Json): Json {
  const out = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

describe("valid manifests", () => {
  it("a declarative manifest passes and is normalized (timeout defaulted to 60)", () => {
    const result = validateManifest(declarative());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.manifest).toEqual({ ...declarative(), timeout_seconds: 60, sample_output: [JSON.stringify(OUTPUT_SCHEMA.examples[0])] });
    expect(result.manifest.entrypoint_url).toBeUndefined();
  });

  it("a connected manifest passes and is normalized (tools defaulted to [])", () => {
    const result = validateManifest(connected());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.manifest).toEqual({ ...connected(), tools: [], sample_output: ['{"deals":[]}'] });
    expect(result.manifest.system_prompt).toBeUndefined();
  });

  it("hosted provider b, self_hosted with a model name, explicit empty tools and the 2020-12 $schema pass", () => {
    for (const manifest of [
      edit(declarative(), { model: { provider: "provider_b", model: "b/model@2025" }, tools: [], timeout_seconds: 1 }),
      edit(declarative(), { model: { provider: "self_hosted", endpoint_url: "https://llm.example.com", model: "llama-3-8b" } }),
      edit(declarative(), { input_schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "string", format: "email" } }),
    ]) {
      expect(validateManifest(manifest)).toMatchObject({ ok: true });
    }
  });

  it("returns a copy: URLs in parsed form, no unknown data, input not aliased", () => {
    const input = edit(connected(), { entrypoint_url: "https://HOOKS.Example.org:443/agent/run" });
    const result = validateManifest(input);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.manifest.entrypoint_url).toBe("https://hooks.example.org/agent/run");
    (input.input_schema as Json).type = "array";
    expect(result.manifest.input_schema).toEqual({ type: "object" });
  });

  it("accepts every example scope of every catalogue tool", () => {
    for (const name of TOOL_NAMES) {
      for (const scope of TOOL_CATALOGUE[name].examples) {
        expect(parseToolScope(name, scope)).toMatchObject({ ok: true });
        expect(validateManifest(edit(declarative(), { tools: [{ name, scope }] }))).toMatchObject({ ok: true });
      }
    }
  });

  it("the development switch lets URLs point at the local stack", () => {
    const local = edit(connected(), { model: { provider: "self_hosted", endpoint_url: "http://127.0.0.1:11434/v1" }, entrypoint_url: "http://localhost:8787/hook" });
    expect(validateManifest(local, { allowPrivateHosts: true })).toMatchObject({ ok: true });
    expect(pointersAndCodes(errorsOf(local))).toEqual([
      ["/model/endpoint_url", "not_https"],
      ["/entrypoint_url", "not_https"],
    ]);
  });
});

// [label, manifest, pointer, code]: each manifest breaks exactly one rule.
const ONE_RULE: [string, () => unknown, string, string][] = [
  // Required fields.
  ["missing name", () => edit(declarative(), { name: undefined }), "/name", "required"],
  ["missing category", () => edit(declarative(), { category: undefined }), "/category", "required"],
  ["missing description", () => edit(declarative(), { description: undefined }), "/description", "required"],
  ["missing model", () => edit(declarative(), { model: undefined }), "/model", "required"],
  ["missing model.provider", () => edit(declarative(), { model: { model: "m" } }), "/model/provider", "required"],
  ["missing input_schema", () => edit(declarative(), { input_schema: undefined }), "/input_schema", "required"],
  ["missing output_schema", () => edit(declarative(), { output_schema: undefined }), "/output_schema", "required"],
  // Wrong types.
  ["name a number", () => edit(declarative(), { name: 42 }), "/name", "wrong_type"],
  ["category an array", () => edit(declarative(), { category: ["legal"] }), "/category", "wrong_type"],
  ["description null", () => edit(declarative(), { description: null }), "/description", "wrong_type"],
  ["model a string", () => edit(declarative(), { model: "provider_a" }), "/model", "wrong_type"],
  ["model an array", () => edit(declarative(), { model: [] }), "/model", "wrong_type"],
  ["provider a number", () => edit(declarative(), { model: { provider: 1, model: "m" } }), "/model/provider", "wrong_type"],
  ["model.model a number", () => edit(declarative(), { model: { provider: "provider_a", model: 4 } }), "/model/model", "wrong_type"],
  ["system_prompt an object", () => edit(declarative(), { system_prompt: { text: "x" } }), "/system_prompt", "wrong_type"],
  ["entrypoint_url a number", () => edit(connected(), { entrypoint_url: 443 }), "/entrypoint_url", "wrong_type"],
  ["tools an object", () => edit(declarative(), { tools: { name: "web_search", scope: "public" } }), "/tools", "wrong_type"],
  ["tools null", () => edit(declarative(), { tools: null }), "/tools", "wrong_type"],
  ["a tool a string", () => edit(declarative(), { tools: ["web_search"] }), "/tools/0", "wrong_type"],
  ["a tool name a number", () => edit(declarative(), { tools: [{ name: 1, scope: "public" }] }), "/tools/0/name", "wrong_type"],
  ["a tool scope an array", () => edit(declarative(), { tools: [{ name: "web_search", scope: ["public"] }] }), "/tools/0/scope", "wrong_type"],
  ["input_schema a string", () => edit(declarative(), { input_schema: "object" }), "/input_schema", "wrong_type"],
  ["input_schema an array", () => edit(declarative(), { input_schema: [] }), "/input_schema", "wrong_type"],
  ["output_schema a boolean", () => edit(declarative(), { output_schema: true }), "/output_schema", "wrong_type"],
  // Name.
  ["name My Agent", () => edit(declarative(), { name: "My Agent" }), "/name", "not_kebab_case"],
  ["name a--b", () => edit(declarative(), { name: "a--b" }), "/name", "not_kebab_case"],
  ["name -a", () => edit(declarative(), { name: "-a" }), "/name", "not_kebab_case"],
  ["name ab", () => edit(declarative(), { name: "ab" }), "/name", "not_kebab_case"],
  ["name trailing hyphen", () => edit(declarative(), { name: "agent-" }), "/name", "not_kebab_case"],
  ["name starting with a digit", () => edit(declarative(), { name: "1agent" }), "/name", "not_kebab_case"],
  ["name snake_case", () => edit(declarative(), { name: "my_agent" }), "/name", "not_kebab_case"],
  ["name uppercase", () => edit(declarative(), { name: "Agent" }), "/name", "not_kebab_case"],
  ["name of 65 chars", () => edit(declarative(), { name: `a${"b".repeat(64)}` }), "/name", "not_kebab_case"],
  ["name empty", () => edit(declarative(), { name: "" }), "/name", "not_kebab_case"],
  // Enums.
  ["unknown category", () => edit(declarative(), { category: "health" }), "/category", "unknown_category"],
  ["category in capitals", () => edit(declarative(), { category: "Legal" }), "/category", "unknown_category"],
  ["unknown provider", () => edit(declarative(), { model: { provider: "provider_c", model: "m" } }), "/model/provider", "unknown_provider"],
  // Texts.
  ["description empty", () => edit(declarative(), { description: "" }), "/description", "empty"],
  ["description whitespace", () => edit(declarative(), { description: " \n\t" }), "/description", "empty"],
  ["description too long", () => edit(declarative(), { description: "d".repeat(5001) }), "/description", "too_long"],
  ["system_prompt empty", () => edit(declarative(), { system_prompt: "   " }), "/system_prompt", "empty"],
  ["system_prompt too long", () => edit(declarative(), { system_prompt: "p".repeat(32001) }), "/system_prompt", "too_long"],
  // Model.
  ["provider_a without model", () => edit(declarative(), { model: { provider: "provider_a" } }), "/model/model", "required"],
  ["provider_b without model", () => edit(declarative(), { model: { provider: "provider_b" } }), "/model/model", "required"],
  ["model.model empty", () => edit(declarative(), { model: { provider: "provider_a", model: "" } }), "/model/model", "empty"],
  ["model.model with a space", () => edit(declarative(), { model: { provider: "provider_a", model: "big model" } }), "/model/model", "invalid_format"],
  ["model.model too long", () => edit(declarative(), { model: { provider: "provider_a", model: "m".repeat(129) } }), "/model/model", "too_long"],
  ["self_hosted without endpoint_url", () => edit(declarative(), { model: { provider: "self_hosted" } }), "/model/endpoint_url", "required"],
  ["hosted provider with endpoint_url", () => edit(declarative(), { model: { provider: "provider_a", model: "m", endpoint_url: "https://api.example.com" } }), "/model/endpoint_url", "not_allowed"],
  ["unknown model field", () => edit(declarative(), { model: { provider: "provider_a", model: "m", api_key: "sk-1" } }), "/model/api_key", "unknown_field"],
  // Prompt / entrypoint.
  ["both prompt and entrypoint", () => edit(declarative(), { entrypoint_url: "https://hooks.example.org/x" }), "", "both_prompt_and_entrypoint"],
  ["neither prompt nor entrypoint", () => edit(declarative(), { system_prompt: undefined }), "", "neither_prompt_nor_entrypoint"],
  ["connected agent with tools", () => edit(connected(), { tools: [{ name: "web_search", scope: "public" }] }), "/tools", "not_allowed"],
  ["connected agent with an invalid tool", () => edit(connected(), { tools: [{ name: "shell", scope: 1 }] }), "/tools", "not_allowed"],
  // Tools.
  ["unknown tool", () => edit(declarative(), { tools: [{ name: "shell", scope: "default" }] }), "/tools/0/name", "unknown_tool"],
  ["tool name in capitals", () => edit(declarative(), { tools: [{ name: "Web_Search", scope: "public" }] }), "/tools/0/name", "unknown_tool"],
  ["duplicate tool", () => edit(declarative(), { tools: [{ name: "web_search", scope: "public" }, { name: "json_transform", scope: "default" }, { name: "web_search", scope: "public" }] }), "/tools/2/name", "duplicate_tool"],
  ["tool without scope", () => edit(declarative(), { tools: [{ name: "web_search" }] }), "/tools/0/scope", "required"],
  ["tool without name", () => edit(declarative(), { tools: [{ scope: "public" }] }), "/tools/0/name", "required"],
  ["unknown tool field", () => edit(declarative(), { tools: [{ name: "web_search", scope: "public", limit: 3 }] }), "/tools/0/limit", "unknown_field"],
  // Schemas.
  ["input_schema type nope", () => edit(declarative(), { input_schema: { type: "nope" } }), "/input_schema", "invalid_schema"],
  ["input_schema minimum x", () => edit(declarative(), { input_schema: { minimum: "x" } }), "/input_schema", "invalid_schema"],
  ["output_schema required not an array", () => edit(declarative(), { output_schema: { type: "object", required: "a" } }), "/output_schema", "invalid_schema"],
  ["output_schema unknown keyword (typo)", () => edit(declarative(), { output_schema: { type: "object", requird: ["a"] } }), "/output_schema", "invalid_schema"],
  ["output_schema unknown format", () => edit(declarative(), { output_schema: { type: "string", format: "phone-number" } }), "/output_schema", "invalid_schema"],
  ["output_schema invalid regex", () => edit(declarative(), { output_schema: { type: "string", pattern: "(" } }), "/output_schema", "invalid_schema"],
  ["output_schema dangling local $ref", () => edit(declarative(), { output_schema: { $ref: "#/$defs/missing" } }), "/output_schema", "invalid_schema"],
  ["input_schema remote $ref", () => edit(declarative(), { input_schema: { type: "object", properties: { a: { $ref: "https://evil.example.com/s.json" } } } }), "/input_schema/properties/a/$ref", "remote_ref"],
  ["input_schema relative $ref", () => edit(declarative(), { input_schema: { $ref: "other.json#/x" } }), "/input_schema/$ref", "remote_ref"],
  ["input_schema remote $dynamicRef", () => edit(declarative(), { input_schema: { $dynamicRef: "http://169.254.169.254/x" } }), "/input_schema/$dynamicRef", "remote_ref"],
  ["input_schema draft-07 dialect", () => edit(declarative(), { input_schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" } }), "/input_schema/$schema", "unsupported_dialect"],
  ["input_schema too deep", () => edit(declarative(), { input_schema: nested(40) }), "/input_schema" + "/items".repeat(32), "too_deep"],
  ["input_schema too large", () => edit(declarative(), { input_schema: { enum: Array.from({ length: 10001 }, (_, i) => i) } }), "/input_schema", "too_large"],
  // Timeout.
  ["timeout 0", () => edit(declarative(), { timeout_seconds: 0 }), "/timeout_seconds", "out_of_range"],
  ["timeout 301", () => edit(declarative(), { timeout_seconds: 301 }), "/timeout_seconds", "out_of_range"],
  ["timeout -5", () => edit(declarative(), { timeout_seconds: -5 }), "/timeout_seconds", "out_of_range"],
  ["timeout 1.5", () => edit(declarative(), { timeout_seconds: 1.5 }), "/timeout_seconds", "not_integer"],
  ["timeout \"60\"", () => edit(declarative(), { timeout_seconds: "60" }), "/timeout_seconds", "wrong_type"],
  ["timeout null", () => edit(declarative(), { timeout_seconds: null }), "/timeout_seconds", "wrong_type"],
  // Unknown top-level fields (with RFC 6901 escaping).
  ["unknown field system_promt", () => edit(declarative(), { system_promt: "x" }), "/system_promt", "unknown_field"],
  ["unknown field with / and ~", () => edit(declarative(), { "a/b~c": 1 }), "/a~1b~0c", "unknown_field"],
  ["unknown field __proto__", () => JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(declarative()).slice(1)}`), "/__proto__", "unknown_field"],
];

function nested(depth: number): Json {
  let schema: Json = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "array", items: schema };
  return schema;
}

describe("each rule, alone, gives exactly one error with its pointer and code", () => {
  it.each(ONE_RULE)("%s → %s %s", (_label, make, pointer, code) => {
    const errors = errorsOf(make());
    expect(pointersAndCodes(errors)).toEqual([[pointer, code]]);
    expect(errors[0]?.message.length).toBeGreaterThan(10);
  });

  it("suggests the intended field for a typo", () => {
    expect(errorsOf(edit(declarative(), { system_promt: "x" }))[0]?.message).toContain('did you mean "system_prompt"');
  });

  it("reports Ajv's message for an invalid schema", () => {
    expect(errorsOf(edit(declarative(), { input_schema: { minimum: "x" } }))[0]?.message).toMatch(/\/minimum must be number/);
  });
});

// Bad scopes, per tool.
const BAD_SCOPES: [string, string, number][] = [
  ["http_fetch", "", 1],
  ["http_fetch", "https://api.example.com", 1],
  ["http_fetch", "api.example.com/v1", 1],
  ["http_fetch", "api.example.com:8443", 1],
  ["http_fetch", "8.8.8.8", 1],
  ["http_fetch", "[::1]", 1],
  ["http_fetch", "localhost", 1],
  ["http_fetch", "db.internal", 1],
  ["http_fetch", "printer.local", 1],
  ["http_fetch", "*.com", 1],
  ["http_fetch", "*", 1],
  ["http_fetch", "api.*.example.com", 1],
  ["http_fetch", "a.example.com, b.example.com", 1],
  ["http_fetch", "a.example.com,,b.example.com", 1],
  ["http_fetch", "a.example.com,a.example.com", 1],
  ["http_fetch", "user@a.example.com", 1],
  ["http_fetch", "localhost,8.8.8.8,a.example.com:80", 3],
  ["http_fetch", Array.from({ length: 21 }, (_, i) => `h${i}.example.com`).join(","), 1],
  ["web_search", "private", 1],
  ["web_search", "Public", 1],
  ["web_search", "public ", 1],
  ["js_eval", "memory=256,timeout=1000", 1],
  ["js_eval", "memory=64,timeout=6000", 1],
  ["js_eval", "memory=256,timeout=6000", 2],
  ["js_eval", "memory=64", 1],
  ["js_eval", "timeout=100", 1],
  ["js_eval", "memory=64,memory=32,timeout=100", 1],
  ["js_eval", "memory=64MB,timeout=100", 1],
  ["js_eval", "memory = 64, timeout = 100", 2],
  ["js_eval", "memory=0,timeout=0", 2],
  ["js_eval", "unlimited", 1],
  ["json_transform", "all", 1],
  ["json_transform", "", 1],
  ["pdf_extract", "/etc/passwd", 1],
  ["pdf_extract", "any", 1],
];

describe("tool scopes", () => {
  it.each(BAD_SCOPES)("%s scope %j → invalid_scope ×%i at /tools/0/scope", (name, scope, count) => {
    const errors = errorsOf(edit(declarative(), { tools: [{ name, scope }] }));
    expect(pointersAndCodes(errors)).toEqual(Array.from({ length: count }, () => ["/tools/0/scope", "invalid_scope"]));
    const parsed = parseToolScope(name, scope);
    expect(parsed.ok).toBe(false);
  });

  it("parses scopes into what the runtime configures", () => {
    expect(parseToolScope("http_fetch", "API.example.com:443,*.cdn.example.org")).toEqual({
      ok: true,
      scope: { tool: "http_fetch", hosts: [{ host: "api.example.com", subdomains: false }, { host: "cdn.example.org", subdomains: true }] },
    });
    expect(parseToolScope("js_eval", "timeout=5000,memory=128")).toEqual({ ok: true, scope: { tool: "js_eval", memoryMb: 128, timeoutMs: 5000 } });
    expect(parseToolScope("js_eval", "default")).toEqual({ ok: true, scope: { tool: "js_eval", memoryMb: 64, timeoutMs: 1000 } });
    expect(parseToolScope("web_search", "public")).toEqual({ ok: true, scope: { tool: "web_search", index: "public" } });
    expect(parseToolScope("json_transform", "default")).toEqual({ ok: true, scope: { tool: "json_transform" } });
    expect(parseToolScope("pdf_extract", "input")).toEqual({ ok: true, scope: { tool: "pdf_extract", source: "input" } });
    expect(parseToolScope("shell", "default")).toMatchObject({ ok: false });
    expect(parseToolScope("http_fetch", "0x08080808.com")).toMatchObject({ ok: true }); // a name, not an address
    expect(parseToolScope("http_fetch", "0x7f.1")).toMatchObject({ ok: false });
  });

  it("each bad scope problem is listed, on the scope's pointer, for every tool at once", () => {
    const errors = errorsOf(
      edit(declarative(), {
        tools: [
          { name: "http_fetch", scope: "localhost" },
          { name: "web_search", scope: "all" },
          { name: "js_eval", scope: "memory=999,timeout=99999" },
          { name: "json_transform", scope: "x" },
          { name: "pdf_extract", scope: "output" },
        ],
      }),
    );
    expect(pointersAndCodes(errors)).toEqual([
      ["/tools/0/scope", "invalid_scope"],
      ["/tools/1/scope", "invalid_scope"],
      ["/tools/2/scope", "invalid_scope"],
      ["/tools/2/scope", "invalid_scope"],
      ["/tools/3/scope", "invalid_scope"],
      ["/tools/4/scope", "invalid_scope"],
    ]);
  });
});

// URLs: the endpoint and the entrypoint, each with every kind of refusal.
const BAD_URLS: [string, string][] = [
  ["http://hooks.example.org/run", "not_https"],
  ["ftp://hooks.example.org/run", "not_https"],
  ["hooks.example.org/run", "invalid_url"],
  ["https://user:secret@hooks.example.org/run", "credentials_in_url"],
  ["https://hooks.example.org:8443/run", "port_not_allowed"],
  ["https://hooks.example.org:80/run", "port_not_allowed"],
  ["https://127.0.0.1/run", "forbidden_address"],
  ["https://10.1.2.3/run", "forbidden_address"],
  ["https://172.20.0.1/run", "forbidden_address"],
  ["https://192.168.0.10/run", "forbidden_address"],
  ["https://169.254.10.10/run", "forbidden_address"],
  ["https://169.254.169.254/latest", "forbidden_address"],
  ["https://100.64.1.1/run", "forbidden_address"],
  ["https://0.0.0.0/run", "forbidden_address"],
  ["https://224.0.0.5/run", "forbidden_address"],
  ["https://[::1]/run", "forbidden_address"],
  ["https://[::]/run", "forbidden_address"],
  ["https://[fe80::1]/run", "forbidden_address"],
  ["https://[fc00::5]/run", "forbidden_address"],
  ["https://[fd00:ec2::254]/run", "forbidden_address"],
  ["https://[ff05::2]/run", "forbidden_address"],
  ["https://[::ffff:127.0.0.1]/run", "forbidden_address"],
  ["https://[::ffff:169.254.169.254]/run", "forbidden_address"],
  ["https://2130706433/run", "non_canonical_ip"],
  ["https://0x7f.1/run", "non_canonical_ip"],
  ["https://0177.0.0.1/run", "non_canonical_ip"],
  ["https://localhost/run", "internal_hostname"],
  ["https://agent.localhost/run", "internal_hostname"],
  ["https://box.local/run", "internal_hostname"],
  ["https://svc.internal/run", "internal_hostname"],
  ["https://intranet/run", "internal_hostname"],
];

describe("too many tools", () => {
  it("11 tools → too_many at /tools (the catalogue has 5 tools, so the extra ones are also duplicates)", () => {
    const tools = Array.from({ length: 11 }, (_, i) => ({ name: TOOL_NAMES[i % 5], scope: TOOL_CATALOGUE[TOOL_NAMES[i % 5] ?? "web_search"].examples[0] }));
    const errors = errorsOf(edit(declarative(), { tools }));
    expect(pointersAndCodes(errors)).toEqual([["/tools", "too_many"], ...Array.from({ length: 6 }, (_, i): [string, string] => [`/tools/${i + 5}/name`, "duplicate_tool"])]);
  });

  it("10 tools are not too many (repeats are reported as duplicates only)", () => {
    const tools = Array.from({ length: 10 }, () => ({ name: "web_search", scope: "public" }));
    expect(errorsOf(edit(declarative(), { tools })).map((e) => e.code)).not.toContain("too_many");
  });
});

describe("model.endpoint_url and entrypoint_url", () => {
  it.each(BAD_URLS)("entrypoint_url %s → %s", (url, code) => {
    expect(pointersAndCodes(errorsOf(edit(connected(), { entrypoint_url: url })))).toEqual([["/entrypoint_url", code]]);
  });

  it.each(BAD_URLS)("model.endpoint_url %s → %s", (url, code) => {
    expect(pointersAndCodes(errorsOf(edit(connected(), { model: { provider: "self_hosted", endpoint_url: url } })))).toEqual([["/model/endpoint_url", code]]);
  });

  it("an empty URL is refused", () => {
    expect(pointersAndCodes(errorsOf(edit(connected(), { entrypoint_url: "" })))).toEqual([["/entrypoint_url", "invalid_url"]]);
  });
});

describe("every problem at once", () => {
  it("lists all 15 problems of a manifest that breaks 15 rules", () => {
    const errors = errorsOf({
      name: "My Agent",
      category: "health",
      description: "",
      model: { provider: "self_hosted", endpoint_url: "http://10.0.0.1:8080/v1", temperature: 0.2 },
      system_prompt: "   ",
      entrypoint_url: "https://169.254.169.254/",
      tools: [{ name: "shell", scope: "x" }, { name: "http_fetch", scope: "localhost" }, "oops"],
      input_schema: { type: "nope" },
      output_schema: { $ref: "https://schemas.example.com/out.json" },
      timeout_seconds: 301,
      system_promt: "typo",
    });
    expect(pointersAndCodes(errors)).toEqual([
      ["/name", "not_kebab_case"],
      ["/category", "unknown_category"],
      ["/description", "empty"],
      ["/model/temperature", "unknown_field"],
      ["/model/endpoint_url", "not_https"],
      ["/system_prompt", "empty"],
      ["/entrypoint_url", "forbidden_address"],
      ["", "both_prompt_and_entrypoint"],
      ["/tools/0/name", "unknown_tool"],
      ["/tools/1/scope", "invalid_scope"],
      ["/tools/2", "wrong_type"],
      ["/input_schema", "invalid_schema"],
      ["/output_schema/$ref", "remote_ref"],
      ["/timeout_seconds", "out_of_range"],
      ["/system_promt", "unknown_field"],
    ]);
    expect(errors).toHaveLength(15);
  });

  it("an empty object lists every required field and the missing prompt/entrypoint", () => {
    expect(pointersAndCodes(errorsOf({}))).toEqual([
      ["/name", "required"],
      ["/category", "required"],
      ["/description", "required"],
      ["/model", "required"],
      ["", "neither_prompt_nor_entrypoint"],
      ["/input_schema", "required"],
      ["/output_schema", "required"],
    ]);
  });

  it("caps the list at 100 errors plus one saying how many more", () => {
    const tools = Array.from({ length: 150 }, () => ({ name: "shell", scope: "x" }));
    const errors = errorsOf(edit(declarative(), { tools }));
    expect(errors).toHaveLength(101);
    expect(errors[0]).toMatchObject({ pointer: "/tools", code: "too_many" });
    expect(errors[100]).toMatchObject({ pointer: "", code: "too_many_errors" });
    expect(errors[100]?.message).toContain("51 more");
  });
});

describe("non-object inputs", () => {
  it.each([null, [], [{ name: "an-agent" }], "manifest", "", 42, 0, true, undefined])("%j gives one root error", (input) => {
    expect(pointersAndCodes(errorsOf(input))).toEqual([["", "wrong_type"]]);
  });
});

describe("sample outputs: one to three, each matching the output schema", () => {
  const sampleOf = (output_schema: Json) => {
    const result = validateManifest(edit(declarative(), { output_schema }));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.manifest.sample_output;
  };

  it("are the schema's examples, as text, the first three of them", () => {
    expect(sampleOf({ type: "string", examples: ["one", "two", "three", "four"] })).toEqual(["one", "two", "three"]);
    expect(sampleOf({ type: "object", properties: { n: { type: "integer" } }, examples: [{ n: 1 }] })).toEqual(['{"n":1}']);
  });

  it("are one example generated from the schema when it gives none, and it matches the schema", () => {
    expect(sampleOf({ type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] })).toEqual(['{"findings":["string"]}']);
    expect(sampleOf({ type: "object", properties: { severity: { type: "integer", minimum: 1, maximum: 5 }, label: { enum: ["low", "high"] } }, required: ["severity", "label"] })).toEqual(['{"severity":1,"label":"low"}']);
    expect(sampleOf({ type: "string" })).toEqual(["string"]);
  });

  it("refuses an example that does not match the schema, naming it", () => {
    const errors = errorsOf(edit(declarative(), { output_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], examples: [{ n: 1 }, { n: "two" }, {}] } }));
    expect(pointersAndCodes(errors)).toEqual([
      ["/output_schema/examples/1", "invalid_example"],
      ["/output_schema/examples/2", "invalid_example"],
    ]);
    expect(errors[0]?.message).toContain("/n must be integer");
  });

  it("refuses empty or non-array examples, and a schema with no examples for which none can be generated", () => {
    expect(pointersAndCodes(errorsOf(edit(declarative(), { output_schema: { type: "string", examples: [] } })))).toEqual([["/output_schema/examples", "wrong_type"]]);
    // not an array at all: the JSON Schema meta-schema already refuses it
    expect(pointersAndCodes(errorsOf(edit(declarative(), { output_schema: { type: "string", examples: "text" } })))).toEqual([["/output_schema", "invalid_schema"]]);
    const unguessable = errorsOf(edit(declarative(), { output_schema: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" } }));
    expect(pointersAndCodes(unguessable)).toEqual([["/output_schema/examples", "required"]]);
    expect(unguessable[0]?.message).toContain("add one to 3 example outputs");
    expect(pointersAndCodes(errorsOf(edit(declarative(), { output_schema: {} })))).toEqual([["/output_schema/examples", "required"]]);
  });
});

describe("schema patterns", () => {
  it("refuses a backreference, lookaround and an over-long pattern at its pointer; an invalid regex is an invalid schema", () => {
    const errors = errorsOf(edit(declarative(), {
      input_schema: { type: "object", properties: { a: { type: "string", pattern: "(x)\\1" }, b: { type: "string", pattern: "a(?!b)" } }, patternProperties: { "^(?<=x)y": {} } },
      output_schema: { type: "object", properties: { c: { type: "string", pattern: "a".repeat(1001) } }, examples: [{}] },
    }));
    expect(pointersAndCodes(errors)).toEqual([
      ["/input_schema/properties/a/pattern", "unsupported_pattern"],
      ["/input_schema/properties/b/pattern", "unsupported_pattern"],
      ["/input_schema/patternProperties/^(?<=x)y", "unsupported_pattern"],
      ["/output_schema/properties/c/pattern", "too_long"],
    ]);
  });

  it("does not take data named pattern (in const, enum, examples, default) for a pattern", () => {
    const result = validateManifest(edit(declarative(), { input_schema: { type: "object", properties: { p: { const: { pattern: "(x)\\1" } } }, default: { pattern: "(?=a)" } } }));
    expect(result.ok).toBe(true);
  });

  it("runs schema patterns in linear time: ^(a+)+$ against 10,000 a's and a ! takes milliseconds, and patternProperties keys meet property names without RegExp", () => {
    const compiled = compileJsonSchema({ type: "object", properties: { [`${"a".repeat(40)}!`]: { type: "string", pattern: "^(a+)+$" } }, patternProperties: { "^(a+)+$": {} } });
    if (!compiled.ok) throw new Error(compiled.message);
    const started = performance.now();
    expect(compiled.validate({ [`${"a".repeat(40)}!`]: `${"a".repeat(10_000)}!` })).toBe(false);
    expect(compiled.validate({ [`${"a".repeat(40)}!`]: "aaaa" })).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("keeps each pattern its own when several share one schema compiler", () => {
    const first = compileJsonSchema({ type: "string", pattern: "^a+$" });
    const second = compileJsonSchema({ type: "string", pattern: "^b+$" });
    if (!first.ok || !second.ok) throw new Error("did not compile");
    expect([first.validate("aaa"), first.validate("bbb"), second.validate("bbb"), second.validate("aaa")]).toEqual([true, false, true, false]);
  });
});

describe("checkManifestSize", () => {
  const padded = (bytes: number) => {
    const base = JSON.stringify(edit(declarative(), { description: "" }));
    return JSON.stringify(edit(declarative(), { description: "x".repeat(bytes - base.length) }));
  };

  it("a 70 KB manifest fails and a 60 KB one passes", () => {
    const big = padded(70 * 1024);
    const fine = padded(60 * 1024);
    expect(Buffer.byteLength(big)).toBe(70 * 1024);
    expect(checkManifestSize(big)).toMatchObject({ ok: false, bytes: 70 * 1024 });
    expect(checkManifestSize(fine)).toEqual({ ok: true, bytes: 60 * 1024 });
  });

  it("the limit is 65536 bytes, inclusive, counted in UTF-8 (also for raw bytes)", () => {
    expect(MANIFEST_MAX_BYTES).toBe(65536);
    expect(checkManifestSize("a".repeat(65536)).ok).toBe(true);
    expect(checkManifestSize("a".repeat(65537)).ok).toBe(false);
    const accented = "é".repeat(33000); // 33,000 characters, 66,000 bytes
    expect(checkManifestSize(accented)).toMatchObject({ ok: false, bytes: 66000 });
    expect(checkManifestSize(new TextEncoder().encode(accented))).toMatchObject({ ok: false, bytes: 66000 });
    expect(checkManifestSize(new Uint8Array(65536))).toEqual({ ok: true, bytes: 65536 });
  });
});

describe("publicMetadata", () => {
  const validated = (input: Json): AgentManifest => {
    const result = validateManifest(input);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.manifest;
  };

  it("projects exactly the public fields, tool names only", () => {
    const meta = publicMetadata(validated(declarative()));
    expect(Object.keys(meta).sort()).toEqual(["category", "description", "input_schema", "name", "output_schema", "timeout_seconds", "tools"]);
    expect(meta).toEqual({
      name: "contract-reviewer",
      description: "Reviews contracts and lists risky clauses.",
      category: "legal",
      input_schema: INPUT_SCHEMA,
      output_schema: OUTPUT_SCHEMA,
      tools: ["http_fetch", "js_eval", "pdf_extract"],
      timeout_seconds: 60,
    });
  });

  it("never contains the prompt, the scopes, the endpoint, the entrypoint or the model", () => {
    const declarativeText = JSON.stringify(publicMetadata(validated(declarative())));
    for (const secret of ["SECRET-PROMPT-MARKER", "secret-scope-host", "memory=64", "cdn.example.org", "chat-large-2025-01", "provider_a", "system_prompt", "scope", "model\""]) {
      expect(declarativeText).not.toContain(secret);
    }
    const connectedText = JSON.stringify(publicMetadata(validated(connected())));
    for (const secret of ["private-endpoint", "hooks.example.org", "self_hosted", "entrypoint", "endpoint_url"]) {
      expect(connectedText).not.toContain(secret);
    }
  });

  it("is a copy: changing it does not change the manifest", () => {
    const manifest = validated(declarative());
    const meta = publicMetadata(manifest);
    (meta.input_schema as Json).type = "array";
    expect(manifest.input_schema.type).toBe("object");
  });
});

describe("compileJsonSchema", () => {
  it("compiles with the manifest settings so the runtime validates the same way", () => {
    const compiled = compileJsonSchema(structuredClone(INPUT_SCHEMA));
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.validate({ contract_text: "x" })).toBe(true);
    expect(compiled.validate({ contract_text: "" })).toBe(false);
  });

  it("survives many compiles and schemas that reuse the meta-schema's $id", () => {
    for (let i = 0; i < 600; i++) {
      const schema = i % 3 === 0 ? { $id: "https://json-schema.org/draft/2020-12/schema", type: "string" } : { type: "object", properties: { [`p${i}`]: { type: "integer" } } };
      expect(compileJsonSchema(schema).ok).toBe(true);
    }
    expect(validateManifest(declarative()).ok).toBe(true);
  });
});

describe("fuzz: the validator never throws", () => {
  // A small seeded generator, so a failure reproduces.
  function rng(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const KEYS = ["name", "category", "description", "model", "provider", "model", "endpoint_url", "system_prompt", "entrypoint_url", "tools", "scope", "input_schema", "output_schema", "timeout_seconds", "type", "$ref", "$schema", "$id", "properties", "items", "required", "__proto__", "constructor", "toString", "", "~/", "x"];
  const STRINGS = ["", " ", "legal", "provider_a", "self_hosted", "http_fetch", "js_eval", "default", "public", "input", "https://api.example.com", "http://127.0.0.1", "https://[::1]/", "https://0x7f.1", "#", "#/$defs/a", "https://x/y", "object", "string", "nope", "a--b", "é".repeat(5), "\u0000", "memory=64,timeout=100", "*.example.com"];

  function randomValue(next: () => number, depth: number): unknown {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    const roll = next();
    if (depth <= 0 || roll < 0.35) {
      const scalar = next();
      if (scalar < 0.15) return null;
      if (scalar < 0.3) return next() < 0.5;
      if (scalar < 0.5) return pick([0, 1, -1, 1.5, 60, 300, 301, 1e21, -0, Number.MAX_SAFE_INTEGER]);
      return next() < 0.8 ? pick(STRINGS) : Math.floor(next() * 1e9).toString(36).repeat(Math.floor(next() * 4));
    }
    if (roll < 0.6) return Array.from({ length: Math.floor(next() * 6) }, () => randomValue(next, depth - 1));
    const object: Json = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) Object.defineProperty(object, pick(KEYS), { value: randomValue(next, depth - 1), enumerable: true, writable: true, configurable: true });
    return object;
  }

  function assertWellFormed(result: ReturnType<typeof validateManifest>): void {
    if (result.ok) {
      expect(typeof result.manifest.name).toBe("string");
      return;
    }
    expect(result.errors.length).toBeGreaterThan(0);
    for (const error of result.errors) {
      expect(error.pointer === "" || error.pointer.startsWith("/")).toBe(true);
      expect(typeof error.code).toBe("string");
      expect(typeof error.message).toBe("string");
    }
  }

  it("500 random JSON values", () => {
    const next = rng(1);
    for (let i = 0; i < 500; i++) {
      const value = JSON.parse(JSON.stringify(randomValue(next, 5) ?? null)) as unknown;
      assertWellFormed(validateManifest(value));
    }
  });

  it("500 random mutations of valid manifests", () => {
    const next = rng(2);
    let accepted = 0;
    for (let i = 0; i < 500; i++) {
      const manifest = i % 2 === 0 ? declarative() : connected();
      for (let m = 1 + Math.floor(next() * 3); m > 0; m--) mutate(manifest, next);
      const result = validateManifest(JSON.parse(JSON.stringify(manifest)) as unknown, { allowPrivateHosts: next() < 0.2 });
      assertWellFormed(result);
      if (result.ok) accepted += 1;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(500);
  });

  /** Replaces, deletes or adds one value somewhere in the manifest. */
  function mutate(root: Json, next: () => number): void {
    let node: unknown = root;
    for (let depth = 0; depth < 6; depth++) {
      const container = node as Json | unknown[];
      const keys = Object.keys(container);
      if (keys.length === 0 || next() < 0.3) break;
      const key = keys[Math.floor(next() * keys.length)] as string;
      const child = (container as Json)[key];
      if (child === null || typeof child !== "object" || next() < 0.4) {
        const action = next();
        if (action < 0.5) (container as Json)[key] = randomValue(next, 2);
        else if (action < 0.8 && !Array.isArray(container)) delete (container as Json)[key];
        else if (!Array.isArray(container)) container[["x", "system_promt", "$ref", "entrypoint_url", "scope"][Math.floor(next() * 5)] as string] = randomValue(next, 2);
        return;
      }
      node = child;
    }
    root[["name", "tools", "timeout_seconds", "model", "system_prompt"][Math.floor(next() * 5)] as string] = randomValue(next, 3);
  }
});
