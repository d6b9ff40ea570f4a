// The fault suite's world: the real stack with parts a test can break and bring back while runs are in
// flight, and the money-and-records invariants every fault must leave intact.
//
// Per test file: dynalite in a child process of its own (on disk, so a crash and a restart on the same
// port and data directory lose nothing, as a real DynamoDB outage would), the shared Hardhat node reached
// through a TCP proxy the test can cut and restore (a stopped Hardhat node would come back empty, a real
// chain does not), the file's own marketplace deployment, and a connected agent on HTTPS whose runs the
// test holds at gates. Declarative files add the model server and a process-per-run sandbox pool.
//
// The invariants (assertMoneyAndRecords), after each fault and its recovery pass:
//  1. no run record is left `running`;
//  2. no concurrency slot and no per-query reservation is held;
//  3. every QueryConsumed event on-chain matches exactly one finished run, settled, whose cost_wei is the
//     event's price (and every settled run has exactly one event): no charge without a run, none twice;
//  4. no output released unpaid: a per-query run that is not settled shows output null through
//     GET /v1/runs/{run_id}, and its execute answer carried none (for a stream: no output event either).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, inject } from "vitest";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { Webhook } from "standardwebhooks";
import type { Hex } from "viem";
import { buildApp } from "../../src/api/app.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { finishStaleRuns } from "../../src/execution/runs/stale-runs.ts";
import { chargeRefOf, STALE_AFTER_TIMEOUT_MS, type RunRecord } from "../../src/execution/runs/run.ts";
import { runJob } from "../../src/jobs.ts";
import { freePort } from "../../local/ports.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { indexChain, marketTarget, publishAgent, publishConnectedAgent, type PublishedAgent } from "../support/agents.ts";
import { createGates } from "../support/gates.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { parseSseJson as parseSse } from "../support/sse.ts";
import { readBody } from "../support/http.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { until } from "../support/until.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
/** The longest run timeout a request may ask for (timeout_seconds ≤ 300). */
const MAX_TIMEOUT_MS = 300_000;
type Account = Awaited<ReturnType<typeof fundedAccount>>;
type App = ReturnType<typeof buildApp>;

// ---- dynalite in a child process -------------------------------------------------------------------

export interface RestartableDynamo {
  endpoint: string;
  /** The emulator's process id while it runs. */
  readonly pid: number | undefined;
  /** Kills the emulator (SIGKILL: a crash, not a clean shutdown). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it answers. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  stop(): Promise<void>;
}

async function dynamoAnswers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810.ListTables", authorization: "AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0" },
      body: "{}",
      signal: AbortSignal.timeout(1_000),
    });
    return res.status < 500;
  } catch {
    return false;
  }
}

export async function startRestartableDynamo(): Promise<RestartableDynamo> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "faults-dynalite-"));
  const endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  async function start(): Promise<void> {
    const proc = spawn(
      join(root, "node_modules/.bin/node"),
      ["--import", join(root, "local/parent-watchdog.mjs"), join(root, "node_modules/dynalite/cli.js"), "--host", "127.0.0.1", "--port", String(port), "--path", dataDir, "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    proc.stderr!.on("data", (chunk: Buffer) => void (stderr.length < 8_000 && (stderr += chunk.toString())));
    child = proc;
    let gone = false;
    exited = new Promise<void>((resolve) => proc.once("exit", () => ((gone = true), resolve())));
    await until(`dynalite on ${endpoint}`, async () => {
      if (gone) throw new Error(`dynalite exited before it answered:\n${stderr}`);
      return dynamoAnswers(endpoint);
    }, 20_000);
  }

  async function kill(): Promise<void> {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    child = undefined;
  }

  await start();
  return {
    endpoint,
    get pid() {
      return child?.pid;
    },
    kill,
    start,
    async stop() {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---- a TCP proxy the test can cut ------------------------------------------------------------------

export interface CuttableLink {
  /** `http://127.0.0.1:<port>`: what the service is configured with instead of the real address. */
  url: string;
  /** Drops every open connection and refuses new ones (each is reset as it arrives). */
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  stop(): Promise<void>;
}

/** A TCP proxy to `target` (http://host:port). Hand-written: a dozen lines of net.Server piping, and the
 * point is to control exactly when bytes stop flowing, which a library proxy would only hide. */
export async function startCuttableLink(target: string): Promise<CuttableLink> {
  const upstream = new URL(target);
  const open = new Set<Socket>();
  let isCut = false;
  const server: Server = createServer((client) => {
    if (isCut) return void client.destroy();
    const remote = connect(Number(upstream.port), upstream.hostname);
    for (const socket of [client, remote]) {
      open.add(socket);
      socket.once("close", () => open.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(remote).pipe(client);
    client.once("close", () => remote.destroy());
    remote.once("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      isCut = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      isCut = false;
    },
    get isCut() {
      return isCut;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- the world -------------------------------------------------------------------------------------

/** Output that gives the renter something: not null, and not the empty text of a failed run that produced none. */
export function hasOutput(output: unknown): boolean {
  return output !== null && output !== undefined && output !== "";
}

/** What an execute answer gave the caller, kept for invariant 4. */
export interface Answer {
  status: number;
  runId: string | undefined;
  /** The parsed JSON body (sync) or the done event's data (stream); an error envelope on refusal. */
  body: Record<string, unknown>;
  /** Output events of a stream, in order. */
  deltas: string[];
  /** The answer carried output: a non-null `output`, or any output event. */
  carriedOutput: boolean;
}

export interface Renter {
  account: Account;
  key: string;
}

export interface FaultWorld {
  ctx: TestContext;
  app: App;
  dynamo: RestartableDynamo;
  /** The link between the service and the chain. */
  chainLink: CuttableLink;
  agentServer: HttpsTestServer;
  gates: ReturnType<typeof createGates>;
  creator: Account;
  /** Connected-agent deliveries received (task, run id). */
  deliveries: { task: string; runId: string }[];
  renter(): Promise<Renter>;
  /** A connected agent (see `connectedAgent` for its behaviour by task). */
  publishConnected(name: string, rental: RentalModel, priceEth?: string, manifest?: Record<string, unknown>): Promise<PublishedAgent>;
  /** Lets the connected agent check deliveries to `path` with `secret` (an agent published by hand). */
  registerWebhookSecret(path: string, secret: string): void;
  /** Registers and lists `manifest`, then (optionally) stores its provider key. */
  publishManifest(manifest: Record<string, unknown>, rental: RentalModel, providerKey?: string, priceEth?: string): Promise<PublishedAgent>;
  /** Buys `deposit` wei of per-query balance (or the one-time credential) for `renter`. */
  buy(renter: Renter, listing: PublishedAgent, deposit?: bigint): Promise<void>;
  /** POST /v1/execute (or /stream): the answer, recorded for invariant 4. */
  execute(renter: Renter, body: Record<string, unknown>, options?: { stream?: boolean; headers?: Record<string, string> }): Promise<Answer>;
  /** The renter's per-query balance on-chain. */
  balanceOf(listing: PublishedAgent, wallet: Hex): Promise<bigint>;
  /** The recovery the service runs on its own schedule, driven now: settlement passes until none is
   * left pending (bounded), then the stale-run sweep as if its wait (STALE_AFTER_TIMEOUT_MS past the
   * longest timeout) had passed. Call it only when every request of the test has been answered: the
   * sweep would otherwise finish a run that is legitimately in flight. */
  recover(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface FaultWorldOptions {
  /** Extra service configuration. */
  env?: Record<string, string>;
  /** More behaviours of the connected agent: called with each verified delivery's task (after its gate);
   * returns true when it answered (or dropped) the delivery itself. */
  agent?: AgentBehaviour;
}

/** A behaviour of the connected agent for some tasks (see FaultWorldOptions.agent). */
export type AgentBehaviour = (task: string, res: ServerResponse) => boolean | Promise<boolean>;

const CONNECTED_MANIFEST = {
  category: "research",
  description: "A connected agent of the fault suite",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object" },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 20,
};

/**
 * The connected agent: a run whose task has a gate waits there until the test opens it. A task the
 * world's extra behaviour answers is answered by it; else a task starting with "stream" answers as an
 * event stream (three output events, then the result); any other answers JSON
 * {output: {findings: ["done: <task>"]}}.
 */
function connectedAgent(secrets: Map<string, string>, gates: ReturnType<typeof createGates>, deliveries: FaultWorld["deliveries"], behaviour?: AgentBehaviour) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    try {
      new Webhook(secrets.get(req.url ?? "") ?? "whsec_AAAA").verify(body, req.headers as Record<string, string>);
    } catch {
      return void res.writeHead(401).end();
    }
    const payload = JSON.parse(body) as { run_id: string; task: string };
    deliveries.push({ task: payload.task, runId: payload.run_id });
    const gate = gates.get(payload.task);
    if (gate) {
      gate.arrived++;
      await gate.release;
    }
    if (res.destroyed) return;
    if (behaviour && (await behaviour(payload.task, res))) return;
    if (payload.task.startsWith("stream")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const piece of ["alpha ", "beta ", "gamma"]) res.write(`event: output\ndata: ${JSON.stringify({ delta: piece })}\n\n`);
      return void res.end(`event: result\ndata: ${JSON.stringify({ output: { findings: ["alpha", "beta", "gamma"] } })}\n\n`);
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output: { findings: [`done: ${payload.task}`] } }));
  };
}

export async function startFaultWorld(options: FaultWorldOptions = {}): Promise<FaultWorld> {
  const [dynamo, chainLink, agentServerParts] = await Promise.all([
    startRestartableDynamo(),
    startCuttableLink(inject("rpcUrl")),
    (async () => {
      const secrets = new Map<string, string>();
      const gates = createGates();
      const deliveries: FaultWorld["deliveries"] = [];
      const server = await startHttpsServer((req, res) => void connectedAgent(secrets, gates, deliveries, options.agent)(req, res));
      return { secrets, gates, deliveries, server };
    })(),
  ]);
  const { secrets, gates, deliveries, server: agentServer } = agentServerParts;
  // A request gives its charge a few seconds to land before it answers pending (the default is 15 s).
  // The world runs the settler, as the local stack does: per-query charges go through it (and the link).
  const base = await startWorld({ serve: false, env: { ALLOW_PRIVATE_AGENT_HOSTS: "true", DYNAMODB_ENDPOINT: dynamo.endpoint, RPC_URL: chainLink.url, SETTLEMENT_WAIT_MS: "3000", ...options.env } });
  const ctx = base.ctx;
  ctx.services.egress = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
  const app = buildApp(ctx.services);
  const creator = await fundedAccount(inject("rpcUrl"));
  const creatorToken = (await signIn(app, creator)).token;
  await approveCreator(ctx, app, creator.address, creatorToken);
  const answers = new Map<string, Answer>();

  const balanceOf = async (listing: PublishedAgent, wallet: Hex): Promise<bigint> => {
    const [balance] = await ctx.services.chain.client.readContract({ address: ctx.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, wallet] });
    return balance;
  };

  const world: FaultWorld = {
    ctx,
    app,
    dynamo,
    chainLink,
    agentServer,
    gates,
    creator,
    deliveries,
    async renter() {
      const account = await fundedAccount(inject("rpcUrl"));
      const token = (await signIn(app, account)).token;
      return { account, key: (await createKey(app, account, token)).key };
    },
    async publishConnected(name, rental, priceEth = "0.001", manifest = {}) {
      const published = await publishConnectedAgent(ctx, app, creator, { ...CONNECTED_MANIFEST, name, entrypoint_url: `${agentServer.url}/agents/${name}`, ...manifest }, rental, priceEth, creatorToken);
      secrets.set(`/agents/${name}`, published.webhookSecret);
      return published;
    },
    registerWebhookSecret(path, secret) {
      secrets.set(path, secret);
    },
    async publishManifest(manifest, rental, providerKey, priceEth = "0.001") {
      const published = await publishAgent(ctx, app, creator, manifest, rental, priceEth, creatorToken);
      if (providerKey !== undefined) {
        const res = await app.request(`/v1/listings/${published.listing_id}/provider-key`, { method: "PUT", headers: { authorization: `Bearer ${creatorToken}`, "content-type": "application/json" }, body: JSON.stringify({ provider_key: providerKey }) });
        if (res.status !== 200) throw new Error(`provider key refused: ${res.status} ${await res.text()}`);
      }
      return published;
    },
    async buy(renter, listing, deposit) {
      const rental = (await ctx.services.chain.client.readContract({ address: ctx.services.chain.marketplace, abi: marketplaceAbi, functionName: "listings", args: [listing.onChainId] }))[2];
      if (rental === 2) await writeMarketplace(marketTarget(ctx), renter.account, "purchasePerQuery", [listing.onChainId], deposit ?? listing.priceWei * 5n);
      else await writeMarketplace(marketTarget(ctx), renter.account, "purchaseOneTime", [listing.onChainId], listing.priceWei);
      await indexChain(ctx);
    },
    async execute(renter, body, { stream = false, headers = {} } = {}) {
      const res = await app.request(stream ? "/v1/execute/stream" : "/v1/execute", {
        method: "POST",
        headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      let answer: Answer;
      if (stream && res.status === 200) {
        const events = parseSse(text);
        const deltas = events.filter((e) => e.event === "output").map((e) => (e.data as { delta: string }).delta);
        const done = (events.find((e) => e.event === "done")?.data ?? {}) as Record<string, unknown>;
        answer = { status: res.status, runId: res.headers.get("x-run-id") ?? undefined, body: done, deltas, carriedOutput: deltas.some((delta) => delta !== "") || hasOutput(done.output) };
      } else {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const runId = typeof parsed.run_id === "string" ? parsed.run_id : /run_[0-9a-f]{32}/.exec(text)?.[0];
        answer = { status: res.status, runId, body: parsed, deltas: [], carriedOutput: res.status === 200 && hasOutput(parsed.output) };
      }
      if (answer.runId) {
        // A run answered twice (an Idempotency-Key retry) carried output if any of its answers did.
        const earlier = answers.get(answer.runId);
        answers.set(answer.runId, earlier?.carriedOutput ? earlier : answer);
      }
      return answer;
    },
    balanceOf,
    async recover(timeoutMs = 20_000) {
      // The settlement pass resolves deferred charges from the chain and hands over those it has not seen;
      // the running settler charges them.
      await until("the settlement passes to leave no settlement pending", async () => (await runJob(ctx.services, "settler")).settlements.pending === 0, timeoutMs, 200);
      // Then, as if the clock had moved past every run's timeout: the settler's stale-run sweep.
      const sweep = await finishStaleRuns(ctx.services, Date.now() + STALE_AFTER_TIMEOUT_MS + MAX_TIMEOUT_MS + 1_000);
      if (sweep.skipped > 0) throw new Error(`the stale-run sweep skipped ${sweep.skipped} runs (the chain could not be read)`);
    },
    async stop() {
      gates.openAll();
      await Promise.allSettled([agentServer.stop(), base.close()]);
      await Promise.allSettled([chainLink.stop(), dynamo.stop()]);
    },
  };
  worldAnswers.set(world, answers);
  worldKeys.set(world, new Map());
  const renter = world.renter;
  world.renter = async () => {
    const made = await renter();
    worldKeys.get(world)!.set(made.account.address.toLowerCase(), made.key);
    return made;
  };
  return world;
}

const worldAnswers = new WeakMap<FaultWorld, Map<string, Answer>>();
const worldKeys = new WeakMap<FaultWorld, Map<string, string>>();

// ---- the invariants --------------------------------------------------------------------------------

/** Every item of the world's runs table. */
export async function scanRuns(world: FaultWorld): Promise<Record<string, unknown>[]> {
  const tables = world.ctx.services.tables;
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(new ScanCommand({ TableName: tables.name("runs"), ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...((page.Items ?? []) as Record<string, unknown>[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

export async function runRecords(world: FaultWorld): Promise<RunRecord[]> {
  return (await scanRuns(world)).filter((item) => item.sk === "run" && item.barred !== true) as unknown as RunRecord[];
}

/** Invariant 1: no run record left running. */
export async function expectNoRunLeftRunning(world: FaultWorld): Promise<void> {
  const running = (await runRecords(world)).filter((run) => run.status === "running").map((run) => run.run_id);
  expect.soft(running, "runs left running").toEqual([]);
}

/** Invariant 2: no concurrency slot and no reservation held. */
export async function expectNothingHeld(world: FaultWorld): Promise<void> {
  const held = (await scanRuns(world))
    .filter((item) => typeof item.pk === "string" && (item.pk.startsWith("concurrency#") || item.pk.startsWith("ledger#")))
    .flatMap((item) => Object.keys((item.leases as Record<string, unknown> | undefined) ?? {}).map((holder) => `${String(item.pk)} held by ${holder}`));
  expect.soft(held, "slots and reservations still held").toEqual([]);
}

/** Invariant 3: every on-chain charge matches exactly one finished, settled run at the event's price,
 * no run is charged twice, and every run recorded as settled was charged on-chain. */
export async function expectChargesMatchRuns(world: FaultWorld): Promise<void> {
  const { chain } = world.ctx.services;
  const events = await chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", fromBlock: 0n, toBlock: "latest" });
  const runs = await runRecords(world);
  const byRef = new Map<string, RunRecord[]>();
  for (const run of runs) byRef.set(chargeRefOf(run), [...(byRef.get(chargeRefOf(run)) ?? []), run]);
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const event of events) {
    const ref = event.args.runRef!.toLowerCase() as Hex;
    seen.set(ref, (seen.get(ref) ?? 0) + 1);
    const matching = byRef.get(ref) ?? [];
    if (matching.length !== 1) {
      problems.push(`charge ${ref} (${event.args.price} wei) matches ${matching.length} runs`);
      continue;
    }
    const run = matching[0]!;
    // A failed run is charged only for output it already delivered (deltas of a stream, docs/reference/execution.md).
    const chargeable = run.status === "completed" || (run.status === "failed" && (run as { delivery?: string }).delivery !== "sync" && (run.streamed ?? "").length > 0);
    if (!chargeable) problems.push(`run ${run.run_id} was charged but is ${run.status} (${run.error?.code ?? "-"}) with no output delivered`);
    if (run.settlement !== "settled") problems.push(`run ${run.run_id} was charged but its settlement reads ${run.settlement}`);
    if (run.cost_wei !== event.args.price!.toString()) problems.push(`run ${run.run_id} records cost ${run.cost_wei}, the chain charged ${event.args.price}`);
  }
  for (const [ref, count] of seen) if (count > 1) problems.push(`runRef ${ref} charged ${count} times`);
  for (const run of runs) {
    if (run.settlement === "settled" && !seen.has(chargeRefOf(run))) problems.push(`run ${run.run_id} reads settled without a charge on-chain`);
    if (run.settlement !== "settled" && run.cost_wei !== "0" && run.settlement !== "pending") problems.push(`run ${run.run_id} records cost ${run.cost_wei} with settlement ${run.settlement}`);
  }
  expect.soft(problems, "charges against run records").toEqual([]);
}

/** Invariant 4: no per-query output released unpaid, through the API or the execute answer. */
export async function expectNoOutputUnpaid(world: FaultWorld): Promise<void> {
  const answers = worldAnswers.get(world)!;
  const keys = worldKeys.get(world)!;
  const problems: string[] = [];
  for (const run of await runRecords(world)) {
    if (run.rental_model !== "per_query" || run.settlement === "settled") continue;
    const key = keys.get(run.wallet.toLowerCase());
    if (!key) throw new Error(`no key for the renter of ${run.run_id}`);
    const res = await world.app.request(`/v1/runs/${run.run_id}`, { headers: { authorization: `Bearer ${key}` } });
    const detail = (await res.json()) as { output?: unknown };
    if (res.status !== 200) problems.push(`GET /v1/runs/${run.run_id} answered ${res.status}`);
    else if (hasOutput(detail.output)) problems.push(`GET /v1/runs/${run.run_id} shows output of an unpaid run (${run.status}, ${run.error?.code ?? "-"}, settlement ${run.settlement})`);
    const answer = answers.get(run.run_id);
    if (answer?.carriedOutput) problems.push(`the execute answer of unpaid run ${run.run_id} (${run.status}, ${run.error?.code ?? "-"}, settlement ${run.settlement}, cost ${run.cost_wei}) carried output${answer.deltas.length ? ` (${answer.deltas.length} output events)` : ""}`);
  }
  expect.soft(problems, "output released unpaid").toEqual([]);
}

/** The four invariants; each is checked and reported even when another fails (expect.soft). */
export async function expectMoneyAndRecordsIntact(world: FaultWorld): Promise<void> {
  await expectNoRunLeftRunning(world);
  await expectNothingHeld(world);
  await expectChargesMatchRuns(world);
  await expectNoOutputUnpaid(world);
}
