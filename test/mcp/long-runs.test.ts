// A run longer than an MCP client's patience is still answered: while the agent works without a word,
// POST /v1/mcp sends the client that asked for progress a heartbeat (notifications/progress, its
// progress growing) every MCP_PROGRESS_INTERVAL_MS, and a client that resets its timeout on progress (the
// official client's resetTimeoutOnProgress) waits for the result instead of giving up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { startWorld, type World } from "../support/world.ts";

let world: World;
let key: string;
/** Released by the test once it has seen the client kept waiting past its own timeout. */
let release: () => void = () => undefined;

beforeAll(async () => {
  world = await startWorld({ env: { MCP_PROGRESS_INTERVAL_MS: "200" }, agent: true });
  const agent = await world.publishConnected("slow-thinker", {
    rental: "one_time",
    handler: async (call) => {
      await new Promise<void>((resolve) => (release = resolve));
      call.output({ findings: [`thought about ${call.task}`] });
    },
  });
  const renter = await world.renter();
  await world.rent(renter.account, agent);
  key = renter.key;
}, 120_000);
afterAll(() => world?.close());

async function connect(): Promise<Client> {
  const client = new Client({ name: "patient", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${world.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

describe("POST /v1/mcp: a run longer than the client's patience", () => {
  it("keeps a client with a 2 s timeout waiting through heartbeats until the silent agent answers", async () => {
    const client = await connect();
    const progress: Progress[] = [];
    const arrivals: number[] = [];
    const started = Date.now();
    // 2 s of patience against a heartbeat every 200 ms: room for a loaded machine's pauses (the client
    // and the server share this process's event loop); a server that sent no heartbeat loses the client.
    const call = client.callTool({ name: "slow_thinker", arguments: { task: "deep question" } }, undefined, {
      timeout: 2_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => {
        progress.push(p);
        arrivals.push(Date.now() - started);
      },
    });
    // A call that settles before the agent is released ends the wait at once, saying how.
    let settled: string | undefined;
    call.then(
      () => (settled = "answered before the agent was released"),
      (error: unknown) => (settled = `gave up: ${String(error)}; heartbeats at ${arrivals.join(", ")} ms`),
    );
    // Past the client's own timeout, on real signals: heartbeats keep arriving.
    await expect.poll(() => settled ?? (progress.length >= 15 && Date.now() - started > 3_000), { timeout: 20_000, interval: 50 }).toBe(true);
    // The client's own timer (2 s, reset by each heartbeat, started when it sent the request) is the judge:
    // it has not given up (`settled` is unset), so every heartbeat came in time. The test's clock started
    // before the request left, so a loaded machine can put the first arrival past 2 s on it.
    expect(settled, `heartbeats at ${arrivals.join(", ")} ms`).toBeUndefined();
    release();
    const result = (await call) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ findings: ["thought about deep question"] });
    expect(progress.every((p) => p.message === "working")).toBe(true);
    for (let i = 1; i < progress.length; i += 1) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    await client.close();
  }, 60_000);

  it("a client that asked for no progress gets no heartbeat (and its own timeout applies)", async () => {
    const client = await connect();
    const call = client.callTool({ name: "slow_thinker", arguments: { task: "no progress" } }, undefined, { timeout: 1_000 });
    await expect(call).rejects.toThrow(/timed out/i);
    // The agent holds the delivery; let it answer once it has it.
    await expect.poll(() => world.agent.deliveriesTo("slow-thinker").length, { timeout: 10_000 }).toBe(2);
    release();
    await client.close();
  }, 60_000);
});
