// `agentrent creator stats` end to end through the command line (run in-process) against the real
// service (the API over HTTP, the real chain, the indexer and the settler running): a creator's figures
// after a renter's per-task rental and runs (revenue, runs, the renter by wallet, reconciled with the
// chain), one table as CSV, and bad input (GET /v1/creators/me/analytics through the CLI).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCliHarness } from "../support/cli.ts";
import { until } from "../support/until.ts";
import { startWorld, type World, type Creator, type Renter, type PublishedAgent } from "../support/world.ts";
import { EXIT } from "../../cli/src/errors.ts";

const work = mkdtempSync(join(tmpdir(), "agentrent-e2e-analytics-"));
let world: World;
let creator: Creator;
let renter: Renter;
let listing: PublishedAgent;

const { actorEnv, cli, cliJson, killAll } = createCliHarness(work, () => ({ apiUrl: world.url, rpcUrl: world.rpcUrl, chainId: 31337, marketplace: world.config.MARKETPLACE_ADDRESS }));

beforeAll(async () => {
  world = await startWorld({ agent: true, jobs: { only: ["indexer"], everyMs: { indexer: 100 } } });
  creator = await world.creator();
  listing = await world.publishConnected("stats-researcher", { rental: "per_query" });
  renter = await world.renter();
  await world.rent(renter.account, listing);
  for (const task of ["first", "second"]) {
    const res = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
    expect(res.status).toBe(200);
    await res.text();
  }
}, 180_000);

afterAll(async () => {
  await killAll();
  await world?.close();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe("agentrent creator stats (GET /v1/creators/me/analytics)", () => {
  it("shows the creator's revenue, runs and renters, reconciled with the chain; a table as CSV", async () => {
    const env = actorEnv(creator.account, "creator");
    await cliJson(env, ["login"]);
    type Stats = { totals: { runs: { completed: number }; revenue: { by_model: { per_query: { gross_wei: number } } } }; top_renters: { wallet: string }[]; reconciliation: { matches: boolean; block: string | null } };
    let stats: Stats | undefined;
    // The runs' charges reach the figures once the indexer counts their blocks.
    await until("the figures to count both runs and their charges", async () => {
      stats = await cliJson<Stats>(env, ["creator", "stats", listing.listing_id]);
      return stats.totals.runs.completed === 2 && BigInt(stats.totals.revenue.by_model.per_query.gross_wei) === 2n * listing.priceWei && stats.reconciliation.matches;
    }, 60_000, 500);
    expect(stats!.top_renters.map((r) => r.wallet)).toEqual([renter.account.address.toLowerCase()]);

    const text = await cli(env, ["creator", "stats"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/runs +2 completed +0 failed/);
    expect(text.stdout).toMatch(/reconciled: matches the chain as of block \d+/);

    const csv = await cli(env, ["creator", "stats", "--csv", "top_renters"]);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split(/\r?\n/)[0]).toBe("wallet,spend_wei,runs,purchases,renewals");
    expect(csv.stdout).toContain(renter.account.address.toLowerCase());
  }, 120_000);

  it("refuses a bad granularity (exit 2) and another creator's listing (not found)", async () => {
    const env = actorEnv(creator.account, "creator");
    const bad = await cli(env, ["creator", "stats", "--granularity", "week"]);
    expect(bad.code).toBe(EXIT.usage);
    const stranger = actorEnv(renter.account, "stranger");
    await cliJson(stranger, ["login"]);
    const foreign = await cli(stranger, ["creator", "stats", listing.listing_id]);
    expect(foreign.code).toBe(EXIT.notFound);
  }, 60_000);
});
