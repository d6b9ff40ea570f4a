// Three API processes settling at once, as three instances of the service would: real separate processes
// on the same emulators and the same 2 s chain, each serving the API and running the settler job as the
// local stack does, all with the one authority key. Only the settler holding the key's lease sends; every
// run is charged exactly once; no nonce is ever refused.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { freePort } from "../../local/ports.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";
import { startWorldOn, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import { authorityTransactions, BLOCK_TIME_MS, chargesOfRun, startSuiteChain } from "./support.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const PROCESSES = 3;

interface ServiceProcess {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  output: () => string;
  exited: Promise<number | null>;
}

let node: Awaited<ReturnType<typeof startSuiteChain>>;
let world: World;
let listing: PublishedAgent;
let renters: Renter[];
const processes: ServiceProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "settlement-processes-"));

async function startProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(join(root, "node_modules/.bin/node"), ["--import", "tsx", join(root, "test/settlement/process.ts")], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  let pending = "";
  const lines: Record<string, unknown>[] = [];
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    pending += chunk.toString();
    const complete = pending.split("\n");
    pending = complete.pop()!;
    for (const line of complete) if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await until("a service process to serve", () => /ready http/.test(output) || child.exitCode !== null, 90_000);
  if (child.exitCode !== null) throw new Error(`the process exited:\n${output}`);
  return { child, url: /ready (http\S+)/.exec(output)![1]!, lines, output: () => output, exited };
}

beforeAll(async () => {
  node = await startSuiteChain();
  world = await startWorldOn(
    { ...sharedInfrastructure(), rpcUrl: node.rpcUrl },
    { serve: false, settler: false, agent: true, env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), SETTLEMENT_WAIT_MS: "30000" } },
  );
  listing = await world.publishConnected("three-processes", { rental: "per_query" });
  renters = await Promise.all(Array.from({ length: 6 }, () => world.renter()));
  for (const renter of renters) await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
  await node.paced();
  // The processes trust the fake agent's certificate authority, as the world's own guard does.
  const ca = join(dir, "agent-ca.pem");
  writeFileSync(ca, world.agent.ca);
  for (let i = 0; i < PROCESSES; i++) {
    processes.push(await startProcess({ ...world.ctx.env, PORT: String(await freePort()), RUN_SETTLER: "1", LOG_LEVEL: "debug", NODE_EXTRA_CA_CERTS: ca }));
  }
}, 240_000);

afterAll(async () => {
  for (const p of processes) p.child.kill("SIGKILL");
  await world?.close();
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("three API processes, each with its settler, one authority key", () => {
  it("charge 36 runs sent to all three at once exactly once each, from one sender, without a nonce error, at most 2 authority transactions per block", async () => {
    const from = (await world.services.chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
    const run = async (i: number) => {
      const target = processes[i % PROCESSES]!;
      const renter = renters[i % renters.length]!;
      const res = await fetch(`${target.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: `process run ${i}` }) });
      return { status: res.status, run: (await res.json()) as Record<string, unknown> };
    };
    // Two waves of 18 (the listing runs 20 at once at most), each spread over the three processes.
    const answers = [...(await Promise.all(Array.from({ length: 18 }, (_, i) => run(i)))), ...(await Promise.all(Array.from({ length: 18 }, (_, i) => run(18 + i))))];
    const to = await world.services.chain.client.getBlockNumber({ cacheTime: 0 });

    for (const { status, run } of answers) {
      expect(status, JSON.stringify(run)).toBe(200);
      expect(run).toMatchObject({ status: "completed", cost_wei: Number(listing.priceWei) });
      expect(run.settlement).toBeUndefined();
      expect((await chargesOfRun(world.services, run.run_id as string)).charged).toEqual([listing.priceWei]);
    }
    const all = await world.services.chain.client.getContractEvents({ address: world.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId }, fromBlock: 0n, toBlock: "latest" });
    expect(all).toHaveLength(36);

    // One sender: the lease holder's batches are all the charges, its nonces follow each other.
    const senders = processes.filter((p) => p.lines.some((line) => line.message === "charge batch sent"));
    expect(senders).toHaveLength(1);
    const txs = await authorityTransactions(world.services.chain, world.ctx.authority.address, from, to);
    const ours = [...txs.values()].flat();
    const nonces = ours.map((tx) => tx.nonce);
    expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + i));
    expect(ours.filter((tx) => tx.functionName === "consumeQueries").reduce((n, tx) => n + tx.charges, 0)).toBe(36);
    for (const [block, inBlock] of txs) expect(inBlock.length, `authority transactions in block ${block}`).toBeLessThanOrEqual(2);
    // No process was refused a nonce, retried one, or stopped its settler on an error.
    for (const p of processes) {
      const problems = p.lines.filter((line) => (line.level === "warn" || line.level === "error") && /nonce|settler stopped|not sent/i.test(JSON.stringify(line)));
      expect(problems).toEqual([]);
    }
  }, 180_000);

  it("stop cleanly on SIGTERM, the lease holder giving the key's lease up", async () => {
    for (const p of processes) p.child.kill("SIGTERM");
    const codes = await Promise.all(processes.map((p) => p.exited));
    expect(codes).toEqual(processes.map(() => 0));
  }, 60_000);
});
