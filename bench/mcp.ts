// Remote MCP overhead: a tool call through POST /v1/mcp (the official MCP client over Streamable HTTP,
// authenticated with an API key) beside the same run through POST /v1/execute, interleaved in one run
// (each round runs both, the order alternating), against the local stack (local/stack.ts: DynamoDB and
// SQS/S3 emulators, a Hardhat node, the API served over HTTP on 127.0.0.1, its indexer and registration
// worker). The agent is a connected agent on plain http loopback that answers at once, so what differs
// between the two sides is the MCP layer alone: the JSON-RPC envelope, the tool list (the caller's
// credentials, the listings' metadata and input validators), the argument checks and the result's form.
// Two measures, each taken per round (the tool call minus the execute of the same round):
//  - over HTTP, end to end: each side's storage, chain and webhook calls vary by tens of milliseconds,
//    so this difference's p95 shows that spread rather than the layer;
//  - the layer's own work, the figure against the target: the same calls in process, each side's time
//    with none of its own outside calls in flight (see below).
// The rate rules (60 runs/min per credential) would throttle the rounds: the stack's services get a
// limiter that admits every request (still called on every request).
// Run: npm run bench -- mcp   (or: node --import tsx bench/mcp.ts; MCP_BENCH_ROUNDS=N)
import http from "node:http";
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { parseEther, type Hex } from "viem";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startStack } from "../local/stack.ts";
import { buildApp } from "../src/api/app.ts";
import { freePort } from "../local/ports.ts";
import { DEV_ACCOUNTS, LOCAL_CHAIN_ID } from "../local/chain.ts";
import { publishAgent } from "../local/publish.ts";
import { writeMarketplace } from "../src/chain/write.ts";
import { chainFor } from "../src/chain/client.ts";
import { catchUp } from "../src/credentials/indexer.ts";
import type { RateLimiter } from "../src/adapters/ratelimit/port.ts";
import { ms, summarize, unionMs } from "./stats.ts";

const ROUNDS = Number(process.env.MCP_BENCH_ROUNDS ?? 60);
const WARMUP = 10;
const TARGET_MS = 5;
const MANIFEST = {
  name: "bench-mcp-researcher",
  category: "research",
  description: "A connected agent that answers at once, for the remote MCP benchmark.",
  model: { provider: "provider_a", model: "bench" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 30,
};
const ANSWER = JSON.stringify({ output: { findings: ["a finding", "another finding"] } });

const admitAll: RateLimiter = {
  async limit(_key, rule) {
    return { allowed: true, limit: rule.limit, remaining: rule.limit, reset: Math.ceil(Date.now() / 1000) + rule.windowSeconds, retryAfterSeconds: 0 };
  },
};

export async function runMcpBench(options: { rounds?: number } = {}): Promise<string[]> {
  const rounds = options.rounds ?? ROUNDS;
  const dataDir = mkdtempSync(join(tmpdir(), "mcp-bench-"));
  const agent = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(ANSWER));
  });
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  const stack = await startStack({ dataDir, apiPort: await freePort(), chainPort: await freePort(), dynamoPort: await freePort(), awsPort: await freePort(), logLevel: "silent" });
  let mcp: Client | undefined;
  try {
    stack.services.rateLimiter = admitAll;
    const apiUrl = stack.info.api_url;
    const apiKey = (stack.info.demo as { api_key: string }).api_key;
    const target = { rpcUrl: stack.info.rpc_url, chain: chainFor(LOCAL_CHAIN_ID, stack.info.rpc_url), marketplace: stack.info.contracts.marketplace as Hex };

    // Published as every agent is (local/publish.ts) by a demo creator (approved by the demo), rented
    // one-time by the demo renter.
    const creator = DEV_ACCOUNTS[2]!;
    const priceWei = parseEther("0.001");
    const listing = await publishAgent(stack.services, creator.privateKey, { ...MANIFEST, entrypoint_url: `http://127.0.0.1:${(agent.address() as AddressInfo).port}/run` }, { rental: "one_time", priceWei, target });
    await writeMarketplace(target, DEV_ACCOUNTS[4]!.privateKey, "purchaseOneTime", [listing.onChainId], priceWei);
    await catchUp({ tables: stack.services.tables, chain: stack.services.chain, logger: stack.services.logger, fromBlock: 0n, confirmations: 0 });

    const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } });
    mcp = new Client({ name: "mcp-bench", version: "1.0.0" });
    await mcp.connect(transport);
    const { tools } = await mcp.listTools();
    const tool = tools.find((t) => t.title === "Bench Mcp Researcher" || t.name === "bench_mcp_researcher");
    if (!tool) throw new Error(`the rented agent's tool is missing: ${tools.map((t) => t.name).join(", ")}`);

    const task = "summarise the state of the market";
    const viaMcp = async () => {
      const result = (await mcp!.callTool({ name: tool.name, arguments: { task, topic: "e-bikes" } })) as CallToolResult;
      if (result.isError || !result.structuredContent) throw new Error(`the MCP tool call failed: ${JSON.stringify(result.content)}`);
    };
    const executeBody = JSON.stringify({ agent_id: listing.agent_id, task, input: { topic: "e-bikes" } });
    const viaExecute = async () => {
      const res = await fetch(`${apiUrl}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: executeBody });
      const body = await res.text();
      if (res.status !== 200 || !body.includes('"status":"completed"')) throw new Error(`the execute failed: ${res.status} ${body}`);
    };
    const timed = async (call: () => Promise<void>) => {
      const t = performance.now();
      await call();
      return performance.now() - t;
    };

    for (let i = 0; i < WARMUP; i++) {
      await viaMcp();
      await viaExecute();
    }
    const mcpTimes: number[] = [];
    const executeTimes: number[] = [];
    const listTimes: number[] = [];
    const mcpOwnTimes: number[] = [];
    const executeOwnTimes: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // The order alternates, so neither side always finds the other's work just done.
      if (i % 2 === 0) {
        mcpTimes.push(await timed(viaMcp));
        executeTimes.push(await timed(viaExecute));
      } else {
        executeTimes.push(await timed(viaExecute));
        mcpTimes.push(await timed(viaMcp));
      }
    }
    // After the rounds, so the calls above found the tool list only as a client's connect left it.
    for (let i = 0; i < rounds; i++) listTimes.push(await timed(async () => void (await mcp!.listTools())));
    // The layer's own work: the same calls made in process (the MCP client's fetch and the execute
    // go to the app itself, no sockets), each inside an async context that collects the outside calls
    // made on its behalf (storage, the chain, the agent's webhook). A call's own work is its time with
    // none of them in flight: the JSON-RPC envelope, the tool lookup, the checks, the run's own code,
    // the serialisation and the client's parsing. Background jobs run outside the context and are not
    // counted as outside calls. The overhead is, per round, the tool call's own work minus the
    // execute's: the two sides' I/O, which varies by tens of milliseconds, drops out.
    const app = buildApp(stack.services);
    const context = new AsyncLocalStorage<[number, number][]>();
    const spanned = async <T>(run: () => Promise<T>): Promise<T> => {
      const spans = context.getStore();
      const t = performance.now();
      try {
        return await run();
      } finally {
        spans?.push([t, performance.now()]);
      }
    };
    type Send = (command: unknown, options?: unknown) => Promise<unknown>;
    const doc = stack.services.tables.doc as unknown as { send: Send };
    const send = doc.send.bind(doc);
    doc.send = (command, options) => spanned(() => send(command, options));
    const egress = stack.services.egress;
    const egressFetch = egress.fetch.bind(egress);
    stack.services.egress = { ...egress, fetch: (url, init) => spanned(() => egressFetch(url, init)) };
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => (String(input instanceof Request ? input.url : input).startsWith(stack.info.rpc_url) ? spanned(() => realFetch(input, init)) : realFetch(input, init));
    const inProcess = new Client({ name: "mcp-bench-in-process", version: "1.0.0" });
    try {
      await inProcess.connect(
        new StreamableHTTPClientTransport(new URL(`${apiUrl}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } }, fetch: (url, init) => Promise.resolve(app.request(String(url), init)) }),
      );
      const ownWork = async (call: () => Promise<void>): Promise<number> => {
        const spans: [number, number][] = [];
        const t = performance.now();
        await context.run(spans, call);
        return performance.now() - t - unionMs(spans);
      };
      const mcpOwn = () =>
        ownWork(async () => {
          const result = (await inProcess.callTool({ name: tool.name, arguments: { task, topic: "e-bikes" } })) as CallToolResult;
          if (result.isError || !result.structuredContent) throw new Error(`the in-process MCP tool call failed: ${JSON.stringify(result.content)}`);
        });
      const executeOwn = () =>
        ownWork(async () => {
          const res = await app.request(`${apiUrl}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: executeBody });
          const body = await res.text();
          if (res.status !== 200 || !body.includes('"status":"completed"')) throw new Error(`the in-process execute failed: ${res.status} ${body}`);
        });
      for (let i = 0; i < WARMUP; i++) {
        await mcpOwn();
        await executeOwn();
      }
      for (let i = 0; i < rounds; i++) {
        if (i % 2 === 0) {
          mcpOwnTimes.push(await mcpOwn());
          executeOwnTimes.push(await executeOwn());
        } else {
          executeOwnTimes.push(await executeOwn());
          mcpOwnTimes.push(await mcpOwn());
        }
      }
    } finally {
      globalThis.fetch = realFetch;
      await inProcess.close().catch(() => undefined);
    }
    const mo = summarize(mcpOwnTimes);
    const eo = summarize(executeOwnTimes);
    const ownPaired = summarize(mcpOwnTimes.map((t, i) => t - executeOwnTimes[i]!));

    const m = summarize(mcpTimes);
    const e = summarize(executeTimes);
    const l = summarize(listTimes);
    // Each round's own difference: both calls ran back to back, so the machine's load at that moment
    // weighs on both. Its p95 is the overhead a call sees 95% of the time (the target); the difference
    // of the two sides' p95s compares two distributions whose tails come from different rounds.
    const paired = summarize(mcpTimes.map((t, i) => t - executeTimes[i]!));
    const overhead = m.p95 - e.p95;
    return [
      `setup: local stack (emulators, Hardhat node, API on 127.0.0.1), a connected agent on http://127.0.0.1 answering at once, one-time rental, the demo API key; rate limiter admits every request`,
      `${rounds} rounds after ${WARMUP} warm-up rounds, each a tool call and an execute in alternating order, one after the other`,
      `POST /v1/mcp tools/call (${tool.name}, official client, Streamable HTTP): p50 ${ms(m.p50)}, p95 ${ms(m.p95)} (min ${ms(m.min)}, max ${ms(m.max)})`,
      `POST /v1/execute (same agent, task and input):             p50 ${ms(e.p50)}, p95 ${ms(e.p95)} (min ${ms(e.min)}, max ${ms(e.max)})`,
      `POST /v1/mcp tools/list (for reference):                    p50 ${ms(l.p50)}, p95 ${ms(l.p95)}`,
      `over HTTP, overhead per round (tools/call minus execute of the same round): p50 ${ms(paired.p50)}, p95 ${ms(paired.p95)} (min ${ms(paired.min)}, max ${ms(paired.max)}): the two runs' I/O spread, not the layer`,
      `over HTTP, difference of the two sides' percentiles: p50 ${ms(m.p50 - e.p50)}, p95 ${ms(overhead)} (ratio p95 ${(m.p95 / e.p95).toFixed(2)}x)`,
      `own work in process (time with no storage, chain or webhook call of its own in flight; ${rounds} rounds): tools/call p50 ${ms(mo.p50)}, p95 ${ms(mo.p95)}; execute p50 ${ms(eo.p50)}, p95 ${ms(eo.p95)}`,
      `overhead of the MCP layer per round (tools/call's own work minus the execute's): p50 ${ms(ownPaired.p50)}, p95 ${ms(ownPaired.p95)} (min ${ms(ownPaired.min)}, max ${ms(ownPaired.max)}); target p95 < ${TARGET_MS} ms: ${ownPaired.p95 < TARGET_MS ? "met" : "MISSED"}`,
    ];
  } finally {
    await mcp?.close().catch(() => undefined);
    await stack.stop();
    await new Promise<void>((resolve) => agent.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await runMcpBench()) console.log(row);
}
