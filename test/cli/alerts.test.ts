// `agentrent alerts` end to end against the API on the real chain: the settings shown, set (the signing
// secret printed once; what a call does not name is kept), bad input refused with exit 2, and the alerts
// listed once a per-task balance falls below the chosen number of runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentCall } from "../support/connected-agent.ts";
import { createCliHarness } from "../support/cli.ts";
import { until } from "../support/until.ts";
import { startWorld, type World } from "../support/world.ts";
import { EXIT } from "../../cli/src/errors.ts";

const work = mkdtempSync(join(tmpdir(), "agentrent-alerts-"));
let world: World;

function agent(call: AgentCall): void {
  call.output({ findings: [`done: ${call.task}`] });
}

const { actorEnv, cli, cliJson, killAll } = createCliHarness(work, () => ({ apiUrl: world.url, rpcUrl: world.rpcUrl, chainId: 31337, marketplace: world.config.MARKETPLACE_ADDRESS }));

beforeAll(async () => {
  world = await startWorld({ agent: { handler: agent }, jobs: { only: ["alerts"], everyMs: { alerts: 100 } } });
}, 240_000);

afterAll(async () => {
  await killAll();
  await world?.close();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

interface Settings { webhook_url: string | null; low_balance_runs: number | null; webhook_secret?: string }

describe("agentrent alerts", () => {
  it("shows, sets and keeps the settings, and lists a low-balance alert", async () => {
    const listing = await world.publishConnected("cli-alerts", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 3n });
    const env = actorEnv(renter.account, "renter");
    await cliJson(env, ["login"]);

    expect(await cliJson<Settings>(env, ["alerts", "show"])).toMatchObject({ webhook_url: null, low_balance_runs: null });
    const made = await cliJson<Settings>(env, ["alerts", "set", "--webhook", "https://example.com/hooks/agentrent", "--low-balance-runs", "2"]);
    expect(made).toMatchObject({ webhook_url: "https://example.com/hooks/agentrent", low_balance_runs: 2, webhook_secret: expect.stringMatching(/^whsec_/) });
    // Naming only the webhook keeps the threshold; no new secret is made.
    const kept = await cliJson<Settings>(env, ["alerts", "set", "--webhook", "none"]);
    expect(kept).toMatchObject({ webhook_url: null, low_balance_runs: 2 });
    expect(kept).not.toHaveProperty("webhook_secret");
    const shown = await cli(env, ["alerts", "show"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/dashboard notices only/);
    expect(shown.stdout).toMatch(/below 2 runs/);

    for (const args of [["alerts", "set"], ["alerts", "set", "--low-balance-runs", "0"], ["alerts", "list", "--limit", "101"]]) {
      const refused = await cli(env, args);
      expect(refused.code, args.join(" ")).toBe(EXIT.usage);
      expect(refused.stdout).toBe("");
    }
    // A webhook the API refuses (not https): an error, and nothing changed.
    const bad = await cli(env, ["alerts", "set", "--webhook", "http://example.com/hook"]);
    expect(bad.code).not.toBe(0);
    expect(await cliJson<Settings>(env, ["alerts", "show"])).toMatchObject({ webhook_url: null, low_balance_runs: 2 });

    expect(await cliJson<{ alerts: unknown[] }>(env, ["alerts", "list"])).toEqual({ alerts: [] });
    const execute = () => fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: "t" }) });
    expect((await execute()).status).toBe(200); // 2 runs left: not below 2
    expect((await execute()).status).toBe(200); // 1 left: below
    await until("the low-balance alert", async () => (await cliJson<{ alerts: unknown[] }>(env, ["alerts", "list"])).alerts.length === 1);
    const listed = await cli(env, ["alerts", "list"]);
    expect(listed.stdout).toMatch(new RegExp(`low_balance  listing ${listing.listing_id}: 1 runs left \\(below 2\\)  no_webhook`));
  }, 180_000);
});
