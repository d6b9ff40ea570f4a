// The remote MCP endpoint (POST /v1/mcp, Streamable HTTP) as LLM clients reach it: the official MCP
// client (Client + StreamableHTTPClientTransport) connects by URL with an API key or a JWT to the API
// served on 127.0.0.1, against the real chain, contract and dynalite, with connected agents on a real
// HTTPS server. Tools carry the agents' own schemas; runs go through the same admission as
// POST /v1/execute; every refusal is a tool error or the protocol's own error, never a 5xx, and a
// refused call charges nothing (the per-query balance on-chain is checked).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { buildApp } from "../../src/api/app.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { settledByPasses } from "../support/settlement.ts";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { createKey, signIn } from "../support/auth.ts";
import { serveApi, closeApi } from "../support/http.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";

let world: World;
let baseUrl: string;
let renter: Account;
let apiKey: string;
let summarizer: PublishedAgent;
let researcher: PublishedAgent;
let unrented: PublishedAgent;
/** What the connected agent received: each delivery's task and input. */
const deliveries = () => world.agent.deliveries.map(({ task, input }) => ({ task, input }));
const clients: Client[] = [];

/** The connected agent: "stream…" answers an event stream of three deltas; otherwise findings as JSON. */
async function agent(call: AgentCall): Promise<void> {
  if (call.task.startsWith("stream")) return call.stream(["one ", "two ", "three"], { summary: "one two three", words: 3 });
  const input = call.input as { text?: string; topic?: string } | null;
  call.output(call.agent.includes("summarizer") ? { summary: `${call.task}: ${input?.text ?? ""}`, words: (input?.text ?? "").split(" ").length } : { findings: [`${call.task}: ${input?.topic ?? "-"}`] });
}

const SUMMARIZER = {
  name: "remote-summarizer",
  description: "Summarizes a text",
  category: "content",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { text: { type: "string", minLength: 1 }, language: { type: "string", enum: ["en", "fr"] } }, required: ["text"], additionalProperties: false },
  output_schema: { type: "object", properties: { summary: { type: "string" }, words: { type: "integer" } }, required: ["summary", "words"] },
  timeout_seconds: 10,
};
const RESEARCHER = {
  name: "remote-researcher",
  description: "Finds facts about a topic",
  category: "research",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 10,
};

const publish = (manifest: typeof SUMMARIZER | typeof RESEARCHER, rental: "one_time" | "per_query", name = manifest.name) => world.publishConnected(name, { manifest, rental });

/** Connects the official client by URL; `bearer` is read on every request (so a test can change it). */
async function connect(bearer: () => string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/v1/mcp`), {
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${bearer()}`);
      return fetch(url, { ...init, headers });
    },
  });
  const client = new Client({ name: "remote-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: unknown) => ((result as CallToolResult).content as { type: string; text: string }[]).map((c) => c.text).join("\n");

async function balanceOf(agent: PublishedAgent): Promise<bigint> {
  const [, , , , balance] = await world.market.client.readContract({ address: world.market.marketplace, abi: marketplaceAbi, functionName: "credentialOf", args: [agent.onChainId, renter.address] });
  return balance;
}

let mcp: Client;

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent } });
  baseUrl = world.url;
  summarizer = await publish(SUMMARIZER, "per_query");
  researcher = await publish(RESEARCHER, "one_time");
  unrented = await publish(RESEARCHER, "one_time", "remote-unrented");
  renter = await world.account();
  await world.rent(renter, summarizer, { deposit: summarizer.priceWei * 10n });
  await world.rent(renter, researcher);
  apiKey = (await createKey(world.app, renter, (await signIn(world.app, renter)).token, "mcp remote")).key;
  mcp = await connect(() => apiKey);
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await world?.close();
});

describe("POST /v1/mcp: tools carry the agents' own schemas", () => {
  it("lists run_agent and one tool per rented agent, whose input is the agent's input schema plus task and whose output is its output schema", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_agent", "remote_researcher", "remote_summarizer"]);
    const generic = tools[0]!;
    expect(generic.inputSchema).toMatchObject({ type: "object", required: ["agent_id", "task"], properties: { agent_id: { type: "string" }, task: { type: "string" }, input: { type: "object" } } });
    const summary = tools.find((t) => t.name === "remote_summarizer")!;
    expect(summary.title).toBe("Remote Summarizer");
    expect(summary.description).toContain("Summarizes a text");
    expect(summary.inputSchema).toEqual({
      type: "object",
      properties: { task: expect.objectContaining({ type: "string" }), text: { type: "string", minLength: 1 }, language: { type: "string", enum: ["en", "fr"] } },
      required: ["task", "text"],
      additionalProperties: false,
    });
    expect(summary.outputSchema).toEqual(SUMMARIZER.output_schema);
  });

  it("a per-agent tool runs its agent: structuredContent follows the output schema, the run and its cost in _meta, the per-query balance charged once", async () => {
    const before = await balanceOf(summarizer);
    const result = (await mcp.callTool({ name: "remote_summarizer", arguments: { task: "sum up", text: "a b c" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ summary: "sum up: a b c", words: 3 });
    expect(JSON.parse(textOf(result))).toEqual({ summary: "sum up: a b c", words: 3 });
    expect(result._meta).toMatchObject({ run: { run_id: expect.stringMatching(/\S/), agent_id: expect.any(String), cost_wei: summarizer.priceWei.toString() } });
    expect(deliveries().at(-1)).toEqual({ task: "sum up", input: { text: "a b c" } });
    expect(await balanceOf(summarizer)).toBe(before - summarizer.priceWei);
  });

  it("run_agent runs the agent named by agent_id", async () => {
    const result = (await mcp.callTool({ name: "run_agent", arguments: { agent_id: researcher.agent_id, task: "generic", input: { topic: "tides" } } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ findings: ["generic: tides"] });
  });

  it("sends the output as progress notifications while a run streams, when the client sends a progressToken", async () => {
    const progress: { progress: number; message?: string }[] = [];
    const result = (await mcp.callTool({ name: "remote_summarizer", arguments: { task: "stream it", text: "x" } }, undefined, { onprogress: (p) => void progress.push(p) })) as CallToolResult;
    expect(result.structuredContent).toEqual({ summary: "one two three", words: 3 });
    expect(progress).toEqual([
      { progress: 4, message: "one " },
      { progress: 8, message: "two " },
      { progress: 13, message: "three" },
    ]);
  });
});

describe("money", () => {
  it("a run whose charge cannot be confirmed is a settlement_pending tool error (not a retryable 503) without its output, charged once when the charge lands", async () => {
    // The settler cannot be reached: this server's settlement queue points nowhere.
    const broken = { ...world.services, config: { ...world.config, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:9/000000000000/nowhere" } };
    const served = await serveApi(buildApp(broken));
    try {
      const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } });
      const client = new Client({ name: "remote-test-pending", version: "1.0.0" });
      await client.connect(transport);
      clients.push(client);
      const before = await balanceOf(summarizer);
      const result = (await client.callTool({ name: "remote_summarizer", arguments: { task: "pay later", text: "x y" } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const text = textOf(result);
      expect(text).toMatch(/settlement_pending/);
      expect(text).not.toMatch(/pay later: x y/); // the output is withheld until paid
      const runId = /run_[0-9a-f]{32}/.exec(text)![0];
      // The world's settler may already have the charge (its settlement pass hands it over): once at most.
      expect([before, before - summarizer.priceWei]).toContain(await balanceOf(summarizer));
      // The settlement pass hands the charge to the world's settler, and settles the run once it lands.
      await settledByPasses(world.services, [runId]);
      expect(await balanceOf(summarizer)).toBe(before - summarizer.priceWei);
      const released = (await (await world.app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { settlement: string; output: unknown };
      expect(released).toMatchObject({ settlement: "settled", output: { summary: "pay later: x y", words: 2 } });
    } finally {
      await closeApi(served.server);
    }
  }, 90_000);
});

describe("bad input: the protocol's own error or a tool error, never a 5xx, nothing charged", () => {
  it("arguments that fail the agent's schema, unknown arguments and a missing task are tool errors, an unknown tool the protocol's -32602; no run starts", async () => {
    const before = { balance: await balanceOf(summarizer), deliveries: deliveries().length };
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["remote_summarizer", { task: "x" }, /^Error invalid_input: .*must have required property 'text'/],
      ["remote_summarizer", { task: "x", text: "y", language: "de" }, /^Error invalid_input: .*\/language must be equal to one of the allowed values/],
      ["remote_summarizer", { task: "x", text: "y", agent_id: unrented.agent_id }, /^Error invalid_tool_arguments: Unknown argument: agent_id/],
      ["remote_summarizer", { text: "y" }, /^Error invalid_tool_arguments: task is required/],
      ["run_agent", { agent_id: summarizer.agent_id }, /task is required/],
    ];
    for (const [name, args, message] of cases) {
      const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    // MCP 2025-11-25: an unknown tool is a protocol error, not a tool result.
    await expect(mcp.callTool({ name: "no_such_tool", arguments: { task: "x" } })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: no_such_tool/) });
    expect(deliveries().length).toBe(before.deliveries);
    expect(await balanceOf(summarizer)).toBe(before.balance);
  });

  it("a refusal of the service is a tool error with its code, the request id and the contract error; the key never shows", async () => {
    const result = (await mcp.callTool({ name: "run_agent", arguments: { agent_id: unrented.agent_id, task: "not mine" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Error credential_not_found \(HTTP 403, request id req_\w+, contract error CredentialNotFound\): /);
    expect(JSON.stringify(result)).not.toContain(apiKey);
    expect(deliveries().some((d) => d.task === "not mine")).toBe(false);
  });

  it("malformed JSON-RPC gets the protocol's parse and invalid-request errors (HTTP 400), not a 5xx", async () => {
    const post = (body: string) =>
      fetch(`${baseUrl}/v1/mcp`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body, signal: AbortSignal.timeout(10_000) });
    const notJson = await post("{not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const notRpc = await post(JSON.stringify({ hello: "world" }));
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
  });

  it("a JSON-RPC batch is handled: each request answered by id in one event stream, a refused call a tool error, nothing charged for it", async () => {
    const before = { balance: await balanceOf(summarizer), deliveries: deliveries().length };
    const res = await fetch(`${baseUrl}/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "remote_researcher", arguments: { task: "batched", topic: "tides" } } },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "run_agent", arguments: { agent_id: unrented.agent_id, task: "batched, not mine" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ]),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const answers = (await res.text())
      .split("\n")
      .filter((line) => line.startsWith("data: ") && line.length > 6)
      .map((line) => JSON.parse(line.slice(6)) as { id: number; result: Record<string, unknown> });
    const byId = new Map(answers.map((a) => [a.id, a.result]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3]);
    expect((byId.get(1)!.tools as { name: string }[]).map((t) => t.name)).toEqual(["run_agent", "remote_researcher", "remote_summarizer"]);
    expect(byId.get(2)).toMatchObject({ structuredContent: { findings: ["batched: tides"] } });
    expect(byId.get(2)!.isError).toBeFalsy();
    expect(byId.get(3)).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^Error credential_not_found \(HTTP 403/) }] });
    expect(deliveries().slice(before.deliveries).map((d) => d.task)).toEqual(["batched"]);
    expect(await balanceOf(summarizer)).toBe(before.balance);
  });

  it("a batch the protocol refuses gets its error (HTTP 400): an empty batch, initialize beside another message, a malformed member; notifications alone are accepted (202)", async () => {
    const post = (body: unknown) =>
      fetch(`${baseUrl}/v1/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "batch-test", version: "1.0.0" } } };
    const refused: [unknown, number][] = [
      [[], -32600],
      [[initialize, { jsonrpc: "2.0", id: 2, method: "tools/list" }], -32600],
      [[{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { hello: "world" }], -32700],
    ];
    for (const [body, code] of refused) {
      const res = await post(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code }, id: null });
    }
    const notifications = await post([{ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } }]);
    expect(notifications.status).toBe(202);
    expect(await notifications.text()).toBe("");
  });

  it("no credential or an invalid one: 401 in the error envelope; GET /v1/mcp and DELETE /v1/mcp are 405 with Allow: POST (no standalone stream, no session)", async () => {
    const none = await fetch(`${baseUrl}/v1/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: "unauthorized", status: 401, request_id: expect.stringMatching(/^req_/) } });
    const bad = await fetch(`${baseUrl}/v1/mcp`, { method: "POST", headers: { authorization: "Bearer svc_test_0000000000000000000000000000000000000000", "content-type": "application/json" }, body: "{}" });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    const get = await fetch(`${baseUrl}/v1/mcp`, { headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const del = await fetch(`${baseUrl}/v1/mcp`, { method: "DELETE", headers: { authorization: `Bearer ${apiKey}` } });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("POST");
    expect(await del.json()).toMatchObject({ error: { code: "method_not_allowed", status: 405 } });
  });

  it("a JWT that expires mid-session: the next call is refused with 401 (the transport's HTTP error), nothing runs, nothing is charged", async () => {
    let token = (await signIn(world.app, renter)).token;
    const client = await connect(() => token);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("remote_summarizer");
    const before = { balance: await balanceOf(summarizer), deliveries: deliveries().length };
    token = (await world.services.jwt.issue(renter.address, Math.floor(Date.now() / 1000) - 7200)).token;
    const error = await client.callTool({ name: "remote_summarizer", arguments: { task: "expired", text: "z" } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    expect(String((error as Error).message)).toContain("jwt_expired");
    expect(deliveries().length).toBe(before.deliveries);
    expect(await balanceOf(summarizer)).toBe(before.balance);
  });
});
