// A creator's schema patterns cannot freeze the API: registration refuses catastrophic and unrunnable
// patterns (through the real pipeline), and an agent whose stored schemas hold one anyway (written
// straight into its sealed logic, past registration) runs its patterns on the linear-time engine:
// GET /v1/health keeps answering within 100 ms while the hostile run is in flight, and the run fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { open, seal } from "../../src/registration/sealed.ts";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { createKey, signIn } from "../support/auth.ts";
import { startWorld, type App, type PublishedAgent, type World } from "../support/world.ts";

/** Thirty "a"s and a "!": on a backtracking engine `^(a+)+$` takes seconds on it (doubling per "a"). */
const EVIL_PATTERN = "^(a+)+$";
const EVIL_TEXT = `${"a".repeat(27)}!`;
const HEALTH_BUDGET_MS = 100;

let world: World;
let ctx: World["ctx"];
let app: App;
let creatorToken: string;
let renterKey: string;
let renter: Account;

/** The connected agent: answers EVIL_TEXT, once the test opens the gate it holds for the task (if any). */
async function agent(call: AgentCall): Promise<void> {
  await call.gate();
  call.output({ answer: EVIL_TEXT });
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
  const listing = await world.publishConnected(name, { manifest: MANIFEST, rental: "one_time" });
  await storeSchemas(listing, schemas);
  await world.rent(renter, listing);
  return listing;
}

function execute(body: unknown) {
  return Promise.resolve(app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renterKey}`, "content-type": "application/json" }, body: JSON.stringify(body) }));
}

interface Responsiveness {
  /** Each GET /v1/health answer's time, in ms. */
  health: number[];
  /** The most (user) CPU time the API's thread spent between two turns of its event loop, in ms: how long one
   * piece of work held the loop, so how long any request (health included) could be kept waiting by it.
   * CPU time rather than wall time, because this machine's cores are shared: a process the OS leaves
   * waiting for a core is late without anything of ours holding the loop, and a loop held by a
   * backtracking regex shows the regex's whole CPU time here however busy the machine is. */
  stallMs: number;
}

/** GET /v1/health, again and again until `done` settles (at least once), and the longest hold of the event loop meanwhile. */
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
  try {
    do {
      const started = performance.now();
      const res = await app.request("/v1/health");
      await res.arrayBuffer();
      health.push(performance.now() - started);
      expect(res.status).toBe(200);
      // paced, and through the timer queue: a loop of in-process requests would otherwise starve the
      // very work it watches (and meet health's rate limit)
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (!settled);
  } finally {
    clearInterval(sampler);
    stallMs = Math.max(stallMs, cpu() - last);
  }
  return { health, stallMs };
}

/** Health answers within 100 ms while the hostile work runs: nothing holds the event loop for 100 ms
 * of CPU (on the code before the fix, one 28-character input held it for seconds), and health's typical
 * answer comes back within 100 ms of wall time. Single answers are not held to it: on a machine whose
 * two cores are shared by many processes, a table or chain read alone can wait longer for a core. */
function expectResponsive(during: Responsiveness, baseline: Responsiveness): void {
  const sorted = [...during.health].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.POSITIVE_INFINITY;
  console.log(`health answers ${during.health.map(Math.round).join(",")} ms (quiet: ${baseline.health.map(Math.round).join(",")}); longest hold of the loop ${Math.round(during.stallMs)} ms of CPU`);
  expect(during.health.length).toBeGreaterThan(0);
  expect(during.stallMs).toBeLessThan(HEALTH_BUDGET_MS);
  expect(median).toBeLessThan(HEALTH_BUDGET_MS);
}

/** Health's own times with nothing hostile running, over about as many requests as a test makes. */
async function baseline(): Promise<Responsiveness> {
  return healthWhile(new Promise((resolve) => setTimeout(resolve, 300)));
}

beforeAll(async () => {
  world = await startWorld({ serve: false, agent: { handler: agent } });
  ({ ctx, app } = world);
  creatorToken = (await world.creator()).token;
  renter = await world.account();
  renterKey = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
  // health reads the tables and the chain, and registration builds its schema compiler once per process:
  // warm them so the timings below measure what the hostile patterns do, not one-time start-up costs
  await (await app.request("/v1/health")).arrayBuffer();
  expect(await register({ ...MANIFEST, name: "warm-up", entrypoint_url: world.agent.entrypoint("warm-up") })).toMatchObject({ status: "completed" });
});

afterAll(() => world?.close());

describe("registration refuses schema patterns that could freeze or cannot run on the linear-time engine", () => {
  it("fails the job naming each exponential pattern and where it is, and health answers within 100 ms while the check runs", { timeout: 120_000 }, async () => {
    const quiet = await baseline();
    const checking = register({
      ...MANIFEST,
      name: "evil-patterns",
      entrypoint_url: world.agent.entrypoint("evil-patterns"),
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
      entrypoint_url: world.agent.entrypoint("backref-patterns"),
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
      entrypoint_url: world.agent.entrypoint("everyday-patterns"),
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
    const gate = world.agent.gates.hold("hostile output");
    const run = execute({ agent_id: listing.agent_id, task: "hostile output", input: { text: "aaaa" } });
    const before = healthWhile(new Promise<void>((resolve) => {
      const poll = setInterval(() => gate.arrived > 0 && (clearInterval(poll), resolve()), 5);
    }));
    await before;
    // The agent answers now: its output reaches the output schema's pattern while health is asked.
    gate.open();
    const waiting = await before;
    const answered = await healthWhile(run);
    const times = { health: [...waiting.health, ...answered.health], stallMs: Math.max(waiting.stallMs, answered.stallMs) };
    const res = await run;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "failed", error: { code: "invalid_output" } });
    expectResponsive(times, quiet);
  });
});

describe("an agent whose stored schemas hold a pattern RE2 cannot run", () => {
  it("fails its runs with a clear reason before the agent is called, never a 500", async () => {
    const listing = await publishWithStoredSchemas("stored-lookahead", { input_schema: { type: "object", properties: { text: { type: "string", pattern: "^a(?=b)" } } } });
    const before = world.agent.deliveries.length;
    const res = await execute({ agent_id: listing.agent_id, task: "anything", input: { text: "ab" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; error: { code: string; message: string } };
    expect(body.status).toBe("failed");
    expect(body.error.message).toContain("cannot be checked safely by this service");
    expect(world.agent.deliveries.length).toBe(before);
  });
});
