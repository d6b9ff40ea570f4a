// POST /v1/execute/stream over the API's own HTTP server, spoken by hand: a client that sends
// `Connection: close` receives the whole run stream (output events for longer than the server's request
// timeout, then done), the answer says `Connection: close`, and the server closes the connection once
// the stream ends rather than keeping it alive.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { buildApp } from "../../src/api/app.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishConnectedAgent } from "../support/agents.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { closeApi, readBody, serveApi } from "../support/http.ts";
import { parseResponse, rawExchange, writeIfOpen } from "../support/raw-http.ts";

/** The agent streams this many output events, this far apart: longer than the server's request timeout. */
const EVENTS = 5;
const GAP_MS = 300;
const REQUEST_TIMEOUT_MS = 1_000;
/** Long, so a connection kept alive after the stream would still be open when the test looks. */
const KEEP_ALIVE_MS = 15_000;

let ctx: TestContext;
let world: World | undefined;
let agentServer: HttpsTestServer;
let server: Server | undefined;
let url: string;
let key: string;
let agentId: string;
let webhookSecret = "whsec_AAAA";

/** A connected agent that checks the delivery's signature, then streams its output slowly. */
async function agent(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  try {
    new Webhook(webhookSecret).verify(body, req.headers as Record<string, string>);
  } catch {
    return void res.writeHead(401).end();
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (let i = 0; i < EVENTS; i++) {
    if (res.destroyed) return;
    res.write(`event: output\ndata: ${JSON.stringify({ delta: `part ${i} ` })}\n\n`);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  res.end(`event: result\ndata: ${JSON.stringify({ output: { findings: ["slow and whole"] } })}\n\n`);
}

/** The body of a chunked HTTP/1.1 answer, de-chunked. */
function dechunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    if (lineEnd < 0) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { ALLOW_PRIVATE_AGENT_HOSTS: "true" } });
  ctx = world.ctx;
  agentServer = await startHttpsServer((req, res) => void agent(req, res));
  ctx.services.egress = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
  const app = buildApp(ctx.services);
  ({ server, url } = await serveApi(app, { timeouts: { headersMs: 500, requestMs: REQUEST_TIMEOUT_MS, keepAliveMs: KEEP_ALIVE_MS } }));
  const creator = await fundedAccount(inject("rpcUrl"));
  const creatorToken = (await signIn(app, creator)).token;
  await approveCreator(ctx, app, creator.address, creatorToken);
  const listing = await publishConnectedAgent(
    ctx,
    app,
    creator,
    {
      name: "slow-streamer",
      category: "research",
      description: "A connected agent that streams slowly",
      model: { provider: "provider_a", model: "m" },
      entrypoint_url: `${agentServer.url}/agents/slow-streamer`,
      input_schema: { type: "object" },
      output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
      timeout_seconds: 30,
    },
    "one_time",
    "0.001",
    creatorToken,
  );
  webhookSecret = listing.webhookSecret;
  agentId = listing.agent_id;
  const renter = await fundedAccount(inject("rpcUrl"));
  await writeMarketplace(marketTarget(ctx), renter, "purchaseOneTime", [listing.onChainId], listing.priceWei);
  await indexChain(ctx);
  key = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
});

afterAll(async () => {
  await closeApi(server);
  await agentServer?.stop();
  await world?.close();
});

describe("POST /v1/execute/stream with Connection: close", () => {
  it("streams the whole run past the request timeout, answers Connection: close, and closes once done arrives", async () => {
    const body = JSON.stringify({ agent_id: agentId, task: "stream slowly" });
    const request =
      `POST /v1/execute/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    const exchange = await rawExchange(url, (socket) => writeIfOpen(socket, request), KEEP_ALIVE_MS + 5_000);

    expect(exchange.closed).toBe(true);
    expect(exchange.error).toBeUndefined();
    const res = parseResponse(exchange.text);
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe("close");
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(res.headers["x-run-id"]).toMatch(/^run_[0-9a-f]{32}$/);
    const stream = res.headers["transfer-encoding"] === "chunked" ? dechunk(res.body) : res.body;
    const deltas = [...stream.matchAll(/event: output\ndata: (.*)\n/g)].map((m) => (JSON.parse(m[1]!) as { delta: string }).delta);
    expect(deltas).toEqual(Array.from({ length: EVENTS }, (_, i) => `part ${i} `));
    const done = /event: done\ndata: (.*)\n/.exec(stream);
    expect(done).not.toBeNull();
    expect(JSON.parse(done![1]!)).toMatchObject({ run_id: res.headers["x-run-id"], status: "completed", output: { findings: ["slow and whole"] }, cost_wei: 0 });
    // The stream outlived the request timeout, and the connection closed with it, not a keep-alive later.
    expect(exchange.elapsedMs).toBeGreaterThan(REQUEST_TIMEOUT_MS);
    expect(exchange.elapsedMs).toBeLessThan(KEEP_ALIVE_MS);
    expect(stream.trimEnd().endsWith("id: done")).toBe(true);
  }, 40_000);
});
