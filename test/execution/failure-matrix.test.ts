// Every way a per-task run can fail, on both execute routes, against one rule (docs/reference/execution.md, "What
// a run charges"): a failed synchronous run releases nothing and is free; a failed stream pays for the
// output events it sent before failing, and is free when it sent none. For each failure kind the table
// below produces (a connected agent's answers through the egress guard, a declarative agent's model
// through the sandbox), each route's run is checked in every place it shows: the answer's output and
// cost_wei, the output events streamed, the renter's on-chain balance and the run's QueryConsumed event,
// GET /v1/runs/{run_id}, the replay of GET /v1/runs/{run_id}/events, the failure figures in GET
// /v1/health; and then the fault suite's money-and-records invariants (nothing running or held, every
// charge matching one run, no output unpaid).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { stop as stopEsbuild } from "esbuild";
import { buildRuntime } from "../../scripts/build-runtime.ts";
import { createLocalSandboxPool, type LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { writeMarketplace } from "../../src/chain/write.ts";
import { chargeRefOf } from "../../src/execution/runs/run.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { checkHealth } from "../../src/health.ts";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import { freePort } from "../../local/ports.ts";
import { marketTarget, type PublishedAgent } from "../support/agents.ts";
import { until } from "../support/until.ts";
import { parseSseJson as parseSse } from "../support/sse.ts";
import { expectMoneyAndRecordsIntact, startFaultWorld, type Answer, type FaultWorld, type Renter } from "../faults/support.ts";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../sandbox/fixtures");
const PROVIDER_KEY = "sk-matrix-0123456789abcdef";
/** Characters per output event of the oversized stream: two fit under the 131,072-character cap, three do not. */
const BIG_DELTA = 50_000;

/** The connected agent's answers, by the task's first word (after the world's signature check). */
function connectedBehaviour(task: string, res: ServerResponse): boolean {
  const sse = () => res.writeHead(200, { "content-type": "text/event-stream" });
  const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  switch (task.split(" ")[0]) {
    case "never": // holds the delivery open without a byte: the agent's own timeout ends the run
      return true;
    case "trickle": // one output event, then nothing until the agent's own timeout
      sse();
      event("output", { delta: "first part " });
      return true;
    case "bad-output":
      json(200, { output: { findings: "not an array" } });
      return true;
    case "streamed-bad-output":
      sse();
      event("output", { delta: "part one " });
      event("output", { delta: "part two" });
      res.end(`event: result\ndata: ${JSON.stringify({ output: { findings: "not an array" } })}\n\n`);
      return true;
    case "huge":
      json(200, { output: { findings: ["x".repeat(140_000)] } });
      return true;
    case "streamed-huge":
      sse();
      for (const letter of ["a", "b", "c"]) event("output", { delta: letter.repeat(BIG_DELTA) });
      res.end(`event: result\ndata: ${JSON.stringify({ output: { findings: ["too long"] } })}\n\n`);
      return true;
    case "http-500":
      json(500, { error: "boom" });
      return true;
    case "reported-error":
      json(200, { error: { message: "the upstream model refused the task" } });
      return true;
    case "streamed-error":
      sse();
      event("output", { delta: "a first draft " });
      res.end(`event: error\ndata: ${JSON.stringify({ message: "the upstream model stopped" })}\n\n`);
      return true;
    case "cut":
      sse();
      event("output", { delta: "partial " });
      setImmediate(() => res.destroy());
      return true;
    case "html":
      res.writeHead(200, { "content-type": "text/html" }).end("<html>not an answer</html>");
      return true;
    case "drop": // the connection closes before any answer
      res.socket?.destroy();
      return true;
    default:
      return false;
  }
}

let world: FaultWorld;
let models: ModelServer;
let pool: LocalSandboxPool;
let outDir: string;
let runtimeEntry: string;

const LISTINGS = ["connected", "connectedQuick", "connectedPrivate", "connectedRevoked", "declarative", "declarativeQuick", "selfHostedDown", "selfHostedRefused"] as const;
type ListingName = (typeof LISTINGS)[number];
const listings = {} as Record<ListingName, PublishedAgent>;

function declarative(name: string, model: Record<string, unknown>, timeoutSeconds: number): Record<string, unknown> {
  return { name, category: "research", description: "A declarative agent of the failure matrix", model, system_prompt: "You answer briefly.", input_schema: { type: "object" }, output_schema: { type: "string" }, timeout_seconds: timeoutSeconds };
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "matrix-runtime-"));
  const [{ entry }, modelServer, closedPort] = await Promise.all([buildRuntime({ outDir }), startModelServer(), freePort()]);
  models = modelServer;
  runtimeEntry = entry;
  // Charges are waited for as the service waits by default (15 s, not the fault world's 3 s): these runs
  // are meant to settle in the request, and a loaded machine can take more than 3 s to see the block.
  world = await startFaultWorld({ agent: connectedBehaviour, env: { PROVIDER_A_BASE_URL: models.openaiBaseUrl, PROVIDER_B_BASE_URL: models.anthropicBaseUrl, SETTLEMENT_WAIT_MS: "15000" } });
  pool = createLocalSandboxPool({ warm: 1, allowFsRead: [outDir, fixtures], preload: entry, memoryMb: 128 });
  Object.assign(world.ctx.services, { runtimeEntry: entry, sandbox: () => pool });
  // One after the other: every listing is the creator's transaction (one nonce sequence).
  listings.connected = await world.publishConnected("matrix-connected", "per_query");
  listings.connectedQuick = await world.publishConnected("matrix-connected-quick", "per_query", "0.001", { timeout_seconds: 1 });
  // Registered under the local development switch, refused by the service's egress guard at connect time.
  listings.connectedPrivate = await world.publishConnected("matrix-connected-private", "per_query", "0.001", { entrypoint_url: "https://10.1.2.3/agents/matrix" });
  listings.connectedRevoked = await world.publishConnected("matrix-connected-revoked", "per_query");
  listings.declarative = await world.publishManifest(declarative("matrix-declarative", { provider: "provider_a", model: "gpt-test" }, 60), "per_query", PROVIDER_KEY);
  listings.declarativeQuick = await world.publishManifest(declarative("matrix-declarative-quick", { provider: "provider_a", model: "gpt-test" }, 6), "per_query", PROVIDER_KEY);
  listings.selfHostedDown = await world.publishManifest(declarative("matrix-self-hosted-down", { provider: "self_hosted", model: "m", endpoint_url: `http://127.0.0.1:${closedPort}/v1` }, 15), "per_query");
  listings.selfHostedRefused = await world.publishManifest(declarative("matrix-self-hosted-refused", { provider: "self_hosted", model: "m", endpoint_url: models.openaiBaseUrl }, 15), "per_query");
}, 180_000);

afterAll(async () => {
  await world?.stop();
  await pool?.close();
  await models?.stop();
  await stopEsbuild();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

const ROUTES = ["sync", "stream"] as const;
type Route = (typeof ROUTES)[number];

interface Row {
  /** The failure, in words. */
  kind: string;
  listing: ListingName;
  task: string;
  body?: Record<string, unknown>;
  code: string;
  message?: RegExp;
  /** The stream sends output events before the run fails, so a stream run is charged. */
  streamsText: boolean;
  /** Set up before both routes' runs; returns what undoes it. */
  around?: () => () => void;
  /** The creator revokes the renter while the agent holds the run. */
  revokedMidRun?: boolean;
}

const ROWS: Row[] = [
  // A connected agent (its answer read through the egress guard)
  { kind: "the agent's own timeout, before any output", listing: "connectedQuick", task: "never answers", code: "timeout", streamsText: false },
  { kind: "the agent's own timeout, after output", listing: "connectedQuick", task: "trickle then stall", code: "timeout", streamsText: true },
  { kind: "output that breaks the output schema", listing: "connected", task: "bad-output please", code: "invalid_output", streamsText: false },
  { kind: "output that breaks the output schema, after streamed text", listing: "connected", task: "streamed-bad-output please", code: "invalid_output", streamsText: true },
  { kind: "output too large", listing: "connected", task: "huge answer", code: "output_too_large", streamsText: false },
  { kind: "output too large, after streamed text", listing: "connected", task: "streamed-huge answer", code: "output_too_large", streamsText: true },
  { kind: "the agent's endpoint answering HTTP 500", listing: "connected", task: "http-500 please", code: "agent_http_error", message: /HTTP 500/, streamsText: false },
  { kind: "the agent reporting an error", listing: "connected", task: "reported-error please", code: "agent_error", message: /refused the task/, streamsText: false },
  { kind: "the agent reporting an error, after streamed text", listing: "connected", task: "streamed-error please", code: "agent_error", message: /stopped/, streamsText: true },
  { kind: "the agent's stream cut, after text", listing: "connected", task: "cut mid-stream", code: "agent_stream_cut", streamsText: true },
  { kind: "an answer that is neither JSON nor an event stream", listing: "connected", task: "html please", code: "agent_invalid_response", streamsText: false },
  { kind: "the agent's endpoint dropping the connection", listing: "connected", task: "drop the connection", code: "agent_unreachable", streamsText: false },
  { kind: "the agent's endpoint refused by the egress guard", listing: "connectedPrivate", task: "call a private address", code: "egress_refused", streamsText: false },
  { kind: "input that breaks the input schema (the agent is never called)", listing: "connected", task: "any task", body: { input: "not an object" }, code: "invalid_input", streamsText: false },
  { kind: "the charge refused (the creator revoked the renter mid-run)", listing: "connectedRevoked", task: "revoked while running", code: "settlement_refused", streamsText: false, revokedMidRun: true },
  // A declarative agent (the runtime in a sandbox, its model through the runtime's egress rules)
  { kind: "the model provider answering 500", listing: "declarative", task: "fail [[error:500]]", code: "agent_error", message: /500/, streamsText: false },
  { kind: "the model's stream cut, after text", listing: "declarative", task: "cut alpha beta gamma delta epsilon zeta eta theta iota kappa [[stream-cut]]", code: "agent_error", message: /cut off/, streamsText: true },
  { kind: "the declarative agent's own timeout, after text", listing: "declarativeQuick", task: `trickle ${"word ".repeat(40)}[[slow:400]]`, code: "timeout", streamsText: true },
  { kind: "the model unreachable (nothing listens at the self-hosted endpoint)", listing: "selfHostedDown", task: "reach a model that is down", code: "agent_error", message: /^the agent's model could not be reached$/, streamsText: false },
  {
    kind: "the model refused by the runtime's egress rules (a self-hosted endpoint on a private address)",
    listing: "selfHostedRefused",
    task: "reach a private model",
    code: "agent_error",
    message: /^the agent's model could not be reached$/,
    streamsText: false,
    around: () => {
      // The production rules (no private addresses); the local development switch is on for the world.
      const rules = world.ctx.services.egressRules;
      world.ctx.services.egressRules = { allowPrivate: false, allowHosts: [] };
      return () => void (world.ctx.services.egressRules = rules);
    },
  },
  {
    // The sandbox's own memory cap, reached by an entry that first emits one output event (its pid) and
    // then allocates without end: the agent runtime cannot be made to exhaust memory on demand.
    kind: "the sandbox running out of memory, after output",
    listing: "declarative",
    task: "exhaust memory",
    code: "out_of_memory",
    streamsText: true,
    around: () => {
      world.ctx.services.runtimeEntry = join(fixtures, "oom.mjs");
      return () => void (world.ctx.services.runtimeEntry = runtimeEntry);
    },
  },
];

/** The prices charged for `runId`, from the QueryConsumed events of its charge reference. */
async function chargesOf(listing: PublishedAgent, runId: string): Promise<bigint[]> {
  const { chain, tables } = world.ctx.services;
  const run = await getRun(tables, runId);
  if (!run) throw new Error(`no run ${runId}`);
  const events = await chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId, runRef: chargeRefOf(run) }, fromBlock: 0n, toBlock: "latest" });
  return events.map((event) => event.args.price!);
}

/** The failure figures GET /v1/health reports (read through its function: the public route's rate rule
 * counts per client, and this file makes many requests). */
async function failureFigures(): Promise<{ byReason: Record<string, number>; charged: number }> {
  const { runs } = (await checkHealth(world.ctx.services)).metrics;
  return { byReason: runs.failed_by_reason, charged: runs.charged };
}

async function runOn(row: Row, route: Route, who: Renter): Promise<Answer> {
  const task = `${row.task} (${route})`;
  const body = { agent_id: listings[row.listing].agent_id, task, ...row.body };
  if (!row.revokedMidRun) return world.execute(who, body, { stream: route === "stream" });
  const gate = world.gates.hold(task);
  const answering = world.execute(who, body, { stream: route === "stream" });
  await until("the agent to hold the run", () => gate.arrived === 1);
  await writeMarketplace(marketTarget(world.ctx), world.creator, "revokePerQueryAccess", [listings[row.listing].onChainId, who.account.address]);
  gate.open();
  return answering;
}

describe("a failed per-task run is charged only for output it delivered", () => {
  it.each(ROWS)("$kind: sync free and silent; stream charged exactly when it sent output", async (row) => {
    const listing = listings[row.listing];
    const price = listing.priceWei;
    // A renter of its own per row and route: each API key's request budget (100 a minute) then covers
    // the row, and the invariants' reads of every earlier run spread over many keys.
    const renters = {} as Record<Route, Renter>;
    for (const route of ROUTES) {
      renters[route] = await world.renter();
      await world.buy(renters[route], listing, price * 5n);
    }
    const deposit = price * 5n;
    const figuresBefore = await failureFigures();
    const undo = row.around?.();
    let results: { route: Route; answer: Answer; who: Renter }[];
    try {
      // The revocations are the creator's transactions (one nonce sequence): those rows run one route at a time.
      if (row.revokedMidRun) {
        results = [];
        for (const route of ROUTES) results.push({ route, answer: await runOn(row, route, renters[route]), who: renters[route] });
      } else {
        results = await Promise.all(ROUTES.map(async (route) => ({ route, answer: await runOn(row, route, renters[route]), who: renters[route] })));
      }
    } finally {
      undo?.();
    }

    for (const { route, answer, who } of results) {
      const charged = route === "stream" && row.streamsText;
      const refused = row.code === "settlement_refused";
      const cost = charged ? price : 0n;
      const text = answer.deltas.join("");
      // What the renter received: the sync answer carries no output; a stream carries exactly its events.
      const output = route === "sync" || refused ? null : text;
      const where = `${route} route`;
      expect(answer.status, where).toBe(200);
      expect(answer.body, where).toMatchObject({ run_id: answer.runId, status: "failed", error: { code: row.code } });
      if (row.message) expect((answer.body.error as { message: string }).message, where).toMatch(row.message);
      expect(answer.body.output, where).toEqual(output);
      expect(BigInt(answer.body.cost_wei as number), where).toBe(cost);
      expect(text.length > 0, `${where}: output events sent`).toBe(charged);
      if (row.code === "output_too_large" && charged) expect(text, where).toBe("a".repeat(BIG_DELTA) + "b".repeat(BIG_DELTA));
      expect(await chargesOf(listing, answer.runId!), where).toEqual(charged ? [price] : []);
      expect(await world.balanceOf(listing, who.account.address), `${where}: balance`).toBe(deposit - cost);

      const headers = { authorization: `Bearer ${who.key}` };
      const detail = (await (await world.app.request(`/v1/runs/${answer.runId}`, { headers })).json()) as Record<string, unknown>;
      expect(detail, `${where}: GET /v1/runs`).toMatchObject({ status: "failed", error: { code: row.code }, output, settlement: refused ? "refused" : charged ? "settled" : "none" });
      expect(BigInt(detail.cost_wei as number), `${where}: GET /v1/runs`).toBe(cost);
      const replay = parseSse(await (await world.app.request(`/v1/runs/${answer.runId}/events`, { headers })).text());
      const replayed = replay.filter((e) => e.event === "output").map((e) => (e.data as { delta: string }).delta).join("");
      expect(replayed, `${where}: GET /v1/runs/{id}/events output`).toBe(route === "stream" ? text : "");
      expect(replay.at(-1), `${where}: GET /v1/runs/{id}/events done`).toMatchObject({ event: "done", data: { status: "failed", output, error: { code: row.code } } });
      expect(BigInt((replay.at(-1)!.data as { cost_wei: number }).cost_wei)).toBe(cost);
    }

    const figures = await failureFigures();
    expect(figures.byReason[row.code] ?? 0).toBe((figuresBefore.byReason[row.code] ?? 0) + 2);
    expect(figures.charged).toBe(figuresBefore.charged + (row.streamsText ? 1 : 0));
    await expectMoneyAndRecordsIntact(world);
  }, 120_000);
});
