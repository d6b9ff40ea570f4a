// POST /v1/execute and /v1/execute/stream end to end with a connected agent: a real HTTPS server (a CA
// made by the test) that checks every delivery's Standard Webhooks signature with the `standardwebhooks`
// library, the real chain and contract, dynalite. Covers the request rules, every refusal before the
// agent runs, the Run, streaming with resumable event ids, Idempotency-Key, the per-listing concurrency
// limit, per-query settlement to the wei, and the faults (chain down, the authority's transaction
// failing, timeouts), and the on-chain run log as its renter verifies it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toBytes, type Hex } from "viem";
import { buildApp } from "../../src/api/app.ts";
import { createServices } from "../../src/services.ts";
import { loadConfig } from "../../src/config.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { claimedRun, claimIdempotencyKey, claimOf, releaseIdempotencyKey, requestHash } from "../../src/execution/idempotency/protocol.ts";
import { idempotencyStore } from "../../src/execution/idempotency/idempotency.store.ts";
import { newRunId, STALE_AFTER_TIMEOUT_MS, type RunRecord } from "../../src/execution/runs/run.ts";
import { claimedRuns, createRun, getRun } from "../../src/execution/runs/run.store.ts";
import { finishStaleRuns } from "../../src/execution/runs/stale-runs.ts";
import { leaseMapAt } from "../../src/execution/leases/lease-map.store.ts";
import { ledgerKey } from "../../src/execution/money/ledger.store.ts";
import { runJob } from "../../src/jobs.ts";
import type { Tables } from "../../src/adapters/tables/dynamo.ts";
import type { ApiError } from "../../src/errors.ts";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { parseSseJson as parseSse } from "../support/sse.ts";
import { startWorld, type App, type PublishedAgent, type World } from "../support/world.ts";
import { settledByPasses } from "../support/settlement.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";

let world: World;
let ctx: World["ctx"];
let app: App;
let creator: Account;
/** The webhook secret of the agent published last. */
let webhookSecret = "";
/** Every delivery the connected agent received: its task, run and whether its signature verified. */
const deliveries = () => world.agent.deliveries;
/** Runs the agent holds open until released, by task. */
const hold = (task: string) => world.agent.gates.hold(task);

/** The connected agent: its behaviour is chosen by the task's first word. */
async function agent(call: AgentCall): Promise<void> {
  const { res } = call;
  const [word] = call.task.split(" ");
  await call.gate();
  if (word === "fail") return call.fail(500, '{"error":"boom"}');
  if (word === "bad-output") return call.output({ findings: "not an array" });
  if (word === "never") return; // never answers
  if (word === "deep") {
    // an answer nested 20,000 levels deep
    return void res.writeHead(200, { "content-type": "application/json" }).end(`{"output":{"findings":${"[".repeat(20_000)}${"]".repeat(20_000)}}}`);
  }
  if (word === "stream") return call.stream(["alpha ", "beta ", "gamma"], { findings: ["alpha", "beta", "gamma"] });
  if (word === "trickle") {
    // one piece of output, then nothing more until the caller gives up
    call.startEvents();
    return call.event("output", { delta: "first part " });
  }
  if (word === "stream-cut") {
    call.startEvents();
    call.event("output", { delta: "partial " });
    setImmediate(() => res.destroy());
    return;
  }
  call.output({ findings: [`done: ${call.task}`], input: call.input });
}

const MANIFEST = {
  category: "research",
  description: "A connected test agent",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } }, input: {} }, required: ["findings"] },
  timeout_seconds: 10,
};

async function publishConnected(name: string, rental: RentalModel, price = "0.001", manifest: Record<string, unknown> = {}): Promise<PublishedAgent> {
  const published = await world.publishConnected(name, { manifest: { ...MANIFEST, ...manifest }, rental, price });
  webhookSecret = published.webhookSecret;
  return published;
}

const renterWithKey = () => world.renter();

function execute(key: string, body: unknown, headers: Record<string, string> = {}, path = "/v1/execute", target: Pick<App, "request"> = app) {
  return target.request(path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
}

async function balanceOf(listing: PublishedAgent, wallet: Hex): Promise<bigint> {
  const [balance] = await ctx.services.chain.client.readContract({ address: ctx.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, wallet] });
  return balance;
}

async function escrowOf(listing: PublishedAgent): Promise<bigint> {
  const [, escrow] = await ctx.services.chain.client.readContract({ address: ctx.services.chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [listing.onChainId] });
  return escrow;
}

beforeAll(async () => {
  world = await startWorld({ serve: false, agent: { handler: agent } });
  ({ ctx, app } = world);
  creator = (await world.creator()).account;
});

afterAll(() => world?.close());

describe("the execute request", () => {
  let listing: PublishedAgent;
  let key: string;
  beforeAll(async () => {
    listing = await publishConnected("request-rules", "one_time");
    const renter = await renterWithKey();
    key = renter.key;
    await world.rent(renter.account, listing);
  });

  it.each([
    [{}, "agent_id"],
    [{ task: "x" }, "agent_id"],
    [{ agent_id: "a" }, "task"],
    [{ agent_id: "a", task: "" }, "task"],
    [{ agent_id: "a", task: "x", input: 5 }, "input"],
    [{ agent_id: "a", task: "x", input: "t", input_uri: "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy" }, "input_uri"],
    [{ agent_id: "a", task: "x", input_uri: "https://example.com/file" }, "input_uri"],
    [{ agent_id: "a", task: "x", priority: "urgent" }, "priority"],
    [{ agent_id: "a", task: "x", timeout_seconds: 0 }, "timeout_seconds"],
    [{ agent_id: "a", task: "x", timeout_seconds: 301 }, "timeout_seconds"],
    [{ agent_id: "a", task: "x", timeout_seconds: 1.5 }, "timeout_seconds"],
    [{ agent_id: "a", task: "x", surprise: true }, "surprise"],
  ])("refuses %j with 400 invalid_request naming %s, before anything runs", async (body, field) => {
    const before = deliveries().length;
    const res = await execute(key, { ...body, ...(typeof (body as { agent_id?: string }).agent_id === "string" ? { agent_id: listing.agent_id } : {}) });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: { code: string; message: string; status: number; request_id: string } }).error;
    expect(error).toMatchObject({ code: "invalid_request", status: 400 });
    expect(error.message).toContain(field);
    expect(error.request_id).toMatch(/\S/);
    expect(deliveries().length).toBe(before);
  });

  it("refuses a body that is not JSON, and an unauthenticated call", async () => {
    expect((await execute(key, "{not json")).status).toBe(400);
    const res = await app.request("/v1/execute", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: "x" }) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("answers a malformed agent id with 400 invalid_listing_id and an unknown one with 404 listing_not_found", async () => {
    const malformed = await execute(key, { agent_id: "lst_xyz", task: "x" });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("invalid_listing_id");
    const unknown = await execute(key, { agent_id: `lst_${"ab".repeat(32)}`, task: "x" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("listing_not_found");
  });

  it("runs a one-time rental: the Run, a signed delivery, cost 0, and the run readable by its renter only (GET /v1/runs/{run_id})", async () => {
    const res = await execute(key, { agent_id: listing.agent_id, task: "summarise the market", input: { topic: "e-bikes" } });
    expect(res.status).toBe(200);
    const run = (await res.json()) as Record<string, unknown>;
    expect(run).toMatchObject({ agent_id: listing.agent_id, status: "completed", cost_wei: 0, output: { findings: ["done: summarise the market"], input: { topic: "e-bikes" } } });
    expect(run.run_id).toMatch(/^run_[0-9a-f]{32}$/);
    expect(Number.isInteger(run.duration_ms)).toBe(true);
    expect(deliveries().at(-1)).toMatchObject({ runId: run.run_id, verified: true });
    const detail = await app.request(`/v1/runs/${String(run.run_id)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({ run_id: run.run_id, status: "completed", listing_id: listing.listing_id, rental_model: "one_time", settlement: "none", cost_wei: 0, receipt: null });
    const stranger = await renterWithKey();
    expect((await app.request(`/v1/runs/${String(run.run_id)}`, { headers: { authorization: `Bearer ${stranger.key}` } })).status).toBe(404);
    expect((await app.request(`/v1/runs/run_nope`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);
  });

  it("counts runs in the listing's live figures, and lets a renter who ran it rate it (off-chain: shown apart from the verified on-chain rating)", async () => {
    const figures = async () => (await (await app.request(`/v1/listings/${listing.listing_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { run_count: number; success_rate: number; rating: number; review_count: number };
    const before = await figures();
    await execute(key, { agent_id: listing.agent_id, task: "count me" });
    await execute(key, { agent_id: listing.agent_id, task: "fail to count" });
    const after = await figures();
    expect(after.run_count).toBe(before.run_count + 2);
    const rated = await app.request(`/v1/listings/${listing.listing_id}/rating`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ rating: 4 }) });
    expect(rated.status).toBe(200);
    // The rating's answer carries the off-chain ratings' figures; the listing's own rating is its verified
    // on-chain feedback, which an off-chain rating does not move.
    expect(await rated.json()).toMatchObject({ rating: 4, listing: { rating: 4, review_count: 1 } });
    expect(await figures()).toMatchObject({ rating: before.rating, review_count: before.review_count });
    const reputation = (await (await app.request(`/v1/listings/${listing.listing_id}/reputation`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(reputation).toMatchObject({ before_on_chain: { rating: 4, review_count: 1 } });
    const stranger = await renterWithKey();
    const refused = await app.request(`/v1/listings/${listing.listing_id}/rating`, { method: "PUT", headers: { authorization: `Bearer ${stranger.key}`, "content-type": "application/json" }, body: JSON.stringify({ rating: 5 }) });
    expect(refused.status).toBe(403);
  });

  it("fails (200) an input that does not match the input schema, without calling the agent", async () => {
    const before = deliveries().length;
    const res = await execute(key, { agent_id: listing.agent_id, task: "x", input: { topic: 7 } });
    expect(res.status).toBe(200);
    const run = (await res.json()) as { status: string; error: { code: string; message: string }; cost_wei: number };
    expect(run).toMatchObject({ status: "failed", cost_wei: 0, error: { code: "invalid_input" } });
    expect(run.error.message).toContain("/topic");
    expect(deliveries().length).toBe(before);
  });

  it("fails an output that does not match the output schema, and an agent error, each with its reason", async () => {
    const bad = (await (await execute(key, { agent_id: listing.agent_id, task: "bad-output now" })).json()) as { status: string; error: { code: string } };
    expect(bad).toMatchObject({ status: "failed", error: { code: "invalid_output" } });
    const failed = (await (await execute(key, { agent_id: listing.agent_id, task: "fail now" })).json()) as { status: string; error: { code: string; message: string } };
    expect(failed).toMatchObject({ status: "failed", error: { code: "agent_http_error" } });
    expect(failed.error.message).toContain("500");
    expect(JSON.stringify(failed)).not.toContain(webhookSecret.slice(6, 20));
  });

  it("fails a run at the caller's timeout and keeps nothing running", async () => {
    const res = await execute(key, { agent_id: listing.agent_id, task: "never answers", timeout_seconds: 1 });
    const run = (await res.json()) as { status: string; error: { code: string }; duration_ms: number };
    expect(run).toMatchObject({ status: "failed", error: { code: "timeout" } });
    expect(run.duration_ms).toBeGreaterThanOrEqual(900);
    expect(run.duration_ms).toBeLessThan(5000);
  });

  it("caps a timeout_seconds above the agent's own at the manifest's timeout", async () => {
    const quick = await publishConnected("quick-timeout", "one_time", "0.001", { timeout_seconds: 1 });
    const renter = await renterWithKey();
    await world.rent(renter.account, quick);
    const began = performance.now();
    const run = (await (await execute(renter.key, { agent_id: quick.agent_id, task: "never answers", timeout_seconds: 30 })).json()) as { status: string; error: { code: string }; duration_ms: number };
    expect(run).toMatchObject({ status: "failed", error: { code: "timeout" } });
    expect(run.duration_ms).toBeGreaterThanOrEqual(900);
    expect(performance.now() - began).toBeLessThan(10_000);
  });

  it("takes input by content address (POST /v1/inputs) and refuses an address with nothing stored", async () => {
    const upload = await app.request("/v1/inputs", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ content: JSON.stringify({ topic: "solar" }) }) });
    expect(upload.status).toBe(201);
    const { input_uri } = (await upload.json()) as { input_uri: string };
    const run = (await (await execute(key, { agent_id: listing.agent_id, task: "from a file", input_uri })).json()) as { status: string; output: { input: unknown } };
    expect(run).toMatchObject({ status: "completed", output: { input: { topic: "solar" } } });
    const missing = (await (await execute(key, { agent_id: listing.agent_id, task: "x", input_uri: "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy" })).json()) as { status: string; error: { code: string } };
    expect(missing).toMatchObject({ status: "failed", error: { code: "invalid_input" } });
  });
});

describe("refusals before the agent runs", () => {
  it("refuses a wallet without a credential and a paused listing with the contract's errors", async () => {
    const listing = await publishConnected("refusals", "one_time");
    const renter = await renterWithKey();
    const before = deliveries().length;
    const none = await execute(renter.key, { agent_id: listing.agent_id, task: "x" });
    expect(none.status).toBe(403);
    expect(await none.json()).toMatchObject({ error: { code: "credential_not_found", on_chain_error: { contract: "Marketplace", error: "CredentialNotFound" } } });
    await writeMarketplace(world.target, renter.account, "purchaseOneTime", [listing.onChainId], listing.priceWei);
    await writeMarketplace(world.target, creator, "setListingActive", [listing.onChainId, false]);
    const paused = await execute(renter.key, { agent_id: listing.agent_id, task: "x" });
    expect(paused.status).toBe(403);
    expect(await paused.json()).toMatchObject({ error: { code: "listing_paused", on_chain_error: { error: "ListingNotActive" } } });
    expect(deliveries().length).toBe(before);
    await writeMarketplace(world.target, creator, "setListingActive", [listing.onChainId, true]);
    expect((await execute(renter.key, { agent_id: listing.agent_id, task: "x" })).status).toBe(200);
  });

  it("answers 503 service_unavailable and charges nothing when the chain cannot be reached", async () => {
    const listing = await publishConnected("chain-down", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 3n });
    const down = createServices(loadConfig({ ...ctx.env, ALLOW_PRIVATE_AGENT_HOSTS: "true", RPC_URL: "http://127.0.0.1:9" }), { tables: ctx.services.tables, logger: ctx.services.logger, egress: ctx.services.egress });
    const before = deliveries().length;
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "x" }, {}, "/v1/execute", buildApp(down));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    expect(deliveries().length).toBe(before);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 3n);
  });
});

describe("streaming", () => {
  let listing: PublishedAgent;
  let key: string;
  beforeAll(async () => {
    listing = await publishConnected("streamer", "subscription");
    const renter = await renterWithKey();
    key = renter.key;
    await world.rent(renter.account, listing);
  });

  it("streams output events with offset ids and one done event matching the Run, and replays the rest from GET /v1/runs/{run_id}/events", async () => {
    const res = await execute(key, { agent_id: listing.agent_id, task: "stream it" }, {}, "/v1/execute/stream");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const runId = res.headers.get("x-run-id");
    expect(runId).toMatch(/^run_/);
    const events = parseSse(await res.text());
    expect(events.filter((e) => e.event === "output")).toEqual([
      { event: "output", id: "6", data: { delta: "alpha " } },
      { event: "output", id: "11", data: { delta: "beta " } },
      { event: "output", id: "16", data: { delta: "gamma" } },
    ]);
    const done = events.at(-1)!;
    expect(done).toMatchObject({ event: "done", id: "done", data: { run_id: runId, status: "completed", cost_wei: 0, output: { findings: ["alpha", "beta", "gamma"] } } });
    expect(events.filter((e) => e.event === "done")).toHaveLength(1);
    // Resuming after the second event replays the rest, then done.
    const resumed = await app.request(`/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}`, "last-event-id": "11" } });
    expect(parseSse(await resumed.text())).toMatchObject([{ event: "output", id: "16", data: { delta: "gamma" } }, { event: "done", data: { run_id: runId, status: "completed" } }]);
  });

  it("ends a stream cut mid-way with done failed and the partial output", async () => {
    const events = parseSse(await (await execute(key, { agent_id: listing.agent_id, task: "stream-cut now" }, {}, "/v1/execute/stream")).text());
    expect(events[0]).toMatchObject({ event: "output", data: { delta: "partial " } });
    expect(events.at(-1)).toMatchObject({ event: "done", data: { status: "failed", output: "partial ", cost_wei: 0 } });
  });

  it("finishes, charges and keeps a per-query run whose client disconnected mid-stream", async () => {
    const paid = await publishConnected("disconnected-stream", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, paid, { deposit: paid.priceWei * 2n });
    const gate = hold("stream while I leave");
    const abort = new AbortController();
    const res = await app.request("/v1/execute/stream", {
      method: "POST",
      headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" },
      body: JSON.stringify({ agent_id: paid.agent_id, task: "stream while I leave" }),
      signal: abort.signal,
    });
    const runId = res.headers.get("x-run-id")!;
    await expect.poll(() => gate.arrived, { timeout: 10_000 }).toBe(1);
    abort.abort();
    await res.body?.cancel().catch(() => undefined);
    gate.open();
    const read = async () => (await (await app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as { status: string; output: unknown; settlement: string; cost_wei: number };
    await expect.poll(async () => (await read()).status, { timeout: 10_000 }).toBe("completed");
    expect(await read()).toMatchObject({ settlement: "settled", output: { findings: ["alpha", "beta", "gamma"] } });
    expect(BigInt((await read()).cost_wei)).toBe(paid.priceWei);
    expect(await balanceOf(paid, renter.account.address)).toBe(paid.priceWei);
  });

  it("refuses before the stream opens with a JSON error", async () => {
    const stranger = await renterWithKey();
    const res = await execute(stranger.key, { agent_id: listing.agent_id, task: "x" }, {}, "/v1/execute/stream");
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  it("resumes a stream with the same Idempotency-Key and Last-Event-ID without running it again", async () => {
    const headers = { "idempotency-key": "stream-resume-1" };
    const first = parseSse(await (await execute(key, { agent_id: listing.agent_id, task: "stream again" }, headers, "/v1/execute/stream")).text());
    const before = deliveries().length;
    const again = parseSse(await (await execute(key, { agent_id: listing.agent_id, task: "stream again" }, { ...headers, "last-event-id": "6" }, "/v1/execute/stream")).text());
    expect(deliveries().length).toBe(before);
    expect(again[0]).toMatchObject({ event: "output", id: "16", data: { delta: "beta gamma" } });
    expect((again.at(-1)!.data as { run_id: string }).run_id).toBe((first.at(-1)!.data as { run_id: string }).run_id);
  });
});

describe("idempotency and concurrency", () => {
  it("returns the first run for a retried key, charges once, and refuses the key with another body", async () => {
    const listing = await publishConnected("idempotent", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 5n });
    const body = { agent_id: listing.agent_id, task: "once only" };
    const headers = { "idempotency-key": "order-42" };
    const [a, b] = await Promise.all([execute(renter.key, body, headers), execute(renter.key, body, headers)]);
    const runA = (await a.json()) as { run_id: string; cost_wei: number };
    const runB = (await b.json()) as { run_id: string; cost_wei: number };
    expect(runB.run_id).toBe(runA.run_id);
    const c = (await (await execute(renter.key, body, headers)).json()) as { run_id: string };
    expect(c.run_id).toBe(runA.run_id);
    expect(deliveries().filter((d) => d.runId === runA.run_id)).toHaveLength(1);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 4n);
    const other = await execute(renter.key, { ...body, task: "something else" }, headers);
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reused");
    expect((await execute(renter.key, body, { "idempotency-key": "has space" })).status).toBe(400);
  });

  it("answers racing requests with one key by one run, even when the balance covers only that run", async () => {
    const listing = await publishConnected("idempotent-race", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei });
    for (let round = 0; round < 3; round++) {
      const body = { agent_id: listing.agent_id, task: `race ${round}` };
      const headers = { "idempotency-key": `race-${round}` };
      const responses = await Promise.all(Array.from({ length: 4 }, () => execute(renter.key, body, headers)));
      const runs = (await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { run_id?: string; status?: string; error?: { code: string } } }))));
      if (round === 0) {
        // the balance covers one run: every request answers with that run
        expect(runs.map((r) => r.status)).toEqual([200, 200, 200, 200]);
        expect(new Set(runs.map((r) => r.body.run_id)).size).toBe(1);
        expect(deliveries().filter((d) => d.runId === runs[0]!.body.run_id)).toHaveLength(1);
        expect(await balanceOf(listing, renter.account.address)).toBe(0n);
      } else {
        // the balance is spent: each key's requests are refused, and nothing is kept under the key
        expect(runs.every((r) => r.status === 403 && r.body.error?.code === "insufficient_balance")).toBe(true);
      }
    }
    // A key whose request was refused may be used again once the balance allows the run.
    await writeMarketplace(world.target, renter.account, "topUpBalance", [listing.onChainId], listing.priceWei);
    const retried = await execute(renter.key, { agent_id: listing.agent_id, task: "race 1" }, { "idempotency-key": "race-1" });
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { status: string }).status).toBe("completed");
    expect(await balanceOf(listing, renter.account.address)).toBe(0n);
  });

  it("follows a key's first request until its run appears; when it was refused, or its run did not appear in time (barred first), answers 503 and frees the key", async () => {
    const listing = await publishConnected("idempotent-orphans", "one_time");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing);
    const body = { agent_id: listing.agent_id, task: "follow the first" };
    const wallet = renter.account.address;
    // A first request holds the key while it is admitted; it is then refused and gives the key back.
    const first = newRunId();
    expect(await claimIdempotencyKey(idempotencyStore(ctx.services.tables), wallet, "orphan-1", requestHash("execute", body), first)).toBe(first);
    // What a request that found the claim does: follow it until the run appears, or the key is given back.
    const following = claimedRun(claimedRuns(ctx.services.tables), { runId: first, claim: claimOf(idempotencyStore(ctx.services.tables), wallet, "orphan-1", first) }).catch((e: unknown) => e);
    await releaseIdempotencyKey(idempotencyStore(ctx.services.tables), wallet, "orphan-1", first);
    const refused = (await following) as ApiError;
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503, headers: { "Retry-After": "1" } });
    expect(refused.message).toMatch(/refused before its run started/);
    // The retry (over HTTP) is admitted on its own.
    const retried = (await (await execute(renter.key, body, { "idempotency-key": "orphan-1" })).json()) as { run_id: string; status: string };
    expect(retried.status).toBe("completed");
    expect(retried.run_id).not.toBe(first);

    // A claim whose run has not appeared in time (its request died, or is stuck, while being admitted)
    // is given up: the run id is barred first, so the stuck request can no longer start it, then the key
    // is given back.
    const stuck = newRunId();
    await claimIdempotencyKey(idempotencyStore(ctx.services.tables), wallet, "orphan-2", requestHash("execute", body), stuck);
    const givenUp = (await claimedRun(claimedRuns(ctx.services.tables), { runId: stuck, claim: claimOf(idempotencyStore(ctx.services.tables), wallet, "orphan-2", stuck) }, 300).catch((e: unknown) => e)) as ApiError;
    expect(givenUp).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(givenUp.message).toMatch(/nothing ran and nothing was charged/);
    expect(await claimOf(idempotencyStore(ctx.services.tables), wallet, "orphan-2", stuck).claimedAt()).toBeNull();
    expect(await getRun(ctx.services.tables, stuck)).toBeNull();
    const late = createRun(ctx.services.tables, { pk: `run#${stuck}`, sk: "run", run_id: stuck } as RunRecord);
    await expect(late).rejects.toThrow(); // the stuck request's run can no longer be created
    // A run that did start in time is followed, never barred.
    const started = newRunId();
    await claimIdempotencyKey(idempotencyStore(ctx.services.tables), wallet, "orphan-3", requestHash("execute", body), started);
    await createRun(ctx.services.tables, { pk: `run#${started}`, sk: "run", run_id: started, status: "running" } as RunRecord);
    expect((await claimedRun(claimedRuns(ctx.services.tables), { runId: started, claim: claimOf(idempotencyStore(ctx.services.tables), wallet, "orphan-3", started) }, 0)).run_id).toBe(started);
    // The given-up key is free: its retry runs.
    const afterGivingUp = (await (await execute(renter.key, body, { "idempotency-key": "orphan-2" })).json()) as { status: string };
    expect(afterGivingUp.status).toBe("completed");
    expect(deliveries().filter((d) => d.task === body.task)).toHaveLength(2);
  });

  it("gives the 21st concurrent run of a listing 429 with Retry-After: 1, holding nothing, and admits again once one finishes", async () => {
    // per-query, with a balance for exactly 21 runs: the refused run's reservation must be given back
    // for the 21st run to be admitted later
    const listing = await publishConnected("crowded", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 21n });
    const gate = hold("hold the slot");
    const inFlight = Array.from({ length: 20 }, () => execute(renter.key, { agent_id: listing.agent_id, task: "hold the slot" }));
    await expect.poll(() => gate.arrived, { timeout: 20_000 }).toBe(20);
    const refused = await execute(renter.key, { agent_id: listing.agent_id, task: "one too many" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    gate.open();
    const finished = await Promise.all(inFlight);
    expect(finished.map((r) => r.status)).toEqual(Array(20).fill(200));
    const after = await execute(renter.key, { agent_id: listing.agent_id, task: "after the crowd" });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { status: string }).status).toBe("completed");
    expect(await balanceOf(listing, renter.account.address)).toBe(0n);
  });
});

describe("per-query money", () => {
  it("charges exactly ten of fifty parallel runs against a balance for ten; balance and escrow match to the wei", async () => {
    const listing = await publishConnected("ten-runs", "per_query", "0.0013");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
    const escrowBefore = await escrowOf(listing);
    const feeBps = await ctx.services.chain.client.readContract({ address: ctx.services.chain.marketplace, abi: marketplaceAbi, functionName: "feeBasisPoints" });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => execute(renter.key, { agent_id: listing.agent_id, task: `parallel ${i}` })));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), body: (await r.json()) as { status?: string; cost_wei?: number; error?: { code: string } } })));
    const answered = bodies.filter((b) => b.status === 200);
    const refused = bodies.filter((b) => b.status !== 200);
    expect(answered).toHaveLength(10);
    expect(answered.every((b) => b.body.status === "completed")).toBe(true);
    expect(refused).toHaveLength(40);
    // A refusal while the balance is held by runs in flight is 429 (retry); once it is spent, 403.
    for (const b of refused) {
      if (b.status === 429) expect(b).toMatchObject({ retryAfter: "1", body: { error: { code: "rate_limit_exceeded" } } });
      else expect(b).toMatchObject({ status: 403, body: { error: { code: "insufficient_balance" } } });
    }
    expect(await balanceOf(listing, renter.account.address)).toBe(0n);
    const fee = (listing.priceWei * BigInt(feeBps)) / 10_000n;
    expect((await escrowOf(listing)) - escrowBefore).toBe((listing.priceWei - fee) * 10n);
    const charged = answered.map((b) => BigInt(b.body.cost_wei!));
    expect(charged.every((c) => c === listing.priceWei)).toBe(true);
    const after = await execute(renter.key, { agent_id: listing.agent_id, task: "after the spend" });
    expect(after.status).toBe(403);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("insufficient_balance");
  });

  it("answers 429 with Retry-After while the whole balance is held by a run in flight, and 403 insufficient_balance once it is spent", async () => {
    const listing = await publishConnected("held-balance", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei });
    const gate = hold("hold the balance");
    const first = execute(renter.key, { agent_id: listing.agent_id, task: "hold the balance" });
    await expect.poll(() => gate.arrived, { timeout: 10_000 }).toBe(1);
    const held = await execute(renter.key, { agent_id: listing.agent_id, task: "while held" });
    expect(held.status).toBe(429);
    expect(held.headers.get("retry-after")).toBe("1");
    expect(((await held.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei); // nothing spent yet
    gate.open();
    expect(((await (await first).json()) as { status: string }).status).toBe("completed");
    const spent = await execute(renter.key, { agent_id: listing.agent_id, task: "once spent" });
    expect(spent.status).toBe(403);
    expect(((await spent.json()) as { error: { code: string } }).error.code).toBe("insufficient_balance");
  });

  it("does not charge a failed run", async () => {
    const listing = await publishConnected("free-failures", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    const run = (await (await execute(renter.key, { agent_id: listing.agent_id, task: "fail please" })).json()) as { status: string; cost_wei: number };
    expect(run).toMatchObject({ status: "failed", cost_wei: 0 });
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 2n);
  });

  it("charges a failed run only for output it delivered: a failed synchronous run releases nothing and is free, a stream pays for the deltas it sent", async () => {
    // The agent's own timeout is 1 s, so "trickle" fails at the agent's timeout, not the caller's.
    const listing = await publishConnected("delivered-output", "per_query", "0.001", { timeout_seconds: 1 });
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 3n });
    type Run = { run_id: string; status: string; output: unknown; cost_wei: number; error: { code: string } };
    // Synchronous: partial output at the agent's timeout, and a full output that breaks the schema; neither
    // is released, neither is charged.
    const timedOut = (await (await execute(renter.key, { agent_id: listing.agent_id, task: "trickle then stall" })).json()) as Run;
    expect(timedOut).toMatchObject({ status: "failed", output: null, cost_wei: 0, error: { code: "timeout" } });
    const invalid = (await (await execute(renter.key, { agent_id: listing.agent_id, task: "bad-output please" })).json()) as Run;
    expect(invalid).toMatchObject({ status: "failed", output: null, cost_wei: 0, error: { code: "invalid_output" } });
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 3n);
    // Nor does any other way of reading the run show the unpaid text.
    const headers = { authorization: `Bearer ${renter.key}` };
    const replay = parseSse(await (await app.request(`/v1/runs/${timedOut.run_id}/events`, { headers })).text());
    expect(replay.filter((e) => e.event === "output")).toHaveLength(0);
    expect(replay.at(-1)).toMatchObject({ event: "done", data: { status: "failed", output: null, cost_wei: 0 } });
    expect(await (await app.request(`/v1/runs/${timedOut.run_id}`, { headers })).json()).toMatchObject({ output: null, cost_wei: 0 });

    // Streamed: the delta sent before the timeout was delivered, so the run is charged and done carries it.
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "trickle then stall" }, {}, "/v1/execute/stream");
    const events = parseSse(await res.text());
    expect(events.filter((e) => e.event === "output").map((e) => (e.data as { delta: string }).delta)).toEqual(["first part "]);
    const done = events.at(-1)!.data as Run;
    expect(done).toMatchObject({ status: "failed", output: "first part ", error: { code: "timeout" } });
    expect(BigInt(done.cost_wei)).toBe(listing.priceWei);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 2n);
    // A stream that delivered nothing before failing is free.
    const silent = parseSse(await (await execute(renter.key, { agent_id: listing.agent_id, task: "never answers" }, {}, "/v1/execute/stream")).text()).at(-1)!.data as Run;
    expect(silent).toMatchObject({ status: "failed", output: "", cost_wei: 0, error: { code: "timeout" } });
    const invalidStream = parseSse(await (await execute(renter.key, { agent_id: listing.agent_id, task: "bad-output again" }, {}, "/v1/execute/stream")).text()).at(-1)!.data as Run;
    expect(invalidStream).toMatchObject({ status: "failed", cost_wei: 0, error: { code: "invalid_output" } });
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 2n);
  });

  it("withholds the result and charges nothing when the contract refuses the charge (revoked mid-run)", async () => {
    const listing = await publishConnected("revoked-mid-run", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    const gate = hold("revoke during this run");
    const pending = execute(renter.key, { agent_id: listing.agent_id, task: "revoke during this run" });
    await expect.poll(() => gate.arrived, { timeout: 10_000 }).toBe(1);
    await writeMarketplace(world.target, creator, "revokePerQueryAccess", [listing.onChainId, renter.account.address]);
    gate.open();
    const run = (await (await pending).json()) as { status: string; output: unknown; cost_wei: number; error: { code: string } };
    expect(run).toMatchObject({ status: "failed", output: null, cost_wei: 0, error: { code: "settlement_refused" } });
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 2n);
  });

  it("answers a run whose charge cannot be confirmed with 200, its output withheld and settlement pending, and releases it once the charge lands", async () => {
    const listing = await publishConnected("authority-down", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    // The settler cannot be reached: this process's settlement queue points nowhere.
    const broken = { ...ctx.services, config: { ...ctx.config, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:9/000000000000/nowhere" } };
    // Not a 503: a client told to retry would run (and pay for) the task a second time.
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "settle later" }, {}, "/v1/execute", buildApp(broken));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { run_id: string; status: string; output: unknown; cost_wei: number; settlement: string };
    expect(answer).toMatchObject({ status: "completed", output: null, settlement: "pending" });
    expect(BigInt(answer.cost_wei)).toBe(listing.priceWei);
    const runId = answer.run_id;
    const withheld = (await (await app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as { status: string; output: unknown; settlement: string };
    expect(withheld).toMatchObject({ status: "completed", output: null, settlement: "pending" });
    // The world's settler may already have the charge (its settlement pass hands a pending charge over,
    // and the record follows on its next round): charged once at most, the output withheld meanwhile.
    expect([listing.priceWei * 2n, listing.priceWei]).toContain(await balanceOf(listing, renter.account.address));
    // The settlement pass hands the charge to the settler, and resolves the run once the chain has it.
    await settledByPasses(ctx.services, [runId]);
    const released = (await (await app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
    expect(released).toMatchObject({ status: "completed", settlement: "settled", output: { findings: ["done: settle later"] } });
    expect(BigInt(released.cost_wei as number)).toBe(listing.priceWei);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei);
    expect(released.settlement_tx).toMatch(/^0x[0-9a-f]{64}$/);
    // The pass is done with it: a second pass charges nothing more.
    expect((await runJob(ctx.services, "settler")).settlements).toMatchObject({ settled: 0, pending: 0 });
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei);
  }, 90_000);

  it("ends a stream whose charge cannot be confirmed with a done that withholds the result, and releases it once paid", async () => {
    const listing = await publishConnected("authority-down-stream", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    const broken = { ...ctx.services, config: { ...ctx.config, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:9/000000000000/nowhere" } };
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "stream unpaid" }, {}, "/v1/execute/stream", buildApp(broken));
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-run-id")!;
    const done = parseSse(await res.text()).at(-1)!;
    expect(done).toMatchObject({ event: "done", data: { run_id: runId, status: "completed", output: null, settlement: "pending" } });
    const resumed = parseSse(await (await app.request(`/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${renter.key}`, "last-event-id": "done" } })).text());
    expect(resumed.at(-1)).toMatchObject({ event: "done", data: { run_id: runId, output: null, settlement: "pending" } });
    // As above: the world's settler may already have the charge; once at most.
    expect([listing.priceWei * 2n, listing.priceWei]).toContain(await balanceOf(listing, renter.account.address));
    await settledByPasses(ctx.services, [runId]);
    const released = parseSse(await (await app.request(`/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${renter.key}`, "last-event-id": "done" } })).text());
    expect(released.at(-1)).toMatchObject({ event: "done", data: { run_id: runId, status: "completed", output: { findings: ["alpha", "beta", "gamma"] } } });
    expect((released.at(-1)!.data as Record<string, unknown>).settlement).toBeUndefined();
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei);
  }, 90_000);
});

describe("a failure at any step of a run", () => {
  type Send = Tables["doc"]["send"];
  /** The service's tables, with the writes `failing` picks refused `times` times (a storage fault at that
   * step), everything else passed to the emulator. */
  function faultyTables(failing: (input: { Key?: { pk?: string }; UpdateExpression?: string }) => boolean, times: number): { tables: Tables; injected: () => number } {
    let injected = 0;
    const real = ctx.services.tables;
    const send = ((command: { input: { Key?: { pk?: string }; UpdateExpression?: string } }, ...rest: unknown[]) => {
      if (injected < times && failing(command.input)) {
        injected++;
        return Promise.reject(new Error("injected storage fault"));
      }
      return (real.doc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as unknown as Send;
    return { tables: { raw: real.raw, name: real.name, doc: { send } as unknown as Tables["doc"] }, injected: () => injected };
  }

  async function nothingHeld(listing: PublishedAgent, wallet: Hex, runId: string): Promise<void> {
    const run = await getRun(ctx.services.tables, runId);
    expect(run?.status).not.toBe("running");
    expect(Object.keys((await leaseMapAt(ctx.services.tables, { pk: `concurrency#${listing.onChainId}`, sk: "concurrency" }).read())?.leases ?? {})).toEqual([]);
    expect(Object.keys((await leaseMapAt(ctx.services.tables, ledgerKey(listing.onChainId, wallet)).read())?.leases ?? {})).toEqual([]);
  }

  it("fails a connected agent's answer nested 20,000 levels deep as invalid_output, free, with nothing held", async () => {
    const listing = await publishConnected("deep-answer", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei });
    for (const path of ["/v1/execute", "/v1/execute/stream"]) {
      const res = await execute(renter.key, { agent_id: listing.agent_id, task: "deep answer" }, {}, path);
      expect(res.status).toBe(200);
      const run = (path === "/v1/execute" ? await res.json() : parseSse(await res.text()).at(-1)!.data) as { run_id: string; status: string; cost_wei: number; error: { code: string } };
      expect(run).toMatchObject({ status: "failed", cost_wei: 0, error: { code: "invalid_output" } });
      await nothingHeld(listing, renter.account.address, run.run_id);
    }
    // The balance is whole, so the renter's next run is admitted at once.
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei);
    expect(((await (await execute(renter.key, { agent_id: listing.agent_id, task: "after the deep one" })).json()) as { status: string }).status).toBe("completed");
  });

  it("fails a run whose input cannot be read, free, with nothing held", async () => {
    const listing = await publishConnected("input-fault", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei });
    const upload = await app.request("/v1/inputs", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ content: JSON.stringify({ topic: "x" }) }) });
    expect(upload.status).toBe(201);
    const { input_uri: uri } = (await upload.json()) as { input_uri: string };
    const real = ctx.services.blobs;
    const faulty = { ...ctx.services, blobs: { ...real, get: (key: string) => (key.startsWith("inputs/") ? Promise.reject(new Error("injected blob fault")) : real.get(key)) } };
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "input fault", input_uri: uri }, {}, "/v1/execute", buildApp(faulty));
    const run = (await res.json()) as { run_id: string; status: string; cost_wei: number; error: { code: string; message: string } };
    expect(res.status).toBe(200);
    expect(run).toMatchObject({ status: "failed", cost_wei: 0, error: { code: "internal_error" } });
    expect(run.error.message).not.toMatch(/injected/);
    await nothingHeld(listing, renter.account.address, run.run_id);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei);
  });

  const storageFaults: [string, (input: { Key?: { pk?: string }; UpdateExpression?: string }) => boolean][] = [
    ["recording the run's end", (input) => input.UpdateExpression?.includes("finished_at = :finished") === true],
    ["settling the reservation after the charge", (input) => input.Key?.pk?.startsWith("ledger#") === true && input.UpdateExpression?.startsWith("REMOVE") === true],
    ["giving the listing slot back", (input) => input.Key?.pk?.startsWith("concurrency#") === true && input.UpdateExpression?.startsWith("REMOVE") === true],
  ];
  it.each(storageFaults)("completes and charges a run once when storage fails twice while %s, with nothing held", async (_step, failing) => {
    const listing = await publishConnected(`storage-fault-${storageFaults.findIndex(([step]) => step === _step)}`, "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    const fault = faultyTables(failing, 2);
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "storage fault" }, {}, "/v1/execute", buildApp({ ...ctx.services, tables: fault.tables }));
    expect(fault.injected()).toBe(2);
    expect(res.status).toBe(200);
    const run = (await res.json()) as { run_id: string; status: string; cost_wei: number; output: unknown };
    expect(run).toMatchObject({ status: "completed", output: { findings: ["done: storage fault"] } });
    expect(BigInt(run.cost_wei)).toBe(listing.priceWei);
    await nothingHeld(listing, renter.account.address, run.run_id);
    expect((await getRun(ctx.services.tables, run.run_id))).toMatchObject({ status: "completed", settlement: "settled" });
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei);
  });
  it("finishes a run whose end could not be recorded at all from what the chain says, and gives its holds back", async () => {
    const listing = await publishConnected("unrecorded-end", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    // Storage refuses the run's end for longer than the finishing writes retry.
    const fault = faultyTables((input) => input.UpdateExpression?.includes("finished_at = :finished") === true, 1_000);
    const res = await execute(renter.key, { agent_id: listing.agent_id, task: "unrecorded end" }, {}, "/v1/execute", buildApp({ ...ctx.services, tables: fault.tables }));
    const answer = (await res.json()) as { run_id: string; status: string; cost_wei: number };
    expect(answer.status).toBe("completed");
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei); // charged once
    expect(await getRun(ctx.services.tables, answer.run_id)).toMatchObject({ status: "running" });
    // Not yet stale: the sweep leaves it alone.
    expect(await finishStaleRuns(ctx.services)).toMatchObject({ charged: 0 });
    // Well past its timeout, the sweep records it completed with the charge found on-chain.
    const later = Date.now() + 10_000 + STALE_AFTER_TIMEOUT_MS + 1_000;
    expect(await finishStaleRuns(ctx.services, later)).toMatchObject({ charged: 1 });
    const record = await getRun(ctx.services.tables, answer.run_id);
    expect(record).toMatchObject({ status: "completed", settlement: "settled", cost_wei: listing.priceWei.toString() });
    expect(record?.settlement_tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Object.keys((await leaseMapAt(ctx.services.tables, { pk: `concurrency#${listing.onChainId}`, sk: "concurrency" }).read())?.leases ?? {})).toEqual([]);
    expect(Object.keys((await leaseMapAt(ctx.services.tables, ledgerKey(listing.onChainId, renter.account.address)).read())?.leases ?? {})).toEqual([]);
    // A run that never reached a charge is recorded failed and free; the renter can run again at once.
    const second = (await (await execute(renter.key, { agent_id: listing.agent_id, task: "after the sweep" })).json()) as { status: string };
    expect(second.status).toBe("completed");
    expect(await finishStaleRuns(ctx.services, later)).toMatchObject({ charged: 0, failed: 0 });
  }, 60_000);
});

describe("run log", () => {
  it("logs a finished run on-chain and shows its renter a receipt the contract verifies", async () => {
    const listing = await publishConnected("logged-runs", "per_query");
    const renter = await renterWithKey();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 2n });
    const run = (await (await execute(renter.key, { agent_id: listing.agent_id, task: "log me" })).json()) as { run_id: string; status: string; cost_wei: number; duration_ms: number };
    expect(run.status).toBe("completed");
    const detail = async () => (await (await app.request(`/v1/runs/${run.run_id}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as { receipt: { batch_index: number; root: Hex; leaf: Hex; proof: Hex[]; tx_hash: Hex } | null };
    expect((await detail()).receipt).toBeNull();

    // The world's settler logs finished runs every RUN_LOG_INTERVAL_MS, through its own sender.
    await expect.poll(async () => (await detail()).receipt, { timeout: 30_000, interval: 250 }).not.toBeNull();
    const { receipt } = await detail();
    expect(receipt).not.toBeNull();
    expect(receipt!.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const tx = await ctx.services.chain.client.getTransactionReceipt({ hash: receipt!.tx_hash });
    expect(tx.status).toBe("success");
    // What the renter checks: the contract's leaf of the run as the API showed it, and its proof.
    const chain = ctx.services.chain;
    const leaf = await chain.client.readContract({
      address: chain.marketplace,
      abi: marketplaceAbi,
      functionName: "runReceiptLeaf",
      args: [keccak256(toBytes(run.run_id)), listing.onChainId, renter.account.address, 0, BigInt(run.cost_wei), BigInt(run.duration_ms)],
    });
    expect(receipt!.leaf).toBe(leaf);
    // verifyRunReceipt takes the receipt's fields and hashes the leaf itself.
    const fields = { runId: keccak256(toBytes(run.run_id)), listingId: listing.onChainId, renter: renter.account.address, status: 0, costWei: BigInt(run.cost_wei), durationMs: BigInt(run.duration_ms) };
    expect(await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "verifyRunReceipt", args: [BigInt(receipt!.batch_index), fields, receipt!.proof] })).toBe(true);
    const tampered = { ...fields, costWei: fields.costWei + 1n };
    expect(await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "verifyRunReceipt", args: [BigInt(receipt!.batch_index), tampered, receipt!.proof] })).toBe(false);
  });
});
