// Creator analytics kept by three API processes at once (real separate `node` processes on the same
// emulators and chain, each serving the API and running the settler, as three instances of the service
// would), after a randomized mix of purchases, runs (completed and failed), top-ups, an exit (a revoked
// renter taking its balance back) and the creator's withdrawals sent across them: the maintained figures
// equal what the rebuild command (scripts/rebuild-analytics.ts, a process of its own) recomputes from the
// chain and the run log, the money equals the chain's events and escrow to the wei, the run counts equal
// the run log's receipts, and a wallet renting two of the creator's listings is one renter of the creator
// (GET /v1/creators/me/analytics).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { freePort } from "../../local/ports.ts";
import { logPendingRuns } from "../../src/execution/run-log/pass.ts";
import { scanFinishedRuns } from "../../src/execution/runs/run.store.ts";
import { rollupsSettled } from "../../src/analytics/record.ts";
import { compareWithLive, rebuildRollups, type RollupDifference } from "../../src/analytics/rebuild.ts";
import { until } from "../support/until.ts";
import { hourRangeToChainHead } from "../support/chain-actions.ts";
import { startWorld, type Creator, type PublishedAgent, type Renter, type World } from "../support/world.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const PROCESSES = 3;
const SEED = Number(process.env.ANALYTICS_SEED ?? Date.now() % 100_000);

interface ServiceProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

let world: World;
let creator: Creator;
let perQuery: PublishedAgent;
let oneTime: PublishedAgent;
const processes: ServiceProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "analytics-processes-"));

/** A seeded generator, so a failing mix is replayed with ANALYTICS_SEED (the seed is in the title). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function spawnNode(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(join(root, "node_modules/.bin/node"), ["--import", "tsx", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))) };
}

async function startProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const { child, output, exited } = spawnNode([join(root, "test/settlement/process.ts")], env);
  await until("a service process to serve", () => /ready http/.test(output()) || child.exitCode !== null, 90_000);
  if (child.exitCode !== null) throw new Error(`the process exited:\n${output()}`);
  return { child, url: /ready (http\S+)/.exec(output())![1]!, exited };
}

beforeAll(async () => {
  // A task starting "fail" fails at the agent (a 500): a failed run.
  world = await startWorld({ serve: false, settler: false, agent: { handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "boom") : call.output({ findings: ["ok"] })) } });
  creator = await world.creator();
  perQuery = await world.publishConnected("analytics-processes-pq", { rental: "per_query" });
  oneTime = await world.publishConnected("analytics-processes-ot", { rental: "one_time" });
  const ca = join(dir, "agent-ca.pem");
  writeFileSync(ca, world.agent.ca);
  for (let i = 0; i < PROCESSES; i++) processes.push(await startProcess({ ...world.ctx.env, PORT: String(await freePort()), RUN_SETTLER: "1", NODE_EXTRA_CA_CERTS: ca }));
}, 300_000);

afterAll(async () => {
  for (const p of processes) p.child.kill("SIGTERM");
  await Promise.all(processes.map((p) => Promise.race([p.exited, new Promise((resolve) => setTimeout(resolve, 20_000))])));
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const sum = (values: (bigint | undefined)[]) => values.reduce<bigint>((a, b) => a + (b ?? 0n), 0n);
/** Parses JSON keeping integers beyond 2^53 exact (wei). */
const exactJson = (text: string) => JSON.parse(text, (_key, value, context?: { source?: string }) => (typeof value === "number" && context?.source && !Number.isSafeInteger(value) ? BigInt(context.source) : value)) as Record<string, any>;

describe(`creator analytics kept by three API processes (seed ${SEED})`, () => {
  it("equal the rebuild command's, the chain's money to the wei and the run log's receipts; a wallet of two listings is one renter", async () => {
    const random = prng(SEED);
    const { services } = world;
    const renters: Renter[] = [];
    for (let i = 0; i < 3; i++) renters.push(await world.renter());
    for (const renter of renters) await world.rent(renter.account, perQuery, { deposit: perQuery.priceWei * 6n });
    // The first renter also rents the creator's other listing: one renter of the creator, not two.
    await world.rent(renters[0]!.account, oneTime);
    const active = [...renters];

    const execute = async (renter: Renter, listing: PublishedAgent, task: string, at: ServiceProcess) => {
      const res = await fetch(`${at.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
      await res.text();
      return res.status;
    };
    let exits = 0;
    let runs = 0;
    for (let step = 0; step < 14; step++) {
      const roll = random();
      const renter = active[Math.floor(random() * active.length)]!;
      if (roll < 0.55) {
        // Runs at once through the three processes; some fail.
        const statuses = await Promise.all(processes.map((p, i) => execute(renter, perQuery, `${random() < 0.3 ? "fail" : "task"}-${step}-${i}`, p)));
        runs += statuses.filter((s) => s === 200).length;
      } else if (roll < 0.7) {
        await world.market.topUpBalance(renter.account, perQuery.onChainId, perQuery.priceWei * 2n);
      } else if (roll < 0.8) {
        if ((await execute(renters[0]!, oneTime, `${random() < 0.3 ? "fail" : "one"}-${step}`, processes[step % PROCESSES]!)) === 200) runs++;
      } else if (roll < 0.9 && exits === 0 && renter !== renters[0]) {
        // An exit: the creator revokes the renter, who takes its unspent balance back at once.
        await world.market.revoke(creator.account, perQuery.onChainId, renter.account.address);
        const [balance] = await services.chain.client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [perQuery.onChainId, renter.account.address] });
        if (balance > 0n) await world.market.withdrawUnspentBalance(renter.account, perQuery.onChainId);
        active.splice(active.indexOf(renter), 1);
        exits++;
      } else {
        const withdrawable = await services.chain.client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "withdrawableEarnings", args: [perQuery.onChainId] });
        if (withdrawable > 0n) await world.market.withdrawEarnings(creator.account, perQuery.onChainId, withdrawable / 2n);
      }
    }
    // At least one run, whatever the seed, so the run figures are compared.
    if (runs === 0) expect(await execute(renters[0]!, oneTime, "last", processes[0]!)).toBe(200);

    // The indexer and the run log catch up (in this process); the three processes' roll-up writes are in
    // the background: the figures are compared once they are identical, or the wait fails with the last difference.
    await world.index();
    await logPendingRuns(services);
    await rollupsSettled();
    const listings = [perQuery.onChainId, oneTime.onChainId];
    let differences: RollupDifference[] = [];
    await until("the live roll-ups to equal the rebuild", async () => {
      const rebuilt = await rebuildRollups({ tables: services.tables, chain: services.chain, deployBlock: services.config.MARKETPLACE_DEPLOY_BLOCK, listings });
      differences = await compareWithLive(services.tables, rebuilt, listings);
      return differences.length === 0;
    }, 60_000, 500).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}: ${JSON.stringify(differences.slice(0, 3))}`);
    });

    // 1. The rebuild command, a process of its own, finds the live roll-ups identical (exit 0).
    const command = spawnNode([join(root, "scripts/rebuild-analytics.ts"), ...listings.flatMap((id) => ["--listing", id])], world.ctx.env);
    const code = await Promise.race([command.exited, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 90_000))]);
    if (code === "timeout") command.child.kill("SIGKILL");
    expect(command.output()).toMatch(/the live roll-ups are identical to the rebuild/);
    expect(code).toBe(0);

    // 2. The totals, read through one of the processes, equal the chain's events and escrow to the wei.
    const get = async (path: string) => {
      const res = await fetch(`${processes[1]!.url}${path}`, { headers: { authorization: `Bearer ${creator.token}` } });
      expect(res.status).toBe(200);
      return exactJson(await res.text());
    };
    const { client, marketplace } = services.chain;
    const body = await get(`/v1/creators/me/listings/${perQuery.listing_id}/analytics?${await hourRangeToChainHead(client)}`);
    const range = { address: marketplace, abi: marketplaceAbi, args: { listingId: perQuery.onChainId }, fromBlock: 0n, toBlock: "latest" } as const;
    const charges = await client.getContractEvents({ ...range, eventName: "QueryConsumed" });
    const withdrawals = await client.getContractEvents({ ...range, eventName: "EarningsWithdrawn" });
    const refunds = await client.getContractEvents({ ...range, eventName: "UnspentBalanceWithdrawn" });
    const deposits = await client.getContractEvents({ ...range, eventName: "PerQueryPurchased" });
    const topUps = await client.getContractEvents({ ...range, eventName: "BalanceToppedUp" });
    // (The reconciliation's block in the message: what the figures were counted up to, if they fall short.)
    expect(BigInt(body.totals.revenue.by_model.per_query.gross_wei), JSON.stringify(body.reconciliation, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).toBe(sum(charges.map((e) => e.args.price)));
    expect(BigInt(body.totals.revenue.by_model.per_query.fee_wei)).toBe(sum(charges.map((e) => e.args.fee)));
    expect(BigInt(body.totals.revenue.withdrawn_wei)).toBe(sum(withdrawals.map((e) => e.args.amount)));
    expect(BigInt(body.totals.rentals.refunds_wei)).toBe(sum(refunds.map((e) => e.args.amount)));
    expect(BigInt(body.totals.rentals.deposits_wei)).toBe(sum(deposits.map((e) => e.args.deposit)) + sum(topUps.map((e) => e.args.amount)));
    expect(body.reconciliation.matches).toBe(true);
    const [, escrow] = await client.readContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [perQuery.onChainId], blockNumber: BigInt(body.reconciliation.block) });
    expect(BigInt(body.reconciliation.chain_escrow_wei)).toBe(escrow);

    // 3. Run counts equal the run records, and every run's receipt is logged and counted.
    const records = (await scanFinishedRuns(services.tables)).filter((r) => r.on_chain_id.toLowerCase() === perQuery.onChainId.toLowerCase());
    expect(Number(body.totals.runs.completed)).toBe(records.filter((r) => r.status === "completed").length);
    expect(Number(body.totals.runs.failed)).toBe(records.filter((r) => r.status === "failed").length);
    expect(Number(body.totals.runs.logged)).toBe(records.filter((r) => r.log_state === "logged").length);
    expect(Number(body.totals.runs.logged)).toBe(records.length);
    expect(BigInt(body.totals.runs.charged_wei)).toBe(sum(charges.map((e) => e.args.price)));

    // 4. Renters: three of the per-task listing, one of the other, three of the creator (not four).
    expect(body.renter_count).toBe(3);
    expect((await get(`/v1/creators/me/listings/${oneTime.listing_id}/analytics`)).renter_count).toBe(1);
    expect((await get(`/v1/creators/me/analytics`)).renter_count).toBe(3);
  }, 600_000);
});
