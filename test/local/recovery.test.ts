// The local stack recovers, as `npm start` runs it (free ports, a data folder of its own):
// - its Hardhat node killed: the API answers 503 service_unavailable in the envelope while the node is
//   down and being rebuilt, the stack starts it again (contracts deployed again, demo seeded again, a
//   notice in its output), and a per-task run is served and charged after;
// - the stack killed mid-run (SIGKILL, nothing cleaned up) and started again: the runs it left in flight
//   are failed and free at once, and their per-task reservations are given back, so the renter's next
//   run is admitted (not 429 for minutes, until the stale-run sweep).
// Stopped by its process id at the end, leaving no process behind.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, http, parseEther, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { chainFor } from "../../src/chain/client.ts";
import { createTables } from "../../src/adapters/tables/dynamo.ts";
import { listStaleRunningRuns } from "../../src/execution/runs/run.store.ts";
import { freePort, portInUse } from "../../local/ports.ts";
import type { StackInfo } from "../../local/stack.ts";
import type { DemoData } from "../../local/demo.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = mkdtempSync(join(tmpdir(), "stack-recovery-"));
const started: ChildProcess[] = [];

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function npmStart(env: Record<string, string>) {
  const child = spawn("npm", ["start", "--silent"], { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env, LOCAL_DATA_DIR: dataDir, LOG_LEVEL: "warn" } });
  started.push(child);
  let text = "";
  child.stdout!.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (text += d.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  return { child, output: () => text, exited: () => exited };
}

/** The stack.json of a stack other than `notPid` (a killed stack leaves its own behind). */
async function readyStack(stack: ReturnType<typeof npmStart>, notPid?: number): Promise<StackInfo> {
  const file = join(dataDir, "stack.json");
  let info: StackInfo | undefined;
  await until("npm start to be ready", () => {
    if (stack.exited()) throw new Error(`npm start exited before it was ready:\n${stack.output()}`);
    if (!existsSync(file)) return false;
    const read = JSON.parse(readFileSync(file, "utf8")) as StackInfo;
    if (read.pid === notPid) return false;
    info = read;
    return true;
  }, 240_000, 200);
  return info!;
}

function readInfo(): StackInfo {
  return JSON.parse(readFileSync(join(dataDir, "stack.json"), "utf8")) as StackInfo;
}

afterAll(async () => {
  for (const child of started) if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start, recovering", () => {
  it("restarts a killed Hardhat node (503 service_unavailable meanwhile, then runs served), and after a crash fails the runs left in flight at once and admits the renter's next run", async () => {
    const ports = { PORT: String(await freePort()), CHAIN_PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), AWS_EMULATOR_PORT: String(await freePort()) };
    const first = npmStart(ports);
    const info = await readyStack(first);
    expect(info.chain_restarts).toBe(0);
    const demo = info.demo as unknown as DemoData;
    const writer = demo.listings.find((l) => l.name === "unit-test-writer")!;
    const auth = { authorization: `Bearer ${demo.api_key}`, "content-type": "application/json" };
    const execute = (task: string, signal?: AbortSignal) =>
      fetch(`${info.api_url}/v1/execute`, { method: "POST", headers: auth, body: JSON.stringify({ agent_id: writer.agent_id, task, input: { source: "export const one = () => 1;" } }), ...(signal ? { signal } : {}) });

    // 1. The node dies. While it is down and rebuilt, API requests answer 503 in the envelope.
    process.kill(info.chain_pid, "SIGKILL");
    let unavailable: { status: number; body: { error?: { code: string; message: string } }; retryAfter: string | null } | undefined;
    await until("a 503 while the chain is down", async () => {
      const res = await fetch(`${info.api_url}/v1/credentials`, { headers: auth });
      const body = (await res.json()) as { error?: { code: string; message: string } };
      if (res.status !== 503) return false;
      unavailable = { status: res.status, body, retryAfter: res.headers.get("retry-after") };
      return true;
    }, 30_000, 100);
    expect(unavailable!.body.error!.code).toBe("service_unavailable");
    expect(unavailable!.body.error!.message).toMatch(/local chain's node was killed/);
    expect(unavailable!.retryAfter).toBe("5");
    // Health still answers.
    expect((await fetch(`${info.api_url}/v1/health`)).status).not.toBe(503);

    // 2. It comes back: a new node, the same contracts, a notice in the output, and a run served and charged.
    await until("the chain to be restarted", () => readInfo().chain_restarts === 1, 240_000, 250);
    const restarted = readInfo();
    expect(restarted.chain_pid).not.toBe(info.chain_pid);
    expect(restarted.contracts).toEqual(info.contracts);
    expect(first.output()).toContain("The local chain's node was killed (SIGKILL): restarting it");
    await until("the notice that the chain is back", () => first.output().includes(`The local chain is back on ${info.rpc_url} (restart 1)`), 10_000, 100);
    const served = await execute("Write a test");
    const servedText = await served.text();
    expect(served.status, servedText).toBe(200);
    expect(JSON.parse(servedText)).toMatchObject({ status: "completed" });
    expect(JSON.parse(servedText).settlement).toBeUndefined();

    // 3. Runs in flight fill the renter's per-task balance: as many slow runs as it covers; one more is 429.
    const chain = chainFor(info.chain_id, info.rpc_url);
    const client = createPublicClient({ chain, transport: http(info.rpc_url) });
    const onChainId = `0x${writer.listing_id.slice(4)}` as Hex;
    const [balance] = await client.readContract({ address: info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "perQueryBalances", args: [onChainId, demo.renter as Hex] });
    const covered = Number(balance / parseEther(writer.price_eth));
    expect(covered).toBeGreaterThan(0);
    const inFlight = new AbortController();
    for (let i = 0; i < covered; i++) void execute(`Write a slow test ${i} [[slow:120000]]`, inFlight.signal).catch(() => undefined);
    const tables = createTables({ region: "us-east-1", prefix: "local-", endpoint: `http://127.0.0.1:${ports.DYNAMODB_PORT}` });
    let running: string[] = [];
    await until(`${covered} runs in flight`, async () => {
      running = (await listStaleRunningRuns(tables, "any")).map((r) => r.run_id);
      return running.length === covered;
    }, 60_000, 200);
    const refused = await execute("One more");
    expect(refused.status, await refused.clone().text()).toBe(429);

    // 4. The stack is killed outright, mid-run, and started again on the same data.
    process.kill(info.pid, "SIGKILL");
    await until("the killed stack's processes to end", () => !groupAlive(first.child.pid!), 60_000, 200);
    inFlight.abort();
    for (const port of Object.values(ports)) await until(`port ${port} to be free`, async () => !(await portInUse(Number(port))), 30_000, 200);
    const second = npmStart(ports);
    const after = await readyStack(second, info.pid);
    // Their reservations were given back at the start: the renter's next run is admitted and charged
    // (before, the held reservations answered 429 until the stale-run sweep, minutes later).
    const next = await execute("Write a test after the crash");
    const nextText = await next.text();
    expect(next.status, nextText).toBe(200);
    expect(JSON.parse(nextText)).toMatchObject({ status: "completed" });
    // The runs it left in flight ended at the start, failed and free.
    for (const runId of running) {
      const run = (await (await fetch(`${after.api_url}/v1/runs/${runId}`, { headers: auth })).json()) as { status: string; cost_wei: number };
      expect(run).toMatchObject({ status: "failed", cost_wei: 0 });
    }
    expect(after.interrupted_runs).toBe(covered);
    await until("the banner", () => second.output().includes(`${covered} run(s) left in flight by the last stop ended as failed, not charged`), 10_000, 100);

    process.kill(after.pid, "SIGTERM");
    await until("the stack to stop", () => !groupAlive(second.child.pid!), 60_000, 200);
  }, 600_000);
});
