// Declarative agents end to end through the API: POST /v1/execute(/stream) → admission → a fresh
// pre-started sandbox running the bundled agent runtime → the local model server speaking the OpenAI
// chat-completions and Anthropic messages wire protocols → output validation and the Run. Also: the
// creator's provider key reaches its own runs only, and never a response or a log line.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stop as stopEsbuild } from "esbuild";
import { buildApp } from "../../src/api/app.ts";
import { buildRuntime } from "../../scripts/build-runtime.ts";
import { createLocalSandboxPool, type LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { createLogger } from "../../src/logger.ts";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import { createTestServices, fundedAccount, type TestContext } from "../support/services.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishAgent, type PublishedAgent } from "../support/agents.ts";

type Account = Awaited<ReturnType<typeof fundedAccount>>;

const KEY_A = "sk-creator-a-0123456789abcdef";
const KEY_B = "sk-creator-b-fedcba9876543210";
let ctx: TestContext;
let app: ReturnType<typeof buildApp>;
let models: ModelServer;
let pool: LocalSandboxPool;
let outDir: string;
let creator: Account;
let renterKey: string;
let renter: Account;
const logLines: string[] = [];

const SCHEMA_FINDINGS = { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"], additionalProperties: false };

async function publishDeclarative(name: string, model: Record<string, unknown>, providerKey: string | null, outputSchema: Record<string, unknown> = { type: "string" }): Promise<PublishedAgent> {
  const listing = await publishAgent(
    ctx,
    app,
    creator,
    { name, category: "research", description: "A declarative test agent", model, system_prompt: "You are a careful analyst.", input_schema: { type: "object" }, output_schema: outputSchema, timeout_seconds: 20 },
    "one_time",
  );
  if (providerKey) {
    const token = (await signIn(app, creator)).token;
    const res = await app.request(`/v1/listings/${listing.listing_id}/provider-key`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ provider_key: providerKey }) });
    expect(res.status).toBe(200);
  }
  await writeMarketplace(marketTarget(ctx), renter, "purchaseOneTime", [listing.onChainId], listing.priceWei);
  await indexChain(ctx);
  return listing;
}

function execute(body: unknown, path = "/v1/execute") {
  return app.request(path, { method: "POST", headers: { authorization: `Bearer ${renterKey}`, "content-type": "application/json" }, body: JSON.stringify(body) });
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "exec-runtime-"));
  const { entry } = await buildRuntime({ outDir });
  models = await startModelServer();
  ctx = await createTestServices({ ALLOW_PRIVATE_AGENT_HOSTS: "true", PROVIDER_A_BASE_URL: models.openaiBaseUrl, PROVIDER_B_BASE_URL: models.anthropicBaseUrl, LOG_LEVEL: "debug" });
  // Every log line of the service, to check no key is ever written.
  const logger = createLogger("debug", (line) => logLines.push(line));
  pool = createLocalSandboxPool({ warm: 1, allowFsRead: [outDir], preload: entry, memoryMb: 128 });
  Object.assign(ctx.services, { logger, runtimeEntry: entry, sandbox: () => pool });
  app = buildApp(ctx.services);
  creator = await fundedAccount(inject("rpcUrl"));
  renter = await fundedAccount(inject("rpcUrl"));
  await approveCreator(ctx, app, creator.address, (await signIn(app, creator)).token);
  renterKey = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
});

afterAll(async () => {
  await pool?.close();
  await models?.stop();
  await stopEsbuild();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("declarative agents through the API", () => {
  it("runs provider_a (OpenAI chat completions) and streams its text", async () => {
    const listing = await publishDeclarative("openai-writer", { provider: "provider_a", model: "gpt-test" }, KEY_A);
    const res = await execute({ agent_id: listing.agent_id, task: "Write about solar power", input: { region: "EU" } }, "/v1/execute/stream");
    expect(res.status).toBe(200);
    const text = await res.text();
    const deltas = [...text.matchAll(/event: output\ndata: (.*)\nid: (\d+)/g)].map((m) => (JSON.parse(m[1]!) as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(1);
    const done = JSON.parse(/event: done\ndata: (.*)\n/.exec(text)![1]!) as { status: string; output: string; cost_wei: number };
    expect(done).toMatchObject({ status: "completed", cost_wei: 0 });
    expect(done.output).toBe(deltas.join(""));
    expect(done.output).toContain("Write about solar power");
    const request = models.requests().find((r) => r.provider === "openai" && JSON.stringify(r.body).includes("solar power"))!;
    expect(request.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(JSON.stringify(request.body)).toContain("You are a careful analyst.");
    expect(JSON.stringify(request.body)).toContain("EU");
  });

  it("runs provider_b (Anthropic messages) to a structured output schema, validated", async () => {
    const listing = await publishDeclarative("anthropic-analyst", { provider: "provider_b", model: "claude-test" }, KEY_B, SCHEMA_FINDINGS);
    const res = await execute({ agent_id: listing.agent_id, task: "List the risks" });
    const run = (await res.json()) as { status: string; output: { findings: string[] } };
    expect(run.status).toBe("completed");
    expect(Array.isArray(run.output.findings)).toBe(true);
    const request = models.requests().find((r) => r.provider === "anthropic" && JSON.stringify(r.body).includes("List the risks"))!;
    expect(request.headers["x-api-key"]).toBe(KEY_B);
  });

  it("runs a self_hosted OpenAI-compatible endpoint", async () => {
    const listing = await publishDeclarative("self-hosted-agent", { provider: "self_hosted", endpoint_url: models.openaiBaseUrl, model: "local-llm" }, null);
    const run = (await (await execute({ agent_id: listing.agent_id, task: "Hello self hosted" })).json()) as { status: string; output: string };
    expect(run).toMatchObject({ status: "completed", output: "Echo: Hello self hosted" });
  });

  it("fails with a reason, never the key, when the provider refuses; and when the output breaks the schema", async () => {
    const listing = await publishDeclarative("flaky-provider", { provider: "provider_a", model: "gpt-test" }, KEY_A);
    const run = (await (await execute({ agent_id: listing.agent_id, task: "please [[error:429]]" })).json()) as { status: string; error: { code: string; message: string } };
    expect(run).toMatchObject({ status: "failed", error: { code: "agent_error" } });
    expect(run.error.message).toMatch(/429/);
    const strict = await publishDeclarative("strict-output", { provider: "provider_a", model: "gpt-test" }, KEY_A, SCHEMA_FINDINGS);
    const bad = (await (await execute({ agent_id: strict.agent_id, task: 'answer [[json {"findings": 3}]]' })).json()) as { status: string; error: { code: string } };
    expect(bad).toMatchObject({ status: "failed", error: { code: "invalid_output" } });
  });

  it("refuses a run whose creator set no provider key, and kills a run at its timeout", async () => {
    const unkeyed = await publishDeclarative("no-key-yet", { provider: "provider_a", model: "gpt-test" }, null);
    const refused = (await (await execute({ agent_id: unkeyed.agent_id, task: "x" })).json()) as { status: string; error: { code: string } };
    expect(refused).toMatchObject({ status: "failed", error: { code: "agent_not_configured" } });
    const slow = await publishDeclarative("slow-model", { provider: "provider_a", model: "gpt-test" }, KEY_A);
    const run = (await (await execute({ agent_id: slow.agent_id, task: "take your time [[slow:30000]]", timeout_seconds: 1 })).json()) as { status: string; error: { code: string } };
    expect(run).toMatchObject({ status: "failed", error: { code: "timeout" } });
    await expect.poll(() => pool.stats().busy, { timeout: 5000 }).toBe(0);
  });

  it("never writes a provider key to a response or a log line", () => {
    const everything = logLines.join("\n");
    for (const key of [KEY_A, KEY_B]) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(3, 15));
    }
  });
});
