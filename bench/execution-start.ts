// Start of execution through the whole service: `POST /v1/execute` received → the agent invoked, with a
// no-op declarative agent. Target: p95 < 20 ms locally at an open-loop offered load of 20 runs/s, with
// pre-started sandboxes (a sandbox is never reused).
//
// Everything is real: dynalite, fauxqs (S3 for the sealed agent logic and provider key, SQS for
// registration), a Hardhat node with the marketplace, the agent published through the registration
// pipeline with a provider key set, a renter holding a one-time credential and an API key, and the app
// served over HTTP on 127.0.0.1 by @hono/node-server. Only the agent runtime is replaced: the sandbox
// pool preloads bench/fixtures/noop-agent.mjs, which answers `{output: {invokedAt}}` at once. The rate
// limiter admits everything (the default rules would refuse most of the load).
//
// The load comes from a worker thread (its own event loop, so requests leave on schedule whatever the
// server is doing). For each request: the send time (`performance.timeOrigin + performance.now()`, the
// clock the sandbox uses too) and the agent's `invokedAt`; start of execution = invokedAt − send time, an
// upper bound of request-received → agent-invoked on loopback. Windows, each with pre-started sandboxes
// and, as the baseline in the same run, with `warm: 0` (every run waits for a sandbox to be spawned):
// one request at a time on an idle service, then open loops of 5, 10 and 20 requests/s for 10 s each
// (after a 1 s warm-up at the same rate).
//
// Where the time goes, per request, timed from outside the service's code: the HTTP handler's entry,
// every table call (`services.tables.doc.send`), every chain request (the global fetch viem uses), blob
// reads, key unwraps and the sandbox pool's `run()` call are stamped and attributed to their request
// through AsyncLocalStorage, then grouped into phases. Also per window: the API event loop's
// utilisation, CPU per request (this process, and the sandbox processes), and the time the API's event
// loop spent inside spawn() starting sandboxes (none since the pool moved to a thread of its own).
// Run: npm run bench -- execution-start   (or: node --import tsx bench/execution-start.ts)
import { AsyncLocalStorage } from "node:async_hooks";
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { serve, type ServerType } from "@hono/node-server";
import { createTestClient, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices, type Services } from "../src/services.ts";
import { ensureTables } from "../src/adapters/tables/dynamo.ts";
import { TABLE_NAMES } from "../src/adapters/tables/schema.ts";
import { ensureRegistrationQueues, createQueue } from "../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../src/adapters/blobs/s3.ts";
import type { LocalSandboxPool } from "../src/adapters/sandbox/local.ts";
import { createThreadedSandboxPool } from "../src/adapters/sandbox/threaded.ts";
import type { RunEvent, RunSpec, SandboxPool, SandboxStats } from "../src/adapters/sandbox/port.ts";
import type { RateLimiter } from "../src/adapters/ratelimit/port.ts";
import { chainFor } from "../src/chain/client.ts";
import { deployMarketplace } from "../src/chain/deploy.ts";
import { writeMarketplace } from "../src/chain/write.ts";
import { catchUp } from "../src/credentials/indexer.ts";
import { generateSigningKey } from "../src/auth/jwt.ts";
import { createLogger } from "../src/logger.ts";
import { SANDBOX_MEMORY_MB } from "../src/execution/limits.ts";
import { startChain, LOCAL_CHAIN_ID } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { approveCreator, publishAgent } from "../local/publish.ts";
import { createKey, signIn } from "../test/support/auth.ts";
import { ms, percentile, summarize } from "./stats.ts";

const NOOP_AGENT = join(dirname(fileURLToPath(import.meta.url)), "fixtures/noop-agent.mjs");
/** Offered loads, open loop; 20 runs/s is the one the target names, the lower ones show where the
 * service on this machine stops keeping up. */
const RATES = [5, 10, 20];
const OFFERED_SECONDS = 10;
const WARMUP_SECONDS = 1;
/** Idle pre-started sandboxes for the measured pool: 20 runs/s with ~50–100 ms to start a replacement
 * needs 1–2 in use at a time; 6 leaves room for bursts, 8 is the ceiling the pool may grow to. */
const WARM = 6;
const MAX_WARM = 8;
/** Requests sent one at a time on an idle service (the pool refilled between them), for the breakdown
 * of one request. */
const SEQUENTIAL = 40;
const SEQUENTIAL_GAP_MS = 200;

const now = () => performance.timeOrigin + performance.now();
const sleep = (millis: number) => new Promise((r) => setTimeout(r, millis));

// ---------------------------------------------------------------------------------------------------
// Tracing from outside the service's code.

type Phase = "auth" | "access_tables" | "chain" | "logic" | "lease" | "run_record" | "provider_key" | "other";
interface Span {
  phase: Phase;
  what: string;
  start: number;
  end: number;
}
interface Trace {
  receivedAt: number;
  spans: Span[];
  /** When the service called the sandbox pool's run(). */
  handoffAt?: number;
}

const als = new AsyncLocalStorage<Trace>();
/** Every spawn() call of this process: when it returned (epoch ms) and how long it blocked. */
const spawns: { at: number; ms: number }[] = [];
/** Traces of requests that reached the sandbox, by run id. */
const traces = new Map<string, Trace>();

async function traced<T>(phase: Phase, what: string, work: () => Promise<T>): Promise<T> {
  const trace = als.getStore();
  if (!trace) return work();
  const start = now();
  try {
    return await work();
  } finally {
    trace.spans.push({ phase, what, start, end: now() });
  }
}

function instrument(services: Services): () => void {
  const logical = new Map<string, string>(TABLE_NAMES.map((table) => [services.tables.name(table), table]));
  const classify = (command: { constructor: { name: string }; input: unknown }): { phase: Phase; what: string } | null => {
    const input = command.input as { TableName?: string; Key?: { pk?: string }; Item?: { pk?: string }; ConsistentRead?: boolean };
    const table = logical.get(input.TableName ?? "") ?? input.TableName ?? "?";
    const pk = String(input.Key?.pk ?? input.Item?.pk ?? "");
    const what = `${command.constructor.name.replace(/Command$/, "")} ${table} ${pk.split("#")[0]}#`;
    if (table === "keys") return command.constructor.name === "GetCommand" ? { phase: "auth", what } : null; // the last-used touch is not awaited
    if (table === "listings" && pk.startsWith("listing#") && input.ConsistentRead) return { phase: "provider_key", what };
    if (table === "listings" || table === "chain_listings") return { phase: "access_tables", what };
    if (table === "runs" && pk.startsWith("concurrency#")) return { phase: "lease", what };
    if (table === "runs" && pk.startsWith("run#")) return { phase: "run_record", what };
    return { phase: "other", what };
  };
  type Send = (command: never, ...rest: unknown[]) => Promise<unknown>;
  const doc = services.tables.doc as unknown as { send: Send };
  const send = doc.send.bind(doc) as Send;
  doc.send = ((command: never, ...rest: unknown[]) => {
    const kind = als.getStore() ? classify(command) : null;
    return kind ? traced(kind.phase, kind.what, () => send(command, ...rest)) : send(command, ...rest);
  }) as Send;

  const blobs = services.blobs;
  const get = blobs.get.bind(blobs);
  blobs.get = (key) => traced(key.includes("provider_key") ? "provider_key" : "logic", "blob get", () => get(key));
  const keys = services.keys;
  const unwrap = keys.unwrap.bind(keys);
  keys.unwrap = (wrapped, context) => traced(context.purpose === "provider_key" ? "provider_key" : "logic", "key unwrap", () => unwrap(wrapped, context));

  // viem's http transport looks the global fetch up on every request; in this thread only it uses fetch
  // (the AWS SDK uses node:http, the load generator runs in a worker with its own globals).
  const fetch = globalThis.fetch;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => traced("chain", "chain request", () => fetch(input, init))) as typeof fetch;

  // spawn() is synchronous: the time the API's event loop spends in it starting sandboxes. The pool
  // imports it as a named ES binding, which syncBuiltinESMExports() points at the wrapper.
  const spawn = childProcess.spawn;
  childProcess.spawn = function timedSpawn(this: unknown, ...args: Parameters<typeof spawn>) {
    const start = performance.now();
    try {
      return spawn.apply(this, args);
    } finally {
      spawns.push({ at: now(), ms: performance.now() - start });
    }
  } as typeof spawn;
  syncBuiltinESMExports();
  return () => {
    globalThis.fetch = fetch;
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  };
}

/** The pool as the service sees it: each run() call stamps its request's trace. */
function tracedPool(pool: LocalSandboxPool): SandboxPool {
  return {
    run: async (spec: RunSpec, onEvent?: (event: RunEvent) => void) => {
      const trace = als.getStore();
      if (trace) {
        trace.handoffAt = now();
        traces.set(spec.runId, trace);
      }
      return pool.run(spec, onEvent);
    },
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}

// ---------------------------------------------------------------------------------------------------
// The load generator: a worker thread sending POST /v1/execute, open loop or one at a time.

interface Sample {
  i: number;
  scheduled: number;
  sentAt: number;
  doneAt: number;
  http: number;
  status?: string;
  runId?: string;
  invokedAt?: number;
  error?: string;
}

const LOAD_GENERATOR = `
const { parentPort, workerData: w } = require("node:worker_threads");
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const body = JSON.stringify({ agent_id: w.agentId, task: "Do nothing." });
const headers = { authorization: "Bearer " + w.apiKey, "content-type": "application/json" };
async function one(i, scheduled) {
  const sentAt = now();
  try {
    const res = await fetch(w.url, { method: "POST", headers, body });
    const text = await res.text();
    const doneAt = now();
    let run;
    try { run = JSON.parse(text); } catch { run = undefined; }
    const invokedAt = run && run.output && typeof run.output.invokedAt === "number" ? run.output.invokedAt : undefined;
    const error = res.status !== 200 ? "http " + res.status + " " + (run && run.error ? run.error.code : "") : run && run.status !== "completed" ? (run.error ? run.error.code : "no output") : undefined;
    return { i, scheduled, sentAt, doneAt, http: res.status, status: run && run.status, runId: run && run.run_id, invokedAt, error };
  } catch (e) {
    return { i, scheduled, sentAt, doneAt: now(), http: 0, error: String(e && e.message || e) };
  }
}
(async () => {
  const out = [];
  if (w.mode === "sequential") {
    for (let i = 0; i < w.count; i++) {
      out.push(await one(i, now()));
      await sleep(w.gapMs);
    }
  } else {
    const interval = 1000 / w.rate;
    const began = performance.now() + 20;
    const pending = [];
    for (let i = 0; i < w.count; i++) {
      const due = began + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(one(i, performance.timeOrigin + due));
    }
    out.push(...(await Promise.all(pending)));
  }
  parentPort.postMessage(out);
})();
`;

/** Open loop: `count` requests at `rate` per second whatever the answers; sequential: one at a time,
 * `gapMs` after each answer. */
function load(target: { url: string; apiKey: string; agentId: string }, mode: "open" | "sequential", count: number, rate: number, gapMs = 0): Promise<Sample[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_GENERATOR, { eval: true, workerData: { ...target, mode, count, rate, gapMs } });
    let samples: Sample[] | undefined;
    worker.once("message", (message: Sample[]) => (samples = message));
    worker.once("error", reject);
    worker.once("exit", (code) => (samples ? resolve(samples) : reject(new Error(`the load generator exited (${code}) without results`))));
  });
}

// ---------------------------------------------------------------------------------------------------
// Figures.

/** CPU time of this process's ended and reaped children (the sandboxes; the chain node runs until the
 * end), from /proc/self/stat, ms. */
function reapedChildrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").replace(/^.*\) /s, "").split(" ");
  // after "(comm) ": state is field 3 of stat(5), cutime and cstime are fields 16 and 17
  const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
/** USER_HZ: 100 on Linux for every architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Total length of the union of intervals (parallel calls count once). */
function covered(spans: Span[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const span of sorted) {
    if (span.start > end) {
      if (end > start) total += end - start;
      start = span.start;
      end = span.end;
    } else end = Math.max(end, span.end);
  }
  if (end > start) total += end - start;
  return total;
}

const PHASES = [
  ["total", "start of execution (send → agent invoked)"],
  ["network", "HTTP in: send → handler entered"],
  ["auth", "authentication: API key read"],
  ["access", "access check (union of the below)"],
  ["access_tables", "  table reads: alias, then agent ∥ chain listing"],
  ["chain", "  chain: credentialOf + listings, one batch"],
  ["logic", "agent logic (in-process cache)"],
  ["lease", "concurrency lease (conditional update)"],
  ["run_record", "run record (conditional put)"],
  ["provider_key", "provider key: agent read + blob get + unwrap"],
  ["handoff", "sandbox hand-off: pool.run() → agent invoked"],
  ["other", "other table calls"],
  ["cpu", "remainder: in-process work between the calls"],
] as const;
type PhaseName = (typeof PHASES)[number][0];

function breakdown(sample: Sample, trace: Trace): Record<PhaseName, number> | null {
  if (sample.invokedAt === undefined || trace.handoffAt === undefined) return null;
  const before = trace.spans.filter((span) => span.start < trace.handoffAt!);
  const of = (...phases: Phase[]) => covered(before.filter((span) => phases.includes(span.phase)));
  const parts = {
    total: sample.invokedAt - sample.sentAt,
    network: trace.receivedAt - sample.sentAt,
    auth: of("auth"),
    access: of("access_tables", "chain"),
    access_tables: of("access_tables"),
    chain: of("chain"),
    logic: of("logic"),
    lease: of("lease"),
    run_record: of("run_record"),
    provider_key: of("provider_key"),
    handoff: sample.invokedAt - trace.handoffAt,
    other: of("other"),
  };
  const accounted = parts.network + parts.auth + parts.access + parts.logic + parts.lease + parts.run_record + parts.provider_key + parts.handoff + parts.other;
  return { ...parts, cpu: parts.total - accounted };
}

interface Window {
  /** Short column heading. */
  name: string;
  label: string;
  samples: Sample[];
  stats: { before: SandboxStats; after: SandboxStats };
  /** Main thread's event-loop utilisation over the window (0..1). */
  elu: number;
  /** CPU of this process (API, in-process dynalite and fauxqs, the load generator) per request, ms. */
  cpuPerRequest: number;
  /** CPU of the sandbox processes that ended in the window, per request, ms. */
  sandboxCpuPerRequest: number;
  /** Time the API's event loop spent inside spawn() (starting sandboxes), ms, and how many. */
  spawnMs: number[];
  seconds: number;
}

function startsOf(samples: Sample[]): number[] {
  return samples.filter((s) => s.error === undefined && s.invokedAt !== undefined).map((s) => s.invokedAt! - s.sentAt);
}

function windowRows(w: Window): string[] {
  const ok = w.samples.filter((s) => s.error === undefined && s.invokedAt !== undefined);
  const starts = startsOf(w.samples);
  const whole = ok.map((s) => s.doneAt - s.sentAt);
  const late = w.samples.map((s) => s.sentAt - s.scheduled);
  const first = Math.min(...w.samples.map((s) => s.sentAt));
  const lastSent = Math.max(...w.samples.map((s) => s.sentAt));
  const lastDone = Math.max(...w.samples.map((s) => s.doneAt));
  const st = summarize(starts);
  const wh = summarize(whole);
  const errorKinds = [...new Set(w.samples.filter((x) => x.error !== undefined).map((x) => x.error))];
  const hits = w.stats.after.warmHits - w.stats.before.warmHits;
  const misses = w.stats.after.warmMisses - w.stats.before.warmMisses;
  const spawn = summarize(w.spawnMs);
  const spawnTotal = w.spawnMs.reduce((a, b) => a + b, 0);
  const offered = w.samples.length > 1 ? `offered ${((w.samples.length - 1) / ((lastSent - first) / 1000)).toFixed(1)} req/s (send lateness p95 ${ms(percentile(late, 95))}); ` : "";
  // Runs whose time in the service (send → hand-off) overlapped a spawn() call, against the others.
  const blockedMs = (sample: Sample) => {
    const trace = sample.runId ? traces.get(sample.runId) : undefined;
    if (!trace?.handoffAt) return 0;
    return spawns.reduce((sum, call) => sum + Math.max(0, Math.min(call.at, trace.handoffAt!) - Math.max(call.at - call.ms, sample.sentAt)), 0);
  };
  const stalled = ok.filter((sample) => blockedMs(sample) > 0);
  const clear = ok.filter((sample) => blockedMs(sample) === 0);
  const stalledStarts = summarize(startsOf(stalled));
  const clearStarts = summarize(startsOf(clear));
  const stalledRow =
    stalled.length && clear.length
      ? `  runs whose admission overlapped a spawn() call: ${stalled.length}/${ok.length}, blocked p50 ${ms(percentile(stalled.map(blockedMs), 50))}; their start of execution p50 ${ms(stalledStarts.p50)}, p95 ${ms(stalledStarts.p95)} against p50 ${ms(clearStarts.p50)}, p95 ${ms(clearStarts.p95)} for the others`
      : `  runs whose admission overlapped a spawn() call: ${stalled.length}/${ok.length}`;
  return [
    `${w.label}: start of execution (send → agent invoked), n=${st.n}: p50 ${ms(st.p50)}, p95 ${ms(st.p95)}, p99 ${ms(percentile(starts, 99))}, max ${ms(st.max)}`,
    `  ${offered}completed ${ok.length}/${w.samples.length} → ${(ok.length / ((lastDone - first) / 1000)).toFixed(1)} runs/s; errors ${w.samples.length - ok.length}${errorKinds.length ? ` (${errorKinds.join(", ")})` : ""}; whole request (send → response) p50 ${ms(wh.p50)}, p95 ${ms(wh.p95)}`,
    `  sandboxes: pre-started taken at once ${hits}, waited for a spawn ${misses}; API event loop busy ${(100 * w.elu).toFixed(0)}%; CPU per request: service process ${w.cpuPerRequest.toFixed(1)} ms, its sandbox ${w.sandboxCpuPerRequest.toFixed(1)} ms; spawn() on the API's event loop: ${spawn.n} calls, p50 ${ms(spawn.p50)}, p95 ${ms(spawn.p95)}, ${(spawnTotal / w.seconds).toFixed(0)} ms per second`,
    stalledRow,
  ];
}

/** One row per phase, one column per window: p50 / p95 of each phase over that window's traced runs. */
function breakdownTable(windows: Window[]): string[] {
  const columns = windows.map((w) =>
    w.samples.flatMap((sample) => {
      const trace = sample.runId ? traces.get(sample.runId) : undefined;
      const parts = trace && sample.error === undefined ? breakdown(sample, trace) : null;
      return parts ? [parts] : [];
    }),
  );
  const width = 17;
  const out = [`${"phase (p50 / p95, ms)".padEnd(48)}${windows.map((w, i) => `${w.name} n=${columns[i]!.length}`.padStart(width)).join("")}`];
  for (const [name, label] of PHASES) {
    if (name === "other" && columns.every((rows) => rows.every((row) => row.other === 0))) continue;
    const cells = columns.map((rows) => {
      const values = rows.map((row) => row[name]);
      return values.length ? `${percentile(values, 50).toFixed(1)} / ${percentile(values, 95).toFixed(1)}`.padStart(width) : "-".padStart(width);
    });
    out.push(`${label.padEnd(48)}${cells.join("")}`);
  }
  const calls = (before: boolean) =>
    windows.map((w) => {
      const counts = w.samples.flatMap((sample) => {
        const trace = sample.runId ? traces.get(sample.runId) : undefined;
        if (!trace || trace.handoffAt === undefined || sample.error !== undefined) return [];
        return [trace.spans.filter((span) => span.phase !== "chain" && (span.start < trace.handoffAt!) === before).length];
      });
      return (counts.length ? String(percentile(counts, 50)) : "-").padStart(width);
    });
  out.push(`${"table/blob/key calls per run before the hand-off".padEnd(48)}${calls(true).join("")}`);
  out.push(`${"  and after it (record, lease, listing figures)".padEnd(48)}${calls(false).join("")}`);
  const otherCalls = new Set(
    windows
      .flatMap((w) => w.samples.flatMap((s) => (s.runId ? [traces.get(s.runId)] : [])))
      .flatMap((trace) => (trace?.handoffAt === undefined ? [] : trace.spans.filter((span) => span.phase === "other" && span.start < trace.handoffAt!)))
      .map((span) => span.what),
  );
  if (otherCalls.size) out.push(`other table calls before the hand-off: ${[...otherCalls].join(", ")}`);
  return out;
}

// ---------------------------------------------------------------------------------------------------

export async function runExecutionStartBench(): Promise<string[]> {
  const started = await Promise.allSettled([freePort().then((port) => startChain({ port })), freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))] as const);
  const [chainStart, dynamoStart, awsStart] = started;
  if (chainStart.status === "rejected" || dynamoStart.status === "rejected" || awsStart.status === "rejected") {
    await Promise.allSettled(started.flatMap((result) => (result.status === "fulfilled" ? [result.value.stop()] : [])));
    throw (started.find((result) => result.status === "rejected") as PromiseRejectedResult).reason;
  }
  const [chain, dynamo, aws] = [chainStart.value, dynamoStart.value, awsStart.value];
  let server: ServerType | undefined;
  let pool: LocalSandboxPool | undefined;
  let restore: (() => void) | undefined;
  const rows: string[] = [];
  try {
    // The chain, the marketplace and the service.
    const testClient = createTestClient({ mode: "hardhat", transport: http(chain.rpcUrl) });
    const fund = async (): Promise<PrivateKeyAccount & { privateKey: Hex }> => {
      const privateKey = generatePrivateKey();
      const account = privateKeyToAccount(privateKey);
      await testClient.setBalance({ address: account.address, value: parseEther("100") });
      return Object.assign(account, { privateKey });
    };
    const authority = await fund();
    const viemChain = chainFor(LOCAL_CHAIN_ID, chain.rpcUrl);
    const deployed = await deployMarketplace({ rpcUrl: chain.rpcUrl, chain: viemChain, deployerPrivateKey: authority.privateKey, authority: authority.address, feeRecipient: authority.address });
    const queue = createQueue({ region: "us-east-1", endpoint: aws.endpoint });
    const suffix = randomBytes(4).toString("hex");
    const queues = await ensureRegistrationQueues(queue, { queue: `bench-${suffix}`, dlq: `bench-dlq-${suffix}` });
    const config = loadConfig({
      STAGE: "local", TABLE_PREFIX: "bench-", DYNAMODB_ENDPOINT: dynamo.endpoint, AWS_ENDPOINT: aws.endpoint, REGISTRATION_QUEUE_URL: queues.queueUrl, REGISTRATION_DLQ_URL: queues.dlqUrl, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:1/000000000000/unused-settlement",
      BLOB_BUCKET: "bench-blobs", RPC_URL: chain.rpcUrl, CHAIN_ID: String(LOCAL_CHAIN_ID), MARKETPLACE_ADDRESS: deployed.address, LOG_LEVEL: "silent",
      JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]), LOCAL_MASTER_KEY: randomBytes(32).toString("base64"),
    });
    // The start of execution is measured, not the rate limits (100 requests a minute per key, 60 runs a
    // minute per credential would refuse most of the load): a limiter that admits everything.
    const unlimited: RateLimiter = { limit: async (_key, rule) => ({ allowed: true, limit: rule.limit, remaining: rule.limit, reset: Math.ceil(Date.now() / 1000) + 60, retryAfterSeconds: 0 }) };
    let current: SandboxPool | undefined;
    const services = createServices(config, { logger: createLogger("silent"), rateLimiter: unlimited, runtimeEntry: NOOP_AGENT });
    services.sandbox = () => {
      if (!current) throw new Error("no sandbox pool in place");
      return current;
    };
    await ensureTables(services.tables, config.TABLE_PREFIX);
    await ensureBucket(createBlobs({ region: "us-east-1", bucket: config.BLOB_BUCKET, endpoint: aws.endpoint }).client, config.BLOB_BUCKET);
    const app = buildApp(services);
    const index = () => catchUp({ tables: services.tables, chain: services.chain, logger: services.logger, fromBlock: 0n, confirmations: 0 });
    const market = { rpcUrl: chain.rpcUrl, chain: viemChain, marketplace: deployed.address };

    // A creator publishes the no-op agent as every agent is published (local/publish.ts), with its
    // provider key.
    const creator = await fund();
    await approveCreator(services, creator.address, "Bench Creator");
    const manifest = {
      name: "noop-agent",
      category: "research",
      description: "Does nothing and says when it was invoked.",
      model: { provider: "provider_a", model: "noop-model" },
      system_prompt: "Do nothing.",
      input_schema: { type: "object" },
      output_schema: { type: "object", properties: { invokedAt: { type: "number" } }, required: ["invokedAt"], additionalProperties: false },
      timeout_seconds: 30,
    };
    const price = parseEther("0.001");
    const published = await publishAgent(services, creator, manifest, { rental: "one_time", priceWei: price, target: market, providerKey: "sk-bench-0123456789abcdef" });

    // A renter buys a one-time credential and creates an API key.
    const renter = await fund();
    await writeMarketplace(market, renter, "purchaseOneTime", [published.onChainId], price);
    await index();
    const apiKey = (await createKey(app, renter, (await signIn(app, renter)).token, "bench")).key;

    // The app over HTTP, every request traced.
    restore = instrument(services);
    const port = await freePort();
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: (request: Request, env: unknown) => als.run({ receivedAt: now(), spans: [] }, () => app.fetch(request, env as never)), port, hostname: "127.0.0.1" }, () => resolve(s));
      s.once("error", reject);
    });
    const target = { url: `http://127.0.0.1:${port}/v1/execute`, apiKey, agentId: published.agent_id };

    const untilIdle = async (count: number) => {
      const deadline = Date.now() + 15_000;
      while (pool!.stats().idle < count && Date.now() < deadline) await sleep(5);
    };
    const usePool = async (warm: number) => {
      await pool?.close();
      // the pool the service uses locally: on a worker thread of its own (src/adapters/sandbox/threaded.ts)
      pool = createThreadedSandboxPool({ warm, maxWarm: warm === 0 ? 0 : MAX_WARM, allowFsRead: [dirname(NOOP_AGENT)], preload: NOOP_AGENT, memoryMb: SANDBOX_MEMORY_MB });
      current = tracedPool(pool);
      await untilIdle(warm);
    };
    const measure = async (name: string, label: string, run: () => Promise<Sample[]>): Promise<Window> => {
      const before = pool!.stats();
      const elu = performance.eventLoopUtilization();
      const cpu = process.cpuUsage();
      const children = reapedChildrenCpuMs();
      const began = now();
      const samples = await run();
      const ended = now();
      const used = process.cpuUsage(cpu);
      return {
        name,
        label,
        samples,
        stats: { before, after: pool!.stats() },
        elu: performance.eventLoopUtilization(elu).utilization,
        cpuPerRequest: (used.user + used.system) / 1000 / samples.length,
        sandboxCpuPerRequest: (reapedChildrenCpuMs() - children) / samples.length,
        spawnMs: spawns.filter((s) => s.at >= began && s.at <= ended).map((s) => s.ms),
        seconds: (ended - began) / 1000,
      };
    };
    const poolName = (warm: number) => (warm ? `pre-started sandboxes (warm ${warm}, max ${MAX_WARM})` : "baseline: no pre-started sandbox (warm 0), every run waits for a spawn");
    const idle = async (warm: number, count: number): Promise<Window> => {
      await usePool(warm);
      await load(target, "open", 20, 10); // warm-up: connections, caches, JIT
      await untilIdle(warm);
      await load(target, "sequential", 5, 0, SEQUENTIAL_GAP_MS);
      return measure(warm ? "idle" : "idle,warm0", `${poolName(warm)}, one request at a time (${SEQUENTIAL_GAP_MS} ms apart)`, () => load(target, "sequential", count, 0, SEQUENTIAL_GAP_MS));
    };
    const openLoop = async (warm: number, rate: number): Promise<Window> => {
      await usePool(warm);
      await load(target, "open", WARMUP_SECONDS * rate, rate); // warm-up, not counted
      await untilIdle(warm);
      return measure(warm ? `${rate}/s` : `${rate}/s,warm0`, `${poolName(warm)}, open loop ${rate} req/s for ${OFFERED_SECONDS} s`, () => load(target, "open", OFFERED_SECONDS * rate, rate));
    };

    // How fast this machine is right now: absolute times vary severalfold between runs of the same kind of
    // machine, so the figures are read beside what a bare Node start costs here, in the same run.
    const bareStarts: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      childProcess.spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
      bareStarts.push(performance.now() - t0);
    }
    const bare = summarize(bareStarts);
    rows.push(`this machine now: a bare \`node -e 0\` takes p50 ${ms(bare.p50)}, p95 ${ms(bare.p95)} (sequential, n=${bare.n})`);

    const windows: Window[] = [await idle(WARM, SEQUENTIAL), await idle(0, SEQUENTIAL / 2)];
    for (const rate of RATES) windows.push(await openLoop(WARM, rate), await openLoop(0, rate));

    rows.push("rate limiter: one that admits everything (the default rules, 100 requests/min per API key and 60 runs/min per credential, would refuse most of this load)");
    for (const w of windows) rows.push(...windowRows(w));
    const at = (name: string) => windows.find((w) => w.name === name)!;
    const target20 = summarize(startsOf(at("20/s").samples));
    rows.push(`target p95 < 20 ms at 20 req/s with pre-started sandboxes: p95 ${ms(target20.p95)}: ${target20.p95 < 20 ? "met" : "MISSED"}`);
    for (const name of ["idle", ...RATES.map((rate) => `${rate}/s`)]) {
      const warm = summarize(startsOf(at(name).samples));
      const cold = summarize(startsOf(at(name === "idle" ? "idle,warm0" : `${name},warm0`).samples));
      rows.push(`ratio pre-started / warm 0, ${name === "idle" ? "one at a time" : name}: p50 ${(warm.p50 / cold.p50).toFixed(2)}, p95 ${(warm.p95 / cold.p95).toFixed(2)}`);
    }
    rows.push("where the time goes (from outside the service's code, per request; phases in order, so their p50s sum to about the total's):");
    rows.push(...breakdownTable(windows));
  } finally {
    restore?.();
    if (server) {
      const s = server;
      await new Promise<void>((resolve) => {
        (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        s.close(() => resolve());
      });
    }
    await pool?.close();
    await Promise.allSettled([chain.stop(), dynamo.stop(), aws.stop()]);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`# execution-start  (${new Date().toISOString()}, node ${process.version})`);
  for (const row of await runExecutionStartBench()) console.log(row);
}
