// A small deterministic model server that speaks the providers' real wire protocols: OpenAI chat
// completions (`POST /v1/chat/completions`, which also stands in for `self_hosted` OpenAI-compatible
// endpoints) and Anthropic messages (`POST /v1/messages`), JSON and SSE streaming, tool calls, structured
// output, usage and each provider's error bodies. The local stack runs it instead of a paid model, and
// tests drive the real AI SDK clients against it, so the code path from the agent runtime down to the
// HTTP bytes is the one used in production; only the "model" is fake, and it is a pure function of the
// conversation so tests can assert exact answers.
//
// Behaviour (a fixed function of the request):
// - The prompt is the text of the last user message that has text (Anthropic tool results travel in
//   user messages; those do not count). Directives (below) are removed from it; what remains, with
//   whitespace collapsed, is the clean prompt.
// - Tool calls: each `[[tool:NAME {json args}]]` directive in the prompt is one model turn. The model
//   calls the directive tools in order, one per turn; the number of tool results after the prompt
//   message says which is next. Args default to `{}`. The tool need not be among the request's tools
//   (that is how a test provokes an unknown-tool error). When no directive is pending and the request
//   forces a tool (OpenAI `tool_choice` "required" or `{function:{name}}`, Anthropic `tool_choice`
//   `{type:"any"}` / `{type:"tool",name}`), the model calls the forced tool (`json` when offered, else
//   the named or first tool) with a minimal instance of its input schema.
// - Text answer: `Echo: <clean prompt>`, then one line `Tool NAME returned: <result>` per tool result
//   after the prompt message.
// - Structured output replaces the text answer with a minimal valid instance of the requested JSON
//   schema (strings "example" or a value of their format, numbers the lower bound or 0, booleans false,
//   arrays `max(1, minItems)` items, required properties only, enums/const their first value, anyOf/oneOf
//   the first branch, local `$ref`s followed): OpenAI `response_format: {type:"json_schema"}`, Anthropic
//   `output_config.format` / `output_format` `{type:"json_schema"}` (as text), and the AI SDK's Anthropic
//   fallback, a forced tool named `json` (as that tool's input). `response_format: {type:"json_object"}`
//   without a schema answers `{}`. `[[json {...}]]` makes the answer exactly that JSON (e.g. to produce
//   output that does not match a schema).
// - `[[error:STATUS]]` answers with that provider's real error body and status (429 and 529 with
//   `retry-after: 0`, so SDK retries do not sleep); `[[slow:MS]]` delays the answer by MS, and when
//   streaming sleeps MS between chunks; `[[stream-cut]]` sends about half of a streamed answer and then
//   destroys the socket (a non-streaming request gets its socket destroyed with no answer).
// - Streaming splits text at word boundaries (one chunk per word) and tool arguments into three pieces.
// - Usage counts whitespace-separated words: input = all text of the request (system, messages, tool
//   calls' arguments, tool results), output = the answer text or the tool arguments' JSON.
// - Auth: with `apiKey` set, OpenAI requires `Authorization: Bearer <apiKey>` and Anthropic `x-api-key:
//   <apiKey>` (or `Authorization: Bearer` for `authToken` clients), else each provider's 401 body.
//   Without it any key, or none, is accepted. Anthropic always requires `anthropic-version`.
//
// Written on node:http rather than Hono: destroying the socket mid-stream and flushing each SSE chunk as
// it is written are the point of the fault directives, and the raw server keeps them exact.
import http from "node:http";
import { createHash } from "node:crypto";
import type { AddressInfo, Socket } from "node:net";

/** One request as the server received it (for tests: headers are lower-cased by Node). */
export interface RecordedRequest {
  provider: "openai" | "anthropic" | "other";
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  receivedAt: number;
}

/** Options of {@link startModelServer}. */
export interface ModelServerOptions {
  /** Port to listen on; 0 or omitted picks a free one. */
  port?: number;
  /** Interface to bind; loopback by default so the local stack is never reachable from elsewhere. */
  host?: string;
  /** When set, requests must carry this key (each provider's header), else they get a 401. */
  apiKey?: string;
  /** How many of the latest requests `requests()` keeps (default 500): a long-running stack must not
   * grow with every request it serves. */
  keepRequests?: number;
}

/** The default window of recorded requests. */
export const DEFAULT_KEPT_REQUESTS = 500;

/** A running model server. */
export interface ModelServer {
  /** `http://<host>:<port>` */
  url: string;
  /** Base URL for OpenAI chat-completions clients (`createOpenAI`, `createOpenAICompatible`). */
  openaiBaseUrl: string;
  /** Base URL for Anthropic messages clients (`createAnthropic`). */
  anthropicBaseUrl: string;
  /** A copy of the latest requests received (at most `keepRequests`), oldest first. */
  requests(): RecordedRequest[];
  /** Forgets the recorded requests. */
  clearRequests(): void;
  /** Closes the server and every open connection. */
  stop(): Promise<void>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** What the directive parser found in a prompt. */
export interface Directives {
  tools: { name: string; args: Json }[];
  error?: number;
  slowMs?: number;
  streamCut: boolean;
  json?: Json;
  /** The prompt without directives, whitespace collapsed. */
  clean: string;
}

/** One tool call the model makes. */
interface ToolCall {
  id: string;
  name: string;
  args: Json;
}

/** The model's decision for one request, provider-neutral. */
interface Turn {
  directives: Directives;
  text?: string;
  toolCall?: ToolCall;
  inputTokens: number;
  outputTokens: number;
}

/** Counts whitespace-separated words: the server's notion of a token. */
export function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Starts the server; resolves once it listens. */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const host = options.host ?? "127.0.0.1";
  const recorded: RecordedRequest[] = [];
  const keep = Math.max(0, options.keepRequests ?? DEFAULT_KEPT_REQUESTS);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}${(++counter).toString(36).padStart(8, "0")}${createHash("sha256").update(`${process.pid}:${counter}`).digest("hex").slice(0, 16)}`;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, { error: { message: `model server failure: ${String(error)}`, type: "server_error", param: null, code: null } });
      } else {
        res.destroy();
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const provider = path.endsWith("/chat/completions") || path.endsWith("/models") ? "openai" : path.endsWith("/messages") ? "anthropic" : "other";
    let body: unknown = raw;
    let parsed = true;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      parsed = false;
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(", ") : value;
    }
    recorded.push({ provider, method: req.method ?? "GET", path, headers, body, receivedAt: Date.now() });
    while (recorded.length > keep) recorded.shift(); // the oldest go first

    if (provider === "openai") {
      if (!openaiAuthorized(headers, options.apiKey)) return sendJson(res, 401, openaiAuthError(headers));
      if (req.method === "GET" && path.endsWith("/models")) {
        return sendJson(res, 200, { object: "list", data: [{ id: "local-model", object: "model", created: 0, owned_by: "local" }] });
      }
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) return sendJson(res, 404, openaiError(404, `Invalid URL (${req.method} ${path})`));
      if (!parsed || !isObject(body)) return sendJson(res, 400, openaiError(400, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON."));
      if (typeof body.model !== "string") return sendJson(res, 400, openaiError(400, "you must provide a model parameter"));
      if (!Array.isArray(body.messages)) return sendJson(res, 400, openaiError(400, "Missing required parameter: 'messages'."));
      return openaiChat(body, res);
    }
    if (provider === "anthropic") {
      if (req.method !== "POST") return sendJson(res, 405, anthropicError(405, "Method not allowed"));
      if (!anthropicAuthorized(headers, options.apiKey)) {
        return sendJson(res, 401, anthropicError(401, headers["x-api-key"] || headers.authorization ? "invalid x-api-key" : "x-api-key header is required"));
      }
      if (!headers["anthropic-version"]) return sendJson(res, 400, anthropicError(400, "anthropic-version: header is required"));
      if (!parsed || !isObject(body)) return sendJson(res, 400, anthropicError(400, "There was an error parsing the body of your request."));
      if (typeof body.model !== "string") return sendJson(res, 400, anthropicError(400, "model: Field required"));
      if (typeof body.max_tokens !== "number") return sendJson(res, 400, anthropicError(400, "max_tokens: Field required"));
      if (!Array.isArray(body.messages)) return sendJson(res, 400, anthropicError(400, "messages: Field required"));
      return anthropicMessages(body, res);
    }
    sendJson(res, 404, { error: { message: `Not found: ${req.method} ${path}`, type: "invalid_request_error", param: null, code: "not_found" } });
  }

  // ---- OpenAI chat completions -------------------------------------------------------------------

  async function openaiChat(body: JsonObject, res: http.ServerResponse): Promise<void> {
    const messages = (body.messages as Json[]).filter(isObject);
    const conv = openaiConversation(messages);
    const tools = (Array.isArray(body.tools) ? body.tools : []).filter(isObject).flatMap((t) => {
      const fn = t.function;
      return isObject(fn) && typeof fn.name === "string" ? [{ name: fn.name, schema: fn.parameters ?? {} }] : [];
    });
    const choice = body.tool_choice;
    let forced: string | undefined;
    if (choice === "required") forced = "*";
    else if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === "string") forced = choice.function.name;
    const format = isObject(body.response_format) ? body.response_format : undefined;
    let schema: Json | undefined;
    let jsonObject = false;
    if (format?.type === "json_schema" && isObject(format.json_schema)) schema = format.json_schema.schema ?? {};
    else if (format?.type === "json_object") jsonObject = true;

    const turn = decide(conv, { tools, forced, schema, jsonObject, jsonTool: false, idPrefix: "call_" });
    const d = turn.directives;
    if (d.error !== undefined) {
      if (d.slowMs) await sleep(d.slowMs);
      return sendJson(res, d.error, openaiError(d.error), retryHeaders(d.error));
    }
    const id = nextId("chatcmpl-");
    const created = Math.floor(Date.now() / 1000);
    const model = body.model as string;
    const usage = { prompt_tokens: turn.inputTokens, completion_tokens: turn.outputTokens, total_tokens: turn.inputTokens + turn.outputTokens };
    const finish = turn.toolCall ? "tool_calls" : "stop";

    if (body.stream !== true) {
      if (d.slowMs) await sleep(d.slowMs);
      if (d.streamCut) return void res.socket?.destroy();
      const message: JsonObject = { role: "assistant", content: turn.text ?? null, refusal: null, annotations: [] };
      if (turn.toolCall) {
        message.tool_calls = [{ id: turn.toolCall.id, type: "function", function: { name: turn.toolCall.name, arguments: JSON.stringify(turn.toolCall.args) } }];
      }
      return sendJson(res, 200, {
        id, object: "chat.completion", created, model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage, service_tier: "default", system_fingerprint: null,
      });
    }

    const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
    const chunk = (delta: JsonObject, finishReason: string | null): JsonObject => ({
      id, object: "chat.completion.chunk", created, model, service_tier: "default", system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    });
    const events: string[] = [];
    events.push(sse(chunk({ role: "assistant", content: "", refusal: null }, null)));
    if (turn.toolCall) {
      const { id: callId, name, args } = turn.toolCall;
      events.push(sse(chunk({ tool_calls: [{ index: 0, id: callId, type: "function", function: { name, arguments: "" } }] }, null)));
      for (const piece of splitArgs(JSON.stringify(args))) {
        events.push(sse(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null)));
      }
    } else {
      for (const piece of splitWords(turn.text ?? "")) events.push(sse(chunk({ content: piece }, null)));
    }
    events.push(sse(chunk({}, finish)));
    if (includeUsage) {
      events.push(sse({ id, object: "chat.completion.chunk", created, model, service_tier: "default", system_fingerprint: null, choices: [], usage }));
    }
    events.push("data: [DONE]\n\n");
    return streamEvents(res, events, d);
  }

  // ---- Anthropic messages -------------------------------------------------------------------------

  async function anthropicMessages(body: JsonObject, res: http.ServerResponse): Promise<void> {
    const conv = anthropicConversation(body);
    const tools = (Array.isArray(body.tools) ? body.tools : []).filter(isObject).flatMap((t) =>
      typeof t.name === "string" ? [{ name: t.name, schema: t.input_schema ?? {} }] : [],
    );
    const choice = isObject(body.tool_choice) ? body.tool_choice : undefined;
    let forced: string | undefined;
    if (choice?.type === "any") forced = "*";
    else if (choice?.type === "tool" && typeof choice.name === "string") forced = choice.name;
    let schema: Json | undefined;
    const outputConfig = isObject(body.output_config) ? body.output_config : undefined;
    const format = isObject(outputConfig?.format) ? outputConfig.format : isObject(body.output_format) ? body.output_format : undefined;
    if (format?.type === "json_schema") schema = format.schema ?? {};

    const turn = decide(conv, { tools, forced, schema, jsonObject: false, jsonTool: true, idPrefix: "toolu_" });
    const d = turn.directives;
    if (d.error !== undefined) {
      if (d.slowMs) await sleep(d.slowMs);
      return sendJson(res, d.error, anthropicError(d.error), { ...retryHeaders(d.error), "request-id": nextId("req_") });
    }
    const id = nextId("msg_");
    const model = body.model as string;
    const stopReason = turn.toolCall ? "tool_use" : "end_turn";
    const baseUsage = { input_tokens: turn.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

    if (body.stream !== true) {
      if (d.slowMs) await sleep(d.slowMs);
      if (d.streamCut) return void res.socket?.destroy();
      const content: Json[] = [];
      if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
      if (turn.toolCall) content.push({ type: "tool_use", id: turn.toolCall.id, name: turn.toolCall.name, input: turn.toolCall.args });
      return sendJson(res, 200, {
        id, type: "message", role: "assistant", model, content,
        stop_reason: stopReason, stop_sequence: null,
        usage: { ...baseUsage, output_tokens: turn.outputTokens, service_tier: "standard" },
      }, { "request-id": nextId("req_") });
    }

    const events: string[] = [];
    const event = (type: string, data: JsonObject) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    events.push(event("message_start", {
      message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...baseUsage, output_tokens: 1, service_tier: "standard" } },
    }));
    events.push(event("ping", {}));
    if (turn.toolCall) {
      const { id: callId, name, args } = turn.toolCall;
      events.push(event("content_block_start", { index: 0, content_block: { type: "tool_use", id: callId, name, input: {} } }));
      for (const piece of splitArgs(JSON.stringify(args))) {
        events.push(event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: piece } }));
      }
    } else {
      events.push(event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
      for (const piece of splitWords(turn.text ?? "")) {
        events.push(event("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }));
      }
    }
    events.push(event("content_block_stop", { index: 0 }));
    events.push(event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: turn.outputTokens } }));
    events.push(event("message_stop", {}));
    return streamEvents(res, events, d, { "request-id": nextId("req_") });
  }

  // ---- shared ---------------------------------------------------------------------------------------

  async function streamEvents(res: http.ServerResponse, events: string[], d: Directives, extra: Record<string, string> = {}): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...extra });
    res.flushHeaders();
    // A cut stream keeps the opening events and about half of the content, then drops the connection.
    const cutAt = d.streamCut ? Math.max(2, Math.floor(events.length / 2)) : Infinity;
    for (let i = 0; i < events.length; i++) {
      if (res.destroyed) return;
      if (i >= cutAt) {
        res.socket?.destroy();
        return;
      }
      if (i > 0 && d.slowMs) await sleep(d.slowMs);
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(events[i], () => resolve()));
    }
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: `${url}/v1`,
    requests: () => recorded.map((r) => ({ ...r, headers: { ...r.headers } })),
    clearRequests: () => void recorded.splice(0),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- the deterministic "model" ------------------------------------------------------------------

/** A conversation reduced to what the model looks at. */
interface Conversation {
  prompt: string;
  /** Tool results after the prompt message, in order. */
  results: { name: string; content: string }[];
  /** Every piece of text in the request, for input token counts. */
  allText: string[];
}

interface DecideOptions {
  tools: { name: string; schema: Json }[];
  /** "*" for any tool, a name for that tool. */
  forced: string | undefined;
  schema: Json | undefined;
  jsonObject: boolean;
  /** Anthropic: offer structured output through a forced tool named `json`. */
  jsonTool: boolean;
  idPrefix: string;
}

function decide(conv: Conversation, o: DecideOptions): Turn {
  const directives = parseDirectives(conv.prompt);
  const inputTokens = conv.allText.reduce((n, t) => n + countTokens(t), 0);
  const callId = (step: number, name: string) =>
    o.idPrefix + createHash("sha256").update(`${conv.prompt}\u0000${step}\u0000${name}`).digest("base64url").replace(/[-_]/g, "x").slice(0, 24);
  const done = conv.results.length;
  const pending = directives.tools[done];
  if (pending) {
    return finishTurn(directives, inputTokens, { toolCall: { id: callId(done, pending.name), name: pending.name, args: pending.args } });
  }
  if (o.forced !== undefined && o.tools.length > 0) {
    const tool =
      o.forced === "*" ? (o.tools.find((t) => t.name === "json") ?? o.tools[0]) : o.tools.find((t) => t.name === o.forced);
    if (tool) {
      const args = tool.name === "json" && directives.json !== undefined ? directives.json : minimalInstance(tool.schema);
      return finishTurn(directives, inputTokens, { toolCall: { id: callId(done, tool.name), name: tool.name, args } });
    }
  }
  let text: string;
  if (directives.json !== undefined) text = JSON.stringify(directives.json);
  else if (o.schema !== undefined) text = JSON.stringify(minimalInstance(o.schema));
  else if (o.jsonObject) text = "{}";
  else {
    text = `Echo: ${directives.clean}`;
    for (const r of conv.results) text += `\nTool ${r.name} returned: ${r.content}`;
  }
  return finishTurn(directives, inputTokens, { text });
}

function finishTurn(directives: Directives, inputTokens: number, out: { text?: string; toolCall?: ToolCall }): Turn {
  const outputText = out.toolCall ? JSON.stringify(out.toolCall.args) : (out.text ?? "");
  return { directives, ...out, inputTokens, outputTokens: Math.max(1, countTokens(outputText)) };
}

function textOf(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter(isObject)
      .map((p) => (typeof p.text === "string" ? p.text : p.type === "tool_result" ? textOf(p.content) : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

function openaiConversation(messages: JsonObject[]): Conversation {
  const allText: string[] = [];
  const names = new Map<string, string>();
  let promptIndex = -1;
  messages.forEach((m, i) => {
    allText.push(textOf(m.content));
    if (m.role === "user" && textOf(m.content).length > 0) promptIndex = i;
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObject) : []) {
      if (isObject(call.function)) {
        if (typeof call.id === "string" && typeof call.function.name === "string") names.set(call.id, call.function.name);
        if (typeof call.function.arguments === "string") allText.push(call.function.arguments);
      }
    }
  });
  const prompt = promptIndex >= 0 ? textOf(messages[promptIndex]?.content) : "";
  const results = messages
    .slice(promptIndex + 1)
    .filter((m) => m.role === "tool")
    .map((m) => ({ name: (typeof m.tool_call_id === "string" && names.get(m.tool_call_id)) || "tool", content: textOf(m.content) }));
  return { prompt, results, allText };
}

function anthropicConversation(body: JsonObject): Conversation {
  const messages = (body.messages as Json[]).filter(isObject);
  const allText: string[] = [textOf(body.system)];
  const names = new Map<string, string>();
  let promptIndex = -1;
  let prompt = "";
  messages.forEach((m, i) => {
    allText.push(textOf(m.content));
    const parts = Array.isArray(m.content) ? m.content.filter(isObject) : [];
    for (const p of parts) {
      if (p.type === "tool_use" && typeof p.id === "string" && typeof p.name === "string") {
        names.set(p.id, p.name);
        allText.push(JSON.stringify(p.input ?? {}));
      }
    }
    if (m.role !== "user") return;
    const text = typeof m.content === "string" ? m.content : parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
    if (text.length > 0) {
      promptIndex = i;
      prompt = text;
    }
  });
  const results: Conversation["results"] = [];
  for (const m of messages.slice(promptIndex + 1)) {
    if (m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const p of m.content.filter(isObject)) {
      if (p.type === "tool_result") {
        results.push({ name: (typeof p.tool_use_id === "string" && names.get(p.tool_use_id)) || "tool", content: textOf(p.content) });
      }
    }
  }
  return { prompt, results, allText };
}

/**
 * Parses the test-control directives of a prompt: `[[tool:NAME {json}]]`, `[[error:STATUS]]`,
 * `[[slow:MS]]`, `[[stream-cut]]`, `[[json {json}]]`. Anything that does not parse stays text.
 */
export function parseDirectives(prompt: string): Directives {
  const out: Directives = { tools: [], streamCut: false, clean: "" };
  let clean = "";
  let i = 0;
  while (i < prompt.length) {
    const start = prompt.indexOf("[[", i);
    if (start < 0) {
      clean += prompt.slice(i);
      break;
    }
    clean += prompt.slice(i, start);
    const end = parseOne(prompt, start, out);
    if (end < 0) {
      clean += "[[";
      i = start + 2;
    } else {
      clean += " ";
      i = end;
    }
  }
  out.clean = clean.replace(/\s+/g, " ").trim();
  return out;
}

/** Parses one directive at `start`; returns the index after it, or -1 (nothing recorded). */
function parseOne(s: string, start: number, out: Directives): number {
  const head = /^\[\[(tool|error|slow|stream-cut|json)(?::([A-Za-z0-9_.\-]+))?/.exec(s.slice(start));
  if (!head) return -1;
  const kind = head[1];
  const arg = head[2];
  let i = start + head[0].length;
  let value: Json | undefined;
  const ws = /^\s*/.exec(s.slice(i));
  const afterWs = i + (ws?.[0].length ?? 0);
  if ((kind === "tool" || kind === "json") && (s[afterWs] === "{" || s[afterWs] === "[")) {
    const jsonEnd = scanJson(s, afterWs);
    if (jsonEnd < 0) return -1;
    try {
      value = JSON.parse(s.slice(afterWs, jsonEnd)) as Json;
    } catch {
      return -1;
    }
    i = jsonEnd;
  }
  const close = /^\s*\]\]/.exec(s.slice(i));
  if (!close) return -1;
  const end = i + close[0].length;
  switch (kind) {
    case "tool":
      if (!arg) return -1;
      out.tools.push({ name: arg, args: value ?? {} });
      return end;
    case "json":
      if (value === undefined) return -1;
      out.json = value;
      return end;
    case "error": {
      const status = Number(arg);
      if (!Number.isInteger(status) || status < 400 || status > 599) return -1;
      out.error = status;
      return end;
    }
    case "slow": {
      const ms = Number(arg);
      if (!Number.isFinite(ms) || ms < 0) return -1;
      out.slowMs = ms;
      return end;
    }
    case "stream-cut":
      if (arg) return -1;
      out.streamCut = true;
      return end;
    default:
      return -1;
  }
}

/** Index after the balanced JSON object/array starting at `start`, or -1. */
function scanJson(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * A minimal valid instance of a JSON schema: required properties only, strings "example" (or a value of
 * their `format`), numbers their lower bound or 0, booleans false, arrays `max(1, minItems)` items,
 * enum/const their first value, anyOf/oneOf the first branch, allOf merged, local `$ref`s followed.
 */
export function minimalInstance(schema: Json, root: Json = schema, depth = 0): Json {
  if (!isObject(schema) || depth > 32) return null;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#")) {
    let target: Json | undefined = root;
    for (const part of schema.$ref.slice(1).split("/").filter(Boolean)) {
      const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
      target = isObject(target) ? target[key] : undefined;
    }
    return minimalInstance(target ?? {}, root, depth + 1);
  }
  if ("const" in schema) return schema.const ?? null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] ?? null;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const firstNonNull = branches.find((b) => !(isObject(b) && b.type === "null")) ?? branches[0];
      return minimalInstance(firstNonNull ?? {}, root, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const merged: JsonObject = {};
    for (const part of schema.allOf) if (isObject(part)) Object.assign(merged, part);
    const rest = { ...schema };
    delete rest.allOf;
    return minimalInstance({ ...merged, ...rest }, root, depth + 1);
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null") ?? type[0] ?? null;
  if (type === undefined) type = isObject(schema.properties) ? "object" : isObject(schema.items) ? "array" : "string";
  switch (type) {
    case "object": {
      const out: JsonObject = {};
      const props = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
      for (const name of required) out[name] = minimalInstance(props[name] ?? {}, root, depth + 1);
      return out;
    }
    case "array": {
      const count = Math.max(1, typeof schema.minItems === "number" ? schema.minItems : 0);
      const items = schema.items;
      if (Array.isArray(schema.prefixItems)) return schema.prefixItems.map((p) => minimalInstance(p, root, depth + 1));
      if (typeof schema.maxItems === "number" && schema.maxItems < 1) return [];
      return Array.from({ length: count }, () => minimalInstance(isObject(items) ? items : {}, root, depth + 1));
    }
    case "integer":
    case "number": {
      let n = 0;
      if (typeof schema.minimum === "number" && n < schema.minimum) n = schema.minimum;
      if (typeof schema.exclusiveMinimum === "number" && n <= schema.exclusiveMinimum) n = schema.exclusiveMinimum + (type === "integer" ? 1 : 0.5);
      if (typeof schema.maximum === "number" && n > schema.maximum) n = schema.maximum;
      if (typeof schema.exclusiveMaximum === "number" && n >= schema.exclusiveMaximum) n = schema.exclusiveMaximum - (type === "integer" ? 1 : 0.5);
      if (type === "integer") n = Math.ceil(n);
      if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) n = Math.ceil(n / schema.multipleOf) * schema.multipleOf;
      return n;
    }
    case "boolean":
      return false;
    case "null":
      return null;
    default: {
      const formats: Record<string, string> = {
        "date-time": "1970-01-01T00:00:00.000Z",
        date: "1970-01-01",
        time: "00:00:00Z",
        email: "user@example.com",
        uri: "https://example.com/",
        url: "https://example.com/",
        uuid: "00000000-0000-4000-8000-000000000000",
        ipv4: "127.0.0.1",
        ipv6: "::1",
        hostname: "example.com",
      };
      let value = (typeof schema.format === "string" && formats[schema.format]) || "example";
      if (typeof schema.minLength === "number") while (value.length < schema.minLength) value += "x";
      if (typeof schema.maxLength === "number" && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
      return value;
    }
  }
}

// ---- wire helpers ---------------------------------------------------------------------------------

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sse(data: JsonObject): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Splits before each word that follows whitespace: the pieces join back to the exact text. */
function splitWords(text: string): string[] {
  const pieces = text.split(/(?<=\s)(?=\S)/);
  return pieces.length > 0 && pieces[0] !== "" ? pieces : [text];
}

/** Splits a JSON string into three pieces (fewer when short), as providers stream arguments. */
function splitArgs(json: string): string[] {
  if (json.length < 3) return [json];
  const a = Math.floor(json.length / 3);
  const b = Math.floor((2 * json.length) / 3);
  return [json.slice(0, a), json.slice(a, b), json.slice(b)];
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text).toString(), ...headers });
  res.end(text);
}

function retryHeaders(status: number): Record<string, string> {
  return status === 429 || status === 529 ? { "retry-after": "0" } : {};
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function bearer(headers: Record<string, string>): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return match?.[1]?.trim();
}

function openaiAuthorized(headers: Record<string, string>, apiKey: string | undefined): boolean {
  return apiKey === undefined || bearer(headers) === apiKey;
}

function anthropicAuthorized(headers: Record<string, string>, apiKey: string | undefined): boolean {
  return apiKey === undefined || headers["x-api-key"] === apiKey || bearer(headers) === apiKey;
}

function openaiAuthError(headers: Record<string, string>): JsonObject {
  const key = bearer(headers);
  if (!key) {
    return {
      error: {
        message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error", param: null, code: null,
      },
    };
  }
  const masked = key.length > 8 ? `${key.slice(0, 3)}*********${key.slice(-4)}` : "*****";
  return {
    error: {
      message: `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      type: "invalid_request_error", param: null, code: "invalid_api_key",
    },
  };
}

/** OpenAI's error body for a status (the shapes its API returns). */
function openaiError(status: number, message?: string): JsonObject {
  const known: Record<number, [string, string, string | null]> = {
    400: ["Invalid request.", "invalid_request_error", null],
    401: ["Incorrect API key provided.", "invalid_request_error", "invalid_api_key"],
    403: ["You are not allowed to sample from this model", "invalid_request_error", null],
    404: ["The model does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"],
    429: ["Rate limit reached for requests. Please try again in 1s.", "requests", "rate_limit_exceeded"],
    500: ["The server had an error while processing your request. Sorry about that!", "server_error", null],
    503: ["The engine is currently overloaded, please try again later.", "server_error", null],
  };
  const [text, type, code] = known[status] ?? ["The server had an error while processing your request.", status >= 500 ? "server_error" : "invalid_request_error", null];
  return { error: { message: message ?? text, type, param: null, code } };
}

/** Anthropic's error body for a status (`{type:"error", error:{type, message}}`). */
function anthropicError(status: number, message?: string): JsonObject {
  const known: Record<number, [string, string]> = {
    400: ["invalid_request_error", "Invalid request."],
    401: ["authentication_error", "invalid x-api-key"],
    403: ["permission_error", "Your API key does not have permission to use the specified resource."],
    404: ["not_found_error", "The requested resource could not be found."],
    405: ["invalid_request_error", "Method not allowed"],
    413: ["request_too_large", "Request exceeds the maximum allowed number of bytes."],
    429: ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."],
    500: ["api_error", "Internal server error"],
    529: ["overloaded_error", "Overloaded"],
  };
  const [type, text] = known[status] ?? [status >= 500 ? "api_error" : "invalid_request_error", "Error"];
  return { type: "error", error: { type, message: message ?? text } };
}
