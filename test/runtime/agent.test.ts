// The bundled declarative agent runtime, run as a sandbox entry through the real local sandbox pool
// against the local model server, for the three providers: streamed text, structured output, tools and
// their scopes, provider failures, the deadline and the egress rules.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stop as stopEsbuild } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import { buildRuntime } from "../../scripts/build-runtime.ts";
import { createLocalSandboxPool, type LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import type { RunResult } from "../../src/adapters/sandbox/port.ts";
import type { ManifestTool } from "@agent-rental/core/manifest";
import type { AgentRunOutput, AgentRunPayload } from "../../src/runtime/payload.ts";
import { PROVIDERS, type Provider } from "@agent-rental/core/vocabulary";
import { agentSandboxNeeds } from "../../src/runtime/sandbox.ts";

const KEY = "sk-runtime-test-key-5f3a9c2e7b1d";
const SEARCH_KEY = "brave-test-key-0a1b2c3d4e5f";
/** A public-looking name of the tool server, resolved to loopback for the run (egress.resolve). */
const API_HOST = "api.example.com";
const SEARCH_HOST = "search.example.com";

let outDir: string;
let entry: string;
let models: ModelServer;
let pool: LocalSandboxPool;
let toolServer: http.Server;
let toolPort: number;
const toolRequests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let counter = 0;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "agent-runtime-"));
  ({ entry } = await buildRuntime({ outDir }));
  models = await startModelServer({ apiKey: KEY });
  pool = createLocalSandboxPool({ warm: 1, allowFsRead: [outDir] });
  toolServer = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      toolRequests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname === "/orders") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ orders: [{ id: "a1", total: 40 }, { id: "b2", total: 120 }, { id: "c3", total: 75 }] }));
      } else if (url.pathname === "/echo" && req.method === "POST") {
        res.writeHead(201, { "content-type": "text/plain" });
        res.end(`posted ${body}`);
      } else if (url.pathname === "/leave") {
        res.writeHead(302, { location: "http://elsewhere.example.net/steal" });
        res.end();
      } else if (url.pathname === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(300 * 1024));
      } else if (url.pathname === "/res/v1/web/search") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({
          type: "search",
          web: {
            results: [
              { title: "Agent <strong>rental</strong>", url: "https://docs.example.org/rental", description: "Rent an <strong>agent</strong> &amp; run tasks." },
              { title: "Second", url: "https://docs.example.org/second", description: "Another result" },
              { title: "Third", url: "https://docs.example.org/third", description: "Not wanted" },
            ],
          },
        }));
      } else {
        res.writeHead(404);
        res.end("not found");
      }
    });
  });
  await new Promise<void>((resolve) => toolServer.listen(0, "127.0.0.1", resolve));
  toolPort = (toolServer.address() as AddressInfo).port;
});

afterAll(async () => {
  await pool?.close();
  await models?.stop();
  await new Promise<void>((resolve) => (toolServer ? toolServer.close(() => resolve()) : resolve()));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  await stopEsbuild();
});

interface PayloadOptions {
  task: string;
  input?: AgentRunPayload["input"];
  tools?: ManifestTool[];
  outputSchema?: Record<string, unknown>;
  apiKey?: string | null;
  baseUrl?: string;
  egress?: Partial<AgentRunPayload["egress"]>;
  search?: AgentRunPayload["search"];
  maxSteps?: number;
}

function payload(provider: Provider, options: PayloadOptions): AgentRunPayload {
  return {
    runId: `run-${++counter}`,
    agent: {
      provider,
      model: provider === "provider_a" ? "gpt-4o-mini" : provider === "provider_b" ? "claude-sonnet-4-5" : "local-model",
      baseUrl: options.baseUrl ?? (provider === "provider_b" ? models.anthropicBaseUrl : models.openaiBaseUrl),
      apiKey: options.apiKey === undefined ? KEY : options.apiKey,
      systemPrompt: "You are a terse analyst.",
      tools: options.tools ?? [],
      outputSchema: options.outputSchema ?? { type: "string" },
    },
    task: options.task,
    input: options.input ?? null,
    egress: {
      allowPrivate: false,
      allowHosts: ["127.0.0.1", API_HOST, SEARCH_HOST],
      resolve: { [API_HOST]: "127.0.0.1", [SEARCH_HOST]: "127.0.0.1" },
      ...options.egress,
    },
    ...(options.search ? { search: options.search } : {}),
    maxSteps: options.maxSteps ?? 5,
  };
}

async function runAgent(p: AgentRunPayload, timeoutMs = 15_000): Promise<{ result: RunResult; deltas: string[]; output: AgentRunOutput | undefined }> {
  const deltas: string[] = [];
  const result = await pool.run(
    { runId: p.runId, entry, payload: p, timeoutMs, memoryMb: 128, ...agentSandboxNeeds(p.agent.tools) },
    (event) => deltas.push(event.delta),
  );
  return { result, deltas, output: result.output as AgentRunOutput | undefined };
}

/** The model server's answer lists each tool result on a line `Tool NAME returned: <json>`. */
function toolResults(text: string): { name: string; value: unknown }[] {
  return [...text.matchAll(/^Tool (\w+) returned: (.*)$/gm)].map((m) => ({ name: m[1]!, value: JSON.parse(m[2]!) as unknown }));
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(PROVIDERS)("%s", (provider) => {
  it("streams a plain text answer as ordered deltas that join to the output", async () => {
    const { result, deltas, output } = await runAgent(payload(provider, { task: "Summarise the quarter in one line" }));
    expect(result.status).toBe("completed");
    expect(output?.output).toBe("Echo: Summarise the quarter in one line");
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.join("")).toBe(output?.output);
    expect(output?.usage).toEqual({ inputTokens: 11, outputTokens: 7 });
    expect(output?.toolCalls).toBeUndefined();
  });

  it("sends the system prompt, the task and the input (an object as JSON) to the model", async () => {
    const before = models.requests().length;
    const { result, output } = await runAgent(payload(provider, { task: "Review it", input: { clause: "net 30", parties: 2 } }));
    expect(result.status).toBe("completed");
    expect(output?.output).toBe('Echo: Review it Input (JSON): { "clause": "net 30", "parties": 2 }');
    const request = models.requests()[before]!;
    const body = JSON.stringify(request.body);
    expect(body).toContain("You are a terse analyst.");
    expect(request.headers[provider === "provider_b" ? "x-api-key" : "authorization"]).toBe(provider === "provider_b" ? KEY : `Bearer ${KEY}`);
  });

  it("produces structured output to an object schema and streams its JSON text", async () => {
    const schema = {
      type: "object",
      properties: { title: { type: "string" }, score: { type: "integer" }, flags: { type: "array", items: { type: "string" } }, level: { enum: ["low", "high"] } },
      required: ["title", "score", "flags", "level"],
      additionalProperties: false,
    };
    const { result, deltas, output } = await runAgent(payload(provider, { task: "Rate the contract", outputSchema: schema }));
    expect(result.status).toBe("completed");
    expect(output?.output).toEqual({ title: "example", score: 0, flags: ["example"], level: "low" });
    expect(deltas.length).toBeGreaterThan(0);
    expect(JSON.parse(deltas.join(""))).toEqual(output?.output);
  });

  it("produces an array output (a non-object root, asked for wrapped and returned unwrapped)", async () => {
    const schema = { type: "array", items: { $ref: "#/$defs/finding" }, $defs: { finding: { type: "object", properties: { severity: { type: "number" }, note: { type: "string" } }, required: ["severity", "note"] } } };
    const { result, deltas, output } = await runAgent(payload(provider, { task: "List findings", outputSchema: schema }));
    expect(result.status).toBe("completed");
    expect(output?.output).toEqual([{ severity: 0, note: "example" }]);
    expect(JSON.parse(deltas.join(""))).toEqual(output?.output);
  });

  it("calls http_fetch, json_transform and js_eval, each configured from its scope, and answers with their results", async () => {
    const tools: ManifestTool[] = [
      { name: "http_fetch", scope: API_HOST },
      { name: "json_transform", scope: "default" },
      { name: "js_eval", scope: "memory=32,timeout=500" },
    ];
    const orders = `http://${API_HOST}:${toolPort}/orders`;
    const program = [{ get: "/orders" }, { filter: { path: "/total", gte: 75 } }, { map: { pick: { order: "/id" } } }];
    const task = [
      "Check the orders",
      `[[tool:http_fetch {"url":"${orders}"}]]`,
      `[[tool:json_transform {"data":{"orders":[{"id":"a1","total":40},{"id":"b2","total":120},{"id":"c3","total":75}]},"program":${JSON.stringify(program)}}]]`,
      `[[tool:js_eval {"code":"[40, 120, 75].reduce((a, b) => a + b, 0) / 3"}]]`,
    ].join(" ");
    const before = toolRequests.length;
    const { result, output } = await runAgent(payload(provider, { task, tools }));
    expect(result.status).toBe("completed");
    const text = output?.output as string;
    expect(text.startsWith("Echo: Check the orders\n")).toBe(true);
    const results = toolResults(text);
    expect(results.map((r) => r.name)).toEqual(["http_fetch", "json_transform", "js_eval"]);
    expect(results[0]!.value).toMatchObject({ url: orders, status: 200, contentType: "application/json" });
    expect(JSON.parse((results[0]!.value as { body: string }).body)).toEqual({ orders: [{ id: "a1", total: 40 }, { id: "b2", total: 120 }, { id: "c3", total: 75 }] });
    expect(results[1]!.value).toEqual({ result: [{ order: "b2" }, { order: "c3" }] });
    expect(results[2]!.value).toEqual({ result: 235 / 3 });
    expect(output?.toolCalls).toEqual({ http_fetch: 1, json_transform: 1, js_eval: 1 });
    expect(toolRequests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(["GET /orders"]);
  });

  it("refuses a URL outside http_fetch's scope and a tool the agent does not declare, as tool errors the model sees", async () => {
    const task = `Try [[tool:http_fetch {"url":"https://other.example.org/secret"}]] [[tool:js_eval {"code":"1+1"}]] then stop`;
    const before = toolRequests.length;
    const { result, output } = await runAgent(payload(provider, { task, tools: [{ name: "http_fetch", scope: API_HOST }] }));
    expect(result.status).toBe("completed");
    const text = output?.output as string;
    expect(text).toContain(`Tool http_fetch returned: {"error":"other.example.org is not in this tool's scope (${API_HOST})"}`);
    expect(text).toMatch(/Tool js_eval returned: .*unavailable tool 'js_eval'/);
    expect(output?.toolCalls).toEqual({ http_fetch: 1 });
    expect(toolRequests.length).toBe(before);
  });

  it("fails a 429 from the provider with a clear reason that carries no key", async () => {
    const before = models.requests().length;
    const { result, deltas } = await runAgent(payload(provider, { task: "Busy? [[error:429]]" }));
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ code: "entry_error", message: "the model provider answered 429 (rate limited) after 3 attempts" });
    expect(deltas).toEqual([]);
    // the SDK retried twice (the server's Retry-After is 0)
    expect(models.requests().length - before).toBe(3);
  });

  it("fails on a refused key without repeating the key", async () => {
    const wrong = "sk-wrong-key-9f8e7d6c5b4a";
    const { result } = await runAgent(payload(provider, { task: "Hello", apiKey: wrong }));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("the model provider answered 401 (the key was refused)");
    expect(JSON.stringify(result)).not.toContain(wrong.slice(3, 15));
  });

  it("fails a stream cut mid-answer, after the deltas that arrived", async () => {
    const { result, deltas } = await runAgent(payload(provider, { task: "one two three four five six seven eight [[stream-cut]]" }));
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ code: "entry_error", message: "the model stream was cut off" });
    const partial = deltas.join("");
    expect(partial.length).toBeGreaterThan(0);
    expect("Echo: one two three four five six seven eight".startsWith(partial)).toBe(true);
    expect(partial).not.toBe("Echo: one two three four five six seven eight");
  });

  it("is killed at its timeout, keeping what it streamed", async () => {
    // The whole answer takes 13 chunks 900 ms apart (11.7 s); the run's 6 s leave room for a sandbox
    // that starts slowly on a heavily loaded machine to stream its first words, never for all of them.
    const { result, deltas } = await runAgent(payload(provider, { task: "a b c d e f g h i j k l [[slow:900]]" }), 6_000);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("timeout");
    expect(result.durationMs).toBeGreaterThanOrEqual(6_000);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(14);
    expect("Echo: a b c d e f g h i j k l".startsWith(deltas.join(""))).toBe(true);
    expect(alive(result.pid)).toBe(false);
  });
});

/** A failure the renter sees names nothing of the creator's model endpoint: not its URL, host, address or port. */
function expectNothingOfEndpoint(message: string | undefined, endpoint: string): void {
  const url = new URL(endpoint);
  expect(message).toBe("the agent's model could not be reached");
  for (const part of [endpoint, url.host, url.hostname, url.port, "127.0.0.1", "loopback"].filter((p) => p !== "")) expect(message).not.toContain(part);
}

describe("egress", () => {
  it("refuses a self-hosted endpoint on a private address that is not allow-listed, saying only that the model could not be reached", async () => {
    const before = models.requests().length;
    const port = new URL(models.url).port;
    const baseUrl = `https://127.0.0.1:${port}/v1`;
    const { result } = await runAgent(payload("self_hosted", { task: "Hello", baseUrl, egress: { allowHosts: [], resolve: {} } }));
    expect(result.status).toBe("failed");
    expectNothingOfEndpoint(result.error?.message, baseUrl);
    expect(models.requests().length).toBe(before);
  });

  it("refuses plain http to a private endpoint that is not allow-listed, naming nothing of it", async () => {
    const { result } = await runAgent(payload("self_hosted", { task: "Hello", egress: { allowHosts: [], resolve: {} } }));
    expect(result.status).toBe("failed");
    expectNothingOfEndpoint(result.error?.message, `${models.url}/v1`);
  });

  it("says only that the model could not be reached when a self-hosted endpoint's name does not resolve or refuses the connection", async () => {
    const unresolvable = "https://models.creator-private.example.com:8443/v1";
    const { result: unknown } = await runAgent(payload("self_hosted", { task: "Hello", baseUrl: unresolvable, egress: { allowHosts: ["models.creator-private.example.com"], resolve: {} } }));
    expect(unknown.status).toBe("failed");
    expectNothingOfEndpoint(unknown.error?.message, unresolvable);
    expect(unknown.error?.message).not.toContain("creator-private");

    // port 9 (discard) on loopback: nothing listens, the connection is refused
    const closed = "https://gpu-box.creator-private.example.com:9/v1";
    const { result: refused } = await runAgent(payload("self_hosted", { task: "Hello", baseUrl: closed, egress: { allowHosts: ["gpu-box.creator-private.example.com"], resolve: { "gpu-box.creator-private.example.com": "127.0.0.1" } } }));
    expect(refused.status).toBe("failed");
    expectNothingOfEndpoint(refused.error?.message, closed);
    expect(refused.error?.message).not.toContain("gpu-box");
  });

  it("judges the address a name resolves to when connecting: a model endpoint and an http_fetch host on loopback are refused", async () => {
    const resolve = { "models.example.com": "127.0.0.1", "intranet.example.com": "127.0.0.1" };
    const before = models.requests().length;
    const { result } = await runAgent(payload("self_hosted", { task: "Hello", baseUrl: "https://models.example.com/v1", egress: { allowHosts: [], resolve } }));
    expectNothingOfEndpoint(result.error?.message, "https://models.example.com/v1");
    expect(result.error?.message).not.toContain("models.example.com");
    expect(models.requests().length).toBe(before);

    const task = 'Read [[tool:http_fetch {"url":"https://intranet.example.com/admin"}]]';
    const { result: fetched, output } = await runAgent(payload("provider_a", { task, tools: [{ name: "http_fetch", scope: "intranet.example.com" }], egress: { allowHosts: ["127.0.0.1"], resolve } }));
    expect(fetched.status).toBe("completed");
    expect(toolResults(output?.output as string)[0]?.value).toEqual({ error: "Egress refused: 127.0.0.1 (resolved from intranet.example.com) is a loopback address." });
  });

  it("refuses a redirect off http_fetch's host list, and caps a large body", async () => {
    const task = `Go [[tool:http_fetch {"url":"http://${API_HOST}:${toolPort}/leave"}]] [[tool:http_fetch {"url":"http://${API_HOST}:${toolPort}/big"}]]`;
    const { result, output } = await runAgent(payload("provider_a", { task, tools: [{ name: "http_fetch", scope: API_HOST }] }));
    expect(result.status).toBe("completed");
    const [leave, big] = toolResults(output?.output as string);
    expect(leave?.value).toEqual({ error: `the server redirected to a URL that is not allowed: elsewhere.example.net is not in this tool's scope (${API_HOST})` });
    expect(big?.value).toMatchObject({ status: 200, truncated: true });
    expect((big?.value as { body: string }).body.length).toBe(256 * 1024);
  });

  it("POSTs with http_fetch to a host in scope", async () => {
    const task = `Send [[tool:http_fetch {"url":"http://${API_HOST}:${toolPort}/echo","method":"POST","headers":{"content-type":"text/plain"},"body":"hello"}]]`;
    const before = toolRequests.length;
    const { result, output } = await runAgent(payload("provider_b", { task, tools: [{ name: "http_fetch", scope: `*.example.org,${API_HOST}` }] }));
    expect(result.status).toBe("completed");
    expect(toolResults(output?.output as string)[0]?.value).toMatchObject({ status: 201, body: "posted hello" });
    expect(toolRequests.slice(before)).toMatchObject([{ method: "POST", url: "/echo", body: "hello" }]);
  });
});

describe("tools", () => {
  it("searches the web through the configured provider, with its key in the header only", async () => {
    const search = { kind: "brave" as const, url: `http://${SEARCH_HOST}:${toolPort}/res/v1/web/search`, apiKey: SEARCH_KEY };
    const before = toolRequests.length;
    const { result, output } = await runAgent(payload("provider_a", { task: 'Find [[tool:web_search {"query":"agent rental","count":2}]]', tools: [{ name: "web_search", scope: "public" }], search }));
    expect(result.status).toBe("completed");
    expect(toolResults(output?.output as string)[0]?.value).toEqual({
      query: "agent rental",
      results: [
        { title: "Agent rental", url: "https://docs.example.org/rental", snippet: "Rent an agent & run tasks." },
        { title: "Second", url: "https://docs.example.org/second", snippet: "Another result" },
      ],
    });
    const [request] = toolRequests.slice(before);
    expect(request?.url).toBe("/res/v1/web/search?q=agent+rental&count=2");
    expect(request?.headers["x-subscription-token"]).toBe(SEARCH_KEY);
    expect(JSON.stringify(models.requests())).not.toContain(SEARCH_KEY);
  });

  it("refuses an agent with web_search when no search provider is configured", async () => {
    const { result } = await runAgent(payload("provider_a", { task: "Find", tools: [{ name: "web_search", scope: "public" }] }));
    expect(result.error).toEqual({ code: "entry_error", message: "the web_search tool is not available: the service has no search provider configured" });
  });

  it("refuses an agent with pdf_extract", async () => {
    const { result } = await runAgent(payload("provider_a", { task: "Read", tools: [{ name: "pdf_extract", scope: "input" }] }));
    expect(result.error).toEqual({ code: "entry_error", message: "the pdf_extract tool is not available in this runtime, so an agent that declares it cannot run" });
  });

  it("refuses a tool whose scope does not parse", async () => {
    const { result } = await runAgent(payload("provider_a", { task: "Fetch", tools: [{ name: "http_fetch", scope: "10.0.0.1" }] }));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/^the agent's tool http_fetch has a scope that does not parse: /);
  });

  it("stops a js_eval script at the scope's time limit and tells the model, and the run goes on", async () => {
    const task = '[[tool:js_eval {"code":"while (true) {}"}]] [[tool:js_eval {"code":"JSON.parse(\\"{\\")"}]] done';
    const { result, output } = await runAgent(payload("provider_a", { task, tools: [{ name: "js_eval", scope: "memory=16,timeout=100" }] }));
    expect(result.status).toBe("completed");
    const [loop, thrown] = toolResults(output?.output as string);
    expect(loop?.value).toEqual({ error: "the script ran longer than 100 ms and was stopped" });
    expect((thrown?.value as { error: string }).error).toMatch(/^the script threw SyntaxError: /);
  });

  it("fails an agent with js_eval in a sandbox that does not allow native addons", async () => {
    const p = payload("provider_a", { task: "Compute", tools: [{ name: "js_eval", scope: "default" }] });
    const result = await pool.run({ runId: p.runId, entry, payload: p, timeoutMs: 15_000, memoryMb: 128 });
    expect(result.error).toEqual({ code: "entry_error", message: "the js_eval tool needs a sandbox that allows native addons (isolated-vm could not be loaded)" });
  });

  it("offers no tools once the tool steps are spent, and fails a model that still gives no answer", async () => {
    const task = '[[tool:json_transform {"data":[1],"program":{"count":true}}]] [[tool:json_transform {"data":[1,2],"program":{"count":true}}]] end';
    const before = models.requests().length;
    const { result } = await runAgent(payload("provider_a", { task, tools: [{ name: "json_transform", scope: "default" }], maxSteps: 1 }));
    expect(result.error).toEqual({ code: "entry_error", message: "the model gave no answer within 1 tool step" });
    const requests = models.requests().slice(before);
    expect(requests).toHaveLength(2);
    expect((requests[0]?.body as { tools?: unknown[] }).tools).toHaveLength(1);
    expect((requests[1]?.body as { tools?: unknown[] }).tools ?? []).toHaveLength(0);
  });
});
