// The sandbox pool's depth as an operator sees it: GET /v1/health reports no pool until a declarative
// run starts the service's own pool (the threaded process-per-run pool the local stack uses), shows the
// run's sandbox busy while it runs, and the pool's idle sandboxes after; the run's end records the
// SandboxIdle and SandboxBusy gauges.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildApp } from "../../src/api/app.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishAgent } from "../support/agents.ts";
import { until } from "../support/until.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let models: ModelServer;

beforeAll(async () => {
  models = await startModelServer();
  // The services' own pool (not one a test hands in): health reads its figures through sandboxStats.
  world = await startWorld({ serve: false, env: { ALLOW_PRIVATE_AGENT_HOSTS: "true", PROVIDER_A_BASE_URL: models.openaiBaseUrl, SANDBOX_WARM: "1" } });
  ctx = world.ctx;
  app = buildApp(ctx.services);
});

afterAll(async () => {
  await world?.close();
  await models?.stop();
});

/** Health is rate limited per client like any public route (100 a minute): poll it gently. */
const HEALTH_POLL_MS = 250;

interface SandboxFigures {
  idle: number;
  starting: number;
  busy: number;
}

async function sandboxInHealth(): Promise<SandboxFigures | null> {
  const res = await app.request("/v1/health");
  expect(res.status).toBe(200);
  return ((await res.json()) as { sandbox: SandboxFigures | null }).sandbox;
}

describe("the sandbox pool in the operator's figures", () => {
  it("is null before any declarative run, shows the run's sandbox busy while it runs, and records the pool's depth when it ends", async () => {
    expect(await sandboxInHealth()).toBeNull();
    expect(ctx.services.metrics.snapshot().gauges.SandboxIdle).toBeUndefined();

    const creator = await fundedAccount(inject("rpcUrl"));
    const renter = await fundedAccount(inject("rpcUrl"));
    const creatorToken = (await signIn(app, creator)).token;
    await approveCreator(ctx, app, creator.address, creatorToken);
    const manifest = { name: "pool-depth", category: "research", description: "A declarative agent", model: { provider: "provider_a", model: "gpt-test" }, system_prompt: "Answer briefly.", input_schema: { type: "object" }, output_schema: { type: "string" }, timeout_seconds: 60 };
    const listing = await publishAgent(ctx, app, creator, manifest, "one_time", "0.001", creatorToken);
    const put = await app.request(`/v1/listings/${listing.listing_id}/provider-key`, { method: "PUT", headers: { authorization: `Bearer ${creatorToken}`, "content-type": "application/json" }, body: JSON.stringify({ provider_key: "sk-pool-depth-0123456789" }) });
    expect(put.status).toBe(200);
    await writeMarketplace(marketTarget(ctx), renter, "purchaseOneTime", [listing.onChainId], listing.priceWei);
    await indexChain(ctx);
    const key = (await createKey(app, renter, (await signIn(app, renter)).token)).key;

    // A model that answers one word every 400 ms keeps the run in its sandbox for a few seconds.
    const running = app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: `slowly ${"word ".repeat(12)}[[slow:400]]` }) });
    let during: SandboxFigures | null = null;
    await until("health to show the run's sandbox busy", async () => ((during = await sandboxInHealth())?.busy ?? 0) === 1, 20_000, HEALTH_POLL_MS);
    expect(during).toMatchObject({ busy: 1 });
    expect(await (await running).json()).toMatchObject({ status: "completed" });

    const gauges = ctx.services.metrics.snapshot().gauges;
    // Recorded as the run ended: its own sandbox may still count as busy for the instant it exits.
    expect(gauges.SandboxBusy).toBeGreaterThanOrEqual(0);
    expect(gauges.SandboxBusy).toBeLessThanOrEqual(1);
    expect(gauges.SandboxIdle).toBeGreaterThanOrEqual(0);
    expect(gauges.SandboxIdle).toBeLessThanOrEqual(8);
    // Each sandbox serves one run: the used one is gone and the pool refills to its warm target.
    await until("the pool to be back at its warm target with nothing busy", async () => {
      const after = await sandboxInHealth();
      return after !== null && after.busy === 0 && after.idle === 1;
    }, 20_000, HEALTH_POLL_MS);
  }, 90_000);
});
