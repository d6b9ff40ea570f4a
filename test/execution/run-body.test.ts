// A run's body is written exactly, whatever its output holds: an agent that echoes its renter's input
// hands the renter the output, so the renter chooses every byte of it. Outputs built to break a writer
// that edits the serialised text (a "__COST__" value, a key of that name, a nested `cost_wei` holding
// it beside the cost's own digits, U+2028 and U+2029, the marker 60 levels deep) go through every
// writer of a Run over real HTTP: POST /v1/execute (the run, and its Idempotency-Key replay), the
// `done` event of POST /v1/execute/stream, GET /v1/runs/{run_id} and GET /v1/runs/{run_id}/events.
// Each body is parsed: the output comes back as the agent answered it, and cost_wei is the exact
// integer the contract charged (a price above 2^53 wei, read with the SDK's exact parser). Remote MCP
// (POST /v1/mcp) carries a run's output as the tool result and its cost in `_meta.run`, through the
// official client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseJson } from "../../sdk/src/json.ts";
import { parseSse } from "../support/sse.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";

let world: World;
let agent: PublishedAgent;
let renter: Renter;

/** 0.0123456789 ETH: 12,345,678,900,000,000 wei, above 2^53, so a writer or reader through a double would round it. */
const PRICE_ETH = "0.0123456789";
const PRICE_WEI = 12_345_678_900_000_000n;

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { level: value };
  return value;
}

/** Outputs a renter can make an echoing agent return, each aimed at a writer that edits the text. */
const OUTPUTS: Record<string, Record<string, unknown>> = {
  "a __COST__ value": { findings: ["__COST__"] },
  "a key named __COST__": { __COST__: ["__COST__"], note: "a key" },
  "a nested cost_wei of __COST__ beside the cost's digits": { cost_wei: "__COST__", price: PRICE_WEI.toString(), digits: [Number(PRICE_WEI % 1_000_000n), "12345678900000000"] },
  "line and paragraph separators": { text: "line\u2028separator\u2029paragraph", marker: "__COST__", quoted: '"__COST__"' },
  "the marker 60 levels deep": nested(60, ["__COST__", "\u2028"]) as Record<string, unknown>,
};

beforeAll(async () => {
  world = await startWorld({ agent: true });
  agent = await world.publishConnected("echo", {
    rental: "per_query",
    price: PRICE_ETH,
    manifest: { input_schema: { type: "object" }, output_schema: { type: "object" } },
    // The agent answers with the renter's input as its output, untouched.
    handler: (call) => call.output(call.input),
  });
  renter = await world.renter();
  await world.rent(renter.account, agent, { deposit: PRICE_WEI * 40n });
});

afterAll(() => world?.close());

const auth = () => ({ authorization: `Bearer ${renter.key}` });

async function post(path: string, input: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${world.url}${path}`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json", ...headers },
    body: JSON.stringify({ agent_id: agent.agent_id, task: "Echo the input", input }),
  });
}

/** A body as a client reads it: valid JSON, with cost_wei an exact bigint. */
function parsedRun(text: string): Record<string, unknown> & { cost_wei: bigint } {
  expect(() => JSON.parse(text), `not JSON: ${text.slice(0, 300)}`).not.toThrow();
  return parseJson<Record<string, unknown> & { cost_wei: bigint }>(text);
}

/** The run's fields every writer must get right. */
function expectRun(run: Record<string, unknown> & { cost_wei: bigint }, output: unknown, runId?: string): void {
  expect(run.status, JSON.stringify(run.error)).toBe("completed");
  expect(run.output).toEqual(output);
  expect(run.cost_wei).toBe(PRICE_WEI);
  if (runId !== undefined) expect(run.run_id).toBe(runId);
}

describe.each(Object.entries(OUTPUTS))("a run whose output holds %s", (_name, output) => {
  it("POST /v1/execute, its Idempotency-Key replay, GET /v1/runs/{run_id} and GET /v1/runs/{run_id}/events write it exactly", async () => {
    const key = `exact-${crypto.randomUUID()}`;
    const executed = await post("/v1/execute", output, { "idempotency-key": key });
    const text = await executed.text();
    expect(executed.status, text).toBe(200);
    expect(executed.headers.get("content-type")).toMatch(/^application\/json/);
    const run = parsedRun(text);
    expectRun(run, output);
    const runId = run.run_id as string;

    // The same request again: the first run's body, from the stored record.
    const replayed = await post("/v1/execute", output, { "idempotency-key": key });
    const replayText = await replayed.text();
    expect(replayed.status, replayText).toBe(200);
    expectRun(parsedRun(replayText), output, runId);

    const detail = await fetch(`${world.url}/v1/runs/${runId}`, { headers: auth() });
    const detailText = await detail.text();
    expect(detail.status, detailText).toBe(200);
    const detailRun = parsedRun(detailText);
    expectRun(detailRun, output, runId);
    expect(detailRun).toMatchObject({ listing_id: agent.listing_id, rental_model: "per_query", settlement: "settled" });

    const events = await fetch(`${world.url}/v1/runs/${runId}/events`, { headers: auth() });
    const done = parseSse(await events.text()).at(-1)!;
    expect(done.event).toBe("done");
    expectRun(parsedRun(done.data), output, runId);
  });

  it("POST /v1/execute/stream writes it exactly in the done event, and GET /v1/runs/{run_id} agrees", async () => {
    const streamed = await post("/v1/execute/stream", output);
    expect(streamed.status).toBe(200);
    const runId = streamed.headers.get("x-run-id")!;
    const events = parseSse(await streamed.text());
    expect(events.map((e) => e.event)).toEqual(["done"]);
    expectRun(parsedRun(events[0]!.data), output, runId);

    const detail = await fetch(`${world.url}/v1/runs/${runId}`, { headers: auth() });
    expectRun(parsedRun(await detail.text()), output, runId);
  });
});

describe("POST /v1/mcp: a tool call's result", () => {
  it.each(Object.entries(OUTPUTS))("holds the output with %s as the agent answered it, and the exact cost in _meta.run", async (_name, output) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${world.url}/v1/mcp`), { requestInit: { headers: auth() } });
    const client = new Client({ name: "run-body-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: "run_agent", arguments: { agent_id: agent.agent_id, task: "Echo the input", input: output } })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toEqual(output);
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(output);
      expect((result._meta as { run: { cost_wei: string } }).run.cost_wei).toBe(PRICE_WEI.toString());
    } finally {
      await client.close();
    }
  });
});
