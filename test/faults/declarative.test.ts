// Faults under declarative agents: the model provider answers 500, hangs past the run's time, or cuts its
// stream (the local model server's fault directives, on both wire protocols, sync and stream routes); and
// the sandbox process running the agent is killed mid-run. Every agent here is per-query, so each fault is
// also a question of money. After each: nothing left running or held, every charge matches exactly one
// run, no output released unpaid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stop as stopEsbuild } from "esbuild";
import { buildRuntime } from "../../scripts/build-runtime.ts";
import { createLocalSandboxPool, type LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import { until } from "../support/until.ts";
import { expectMoneyAndRecordsIntact, hasOutput, startFaultWorld, type Answer, type FaultWorld, type Renter } from "./support.ts";
import type { PublishedAgent } from "../support/agents.ts";

const PROVIDER_KEY = "sk-faults-0123456789abcdef";
let world: FaultWorld;
let models: ModelServer;
let pool: LocalSandboxPool;
let outDir: string;
let renter: Renter;
const agents: Record<"openai" | "anthropic", PublishedAgent> = {} as never;

function manifest(name: string, provider: "provider_a" | "provider_b", timeoutSeconds: number): Record<string, unknown> {
  return {
    name,
    category: "research",
    description: "A declarative agent of the fault suite",
    model: { provider, model: provider === "provider_a" ? "gpt-test" : "claude-test" },
    system_prompt: "You answer briefly.",
    input_schema: { type: "object" },
    output_schema: { type: "string" },
    timeout_seconds: timeoutSeconds,
  };
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "faults-runtime-"));
  const [{ entry }, modelServer] = await Promise.all([buildRuntime({ outDir }), startModelServer()]);
  models = modelServer;
  // The charge of a stream that delivered output is waited for as the service waits by default (15 s,
  // not the fault world's 3 s): four fresh sandboxes at once on a loaded machine can keep the settler's
  // block from being seen within 3 s, and these runs are meant to settle in the request.
  world = await startFaultWorld({ env: { PROVIDER_A_BASE_URL: models.openaiBaseUrl, PROVIDER_B_BASE_URL: models.anthropicBaseUrl, SETTLEMENT_WAIT_MS: "15000" } });
  // One sandbox process per run, one kept warm: the pool tells which process the next run gets.
  pool = createLocalSandboxPool({ warm: 1, allowFsRead: [outDir], preload: entry, memoryMb: 128 });
  Object.assign(world.ctx.services, { runtimeEntry: entry, sandbox: () => pool });
  // One after the other: both listings are the creator's transactions (one nonce sequence).
  const openai = await world.publishManifest(manifest("faulty-openai", "provider_a", 15), "per_query", PROVIDER_KEY);
  const anthropic = await world.publishManifest(manifest("faulty-anthropic", "provider_b", 15), "per_query", PROVIDER_KEY);
  Object.assign(agents, { openai, anthropic });
  renter = await world.renter();
  await world.buy(renter, openai, openai.priceWei * 20n);
  await world.buy(renter, anthropic, anthropic.priceWei * 20n);
});

afterAll(async () => {
  await world?.stop();
  await pool?.close();
  await models?.stop();
  await stopEsbuild();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

const ROUTES = [
  { route: "sync", stream: false },
  { route: "stream", stream: true },
] as const;
const PROVIDERS = ["openai", "anthropic"] as const;

/** Every provider on every route, at once (the AI SDK's own retries of a 500 take seconds each). */
async function everyProviderAndRoute(task: (provider: string, route: string) => string, body: Record<string, unknown> = {}): Promise<{ provider: (typeof PROVIDERS)[number]; route: string; answer: Answer }[]> {
  return Promise.all(
    PROVIDERS.flatMap((provider) =>
      ROUTES.map(async ({ route, stream }) => ({ provider, route, answer: await world.execute(renter, { agent_id: agents[provider].agent_id, task: task(provider, route), ...body }, { stream }) })),
    ),
  );
}

/** A failed run's charge follows the execution rule: a stream that delivered output is charged its price,
 * anything else is free and carries no output. */
function expectChargedOnlyForDelivered(answer: Answer, price: bigint): void {
  expect(answer.status).toBe(200);
  const charged = BigInt(answer.body.cost_wei as number);
  if (answer.deltas.length > 0) expect(charged).toBe(price);
  else {
    expect(charged).toBe(0n);
    expect(hasOutput(answer.body.output)).toBe(false);
  }
}

describe("the model provider fails", () => {
  it("answers 500: every run fails agent_error, is free, carries no output and holds nothing", async () => {
    const results = await everyProviderAndRoute((provider, route) => `fail with a server error ${provider} ${route} [[error:500]]`);
    for (const { answer } of results) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: "failed", cost_wei: 0, error: { code: "agent_error" } });
      expect(answer.body.error).toMatchObject({ message: expect.stringMatching(/500/) });
      expect(answer.deltas).toEqual([]);
    }
    await expectMoneyAndRecordsIntact(world);
  }, 60_000);

  it("hangs without answering: the run fails at its timeout, free and with nothing held", async () => {
    const results = await everyProviderAndRoute((provider, route) => `hang ${provider} ${route} [[error:500]] [[slow:60000]]`, { timeout_seconds: 2 });
    for (const { answer } of results) {
      // The runtime's own abort at the deadline and the pool's kill read the same: timeout.
      expect(answer.body).toMatchObject({ status: "failed", cost_wei: 0, error: { code: "timeout" } });
      expect(answer.deltas).toEqual([]);
    }
    await expectMoneyAndRecordsIntact(world);
  }, 60_000);

  it("hangs mid-answer past the caller's timeout: a stream that delivered output is charged once, everything else is free and withheld", async () => {
    // Four runs start at once, each in a fresh sandbox: the timeout leaves a loaded machine room for the
    // first words, and the answer (48 words, 14.4 s) still outlasts it.
    const results = await everyProviderAndRoute((provider, route) => `trickle ${provider} ${route} ${"word ".repeat(48)}[[slow:300]]`, { timeout_seconds: 10 });
    for (const { answer, provider, route } of results) {
      expect(answer.body).toMatchObject({ status: "failed", error: { code: "timeout" } });
      expectChargedOnlyForDelivered(answer, agents[provider].priceWei);
      // The stream delivered words before the timeout (so the charged branch is exercised); sync delivered none.
      expect(answer.deltas.length > 0).toBe(route === "stream");
    }
    await expectMoneyAndRecordsIntact(world);
  }, 60_000);

  it("cuts its stream half-way: the run fails, a stream that delivered output is charged once, everything else is free and withheld", async () => {
    const results = await everyProviderAndRoute((provider, route) => `cut ${provider} ${route} alpha beta gamma delta epsilon zeta eta theta [[stream-cut]]`);
    for (const { answer, provider, route } of results) {
      expect(answer.body).toMatchObject({ status: "failed" });
      expectChargedOnlyForDelivered(answer, agents[provider].priceWei);
      expect(answer.deltas.length > 0).toBe(route === "stream");
    }
    await expectMoneyAndRecordsIntact(world);
  }, 60_000);
});

describe("a sandbox is killed mid-run", () => {
  it.each(ROUTES)("on the $route route: the run fails crashed, nothing is held, and it is charged only for output already delivered", async ({ stream }) => {
    const listing = agents.openai;
    await until("a warm sandbox", () => pool.idlePids().length === 1);
    const pid = pool.idlePids()[0]!;
    const task = `killed mid-run ${stream ? "stream" : "sync"} one two three four five six seven eight nine ten [[slow:400]]`;
    const answering = world.execute(renter, { agent_id: listing.agent_id, task }, { stream });
    // The model request arrives from inside the run's sandbox: that process is mid-run.
    await until("the run's model request", () => models.requests().some((request) => JSON.stringify(request.body).includes(task)));
    expect(pool.idlePids()).not.toContain(pid);
    process.kill(pid, "SIGKILL");
    const answer = await answering;
    expect(answer.body).toMatchObject({ status: "failed", error: { code: "crashed" } });
    expectChargedOnlyForDelivered(answer, listing.priceWei);
    if (!stream) expect(answer.body).toMatchObject({ cost_wei: 0 });
    await expectMoneyAndRecordsIntact(world);
  });
});
