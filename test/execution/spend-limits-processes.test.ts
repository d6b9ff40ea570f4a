// Three API processes sharing one key's spending limit, as three instances of the service would: real
// separate processes on the same emulators and chain (each serving the API and running the settler, as
// the local stack does). Runs sent to all three at once never take the key past its limit: what is
// charged on-chain is exactly what the limit covers, and every other run is refused 402 before any work.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { freePort } from "../../local/ports.ts";
import { until } from "../support/until.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const PROCESSES = 3;
const RUNS = 30;
const COVERED = 7;

interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

let world: World;
let listing: PublishedAgent;
let renter: Renter;
const processes: ServiceProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "spend-processes-"));

async function startProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(join(root, "node_modules/.bin/node"), ["--import", "tsx", join(root, "test/settlement/process.ts")], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await until("a service process to serve", () => /ready http/.test(output) || child.exitCode !== null, 90_000);
  if (child.exitCode !== null) throw new Error(`the process exited:\n${output}`);
  return { child, url: /ready (http\S+)/.exec(output)![1]!, output: () => output, exited };
}

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false, agent: true });
  listing = await world.publishConnected("three-processes-one-limit", { rental: "per_query" });
  renter = await world.renter();
  await world.rent(renter.account, listing, { deposit: listing.priceWei * BigInt(RUNS) });
  const ca = join(dir, "agent-ca.pem");
  writeFileSync(ca, world.agent.ca);
  for (let i = 0; i < PROCESSES; i++) {
    processes.push(await startProcess({ ...world.ctx.env, PORT: String(await freePort()), RUN_SETTLER: "1", NODE_EXTRA_CA_CERTS: ca }));
  }
}, 240_000);

afterAll(async () => {
  for (const p of processes) p.child.kill("SIGTERM");
  await Promise.all(processes.map((p) => p.exited));
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("three API processes sharing one key's spending limit", () => {
  it(`charge exactly the ${COVERED} runs the limit covers of ${RUNS} sent to all three at once, and refuse the rest 402 before any work`, async () => {
    const headers = { authorization: `Bearer ${renter.token}`, "content-type": "application/json" };
    const limit = (listing.priceWei * BigInt(COVERED)).toString();
    const created = await fetch(`${processes[0]!.url}/v1/keys/challenge`, { method: "POST", headers, body: JSON.stringify({ label: "shared" }) });
    const request = (await created.json()) as { nonce: string; message: string };
    const signature = await renter.account.signMessage({ message: request.message });
    const made = await fetch(`${processes[1]!.url}/v1/keys`, { method: "POST", headers, body: JSON.stringify({ nonce: request.nonce, signature, spend_limits: [{ currency: "ETH", period: "total", amount: limit }] }) });
    expect(made.status).toBe(201);
    const { key, key_id } = (await made.json()) as { key: string; key_id: string };

    const before = world.agent.deliveries.length;
    const answers = await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const res = await fetch(`${processes[i % PROCESSES]!.url}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task: `shared limit ${i}` }) });
        return { status: res.status, body: (await res.json()) as { status?: string; cost_wei?: number; error?: { code: string } } };
      }),
    );
    const charged = answers.filter((a) => a.status === 200);
    expect(charged, JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 402))).toHaveLength(COVERED);
    expect(charged.every((a) => a.body.status === "completed" && BigInt(a.body.cost_wei!) === listing.priceWei)).toBe(true);
    expect(answers.filter((a) => a.status === 402 && a.body.error?.code === "spend_limit_reached")).toHaveLength(RUNS - COVERED);
    expect(world.agent.deliveries.length - before).toBe(COVERED);
    const consumed = await world.services.chain.client.getContractEvents({ address: world.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId }, fromBlock: 0n, toBlock: "latest" });
    expect(consumed).toHaveLength(COVERED);

    // Every process sees the one count: spent is the limit, nothing held, nothing remains.
    for (const p of processes) {
      const { keys } = (await (await fetch(`${p.url}/v1/keys`, { headers })).json()) as { keys: { key_id: string; spend_limits: { spent: string; reserved: string; remaining: string }[] }[] };
      expect(keys.find((k) => k.key_id === key_id)!.spend_limits[0]).toEqual(expect.objectContaining({ spent: limit, reserved: "0", remaining: "0" }));
    }
  }, 180_000);
});
