// A creator's schema patterns cannot freeze the API: registration refuses catastrophic and unrunnable
// patterns (through the real pipeline), and an agent whose stored schemas hold one anyway (written
// straight into its sealed logic, past registration) runs its patterns on the linear-time engine:
// GET /v1/health, asked over the API's real HTTP server, keeps answering within 100 ms (every answer;
// see expectResponsive for how that is measured on a shared machine) while the hostile check or run is
// in flight, and the run fails.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { buildApp } from "../../src/api/app.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { open, seal } from "../../src/registration/sealed.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishConnectedAgent, type PublishedAgent } from "../support/agents.ts";
import { createGates } from "../support/gates.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { closeApi, readBody, serveApi } from "../support/http.ts";

type Account = Awaited<ReturnType<typeof fundedAccount>>;

/** Thirty "a"s and a "!": on a backtracking engine `^(a+)+$` takes seconds on it (doubling per "a"). */
const EVIL_PATTERN = "^(a+)+$";
const EVIL_TEXT = `${"a".repeat(27)}!`;
const HEALTH_BUDGET_MS = 100;

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
/** The same app behind the API's Node HTTP server: what health is asked through. */
let api: { server: Server; url: string };
let agentServer: HttpsTestServer;
let creator: Account;
let creatorToken: string;
let renterKey: string;
let renter: Account;
const gates = createGates();
let deliveries = 0;

async function agent(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const payload = JSON.parse(await readBody(req)) as { task: string };
  deliveries++;
  const gate = gates.get(payload.task);
  if (gate) {
    gate.arrived++;
    await gate.release;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: { answer: EVIL_TEXT } }));
}

const MANIFEST = {
  category: "research",
  description: "An agent whose schemas hold patterns",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { text: { type: "string", pattern: "^a+$" } } },
  output_schema: { type: "object", properties: { answer: { type: "string", pattern: "^a+!?$" } }, required: ["answer"], examples: [{ answer: "aaa" }] },
  timeout_seconds: 10,
};

function submit(manifest: Record<string, unknown>) {
  return app.request("/v1/agents", { method: "POST", headers: { authorization: `Bearer ${creatorToken}`, "content-type": "application/json" }, body: JSON.stringify(manifest) });
}

async function register(manifest: Record<string, unknown>): Promise<{ status: string; error?: { code: string; details: { pointer: string; code: string; message: string }[] } }> {
  const res = await submit(manifest);
  expect(res.status).toBe(202);
  const { job_id } = (await res.json()) as { job_id: string };
  await processRegistrationMessage(ctx.services, JSON.stringify({ job_id }));
  return (await (await app.request(`/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${creatorToken}` } })).json()) as never;
}

/** Rewrites a published agent's sealed logic, as if it had been stored before registration checked its patterns. */
async function storeSchemas(listing: PublishedAgent, schemas: { input_schema?: unknown; output_schema?: unknown }): Promise<void> {
  const record = (await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("listings"), Key: { pk: `listing#${listing.onChainId}`, sk: "agent" }, ConsistentRead: true }))).Item as { logic_blob: string; logic_key: string };
  const key = await ctx.services.keys.unwrap(record.logic_key, { purpose: "agent_logic", listing_id: listing.listing_id });
  const purpose = `agent_logic:${listing.listing_id}`;
  const manifest = JSON.parse(Buffer.from(open(key, (await ctx.services.blobs.get(record.logic_blob))!, purpose)).toString("utf8")) as Record<string, unknown>;
  await ctx.services.blobs.put(record.logic_blob, seal(key, Buffer.from(JSON.stringify({ ...manifest, ...schemas }), "utf8"), purpose), "application/octet-stream");
}

async function publishWithStoredSchemas(name: string, schemas: { input_schema?: unknown; output_schema?: unknown }): Promise<PublishedAgent> {
  const listing = await publishConnectedAgent(ctx, app, creator, { ...MANIFEST, name, entrypoint_url: `${agentServer.url}/agents/${name}` }, "one_time", "0.001", creatorToken);
  await storeSchemas(listing, schemas);
  await writeMarketplace(marketTarget(ctx), renter, "purchaseOneTime", [listing.onChainId], listing.priceWei);
  await indexChain(ctx);
  return listing;
}

function execute(body: unknown) {
  return Promise.resolve(app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renterKey}`, "content-type": "application/json" }, body: JSON.stringify(body) }));
}

interface Responsiveness {
  /** Each GET /v1/health answer's time over HTTP (request sent to body read), in ms. */
  health: number[];
  /** For each answer, the (user) CPU time the API's thread spent while it was pending, in ms. */
  healthCpu: number[];
  /** The most (user) CPU time the API's thread spent between two turns of its event loop, in ms: how long one
   * piece of work held the loop, so how long any request (health included) could be kept waiting by it.
   * CPU time rather than wall time, because this machine's cores are shared: a process the OS leaves
   * waiting for a core is late without anything of ours holding the loop, and a loop held by a
   * backtracking regex shows the regex's whole CPU time here however busy the machine is. */
  stallMs: number;
}

/** Distinct clients, as the trusted proxy in front of the server names them: health is public and its
 * rate rule counts per client, and a poll this fast from one address would meet it. */
let client = 0;
const nextClient = () => `198.51.100.${(client++ % 250) + 1}`;

/** GET /v1/health over HTTP, again and again until `done` settles (at least once), and the longest hold
 * of the event loop meanwhile. The server and this client share the process's event loop, as the API's
 * requests share it with a hostile run: a held loop delays the answer by the whole hold. */
async function healthWhile(done: Promise<unknown>): Promise<Responsiveness> {
  let settled = false;
  void done.finally(() => void (settled = true));
  let stallMs = 0;
  const cpu = () => {
    // user time: a regex runs there; the kernel's time in socket writes on this busy machine is not ours to judge
    return process.threadCpuUsage().user / 1000;
  };
  let last = cpu();
  const sampler = setInterval(() => {
    const now = cpu();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  const health: number[] = [];
  const healthCpu: number[] = [];
  try {
    do {
      const started = performance.now();
      const cpuAtStart = cpu();
      const res = await fetch(`${api.url}/v1/health`, { headers: { "x-forwarded-for": nextClient() } });
      await res.arrayBuffer();
      health.push(performance.now() - started);
      healthCpu.push(cpu() - cpuAtStart);
      expect(res.status).toBe(200);
      // paced, and through the timer queue: a tight loop of requests would otherwise starve the very
      // work it watches
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (!settled);
  } finally {
    clearInterval(sampler);
    stallMs = Math.max(stallMs, cpu() - last);
  }
  return { health, healthCpu, stallMs };
}

/** The 95th percentile of `times` (nearest rank). */
function p95(times: number[]): number {
  const sorted = [...times].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.POSITIVE_INFINITY;
}

/**
 * Health answers within 100 ms while the hostile work runs, judged on every answer over HTTP (the
 * slowest, not the typical one): no answer waited on more than 100 ms of this process's work (the CPU
 * time the API's thread spent while the answer was pending: its own handling, and whatever else held
 * the loop meanwhile), and no single piece of work held the loop for 100 ms. On the code before the fix
 * one 28-character input held the loop for seconds, and every answer pending meanwhile shows it.
 *
 * CPU time rather than wall time, because this machine's two cores are shared by many processes: the
 * answers' wall times (printed) include waiting for a core and for the emulators health probes, which
 * here reach hundreds of milliseconds with nothing hostile running (the quiet baseline shows it), while
 * a loop held by a backtracking regex shows its whole CPU time however busy the machine is.
 */
function expectResponsive(during: Responsiveness, baseline: Responsiveness): void {
  console.log(
    `health answers over HTTP ${during.health.map(Math.round).join(",")} ms, p95 ${Math.round(p95(during.health))} (quiet: ${baseline.health.map(Math.round).join(",")}); ` +
      `the API's CPU while each was pending ${during.healthCpu.map(Math.round).join(",")} ms (quiet: ${baseline.healthCpu.map(Math.round).join(",")}); longest hold of the loop ${Math.round(during.stallMs)} ms of CPU`,
  );
  expect(during.health.length).toBeGreaterThan(0);
  expect(Math.max(...during.healthCpu)).toBeLessThan(HEALTH_BUDGET_MS);
  expect(during.stallMs).toBeLessThan(HEALTH_BUDGET_MS);
}

/** Health's own times with nothing hostile running, over about as many requests as a test makes. */
async function baseline(): Promise<Responsiveness> {
  return healthWhile(new Promise((resolve) => setTimeout(resolve, 300)));
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { ALLOW_PRIVATE_AGENT_HOSTS: "true", TRUSTED_PROXIES: "127.0.0.1" } });
  ctx = world.ctx;
  agentServer = await startHttpsServer((req, res) => void agent(req, res));
  ctx.services.egress = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
  app = buildApp(ctx.services);
  api = await serveApi(app);
  creator = await fundedAccount(inject("rpcUrl"));
  creatorToken = (await signIn(app, creator)).token;
  await approveCreator(ctx, app, creator.address, creatorToken);
  renter = await fundedAccount(inject("rpcUrl"));
  renterKey = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
  // health reads the tables and the chain, and registration builds its schema compiler once per process:
  // warm them so the timings below measure what the hostile patterns do, not one-time start-up costs
  await (await fetch(`${api.url}/v1/health`, { headers: { "x-forwarded-for": nextClient() } })).arrayBuffer();
  expect(await register({ ...MANIFEST, name: "warm-up", entrypoint_url: `${agentServer.url}/agents/warm-up` })).toMatchObject({ status: "completed" });
});

afterAll(async () => {
  gates.openAll();
  await closeApi(api?.server);
  await agentServer?.stop();
  await world?.close();
});

describe("registration refuses schema patterns that could freeze or cannot run on the linear-time engine", () => {
  it("fails the job naming each exponential pattern and where it is, and health answers within 100 ms while the check runs", { timeout: 120_000 }, async () => {
    const quiet = await baseline();
    const checking = register({
      ...MANIFEST,
      name: "evil-patterns",
      entrypoint_url: `${agentServer.url}/agents/evil-patterns`,
      input_schema: { type: "object", properties: { text: { type: "string", pattern: EVIL_PATTERN } } },
      output_schema: { type: "object", patternProperties: { "^(\\w+\\s?)*$": { type: "string" } }, examples: [{ a: "b" }] },
    });
    const times = await healthWhile(checking);
    const job = await checking;
    expect(job.status).toBe("failed");
    expect(job.error?.code).toBe("invalid_manifest");
    expect(job.error?.details).toEqual([
      { pointer: "/input_schema/properties/text/pattern", code: "unsafe_pattern", message: expect.stringContaining(`"${EVIL_PATTERN}"`) },
      { pointer: "/output_schema/patternProperties/^(\\w+\\s?)*$", code: "unsafe_pattern", message: expect.stringContaining(`"^(\\w+\\s?)*$"`) },
    ]);
    expectResponsive(times, quiet);
  });

  it("fails the job for a backreference or lookaround, saying the pattern cannot run on RE2", async () => {
    const job = await register({
      ...MANIFEST,
      name: "backref-patterns",
      entrypoint_url: `${agentServer.url}/agents/backref-patterns`,
      input_schema: { type: "object", properties: { word: { type: "string", pattern: "^(\\w)\\1$" }, tail: { type: "string", pattern: "^a(?=b)" } } },
    });
    expect(job.status).toBe("failed");
    expect(job.error?.details.map((d) => [d.pointer, d.code])).toEqual([
      ["/input_schema/properties/word/pattern", "unsupported_pattern"],
      ["/input_schema/properties/tail/pattern", "unsupported_pattern"],
    ]);
    expect(job.error?.details[0]?.message).toMatch(/RE2.*Backreferences and lookahead\/lookbehind are not supported/);
  });

  it("registers everyday patterns, polynomial ones included (they run in linear time here)", async () => {
    const job = await register({
      ...MANIFEST,
      name: "everyday-patterns",
      entrypoint_url: `${agentServer.url}/agents/everyday-patterns`,
      input_schema: { type: "object", properties: { email: { type: "string", pattern: "^\\S+@\\S+\\.\\S+$" }, version: { type: "string", pattern: "\\d+\\.\\d+" }, code: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" } } },
    });
    expect(job).toMatchObject({ status: "completed" });
  });
});

describe("an agent whose stored schemas hold a catastrophic pattern", () => {
  let listing: PublishedAgent;
  beforeAll(async () => {
    listing = await publishWithStoredSchemas("stored-evil", {
      input_schema: { type: "object", properties: { text: { type: "string", pattern: EVIL_PATTERN } } },
      output_schema: { type: "object", properties: { answer: { type: "string", pattern: EVIL_PATTERN } }, patternProperties: { [EVIL_PATTERN]: {} }, required: ["answer"] },
    });
  });

  it("fails a run whose input meets the pattern, with health answering within 100 ms while it is in flight", { timeout: 120_000 }, async () => {
    const quiet = await baseline();
    const run = execute({ agent_id: listing.agent_id, task: "hostile input", input: { text: EVIL_TEXT } });
    const times = await healthWhile(run);
    const res = await run;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "failed", error: { code: "invalid_input" } });
    expectResponsive(times, quiet);
  });

  it("fails a run whose output meets the pattern, with health answering within 100 ms while it is in flight", { timeout: 120_000 }, async () => {
    const quiet = await baseline();
    const gate = gates.hold("hostile output");
    const run = execute({ agent_id: listing.agent_id, task: "hostile output", input: { text: "aaaa" } });
    const before = healthWhile(new Promise<void>((resolve) => {
      const poll = setInterval(() => gate.arrived > 0 && (clearInterval(poll), resolve()), 5);
    }));
    await before;
    // The agent answers now: its output reaches the output schema's pattern while health is asked.
    gate.open();
    const waiting = await before;
    const answered = await healthWhile(run);
    const times = { health: [...waiting.health, ...answered.health], healthCpu: [...waiting.healthCpu, ...answered.healthCpu], stallMs: Math.max(waiting.stallMs, answered.stallMs) };
    const res = await run;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "failed", error: { code: "invalid_output" } });
    expectResponsive(times, quiet);
  });
});

describe("an agent whose stored schemas hold a pattern RE2 cannot run", () => {
  it("fails its runs with a clear reason before the agent is called, never a 500", async () => {
    const listing = await publishWithStoredSchemas("stored-lookahead", { input_schema: { type: "object", properties: { text: { type: "string", pattern: "^a(?=b)" } } } });
    const before = deliveries;
    const res = await execute({ agent_id: listing.agent_id, task: "anything", input: { text: "ab" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; error: { code: string; message: string } };
    expect(body.status).toBe("failed");
    expect(body.error.message).toContain("cannot be checked safely by this service");
    expect(deliveries).toBe(before);
  });
});
