// The local model server against the real AI SDK clients (`ai` generateText/streamText with
// @ai-sdk/openai chat completions, @ai-sdk/anthropic messages and @ai-sdk/openai-compatible): the agent
// runtime's tests rely on it speaking the providers' wire protocols exactly, so these tests use the
// SDKs' own parsers, plus raw fetch checks of one stream per provider (event names and JSON shapes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { APICallError, generateText, isStepCount, Output, streamText, tool, type LanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { z } from "zod";
import { minimalInstance, parseDirectives, startModelServer, type ModelServer } from "../../local/model-server.ts";

const KEY = "sk-local-test-key-0123456789";
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer({ apiKey: KEY });
});
afterAll(async () => {
  await server?.stop();
});

interface ProviderCase {
  name: string;
  model: (apiKey?: string) => LanguageModel;
  path: string;
}

const providers: ProviderCase[] = [
  { name: "openai (chat completions)", path: "/v1/chat/completions", model: (apiKey = KEY) => createOpenAI({ baseURL: server.openaiBaseUrl, apiKey }).chat("gpt-4o-mini") },
  { name: "anthropic (messages)", path: "/v1/messages", model: (apiKey = KEY) => createAnthropic({ baseURL: server.anthropicBaseUrl, apiKey })("claude-sonnet-4-5") },
  {
    name: "openai-compatible (self_hosted)",
    path: "/v1/chat/completions",
    model: (apiKey = KEY) =>
      createOpenAICompatible({ name: "self-hosted", baseURL: server.openaiBaseUrl, apiKey, includeUsage: true, supportsStructuredOutputs: true })("local-model"),
  },
];

/** The requests recorded while `fn` ran. */
async function recording<T>(fn: () => Promise<T>): Promise<{ result: T; requests: ReturnType<ModelServer["requests"]> }> {
  const before = server.requests().length;
  const result = await fn();
  return { result, requests: server.requests().slice(before) };
}

describe.each(providers)("$name through the AI SDK", (p) => {
  it("answers a plain prompt with the deterministic echo and word-count usage", async () => {
    const { result, requests } = await recording(() =>
      generateText({ model: p.model(), system: "You are terse.", prompt: "Hello there, model", maxRetries: 0 }),
    );
    expect(result.text).toBe("Echo: Hello there, model");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.outputTokens).toBe(4);
    expect(result.usage.inputTokens).toBe(6); // "You are terse." + "Hello there, model"
    expect(requests).toHaveLength(1);
    expect(requests[0]?.path).toBe(p.path);
  });

  it("streams the text in several ordered deltas that join to the full answer", async () => {
    const prompt = "one two three four five six";
    const result = streamText({ model: p.model(), prompt, maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.join("")).toBe(`Echo: ${prompt}`);
    expect(await result.text).toBe(`Echo: ${prompt}`);
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).outputTokens).toBe(7);
  });

  it("calls a tool with the directive's arguments, then answers with the tool result", async () => {
    const calls: unknown[] = [];
    const weather = tool({
      description: "Weather for a city",
      inputSchema: z.object({ city: z.string(), days: z.number().int() }),
      execute: async (input) => {
        calls.push(input);
        return { city: input.city, forecast: "sunny" };
      },
    });
    const { result, requests } = await recording(() =>
      generateText({
        model: p.model(),
        prompt: 'What is the weather? [[tool:weather {"city":"Paris","days":2}]]',
        tools: { weather },
        stopWhen: isStepCount(3),
        maxRetries: 0,
      }),
    );
    expect(calls).toEqual([{ city: "Paris", days: 2 }]);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.finishReason).toBe("tool-calls");
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ toolName: "weather", input: { city: "Paris", days: 2 } });
    expect(result.text).toBe('Echo: What is the weather?\nTool weather returned: {"city":"Paris","forecast":"sunny"}');
    expect(requests).toHaveLength(2);
  });

  it("streams a tool call round trip with two tools in sequence", async () => {
    const add = tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b });
    const shout = tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text.toUpperCase() });
    const result = streamText({
      model: p.model(),
      prompt: 'Compute [[tool:add {"a":2,"b":3}]] and [[tool:shout {"text":"done"}]] please',
      tools: { add, shout },
      stopWhen: isStepCount(5),
      maxRetries: 0,
    });
    const inputs: unknown[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "tool-call") inputs.push([part.toolName, part.input]);
    }
    expect(inputs).toEqual([
      ["add", { a: 2, b: 3 }],
      ["shout", { text: "done" }],
    ]);
    expect(await result.text).toBe('Echo: Compute and please\nTool add returned: 5\nTool shout returned: DONE');
    expect((await result.steps).length).toBe(3);
  });

  it("produces structured output matching a zod schema", async () => {
    const schema = z.object({
      title: z.string(),
      count: z.number().int(),
      done: z.boolean(),
      tags: z.array(z.string()),
      kind: z.enum(["report", "memo"]),
      note: z.string().optional(),
    });
    const { result, requests } = await recording(() =>
      generateText({ model: p.model(), prompt: "Summarise", output: Output.object({ schema }), maxRetries: 0 }),
    );
    expect(schema.parse(result.output)).toEqual({ title: "example", count: 0, done: false, tags: ["example"], kind: "report" });
    const body = requests[0]?.body as Record<string, unknown>;
    if (p.path === "/v1/messages") expect(body.output_config ?? body.tools).toBeDefined();
    else expect(body.response_format).toMatchObject({ type: "json_schema" });
  });

  it("streams structured output", async () => {
    const schema = z.object({ name: z.string(), score: z.number() });
    const result = streamText({ model: p.model(), prompt: "Rate it", output: Output.object({ schema }), maxRetries: 0 });
    await result.consumeStream();
    expect(await result.output).toEqual({ name: "example", score: 0 });
  });

  it.each([429, 500])("surfaces a %i provider error as an APICallError with the status", async (status) => {
    const error = await generateText({ model: p.model(), prompt: `fail [[error:${status}]]`, maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(status);
    expect((error as APICallError).isRetryable).toBe(true);
  });

  it("refuses a wrong API key with a 401", async () => {
    const error = await generateText({ model: p.model("sk-wrong-key-000000"), prompt: "hi", maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(401);
    expect((error as APICallError).isRetryable).toBe(false);
  });

  it("reports a stream cut mid-way as an API call error from the stream, after some text", async () => {
    // AI SDK 7 rejects the stream (and `text`) with an APICallError whose cause is the transport's
    // "terminated"; the text that arrived before the cut has already been delivered.
    const result = streamText({ model: p.model(), prompt: "a b c d e f g h [[stream-cut]]", maxRetries: 0 });
    let text = "";
    let thrown: unknown;
    try {
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") text += part.text;
        if (part.type === "error") throw part.error;
      }
    } catch (error) {
      thrown = error;
    }
    expect(APICallError.isInstance(thrown)).toBe(true);
    expect(String((thrown as APICallError).cause)).toMatch(/terminated/);
    await expect(result.text).rejects.toThrow();
    expect(text.length).toBeGreaterThan(0);
    expect("Echo: a b c d e f g h".startsWith(text)).toBe(true);
    expect(text).not.toBe("Echo: a b c d e f g h");
  });

  it("delays each streamed chunk with [[slow:MS]]", async () => {
    const started = Date.now();
    const result = streamText({ model: p.model(), prompt: "x y z [[slow:40]]", maxRetries: 0 });
    const stamps: number[] = [];
    for await (const _ of result.textStream) stamps.push(Date.now() - started);
    expect(stamps.length).toBeGreaterThanOrEqual(3);
    expect(stamps.at(-1)! - stamps[0]!).toBeGreaterThanOrEqual(70);
  });
});

describe("recorded requests", () => {
  it("carry each provider's auth and version headers", async () => {
    const { requests } = await recording(async () => {
      for (const p of providers) await generateText({ model: p.model(), prompt: "headers", maxRetries: 0 });
    });
    expect(requests.map((r) => r.provider)).toEqual(["openai", "anthropic", "openai"]);
    const [openai, anthropic, compatible] = requests;
    expect(openai?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(anthropic?.headers["x-api-key"]).toBe(KEY);
    expect(anthropic?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(anthropic?.headers.authorization).toBeUndefined();
    expect(compatible?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(openai?.body).toMatchObject({ model: "gpt-4o-mini", messages: [{ role: "user", content: "headers" }] });
    expect(anthropic?.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: expect.any(Number) });
  });

  it("Anthropic's forced json tool (models without native structured output) is answered as that tool", async () => {
    const model = createAnthropic({ baseURL: server.anthropicBaseUrl, apiKey: KEY })("claude-3-haiku-20240307");
    const schema = z.object({ answer: z.string(), confidence: z.number().min(0.5).max(1) });
    const { result, requests } = await recording(() => generateText({ model, prompt: "Decide", output: Output.object({ schema }), maxRetries: 0 }));
    expect(result.output).toEqual({ answer: "example", confidence: 0.5 });
    const body = requests[0]?.body as { tools?: { name: string }[]; tool_choice?: unknown };
    expect(body.tools?.map((t) => t.name)).toContain("json");
    expect(body.tool_choice).toMatchObject({ type: "any" });
  });

  it("a [[json ...]] directive answers with that exact JSON (for schema-mismatch tests)", async () => {
    const model = createOpenAI({ baseURL: server.openaiBaseUrl, apiKey: KEY }).chat("gpt-4o-mini");
    const error = await generateText({
      model, prompt: 'x [[json {"wrong": true}]]', output: Output.object({ schema: z.object({ right: z.string() }) }), maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toMatch(/NoObjectGenerated/);
  });
});

describe("raw wire format", () => {
  async function sseEvents(path: string, headers: Record<string, string>, body: unknown) {
    const res = await fetch(server.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    return text
      .split("\n\n")
      .filter((block) => block.trim().length > 0)
      .map((block) => {
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1] ?? "";
        return { event, data };
      });
  }

  it("OpenAI chat completions stream: chat.completion.chunk objects, tool_calls deltas, usage, [DONE]", async () => {
    const events = await sseEvents(
      "/v1/chat/completions",
      { authorization: `Bearer ${KEY}` },
      { model: "gpt-4o", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: 'go [[tool:lookup {"q":"x y"}]]' }] },
    );
    expect(events.every((e) => e.event === undefined)).toBe(true);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    for (const c of chunks) expect(c).toMatchObject({ id: chunks[0].id, object: "chat.completion.chunk", model: "gpt-4o", created: expect.any(Number) });
    expect(chunks[0].choices[0]).toMatchObject({ index: 0, delta: { role: "assistant" }, finish_reason: null });
    const toolDeltas = chunks.flatMap((c) => c.choices.flatMap((ch: { delta: { tool_calls?: unknown[] } }) => ch.delta.tool_calls ?? []));
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: "function", function: { name: "lookup", arguments: "" } });
    expect(toolDeltas.slice(1).every((d: { index: number; id?: string }) => d.index === 0 && d.id === undefined)).toBe(true);
    expect(JSON.parse(toolDeltas.map((d: { function: { arguments: string } }) => d.function.arguments).join(""))).toEqual({ q: "x y" });
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    // words: go, [[tool:lookup, {"q":"x, y"}]]; the arguments {"q":"x y"} are two words
    expect(last.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  });

  it("Anthropic messages stream: named events, text_delta and input_json_delta blocks, message_delta usage", async () => {
    const headers = { "x-api-key": KEY, "anthropic-version": "2023-06-01" };
    const text = await sseEvents("/v1/messages", headers, { model: "claude-x", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hello wire" }] });
    expect(text.map((e) => e.event)).toEqual([
      "message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta",
      "content_block_stop", "message_delta", "message_stop",
    ]);
    for (const e of text) expect(JSON.parse(e.data).type).toBe(e.event);
    const data = text.map((e) => JSON.parse(e.data));
    expect(data[0].message).toMatchObject({ id: expect.stringMatching(/^msg_/), type: "message", role: "assistant", model: "claude-x", content: [], stop_reason: null, usage: { input_tokens: 2 } });
    expect(data[2]).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(data.slice(3, 6).map((d) => d.delta.text).join("")).toBe("Echo: hello wire");
    expect(data[3].delta.type).toBe("text_delta");
    expect(data[7]).toEqual({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } });

    const tools = await sseEvents("/v1/messages", headers, {
      model: "claude-x", max_tokens: 100, stream: true, tools: [{ name: "lookup", input_schema: { type: "object" } }],
      messages: [{ role: "user", content: [{ type: "text", text: 'go [[tool:lookup {"q":"x"}]]' }] }],
    });
    const tdata = tools.map((e) => JSON.parse(e.data));
    const start = tdata.find((d) => d.type === "content_block_start");
    expect(start.content_block).toMatchObject({ type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "lookup", input: {} });
    const partial = tdata.filter((d) => d.type === "content_block_delta").map((d) => { expect(d.delta.type).toBe("input_json_delta"); return d.delta.partial_json; });
    expect(JSON.parse(partial.join(""))).toEqual({ q: "x" });
    expect(tdata.find((d) => d.type === "message_delta").delta.stop_reason).toBe("tool_use");
  });

  it("error bodies have each provider's shape", async () => {
    const openai = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
      method: "POST", headers: { authorization: "Bearer nope-nope-nope" }, body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(openai.status).toBe(401);
    expect(((await openai.json()) as { error: unknown }).error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key", param: null, message: expect.stringContaining("Incorrect API key") });

    const anthropic = await fetch(`${server.anthropicBaseUrl}/messages`, {
      method: "POST", headers: { "x-api-key": KEY, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "[[error:429]]" }] }),
    });
    expect(anthropic.status).toBe(429);
    expect(await anthropic.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: expect.any(String) } });

    const noVersion = await fetch(`${server.anthropicBaseUrl}/messages`, {
      method: "POST", headers: { "x-api-key": KEY }, body: JSON.stringify({ model: "m", max_tokens: 5, messages: [] }),
    });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });
});

describe("directive grammar and schema instances", () => {
  it("parses directives and leaves malformed ones as text", () => {
    const d = parseDirectives('Hi [[tool:a.b {"x":[[1]],"s":"]]"}]] there [[slow:5]][[error:429]] [[stream-cut]] [[tool:bad {oops]] [[nope]]');
    expect(d.tools).toEqual([{ name: "a.b", args: { x: [[1]], s: "]]" } }]);
    expect(d).toMatchObject({ slowMs: 5, error: 429, streamCut: true });
    expect(d.clean).toBe("Hi there [[tool:bad {oops]] [[nope]]");
  });

  it("builds minimal instances", () => {
    expect(minimalInstance({ type: "object", properties: { a: { $ref: "#/$defs/A" }, b: { type: "string" } }, required: ["a"], $defs: { A: { anyOf: [{ type: "null" }, { type: "integer", exclusiveMinimum: 4 }] } } })).toEqual({ a: 5 });
    expect(minimalInstance({ type: "array", items: { type: "string", format: "email" }, minItems: 2 })).toEqual(["user@example.com", "user@example.com"]);
    expect(minimalInstance({ type: ["null", "boolean"] })).toBe(false);
    expect(minimalInstance({ const: "x" })).toBe("x");
  });
});

describe("server lifecycle", () => {
  it("without an apiKey accepts keyless self_hosted calls, and stop() ends a stream still in flight", async () => {
    const open = await startModelServer();
    const model = createOpenAICompatible({ name: "keyless", baseURL: open.openaiBaseUrl })("m");
    expect((await generateText({ model, prompt: "no key", maxRetries: 0 })).text).toBe("Echo: no key");
    expect(open.requests()[0]?.headers.authorization).toBeUndefined();

    const result = streamText({ model, prompt: "a b c d e f [[slow:1000]]", maxRetries: 0 });
    const iterator = result.textStream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe("Echo: ");
    const started = Date.now();
    await open.stop();
    await expect((async () => { while (!(await iterator.next()).done); })()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("non-streaming [[slow:MS]] delays the answer and [[stream-cut]] drops the connection", async () => {
    const model = createOpenAI({ baseURL: server.openaiBaseUrl, apiKey: KEY }).chat("gpt-4o-mini");
    const started = Date.now();
    expect((await generateText({ model, prompt: "wait [[slow:150]]", maxRetries: 0 })).text).toBe("Echo: wait");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const error = await generateText({ model, prompt: "[[stream-cut]]", maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
  });

  it("model-server-main runs standalone on PORT and exits on SIGTERM", async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
    const child = spawn(process.execPath, ["--import", "tsx", "local/model-server-main.ts"], {
      cwd: root, env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const model = createAnthropic({ baseURL: `${url}/v1`, apiKey: "any" })("claude-sonnet-4-5");
      expect((await generateText({ model, prompt: "standalone", maxRetries: 0 })).text).toBe("Echo: standalone");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
