// Live listing figures from run outcomes: each run counted exactly once (repeated, concurrent, and
// after a failure at any step), last_run_at keeping the latest, the renter eligibility record, and
// the figures as renters see them on GET /v1/listings/{id} and in search.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { randomBytes } from "node:crypto";
import { GetCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import type { Tables } from "../../src/adapters/tables/dynamo.ts";
import { agentKey } from "../../src/listings/listing.store.ts";
import { recordRunOutcome, renterKey, runOutcomeKey, type RunOutcome } from "../../src/listings/stats.ts";
import { createCatalogue, type AgentRecord } from "../../src/listings/catalogue.ts";
import { parseSearchQuery } from "../../src/listings/search/index.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { publishAgent, type PublishedAgent } from "../support/agents.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let creator: Awaited<ReturnType<typeof fundedAccount>>;
let renterToken: string;
let seq = 0;

const renter = () => privateKeyToAccount(generatePrivateKey()).address;
const runId = () => `run_${randomBytes(16).toString("hex")}`;
/** Distinct, increasing finish times after the listing's approval. */
const at = (n: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString();

const manifest = (name: string) => ({
  name,
  category: "research",
  description: `Figures test agent ${name}.`,
  model: { provider: "provider_a", model: "m" },
  system_prompt: "p",
  input_schema: { type: "object" },
  output_schema: { type: "string", examples: ["a finding"] },
});

async function publish(): Promise<PublishedAgent> {
  return publishAgent(ctx, app, creator, manifest(`figures-agent-${++seq}`), "one_time");
}

async function agentOf(listing: PublishedAgent): Promise<AgentRecord> {
  return (await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("listings"), Key: agentKey(listing.onChainId), ConsistentRead: true }))).Item as AgentRecord;
}

function outcome(listing: PublishedAgent, status: RunOutcome["status"], finishedAt: string, wallet = renter()): RunOutcome {
  return { run_id: runId(), on_chain_id: listing.onChainId, wallet, status, finished_at: finishedAt };
}

/** The tables seen by a process that stops (every later call fails) at the first command `when` picks. */
function crashingTables(when: (command: { constructor: { name: string }; input: Record<string, unknown> }) => boolean): Tables {
  const real = ctx.services.tables;
  let crashed = false;
  const doc = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      if (crashed || when(command)) {
        crashed = true;
        throw new Error("process stopped");
      }
      return real.doc.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { raw: real.raw, name: real.name, doc };
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { CATALOGUE_REFRESH_MS: "0" } });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  creator = await fundedAccount(inject("rpcUrl"));
  await approveCreator(ctx, app, creator.address, (await signIn(app, creator)).token, "Figures Lab");
  renterToken = (await signIn(app, privateKeyToAccount(generatePrivateKey()))).token;
});

describe("recordRunOutcome", () => {
  it("counts each run once, however often and however concurrently it is recorded", async () => {
    const listing = await publish();
    const runs = [outcome(listing, "completed", at(1)), outcome(listing, "completed", at(2)), outcome(listing, "failed", at(3)), outcome(listing, "completed", at(4))];
    for (const run of runs) await recordRunOutcome(ctx.services.tables, run);
    // The same calls again, one by one and then five at a time each.
    for (const run of runs) await recordRunOutcome(ctx.services.tables, run);
    await Promise.all(runs.flatMap((run) => Array.from({ length: 5 }, () => recordRunOutcome(ctx.services.tables, { ...run }))));
    const agent = await agentOf(listing);
    expect(agent).toMatchObject({ stats_run_count: 4, stats_success_count: 3, stats_last_run_at: at(4) });
    // No change left in flight: every token was cleared.
    expect(agent.stats_in_flight).toBeUndefined();
    const marker = await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("runs"), Key: runOutcomeKey(runs[0]!.run_id), ConsistentRead: true }));
    expect(marker.Item).toMatchObject({ state: "counted", generation: 1 });
  });

  it("stays exact with many different runs recorded concurrently, each twice", async () => {
    const listing = await publish();
    const runs = Array.from({ length: 40 }, (_, i) => outcome(listing, i % 4 === 0 ? "failed" : "completed", at(100 + i)));
    await Promise.all([...runs, ...runs].map((run) => recordRunOutcome(ctx.services.tables, run)));
    expect(await agentOf(listing)).toMatchObject({ stats_run_count: 40, stats_success_count: 30, stats_last_run_at: at(139) });
  });

  it("keeps the latest finish time when outcomes arrive out of order", async () => {
    const listing = await publish();
    await recordRunOutcome(ctx.services.tables, outcome(listing, "completed", at(50)));
    await recordRunOutcome(ctx.services.tables, outcome(listing, "failed", at(20)));
    expect(await agentOf(listing)).toMatchObject({ stats_run_count: 2, stats_success_count: 1, stats_last_run_at: at(50) });
  });

  it("records a wallet's completed runs for the rating check, and not its failed ones", async () => {
    const listing = await publish();
    const wallet = renter();
    const failedOnly = renter();
    const first = outcome(listing, "completed", at(10), wallet);
    await recordRunOutcome(ctx.services.tables, first);
    await recordRunOutcome(ctx.services.tables, outcome(listing, "completed", at(30), wallet));
    await recordRunOutcome(ctx.services.tables, outcome(listing, "completed", at(20), wallet));
    await recordRunOutcome(ctx.services.tables, outcome(listing, "failed", at(40), failedOnly));
    const get = (w: string) => ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("runs"), Key: renterKey(listing.onChainId, w), ConsistentRead: true }));
    expect((await get(wallet)).Item).toMatchObject({ pk: `ran#${listing.onChainId.toLowerCase()}`, sk: wallet.toLowerCase(), first_run_id: first.run_id, last_run_at: at(30) });
    expect((await get(failedOnly)).Item).toBeUndefined();
  });

  it("counts a run once when the first attempt stopped before the figures were updated", async () => {
    const listing = await publish();
    const run = outcome(listing, "completed", at(60));
    const beforeFigures = crashingTables((command) => command.constructor.name === "UpdateCommand" && command.input.TableName === ctx.services.tables.name("listings"));
    await expect(recordRunOutcome(beforeFigures, run, { leaseMs: 200 })).rejects.toThrow("process stopped");
    expect((await agentOf(listing)).stats_run_count).toBeUndefined();
    // The retry waits out the stopped attempt's claim, takes it over and counts the run.
    await recordRunOutcome(ctx.services.tables, run);
    await recordRunOutcome(ctx.services.tables, run);
    expect(await agentOf(listing)).toMatchObject({ stats_run_count: 1, stats_success_count: 1 });
  });

  it("counts a run once when the first attempt stopped after the figures were updated", async () => {
    const listing = await publish();
    const run = outcome(listing, "completed", at(70));
    const afterFigures = crashingTables((command) => command.constructor.name === "UpdateCommand" && command.input.TableName === ctx.services.tables.name("runs") && String(command.input.UpdateExpression).includes(":counted"));
    await expect(recordRunOutcome(afterFigures, run, { leaseMs: 200 })).rejects.toThrow("process stopped");
    expect((await agentOf(listing)).stats_run_count).toBe(1);
    // A later run meanwhile, so only the run's own token can tell the retries it is counted.
    await recordRunOutcome(ctx.services.tables, outcome(listing, "failed", at(75)));
    await Promise.all([recordRunOutcome(ctx.services.tables, run), recordRunOutcome(ctx.services.tables, run)]);
    const agent = await agentOf(listing);
    expect(agent).toMatchObject({ stats_run_count: 2, stats_success_count: 1, stats_last_run_at: at(75) });
    // The change was taken over, so its token stays to fence the stopped attempt.
    expect([...(agent.stats_in_flight ?? [])]).toEqual([`run:${run.run_id}`]);
    const marker = await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("runs"), Key: runOutcomeKey(run.run_id), ConsistentRead: true }));
    expect(marker.Item).toMatchObject({ state: "counted", generation: 2 });
  });

  it("counts a run once when the first attempt failed and gave its claim up", async () => {
    const listing = await publish();
    const run = outcome(listing, "failed", at(80));
    let failures = 0;
    const flaky: Tables = {
      ...ctx.services.tables,
      doc: {
        send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
          // The marker's completion fails once; the claim's release still goes through.
          if (failures === 0 && String(command.input.UpdateExpression ?? "").includes(":counted")) {
            failures++;
            throw new Error("network error");
          }
          return ctx.services.tables.doc.send(command as never);
        },
      } as unknown as DynamoDBDocumentClient,
    };
    await expect(recordRunOutcome(flaky, run)).rejects.toThrow("network error");
    const started = Date.now();
    await recordRunOutcome(ctx.services.tables, run);
    // No wait for the default 10 s lease: the claim was given up.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await agentOf(listing)).toMatchObject({ stats_run_count: 1 });
    expect((await agentOf(listing)).stats_success_count ?? 0).toBe(0);
  });

  it("refuses malformed outcomes and never creates figures for an unknown listing", async () => {
    const listing = await publish();
    const good = outcome(listing, "completed", at(1));
    for (const bad of [{ ...good, run_id: "" }, { ...good, on_chain_id: "0x12" as `0x${string}` }, { ...good, wallet: "nobody" }, { ...good, status: "running" as never }, { ...good, finished_at: "yesterday" }]) {
      await expect(recordRunOutcome(ctx.services.tables, bad)).rejects.toThrow(TypeError);
    }
    const unknown = `0x${"ab".repeat(32)}` as const;
    await expect(recordRunOutcome(ctx.services.tables, { ...good, run_id: runId(), on_chain_id: unknown })).rejects.toThrow(/No agent record/);
    const phantom = await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("listings"), Key: agentKey(unknown), ConsistentRead: true }));
    expect(phantom.Item).toBeUndefined();
  });
});

describe("figures as renters see them", () => {
  it("shows run_count, success_rate and last_updated on GET /v1/listings/{id} at once and in search", async () => {
    const listing = await publish();
    const auth = { authorization: `Bearer ${renterToken}` };
    const before = (await (await app.request(`/v1/listings/${listing.listing_id}`, { headers: auth })).json()) as Record<string, unknown>;
    expect(before).toMatchObject({ run_count: 0, success_rate: 0, rating: 0, review_count: 0, last_updated: before.published_at });

    const statuses: RunOutcome["status"][] = ["completed", "completed", "failed", "completed", "completed", "failed", "completed"];
    for (const [i, status] of statuses.entries()) await recordRunOutcome(ctx.services.tables, outcome(listing, status, at(200 + i)));
    const detail = (await (await app.request(`/v1/listings/${listing.listing_id}`, { headers: auth })).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ run_count: 7, success_rate: 0.714, last_updated: at(206), published_at: before.published_at });

    const found = (await (await app.request("/v1/listings?limit=100", { headers: auth })).json()) as { listings: Record<string, unknown>[] };
    expect(found.listings.find((l) => l.id === listing.listing_id)).toMatchObject({ run_count: 7, success_rate: 0.714, last_updated: at(206) });
  });

  it("leaves last_updated at the publication time when that is later than the last run", async () => {
    const listing = await publish();
    await recordRunOutcome(ctx.services.tables, outcome(listing, "completed", "2020-01-01T00:00:00.000Z"));
    const detail = (await (await app.request(`/v1/listings/${listing.listing_id}`, { headers: { authorization: `Bearer ${renterToken}` } })).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ run_count: 1, success_rate: 1, last_updated: detail.published_at });
  });

  it("shows new figures in search once the catalogue refreshes", async () => {
    const listing = await publish();
    const catalogue = createCatalogue(ctx.services.tables, { refreshMs: 60_000 });
    const query = parseSearchQuery({ limit: "100" });
    const first = await catalogue.search(query);
    expect(first.listings.find((l) => l.id === listing.listing_id)).toMatchObject({ run_count: 0 });
    await recordRunOutcome(ctx.services.tables, outcome(listing, "completed", at(300)));
    // Within the interval the index still holds the old figures; a refresh (what the interval
    // triggers) brings the new ones.
    expect((await catalogue.search(query)).listings.find((l) => l.id === listing.listing_id)).toMatchObject({ run_count: 0 });
    await catalogue.refresh();
    expect((await catalogue.search(query)).listings.find((l) => l.id === listing.listing_id)).toMatchObject({ run_count: 1, success_rate: 1, last_updated: at(300) });
  });
});
