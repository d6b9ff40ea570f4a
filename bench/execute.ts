// Task execution, the API path alone: POST /v1/execute of a connected agent that answers at once, served
// by the real app over real HTTP (@hono/node-server on 127.0.0.1), against real dynalite and fauxqs
// (in-process, as in the other benchmarks) and a real Hardhat node. The agent is an HTTPS server on
// loopback (its own CA, made with openssl) answering {"output": ...} without doing any work, so what is
// measured is the service's own path: authentication, the rate rules, the live credential check, the
// concurrency slot, the run record, the webhook secret, the signed delivery, the output check, the run's
// completion, the slot's release and the listing's figures.
//  - closed loop at fixed concurrencies (1, 8, 16: at most 20 runs of a listing are in flight, so every
//    request is admitted), a fixed number of requests after a warm-up: POST /v1/execute requests/s and
//    p50/p95, beside an authenticated cheap route of the same server (GET /v1/runs/{run_id}: the same
//    authentication and rate-limit middleware, one item read), and the ratio; with the CPU time this
//    process spends per request;
//  - the round trips of one execute after the warm-up: DynamoDB calls by command, JSON-RPC requests to
//    the chain (HTTP requests, and the calls they carry), blob reads, data-key unwraps, webhook calls;
//    and, over the serial run, the time per execute spent waiting on each of them.
// The rate rules (100/min per key, 60/min per credential) would throttle the loop: the services get a
// limiter that admits every request (it is still called on every request).
// Run: npm run bench -- execute   (or: node --import tsx bench/execute.ts)
import http from "node:http";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { parseEther } from "viem";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { ensureTables, exactDocument } from "../src/adapters/tables/dynamo.ts";
import { ensureRegistrationQueues, createQueue } from "../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../src/adapters/blobs/s3.ts";
import { createLocalKeyWrapper } from "../src/adapters/keys/local.ts";
import { createEgressGuard } from "../src/adapters/egress/guard.ts";
import type { RateLimiter } from "../src/adapters/ratelimit/port.ts";
import { chainFor } from "../src/chain/client.ts";
import { deployMarketplace } from "../src/chain/deploy.ts";
import { writeMarketplace } from "../src/chain/write.ts";
import { generateSigningKey } from "../src/auth/jwt.ts";
import { catchUp } from "../src/credentials/indexer.ts";
import { createLogger } from "../src/logger.ts";
import { startChain, LOCAL_CHAIN_ID } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { signIn, createKey } from "../test/support/auth.ts";
import { fundAccount } from "../test/support/chain-actions.ts";
import { approveCreator, publishAgent } from "../local/publish.ts";
import { startHttpsServer, type HttpsTestServer } from "../test/support/https-server.ts";
import { mean, meanDifference, ms, percentile, percentileDifference, summarize, unionMs } from "./stats.ts";
import { admitRun } from "../src/execution/admission.ts";
import { releaseReservation } from "../src/execution/money/ledger.ts";
import { releaseSpend } from "../src/execution/money/spend.ts";
import { concurrencySlots } from "../src/execution/leases/concurrency.store.ts";
import type { Principal } from "../src/auth/principal.ts";
import type { Services } from "../src/services.ts";

const MANIFEST = {
  category: "research",
  description: "A connected agent that answers at once, for the execution benchmark.",
  model: { provider: "provider_a", model: "bench" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 30,
};
const AGENT_ANSWER = JSON.stringify({ output: { findings: ["a finding", "another finding"] } });

/** A limiter that admits every request: the loop measures the path, not the rate rules. */
const admitAll: RateLimiter = {
  async limit(_key, rule) {
    return { allowed: true, limit: rule.limit, remaining: rule.limit, reset: Math.ceil(Date.now() / 1000) + rule.windowSeconds, retryAfterSeconds: 0 };
  },
};

// ---- round-trip accounting ----------------------------------------------------------------------

type Category = "dynamo" | "chain" | "blobs" | "unwrap" | "webhook";

/** What the wrapped clients saw while a tally was active. */
class Tally {
  readonly dynamo = new Map<string, { calls: number; failed: number }>();
  readonly rpcMethods = new Map<string, number>();
  rpcRequests = 0;
  /** HTTP requests to the chain that carried more than one JSON-RPC call. */
  rpcBatches = 0;
  blobReads = 0;
  unwraps = 0;
  webhooks = 0;
  /** [start, end] of every outside call, by category (performance.now()). */
  readonly intervals = new Map<Category, [number, number][]>();
  /** Every outside call in the order it started: `Get listings/agent`, `chain [eth_call, eth_call]`. */
  readonly sequence: string[] = [];

  span(category: Category, start: number): void {
    const list = this.intervals.get(category) ?? [];
    list.push([start, performance.now()]);
    this.intervals.set(category, list);
  }

  dynamoCalls(): number {
    return [...this.dynamo.values()].reduce((sum, entry) => sum + entry.calls, 0);
  }

  rpcCalls(): number {
    return [...this.rpcMethods.values()].reduce((sum, n) => sum + n, 0);
  }
}

let tally: Tally | null = null;

/** The DynamoDB calls of one admission (the limit section): each labelled as the tally labels it, with
 * when it ended (performance.now()). */
type TracedCall = { label: string; end: number };
const admissionTrace = new AsyncLocalStorage<TracedCall[]>();

// ---- a small keep-alive HTTP client (lighter than fetch, so the loop costs the server little) ------

interface Reply {
  status: number;
  body: string;
}

function httpClient(port: number, maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return {
    request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
      return new Promise((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port, method, path, agent, headers: body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

interface LoopResult {
  n: number;
  seconds: number;
  rps: number;
  p50: number;
  p95: number;
  statuses: Map<number, number>;
  /** Answers with the expected status whose body was not the expected one. */
  wrong: number;
  /** CPU time of this process (the API, the emulators, the agent and the client) per request, ms. */
  cpuPerRequest: number;
  /** This process's CPU time over the run's wall time (1 = one core busy throughout). */
  cpuShare: number;
}

/** `total` requests by `concurrency` workers, each sending its next request when its last one answered. */
async function closedLoop(concurrency: number, total: number, send: () => Promise<Reply>, ok: (reply: Reply) => boolean): Promise<LoopResult> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let wrong = 0;
  let issued = 0;
  const began = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) {
        issued++;
        const t = performance.now();
        const reply = await send();
        latencies.push(performance.now() - t);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 200 && !ok(reply)) wrong++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - began) / 1000;
  const s = summarize(latencies);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { n: total, seconds, rps: total / seconds, p50: s.p50, p95: s.p95, statuses, wrong, cpuPerRequest: cpuMs / total, cpuShare: cpuMs / (seconds * 1000) };
}

const statusText = (statuses: Map<number, number>) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(" ");

/**
 * Admission of a per-task run with a spending limit beside the same without one: open loop at `rps`
 * admissions per second, the two kinds interleaved in random order (so both meet the same load), each admission's time
 * measured, its holds given back at once (nothing is performed or charged). The limit is never reached.
 */
async function admissionWithLimit(services: Services, wallet: `0x${string}`, agentId: string, rps: number, each: number) {
  const base: Principal = { wallet, method: "api_key", keyId: "key_bench_without_limit" };
  const limited: Principal = { wallet, method: "api_key", keyId: "key_bench_with_limit", spendLimits: [{ currency: "ETH", period: "day", amount: (10n ** 24n).toString() }] };
  const times: { with: number[]; without: number[] } = { with: [], without: [] };
  /** For each limited admission: how long after the balance's reservation its spending hold ended (ms;
   * negative: before), the hold being the one step the limit adds, run beside the reservation. */
  const holdAfterReservation: number[] = [];
  let refused = 0;
  const request = { agent_id: agentId, task: "admission only" };
  const one = async (principal: Principal, into: number[], cpuInto?: number[]) => {
    const trace: TracedCall[] = [];
    const t = performance.now();
    const cpuBefore = process.cpuUsage();
    const result = await admissionTrace.run(trace, () => admitRun(services, principal, request, { rateLimit: async () => undefined })).catch(() => null);
    const cpuUsed = process.cpuUsage(cpuBefore);
    if (!result || result.kind !== "admitted") {
      refused++;
      return;
    }
    into.push(performance.now() - t);
    cpuInto?.push((cpuUsed.user + cpuUsed.system) / 1000);
    const hold = trace.find((call) => call.label === "Update runs/spend");
    const reservation = trace.findLast((call) => call.label === "Update runs/ledger");
    if (into === times.with && hold && reservation) holdAfterReservation.push(hold.end - reservation.end);
    const { run, access } = result.admission;
    await Promise.all([
      releaseReservation(services, access.onChainId, wallet, run.run_id),
      releaseSpend(services, run.spend_holds, run.run_id, access.priceWei),
      concurrencySlots(services.tables, access.onChainId).remove(run.run_id),
    ]);
  };
  // Warm-up: both kinds, the ledger items and the limit's window made.
  for (let i = 0; i < 20; i++) await one(i % 2 ? limited : base, []);
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  // Each pair of slots holds one of each kind, in a random order: kinds strictly alternating would each
  // keep one phase of the schedule, and anything periodic in the process (a job's timer) would fall on
  // one kind only.
  let seed = 0x2545f491;
  const coin = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 1;
  const order = Array.from({ length: each }, () => (coin() ? [true, false] : [false, true])).flat();
  for (let i = 0; i < each * 2; i++) {
    const due = start + (i * 1000) / rps;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(order[i] ? one(limited, times.with) : one(base, times.without));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  // The limit's other cost is this process's work for the hold (preparing, sending and reading one more
  // request), which delays whatever else the event loop has: its CPU time per admission, each kind alone
  // and one at a time (so each admission's CPU is its own), in random order.
  const cpu = { with: [] as number[], without: [] as number[] };
  for (let i = 0; i < Math.min(each, 1000) * 2; i++) await (order[i] ? one(limited, [], cpu.with) : one(base, [], cpu.without));
  const late = holdAfterReservation.filter((d) => d > 0);
  return {
    with: summarize(times.with),
    without: summarize(times.without),
    added: percentileDifference(times.without, times.with, 95),
    seconds,
    refused,
    hold: { traced: holdAfterReservation.length, late: late.length, lateP95: late.length ? percentile(holdAfterReservation.map((d) => Math.max(0, d)), 95) : 0, lead: summarize(holdAfterReservation.map((d) => -d)) },
    cpu: { with: mean(cpu.with), without: mean(cpu.without), added: meanDifference(cpu.without, cpu.with) },
  };
}

/** `dynamoProcess`: dynalite in a process of its own, as DynamoDB is a service apart (its work then does not
 * run on the event loop the admissions are timed on); default: in this one. */
export async function runExecuteBench(options: { requests?: number; warmup?: number; concurrency?: number[]; limitRps?: number; limitEach?: number; dynamoProcess?: boolean } = {}): Promise<string[]> {
  const requests = options.requests ?? 1000;
  const warmup = options.warmup ?? 200;
  const levels = options.concurrency ?? [1, 8, 16];
  const [chainStart, dynamoStart, awsStart] = await Promise.allSettled([freePort().then((port) => startChain({ port })), freePort().then((port) => startDynamo({ port, process: options.dynamoProcess === true })), freePort().then((port) => startQueues({ port }))]);
  if (chainStart.status === "rejected" || dynamoStart.status === "rejected" || awsStart.status === "rejected") {
    const all = [chainStart, dynamoStart, awsStart];
    await Promise.allSettled(all.map((s) => (s.status === "fulfilled" ? s.value.stop() : undefined)));
    throw all.find((s) => s.status === "rejected")!.reason;
  }
  const [chain, dynamo, aws] = [chainStart.value, dynamoStart.value, awsStart.value];
  const realFetch = globalThis.fetch;
  let agentServer: HttpsTestServer | undefined;
  let apiServer: http.Server | undefined;
  let client: ReturnType<typeof httpClient> | undefined;
  let closeServices: (() => Promise<void>) | undefined;
  const rows: string[] = [];
  try {
    // The chain transport is viem's http transport, which calls the global fetch: counted there, so the
    // service's own chain client is the one measured.
    const rpcUrl = chain.rpcUrl;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const current = tally;
      if (!current || !url.startsWith(rpcUrl)) return realFetch(input, init);
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method: string } | { method: string }[]) : [];
      const calls = Array.isArray(body) ? body : [body];
      current.rpcRequests++;
      current.sequence.push(`chain [${calls.map((c) => c.method).join(", ")}]`);
      if (calls.length > 1) current.rpcBatches++;
      for (const call of calls) current.rpcMethods.set(call.method, (current.rpcMethods.get(call.method) ?? 0) + 1);
      const t = performance.now();
      try {
        return await realFetch(input, init);
      } finally {
        current.span("chain", t);
      }
    };

    const viemChain = chainFor(LOCAL_CHAIN_ID, rpcUrl);
    const authority = await fundAccount(rpcUrl);
    const deployed = await deployMarketplace({ rpcUrl, chain: viemChain, deployerPrivateKey: authority.privateKey, authority: authority.address, feeRecipient: authority.address });
    const queue = createQueue({ region: "us-east-1", endpoint: aws.endpoint });
    const suffix = randomBytes(4).toString("hex");
    const queues = await ensureRegistrationQueues(queue, { queue: `bench-exec-${suffix}`, dlq: `bench-exec-dlq-${suffix}` });
    const config = loadConfig({
      STAGE: "local", TABLE_PREFIX: `bench-exec-${suffix}-`, DYNAMODB_ENDPOINT: dynamo.endpoint, AWS_ENDPOINT: aws.endpoint,
      REGISTRATION_QUEUE_URL: queues.queueUrl, REGISTRATION_DLQ_URL: queues.dlqUrl, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:1/000000000000/unused-settlement", BLOB_BUCKET: `bench-exec-${suffix}`,
      RPC_URL: rpcUrl, CHAIN_ID: String(LOCAL_CHAIN_ID), MARKETPLACE_ADDRESS: deployed.address, MARKETPLACE_DEPLOY_BLOCK: deployed.blockNumber.toString(),
      INDEXER_CONFIRMATIONS: "0", ALLOW_PRIVATE_AGENT_HOSTS: "true", LOG_LEVEL: "silent",
      JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]), LOCAL_MASTER_KEY: randomBytes(32).toString("base64"),
    });

    // The connected agent: reads the delivery and answers at once.
    agentServer = await startHttpsServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(AGENT_ANSWER));
    });

    // The service's adapters, each wrapped to count (and time) its calls while a tally is active.
    const blobs = createBlobs({ region: config.AWS_REGION, bucket: config.BLOB_BUCKET, endpoint: aws.endpoint });
    const keys = createLocalKeyWrapper(config.LOCAL_MASTER_KEY!);
    const guard = createEgressGuard({ ca: agentServer.ca, allowHosts: ["127.0.0.1"] });
    const timed = <T>(category: Category, count: (t: Tally) => void, run: () => Promise<T>): Promise<T> => {
      const current = tally;
      if (!current) return run();
      count(current);
      current.sequence.push(category === "blobs" ? "blob read" : category === "unwrap" ? "key unwrap" : "webhook POST");
      const t = performance.now();
      return run().finally(() => current.span(category, t));
    };
    const services = createServices(config, {
      logger: createLogger("silent"),
      rateLimiter: admitAll,
      blobs: { put: (key, body, type) => blobs.put(key, body, type), get: (key) => timed("blobs", (t) => t.blobReads++, () => blobs.get(key)) },
      keys: { generateDataKey: (context) => keys.generateDataKey(context), unwrap: (wrapped, context) => timed("unwrap", (t) => t.unwraps++, () => keys.unwrap(wrapped, context)) },
      egress: { dispatcher: guard.dispatcher, fetch: (url, init) => timed("webhook", (t) => t.webhooks++, () => guard.fetch(url, init)) },
    });
    closeServices = () => services.close();
    type Sent = { input?: { TableName?: string; Key?: { pk?: unknown }; Item?: { pk?: unknown } } };
    // Both document clients: the tables' own and the exact-number one the spending ledger writes through.
    for (const doc of [services.tables.doc, exactDocument(services.tables)] as unknown as { send: (command: Sent, options?: unknown) => Promise<unknown> }[]) {
      const send = doc.send.bind(doc);
      doc.send = async (command, sendOptions) => {
        const current = tally;
        const trace = admissionTrace.getStore();
        if (!current && !trace) return send(command, sendOptions);
        const name = command.constructor.name;
        const table = (command.input?.TableName ?? "?").slice(config.TABLE_PREFIX.length);
        const pk = String(command.input?.Key?.pk ?? command.input?.Item?.pk ?? "").split("#")[0];
        const label = `${name.replace(/Command$/, "")} ${table}/${pk}`;
        const entry = current?.dynamo.get(name) ?? { calls: 0, failed: 0 };
        if (current) {
          current.dynamo.set(name, entry);
          entry.calls++;
          current.sequence.push(label);
        }
        const t = performance.now();
        try {
          return await send(command, sendOptions);
        } catch (error) {
          entry.failed++;
          throw error;
        } finally {
          current?.span("dynamo", t);
          trace?.push({ label, end: performance.now() });
        }
      };
    }
    await ensureTables(services.tables, config.TABLE_PREFIX);
    await ensureBucket(blobs.client, config.BLOB_BUCKET);
    const app = buildApp(services);

    // Published as every agent is (local/publish.ts): registration processed, createListing on-chain,
    // review approved, the index caught up, the creator's webhook secret set.
    const target = { rpcUrl, chain: viemChain, marketplace: deployed.address };
    const creator = await fundAccount(rpcUrl);
    await approveCreator(services, creator.address, "Bench Creator");
    const priceWei = parseEther("0.001");
    const listing = await publishAgent(services, creator, { ...MANIFEST, name: "bench-connected", entrypoint_url: `${agentServer.url}/run` }, { rental: "one_time", priceWei, target });

    // A renter with a one-time credential and an API key.
    const renter = await fundAccount(rpcUrl);
    const apiKey = (await createKey(app, renter, (await signIn(app, renter)).token, "bench")).key;
    await writeMarketplace(target, renter, "purchaseOneTime", [listing.onChainId], priceWei);
    await catchUp({ tables: services.tables, chain: services.chain, logger: services.logger, fromBlock: 0n, confirmations: 0 });

    // The real app over real HTTP.
    apiServer = serve({ fetch: app.fetch, port: await freePort(), hostname: "127.0.0.1" }) as http.Server;
    await new Promise<void>((resolve) => (apiServer!.listening ? resolve() : apiServer!.once("listening", () => resolve())));
    const port = (apiServer.address() as AddressInfo).port;
    client = httpClient(port, Math.max(...levels));
    const auth = { authorization: `Bearer ${apiKey}` };
    const executeBody = JSON.stringify({ agent_id: listing.agent_id, task: "summarise the state of the market", input: { topic: "e-bikes" } });
    const execute = () => client!.request("POST", "/v1/execute", { ...auth, "content-type": "application/json" }, executeBody);
    const completed = (reply: Reply) => reply.body.includes('"status":"completed"');

    const first = await execute();
    if (first.status !== 200 || !completed(first)) throw new Error(`the first execute did not complete: ${first.status} ${first.body}`);
    const runId = (JSON.parse(first.body) as { run_id: string }).run_id;
    const runPath = `/v1/runs/${runId}`;
    const getRun = () => client!.request("GET", runPath, auth);
    const isRun = (reply: Reply) => reply.body.includes(runId);

    // Warm-up: connections, JIT, the agent logic cache, the API key's last-used stamp.
    await closedLoop(Math.max(...levels), warmup, execute, completed);
    await closedLoop(Math.max(...levels), warmup, getRun, isRun);

    // The round trips of one execute.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    await settle();
    const one = new Tally();
    tally = one;
    const counted = await execute();
    await settle();
    tally = null;
    if (counted.status !== 200 || !completed(counted)) throw new Error(`the counted execute did not complete: ${counted.status} ${counted.body}`);
    const bareOne = new Tally();
    tally = bareOne;
    await getRun();
    await settle();
    tally = null;

    // The loops; the serial one also times the outside calls.
    const results: { concurrency: number; exec: LoopResult; bare: LoopResult; execTally: Tally }[] = [];
    for (const concurrency of levels) {
      const bare = await closedLoop(concurrency, requests, getRun, isRun);
      const execTally = new Tally();
      tally = execTally;
      const exec = await closedLoop(concurrency, requests, execute, completed);
      await settle();
      tally = null;
      results.push({ concurrency, exec, bare, execTally });
    }

    // A per-task listing, a renter with a deposit for every admission, admission alone with and without a
    // spending limit (issue 29: the limit check adds at most 1 ms at p95 at 20 requests per second).
    const perTask = await publishAgent(services, creator, { ...MANIFEST, name: "bench-per-task", entrypoint_url: `${agentServer.url}/run` }, { rental: "per_query", priceWei, target });
    await writeMarketplace(target, renter, "purchasePerQuery", [perTask.onChainId], priceWei * 1000n);
    await catchUp({ tables: services.tables, chain: services.chain, logger: services.logger, fromBlock: 0n, confirmations: 0 });
    const limitRps = options.limitRps ?? 20;
    const limitEach = options.limitEach ?? 300;
    const admission = await admissionWithLimit(services, renter.address, perTask.agent_id, limitRps, limitEach);

    const dynamoLine = (t: Tally) =>
      [...t.dynamo]
        .sort(([, a], [, b]) => b.calls - a.calls)
        .map(([name, e]) => `${name.replace(/Command$/, "")} ${e.calls}${e.failed ? ` (${e.failed} conditional refusals)` : ""}`)
        .join(", ");
    const rpcLine = (t: Tally) => `${t.rpcRequests} HTTP request(s) carrying ${t.rpcCalls()} call(s) (${[...t.rpcMethods].map(([m, n]) => `${m} ${n}`).join(", ") || "none"}; ${t.rpcBatches} batched)`;

    rows.push(`setup: connected agent on https://127.0.0.1 (answers at once), one-time rental, API key; API served by @hono/node-server on 127.0.0.1:${port}; ${options.dynamoProcess ? "dynalite in a process of its own, fauxqs in this one" : "dynalite and fauxqs in this process"}, Hardhat node in its own`);
    rows.push(`rate limiter: admits every request (still called for the default and the execution rule); warm-up ${warmup} requests per route; ${requests} requests per figure`);
    rows.push(`bare route: GET /v1/runs/{run_id} (API key auth + rate-limit middleware + one GetItem)`);
    for (const { concurrency, exec, bare } of results) {
      const refused = [...exec.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
      rows.push(
        `concurrency ${String(concurrency).padStart(2)}: execute ${exec.rps.toFixed(1)} req/s, p50 ${ms(exec.p50)}, p95 ${ms(exec.p95)}, CPU ${ms(exec.cpuPerRequest)}/req (${(exec.cpuShare * 100).toFixed(0)}% of a core) [${statusText(exec.statuses)}${exec.wrong ? `, ${exec.wrong} not completed` : ""}]` +
          ` | GET /v1/runs/{id} ${bare.rps.toFixed(1)} req/s, p50 ${ms(bare.p50)}, p95 ${ms(bare.p95)}, CPU ${ms(bare.cpuPerRequest)}/req (${(bare.cpuShare * 100).toFixed(0)}%) [${statusText(bare.statuses)}]` +
          ` | ratio throughput ${(bare.rps / exec.rps).toFixed(2)}x, p50 ${(exec.p50 / bare.p50).toFixed(2)}x${refused ? `; ${refused} execute(s) refused` : ""}`,
      );
    }
    rows.push(`round trips of one execute (after warm-up): DynamoDB ${one.dynamoCalls()} [${dynamoLine(one)}]`);
    rows.push(`  chain: ${rpcLine(one)}; blob reads ${one.blobReads}; data-key unwraps ${one.unwraps}; webhook calls ${one.webhooks}`);
    rows.push(`  in order: ${one.sequence.join(" → ")}`);
    rows.push(`  the bare route, for comparison: DynamoDB ${bareOne.dynamoCalls()} [${dynamoLine(bareOne)}]; chain ${bareOne.rpcRequests}`);
    for (const { concurrency, exec, execTally } of results) {
      const per = (n: number) => (n / exec.n).toFixed(2);
      rows.push(`  per execute over the concurrency-${concurrency} run (mean of ${exec.n}): DynamoDB ${per(execTally.dynamoCalls())} [${dynamoLine(execTally)}], chain HTTP ${per(execTally.rpcRequests)}, blob reads ${per(execTally.blobReads)}, unwraps ${per(execTally.unwraps)}`);
    }
    const serial = results.find((r) => r.concurrency === 1);
    if (serial) {
      const wall = serial.exec.seconds * 1000;
      const all = [...serial.execTally.intervals.values()].flat();
      const waiting = (category: Category) => unionMs(serial.execTally.intervals.get(category) ?? []) / serial.exec.n;
      const anyIo = unionMs(all) / serial.exec.n;
      const perRequest = wall / serial.exec.n;
      rows.push(
        `where an execute's time goes (concurrency 1, mean per request ${ms(perRequest)}): waiting on DynamoDB ${ms(waiting("dynamo"))}, the chain ${ms(waiting("chain"))}, blob reads ${ms(waiting("blobs"))}, unwraps ${ms(waiting("unwrap"))}, the agent's webhook ${ms(waiting("webhook"))};` +
          ` some outside call in flight ${ms(anyIo)}, none ${ms(perRequest - anyIo)} (the API's own work, HTTP in and out, the client)`,
      );
    }
    rows.push(
      `admission of a per-task run, open loop at ${limitRps} admissions/s for ${admission.seconds.toFixed(1)} s, ${limitEach} of each interleaved (admitRun alone: listing, live balance read, reservation, slot, run record; holds given back after):` +
        ` without a spending limit p50 ${ms(admission.without.p50)}, p95 ${ms(admission.without.p95)}; with a daily limit p50 ${ms(admission.with.p50)}, p95 ${ms(admission.with.p95)};` +
        ` the limit adds ${admission.added.difference.toFixed(2)} ms at p95 (95% interval ${admission.added.low.toFixed(2)} to ${admission.added.high.toFixed(2)} ms by the bootstrap; ratio ${(admission.with.p95 / admission.without.p95).toFixed(2)}x)${admission.refused ? `; ${admission.refused} admission(s) refused (not timed)` : ""}`,
    );
    rows.push(
      `  the limit's own share: its hold (the one step it adds, beside the balance's reservation) ended after the reservation in ${admission.hold.late} of ${admission.hold.traced} limited admissions` +
        ` (time it added to them, p95 over all ${ms(admission.hold.lateP95)}; the hold ended ahead by p50 ${ms(admission.hold.lead.p50)}, min ${ms(admission.hold.lead.min)});` +
        ` this process's CPU per admission, one at a time: ${admission.cpu.without.toFixed(2)} ms without a limit, ${admission.cpu.with.toFixed(2)} ms with one, ${admission.cpu.added.difference >= 0 ? "+" : ""}${admission.cpu.added.difference.toFixed(2)} ms (95% interval ${admission.cpu.added.low.toFixed(2)} to ${admission.cpu.added.high.toFixed(2)})`,
    );
    const mid = results.find((r) => r.concurrency === 8) ?? results.at(-1)!;
    rows.push(
      `summary: execute at concurrency ${mid.concurrency} ${mid.exec.rps.toFixed(1)} req/s (p50 ${ms(mid.exec.p50)}, p95 ${ms(mid.exec.p95)}) vs GET /v1/runs/{id} ${mid.bare.rps.toFixed(1)} req/s: ${(mid.bare.rps / mid.exec.rps).toFixed(2)}x;` +
        ` one execute = ${one.dynamoCalls()} DynamoDB calls, ${one.rpcRequests} chain request(s) (${one.rpcCalls()} calls), ${one.blobReads} blob read(s), ${one.unwraps} unwrap(s), ${one.webhooks} webhook call`,
    );
  } finally {
    tally = null;
    globalThis.fetch = realFetch;
    client?.close();
    if (apiServer) {
      const server = apiServer;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    await agentServer?.stop();
    await closeServices?.();
    await Promise.allSettled([chain.stop(), dynamo.stop(), aws.stop()]);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await runExecuteBench()) console.log(row);
}
