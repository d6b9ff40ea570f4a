// Settlement's faults on a chain that mines a block every 2 s, each on the real chain and emulators:
//  - a batch runs out of gas (its transaction reverts): it is split and sent again, no run charged twice;
//  - the chain cannot be reached: the charges wait, the results are withheld (settlement pending), and
//    each is charged exactly once when the chain is back;
//  - the settler is killed mid-batch (SIGKILL, a process of its own): the queue hands its charges to the
//    next settler, which sends only what the chain has not decided: each run charged exactly once.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { ensureSettlementQueue } from "../../src/adapters/queue/sqs.ts";
import { createSettler, type BatchEvent } from "../../src/execution/settler/settler.ts";
import { startCuttableLink, type CuttableLink } from "../faults/support.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";
import { settledByPasses } from "../support/settlement.ts";
import { startWorldOn, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import { authorityTransactions, BLOCK_TIME_MS, chargesOfRun, startSuiteChain } from "./support.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
let node: Awaited<ReturnType<typeof startSuiteChain>>;
const stops: (() => Promise<unknown> | unknown)[] = [];

/** A world on the suite's node (2 s blocks once paced) whose agent holds a task until the test opens it. */
async function world(options: { rpcUrl?: string; env?: Record<string, string>; settler?: boolean } = {}) {
  const gates = new Map<string, Promise<void>>();
  const made = await startWorldOn(
    { ...sharedInfrastructure(), rpcUrl: options.rpcUrl ?? node.rpcUrl },
    {
      serve: false,
      settler: options.settler ?? true,
      env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), SETTLEMENT_WAIT_MS: "20000", ...options.env },
      agent: {
        handler: async (call) => {
          await gates.get(call.task);
          call.output({ findings: [call.task] });
        },
      },
    },
  );
  stops.push(() => made.close());
  const listing = await made.publishConnected(`faults-${randomBytes(3).toString("hex")}`, { rental: "per_query" });
  const renter = await made.renter();
  await made.rent(renter.account, listing, { deposit: listing.priceWei * 20n });
  return { world: made, listing, renter, gates };
}

async function execute(w: World, renter: Renter, listing: PublishedAgent, task: string): Promise<{ status: number; run: Record<string, unknown> }> {
  const res = await w.app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
  return { status: res.status, run: (await res.json()) as Record<string, unknown> };
}

async function balanceOf(w: World, listing: PublishedAgent, wallet: Hex): Promise<bigint> {
  const [balance] = await w.services.chain.client.readContract({ address: w.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, wallet] });
  return balance;
}

/** Every run charged exactly once at the listing's price, and nothing else charged. */
async function expectChargedOnce(w: World, listing: PublishedAgent, runIds: string[]) {
  for (const runId of runIds) expect((await chargesOfRun(w.services, runId)).charged, runId).toEqual([listing.priceWei]);
  const all = await w.services.chain.client.getContractEvents({ address: w.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId }, fromBlock: 0n, toBlock: "latest" });
  expect(all).toHaveLength(runIds.length);
}

let outOfGas: Awaited<ReturnType<typeof world>>;
let cut: Awaited<ReturnType<typeof world>> & { link: CuttableLink };
let killed: Awaited<ReturnType<typeof world>> & { queueUrl: string };

beforeAll(async () => {
  node = await startSuiteChain();
  stops.push(() => node.stop());
  // Every world is set up while the node mines at once, then the node keeps a 2 s pace.
  outOfGas = await world({ settler: false });
  const link = await startCuttableLink(node.rpcUrl);
  stops.push(() => link.stop());
  cut = { ...(await world({ rpcUrl: link.url, env: { SETTLEMENT_WAIT_MS: "5000" } })), link };
  // The killed settler's charges come back to the queue 5 s after it took them.
  const queueUrl = await ensureSettlementQueue(outOfGas.world.services.queue, `settlement-killed-${randomBytes(4).toString("hex")}`, 5);
  killed = { ...(await world({ settler: false, env: { SETTLEMENT_QUEUE_URL: queueUrl, SETTLER_LEASE_MS: "3000" } })), queueUrl };
  await node.paced();
}, 180_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
});

describe("a batch that runs out of gas", () => {
  it("is split and sent again with more gas: every run completes, charged exactly once", async () => {
    const { world: w, listing, renter, gates } = outOfGas;
    const events: BatchEvent[] = [];
    // A settler that allows each charge far too little gas at first: its first batch runs out of gas on-chain.
    const settler = createSettler(w.services, { initialGasPerCharge: 1_000, onBatch: (event) => events.push(event) });
    const tasks = Array.from({ length: 6 }, (_, i) => `gas ${i}`);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    for (const task of tasks) gates.set(task, gate);
    const answering = tasks.map((task) => execute(w, renter, listing, task));
    await expect.poll(() => w.agent.deliveries.length, { timeout: 20_000 }).toBe(tasks.length);
    open();
    // The six charges wait on the queue, so the settler's first batch carries all of them.
    await expect.poll(() => w.services.queue.approximateCount(w.config.SETTLEMENT_QUEUE_URL), { timeout: 20_000 }).toBe(tasks.length);
    const stop = new AbortController();
    const running = settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    let answers;
    try {
      answers = await Promise.all(answering);
    } finally {
      stop.abort();
    }
    const tally = await running;
    for (const { status, run } of answers) {
      expect(status).toBe(200);
      expect(run).toMatchObject({ status: "completed", cost_wei: Number(listing.priceWei) });
    }
    expect(events[0]).toMatchObject({ kind: "out_of_gas", charges: 6 });
    const mined = events.filter((e) => e.kind === "mined");
    expect(mined.reduce((n, e) => n + e.charges, 0)).toBe(6);
    // Split: no mined batch is the whole failed one.
    for (const batch of mined) expect(batch.charges).toBeLessThanOrEqual(3);
    expect(tally).toMatchObject({ leased: true, outOfGas: 1, charged: 6, refused: 0 });
    await expectChargedOnce(w, listing, answers.map(({ run }) => run.run_id as string));
    expect(await balanceOf(w, listing, renter.account.address)).toBe(listing.priceWei * 14n);
  }, 90_000);
});

describe("the chain cannot be reached", () => {
  it("keeps the charges waiting and the results withheld (settlement pending), and charges each exactly once when the chain is back", async () => {
    const { world: w, listing, renter, gates, link } = cut;
    const tasks = ["cut 0", "cut 1", "cut 2"];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    for (const task of tasks) gates.set(task, gate);
    const answering = tasks.map((task) => execute(w, renter, listing, task));
    await expect.poll(() => w.agent.deliveries.length, { timeout: 20_000 }).toBe(tasks.length);
    link.cut();
    let answers;
    try {
      open();
      answers = await Promise.all(answering);
      for (const { status, run } of answers) {
        expect(status).toBe(200);
        expect(run).toMatchObject({ status: "completed", output: null, settlement: "pending", cost_wei: Number(listing.priceWei) });
      }
      for (const { run } of answers) {
        const detail = (await (await w.app.request(`/v1/runs/${run.run_id as string}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
        expect(detail).toMatchObject({ status: "completed", settlement: "pending", output: null });
      }
    } finally {
      link.restore();
    }
    // The settler sends what it held; the settlement passes record each run from the chain.
    await settledByPasses(w.services, answers.map(({ run }) => run.run_id as string));
    for (const [i, { run }] of answers.entries()) {
      const detail = (await (await w.app.request(`/v1/runs/${run.run_id as string}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
      expect(detail).toMatchObject({ status: "completed", settlement: "settled", output: { findings: [tasks[i]] } });
    }
    await expectChargedOnce(w, listing, answers.map(({ run }) => run.run_id as string));
    expect(await balanceOf(w, listing, renter.account.address)).toBe(listing.priceWei * 17n);
  }, 90_000);
});

describe("the settler is killed mid-batch", () => {
  let child: ChildProcess | undefined;
  afterAll(() => void child?.kill("SIGKILL"));

  it("hands its charges to the next settler through the queue: every run completes, charged exactly once", async () => {
    const { world: w, listing, renter, gates, queueUrl } = killed;
    // Settler A: a process of its own, logging each batch it sends.
    child = spawn(join(root, "node_modules/.bin/node"), ["--import", "tsx", join(root, "test/settlement/process.ts")], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...w.ctx.env, SETTLEMENT_QUEUE_URL: queueUrl, SETTLER_LEASE_MS: "3000", LOG_LEVEL: "debug", SERVE_API: "0", RUN_SETTLER: "1", PORT: "1" },
    });
    let output = "";
    const sent: Record<string, unknown>[] = [];
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split("\n")) if (line.includes('"charge batch sent"')) sent.push(JSON.parse(line) as Record<string, unknown>);
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await until("settler A to start", () => output.includes("ready"), 60_000);

    const first = ["killed 0", "killed 1", "killed 2", "killed 3"];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    for (const task of first) gates.set(task, gate);
    const answering = first.map((task) => execute(w, renter, listing, task));
    await expect.poll(() => w.agent.deliveries.length, { timeout: 20_000 }).toBe(first.length);
    open();
    // Killed the moment it has sent a batch: its transaction is at the node, its charges' messages are
    // not deleted, and its lease is not given up.
    await until("settler A to send a batch", () => sent.length > 0, 30_000, 5);
    child.kill("SIGKILL");
    const sentNonce = sent[0]!.nonce as number;
    // More runs while no settler runs: their charges wait on the queue.
    const second = ["after 0", "after 1"].map((task) => execute(w, renter, listing, task));
    // Settler B, in this process: it takes the lease once A's expires, waits until A's transaction is
    // mined, checks every charge the queue hands it again against the chain, and sends the rest.
    const events: BatchEvent[] = [];
    const settlerB = createSettler(w.services, { onBatch: (event) => events.push(event) });
    const stop = new AbortController();
    const running = settlerB.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    let answers;
    try {
      answers = await Promise.all([...answering, ...second]);
      // A's charges come back to the queue after their visibility timeout; B finds them decided.
      await until("settler B to find settler A's charges decided", () => events.length > 0 && w.services.queue.approximateCount(queueUrl).then((n) => n === 0), 30_000, 200);
    } finally {
      stop.abort();
    }
    const tally = await running;
    for (const { status, run } of answers) {
      expect(status).toBe(200);
      expect(run).toMatchObject({ status: "completed", cost_wei: Number(listing.priceWei) });
    }
    await expectChargedOnce(w, listing, answers.map(({ run }) => run.run_id as string));
    // A's batch was mined as A sent it; B sent only the charges nobody had (the two later runs, and any
    // of the first A held but had not sent), and skipped the ones A's batch decided.
    const to = await w.services.chain.client.getBlockNumber({ cacheTime: 0 });
    const txs = [...(await authorityTransactions(w.services.chain, w.ctx.authority.address, 1n, to)).values()].flat().filter((tx) => tx.functionName === "consumeQueries");
    expect(txs.find((tx) => tx.nonce === sentNonce)?.charges).toBe(sent[0]!.charges);
    expect(txs.reduce((n, tx) => n + tx.charges, 0)).toBe(6);
    expect(tally.skipped).toBeGreaterThanOrEqual(sent[0]!.charges as number);
    expect(tally.charged).toBe(6 - (sent[0]!.charges as number));
    expect(await balanceOf(w, listing, renter.account.address)).toBe(listing.priceWei * 14n);
  }, 120_000);
});
