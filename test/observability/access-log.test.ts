// The access log and the run figures, on a served API (a real HTTP server on 127.0.0.1) with a
// connected agent (a real HTTPS server), dynalite, the local chain and contract: every request of every
// kind (ok, 401, 404, 429, validation 400, executions, sync and streamed) gets exactly one access line
// with the route pattern, the caller and the run, and no line holds the API key or the JWT; health
// reports run counts and latency percentiles that move with the runs.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Server } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { buildApp } from "../../src/api/app.ts";
import { createLogger } from "../../src/logger.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishConnectedAgent, type PublishedAgent } from "../support/agents.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { closeApi, readBody, serveApi } from "../support/http.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let agentServer: HttpsTestServer;
let api: { server: Server; url: string };
let listing: PublishedAgent;
let apiKey: { key: string; key_id: string };
let jwt: string;
let renterWallet: string;
const lines: string[] = [];

/** The connected agent: fails tasks starting with "fail", answers the rest. */
async function agent(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const payload = JSON.parse(await readBody(req)) as { task: string };
  if (payload.task.startsWith("fail")) return void res.writeHead(500, { "content-type": "application/json" }).end('{"error":"boom"}');
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: { findings: [payload.task] } }));
}

const MANIFEST = {
  category: "research",
  description: "A connected test agent",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 10,
};

type AccessLine = Record<string, unknown> & { message: string };

function accessLines(from = 0): AccessLine[] {
  return lines.slice(from).map((line) => JSON.parse(line) as AccessLine).filter((line) => line.message === "request");
}

function call(path: string, init: RequestInit & { bearer?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.bearer) headers.set("authorization", `Bearer ${init.bearer}`);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  return fetch(`${api.url}${path}`, { ...init, headers });
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { ALLOW_PRIVATE_AGENT_HOSTS: "true" } });
  ctx = world.ctx;
  ctx.services.logger = createLogger("info", (line) => lines.push(line));
  agentServer = await startHttpsServer((req, res) => void agent(req, res));
  ctx.services.egress = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
  app = buildApp(ctx.services);
  const creator = await fundedAccount(inject("rpcUrl"));
  const creatorToken = (await signIn(app, creator)).token;
  await approveCreator(ctx, app, creator.address, creatorToken);
  listing = await publishConnectedAgent(ctx, app, creator, { ...MANIFEST, name: "observed", entrypoint_url: `${agentServer.url}/agents/observed` }, "one_time", "0.001", creatorToken);
  const renter = await fundedAccount(inject("rpcUrl"));
  renterWallet = renter.address.toLowerCase();
  jwt = (await signIn(app, renter)).token;
  apiKey = await createKey(app, renter, jwt);
  await writeMarketplace(marketTarget(ctx), renter, "purchaseOneTime", [listing.onChainId], listing.priceWei);
  await indexChain(ctx);
  api = await serveApi(app);
});

afterAll(async () => {
  await closeApi(api?.server);
  await agentServer?.stop();
  await world?.close();
});

describe("the access log", () => {
  it("writes exactly one line per request of every kind, with the route pattern, the caller, the run and the rate-limit outcome, and never the key or the JWT", async () => {
    const from = lines.length;
    const expected: { status: number; route: string | null; wallet?: string | null; key_id?: string | null; run_id?: string | null; rate_limit?: string | null; error_code?: string | null }[] = [];
    const send = async (path: string, init: RequestInit & { bearer?: string }, want: (typeof expected)[number]) => {
      const res = await call(path, init);
      expect(res.status).toBe(want.status);
      const text = await res.text();
      expected.push(want);
      return { res, text };
    };

    await send("/v1/health", {}, { status: 200, route: "/v1/health", wallet: null, rate_limit: "allowed" });
    await send("/v1/credentials", {}, { status: 401, route: "/v1/credentials", wallet: null, key_id: null, error_code: "unauthorized", rate_limit: "allowed" });
    await send("/v1/credentials", { bearer: "svc_test_" + "z".repeat(32) }, { status: 401, route: "/v1/credentials", wallet: null, error_code: "invalid_api_key" });
    await send("/v1/credentials", { bearer: apiKey.key }, { status: 200, route: "/v1/credentials", wallet: renterWallet, key_id: apiKey.key_id, rate_limit: "allowed" });
    await send("/v1/credentials", { bearer: jwt }, { status: 200, route: "/v1/credentials", wallet: renterWallet, key_id: null });
    // No route, so no authentication: the caller of an unknown endpoint is not named, only counted by address.
    await send("/v1/no-such-endpoint/123", { bearer: apiKey.key }, { status: 404, route: null, wallet: null, error_code: "not_found", rate_limit: "allowed" });
    await send("/v1/execute", { method: "POST", bearer: apiKey.key, body: JSON.stringify({ agent_id: listing.agent_id }) }, { status: 400, route: "/v1/execute", error_code: "invalid_request", run_id: null });
    const ok = await send("/v1/execute", { method: "POST", bearer: apiKey.key, body: JSON.stringify({ agent_id: listing.agent_id, task: "summarise" }) }, { status: 200, route: "/v1/execute", wallet: renterWallet, key_id: apiKey.key_id });
    const run = JSON.parse(ok.text) as { run_id: string; status: string };
    expect(run.status).toBe("completed");
    expected.at(-1)!.run_id = run.run_id;
    const streamed = await send("/v1/execute/stream", { method: "POST", bearer: apiKey.key, body: JSON.stringify({ agent_id: listing.agent_id, task: "fail loudly" }) }, { status: 200, route: "/v1/execute/stream" });
    expect(streamed.text).toContain("event: done");
    expected.at(-1)!.run_id = streamed.res.headers.get("x-run-id");
    await send(`/v1/runs/${run.run_id}`, { bearer: apiKey.key }, { status: 200, route: "/v1/runs/:run_id", run_id: run.run_id });

    // Unauthenticated calls count under one address bucket (100 a minute): the first refused is a 429.
    let limited: Response | undefined;
    for (let i = 0; i < 110 && !limited; i++) {
      const res = await call("/v1/credentials");
      await res.arrayBuffer();
      if (res.status === 429) limited = res;
      expected.push(res.status === 429 ? { status: 429, route: "/v1/credentials", rate_limit: "limited", error_code: "rate_limit_exceeded" } : { status: 401, route: "/v1/credentials", rate_limit: "allowed" });
    }
    expect(limited?.status).toBe(429);

    const logged = accessLines(from);
    expect(logged).toHaveLength(expected.length);
    logged.forEach((line, i) => {
      const want = expected[i]!;
      expect(line).toMatchObject({ level: "info", status: want.status, route: want.route });
      expect(typeof line.method).toBe("string");
      expect(line.request_id).toMatch(/^req_[0-9a-f]{24}$/);
      expect(typeof line.duration_ms).toBe("number");
      for (const field of ["wallet", "key_id", "run_id", "rate_limit", "error_code"] as const) {
        if (want[field] !== undefined) expect(line[field], `${field} of line ${i}`).toBe(want[field]);
      }
      // Ids never stand in the route: the pattern is logged, not the path.
      expect(String(line.route)).not.toMatch(/run_[0-9a-f]{32}/);
    });
    const text = lines.slice(from).join("\n");
    expect(text).not.toContain(apiKey.key);
    expect(text).not.toContain(apiKey.key.slice(9, 25));
    expect(text).not.toContain(jwt);
    expect(text).not.toContain(jwt.split(".")[2]!);
  });
});

describe("health", () => {
  it("reports run counts, failures by reason and latency percentiles that move with runs, and the depths, naming no wallet or run", async () => {
    // Read in-process from an address of its own: the suite above spent the served address's bucket.
    const read = async () => (await (await app.request("/v1/health", { headers: { "x-forwarded-for": "198.51.100.23" } })).json()) as {
      status: string;
      metrics: { runs: { started: number; completed: number; failed: number; failed_by_reason: Record<string, number> }; requests: { total: number }; latency_ms: Record<string, { count: number; p50: number; p95: number; p99: number; max: number } | null> };
      queues: { registration: number | null; registration_dlq: number | null; settlement: number | null };
      settlements: { pending: number | null; alarms: unknown[] | null };
      authority: { balance_wei: string } | null;
      sandbox: unknown;
    };
    const before = await read();
    const ok = await call("/v1/execute", { method: "POST", bearer: apiKey.key, body: JSON.stringify({ agent_id: listing.agent_id, task: "count me" }) });
    const okRun = (await ok.json()) as { run_id: string };
    await (await call("/v1/execute", { method: "POST", bearer: apiKey.key, body: JSON.stringify({ agent_id: listing.agent_id, task: "fail to count" }) })).json();
    const after = await read();

    expect(after.status).toBe("ok");
    expect(after.metrics.runs.started).toBe(before.metrics.runs.started + 2);
    expect(after.metrics.runs.completed).toBe(before.metrics.runs.completed + 1);
    expect(after.metrics.runs.failed).toBe(before.metrics.runs.failed + 1);
    expect(after.metrics.runs.failed_by_reason.agent_http_error).toBe((before.metrics.runs.failed_by_reason.agent_http_error ?? 0) + 1);
    for (const name of ["run_duration", "start_of_execution"]) {
      const figures = after.metrics.latency_ms[name]!;
      expect(figures.count, name).toBe((before.metrics.latency_ms[name]?.count ?? 0) + 2);
      expect(figures.p50).toBeGreaterThanOrEqual(0);
      expect(figures.p50).toBeLessThanOrEqual(figures.p95);
      expect(figures.p95).toBeLessThanOrEqual(figures.p99);
      expect(figures.p99).toBeLessThanOrEqual(figures.max);
    }
    // Every execution reads the chain (the credential): those round trips are timed.
    expect(after.metrics.latency_ms.chain_call!.count).toBeGreaterThan(before.metrics.latency_ms.chain_call?.count ?? 0);
    expect(after.metrics.requests.total).toBeGreaterThan(before.metrics.requests.total);
    // The publication's registration message is still queued (the test processed its job directly).
    expect(after.queues).toEqual({ registration: await ctx.services.queue.approximateCount(ctx.config.REGISTRATION_QUEUE_URL), registration_dlq: 0, settlement: await ctx.services.queue.approximateCount(ctx.config.SETTLEMENT_QUEUE_URL) });
    expect(after.queues.registration).toBeGreaterThanOrEqual(1);
    expect(after.settlements).toEqual({ pending: 0, alarms: [] });
    expect(BigInt(after.authority!.balance_wei)).toBeGreaterThan(0n);
    expect(after.sandbox).toBeNull(); // connected agents start no sandbox pool
    // What health sampled is a gauge too (a canary polling health makes it a CloudWatch metric).
    const gauges = ctx.services.metrics.snapshot().gauges;
    expect(gauges).toMatchObject({ RegistrationQueueDepth: after.queues.registration, RegistrationDlqDepth: 0, SettlementQueueDepth: after.queues.settlement, SettlementsPending: 0 });
    expect(gauges.AuthorityBalanceWei).toBeGreaterThan(0);

    const text = JSON.stringify(after).toLowerCase();
    expect(text).not.toContain(renterWallet);
    expect(text).not.toContain(okRun.run_id);
    expect(text).not.toContain(ctx.authority.address.toLowerCase());
  });
});
