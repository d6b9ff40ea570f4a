// The local stack as `npm start` runs it with a chain that mines a block every 2 s (CHAIN_BLOCK_TIME_MS,
// the pace of Base and OP chains): 20 per-task runs of the demo's unit-test-writer sent at once all
// complete, each is charged exactly once, and no block holds more than 2 authority transactions (a
// batch of charges and the run log's). Free ports, a temporary data folder, and nothing left running.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, createWalletClient, decodeFunctionData, http, parseEther, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { freePort } from "../../local/ports.ts";
import type { StackInfo } from "../../local/stack.ts";
import type { DemoData } from "../../local/demo.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = mkdtempSync(join(tmpdir(), "stack-settlement-"));
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    process.kill(-child.pid, "SIGTERM");
    await new Promise((resolve) => child!.once("exit", resolve));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("CHAIN_BLOCK_TIME_MS, a bad value", () => {
  it.each(["abc", "-1", "1.5", "60001"])("%s stops the start at once, naming the setting, with nothing started", async (value) => {
    const dir = mkdtempSync(join(tmpdir(), "stack-bad-block-time-"));
    try {
      const started = spawn(process.execPath, ["--import", "tsx", "local/start.ts"], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOCAL_DATA_DIR: dir, CHAIN_BLOCK_TIME_MS: value, PORT: String(await freePort()) } });
      let stderr = "";
      started.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => started.once("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/Invalid setting: CHAIN_BLOCK_TIME_MS/);
      // Refused before anything started: no lock taken, no stack.json written.
      expect(existsSync(join(dir, "stack.lock"))).toBe(false);
      expect(existsSync(join(dir, "stack.json"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("npm start with CHAIN_BLOCK_TIME_MS=2000", () => {
  it("completes 20 per-task runs sent at once, each charged exactly once, at most 2 authority transactions per block", async () => {
    const ports = { PORT: await freePort(), CHAIN_PORT: await freePort(), DYNAMODB_PORT: await freePort(), AWS_EMULATOR_PORT: await freePort() };
    child = spawn("npm", ["start", "--silent"], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOCAL_DATA_DIR: dataDir, LOG_LEVEL: "warn", CHAIN_BLOCK_TIME_MS: "2000" },
    });
    let output = "";
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const file = join(dataDir, "stack.json");
    const deadline = Date.now() + 240_000;
    while (!existsSync(file)) {
      if (child.exitCode !== null) throw new Error(`the stack exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the stack was not ready:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const info = JSON.parse(readFileSync(file, "utf8")) as StackInfo;
    expect(info.block_time_ms).toBe(2000);
    expect(output).toContain("a block every 2000 ms");
    const demo = info.demo as unknown as DemoData;
    const writer = demo.listings.find((l) => l.name === "unit-test-writer")!;
    const price = parseEther(writer.price_eth);
    const onChainId = `0x${writer.listing_id.slice(4)}` as Hex;
    const chain = chainFor(info.chain_id, info.rpc_url);
    const client = createPublicClient({ chain, transport: http(info.rpc_url), pollingInterval: 100 });
    const marketplace = info.contracts.marketplace as Hex;

    // Blocks come every 2 s with nothing sent.
    const b0 = await client.getBlockNumber({ cacheTime: 0 });
    await new Promise((r) => setTimeout(r, 4_500));
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(b0 + 2n);

    // The demo renter's balance covers ten runs: it tops up for ten more (its transaction waits for a block).
    const renter = info.accounts.find((a) => a.address.toLowerCase() === demo.renter.toLowerCase())!;
    const wallet = createWalletClient({ account: privateKeyToAccount(renter.private_key as Hex), chain, transport: http(info.rpc_url) });
    const topUp = await wallet.writeContract({ address: marketplace, abi: marketplaceAbi, functionName: "topUpBalance", args: [onChainId], value: price * 10n });
    expect((await client.waitForTransactionReceipt({ hash: topUp })).status).toBe("success");
    const balance = async () => (await client.readContract({ address: marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [onChainId, demo.renter as Hex] }))[0];
    const before = await balance();
    expect(before).toBe(price * 20n);
    const from = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;

    // 20 runs at once: the listing's limit of runs in flight.
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await fetch(`${info.api_url}/v1/execute`, {
          method: "POST",
          headers: { authorization: `Bearer ${demo.api_key}`, "content-type": "application/json" },
          body: JSON.stringify({ agent_id: writer.agent_id, task: `Write tests for sum ${i}`, input: { source: "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);" } }),
        });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        return JSON.parse(text) as { run_id: string; status: string; cost_wei: number; settlement?: string };
      }),
    );
    for (const run of answers) {
      expect(run).toMatchObject({ status: "completed", cost_wei: Number(price) });
      expect(run.settlement).toBeUndefined();
    }
    const to = await client.getBlockNumber({ cacheTime: 0 });

    // Exactly once each: 20 runs, 20 charges of the renter, the balance down by 20 prices, and every run
    // settled by a transaction that charged it.
    const charged = await client.getContractEvents({ address: marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: onChainId, buyer: demo.renter as Hex }, fromBlock: from, toBlock: to });
    expect(charged).toHaveLength(20);
    expect(new Set(charged.map((e) => e.args.runRef)).size).toBe(20);
    expect(await balance()).toBe(before - price * 20n);
    for (const run of answers) {
      const detail = (await (await fetch(`${info.api_url}/v1/runs/${run.run_id}`, { headers: { authorization: `Bearer ${demo.api_key}` } })).json()) as { settlement: string; settlement_tx: Hex };
      expect(detail.settlement).toBe("settled");
      expect(charged.map((e) => e.transactionHash)).toContain(detail.settlement_tx);
    }

    // At most 2 authority transactions per block, and one batch of charges at most.
    for (let n = from; n <= to; n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      const ours = block.transactions.filter((tx) => tx.from.toLowerCase() === info.authority.toLowerCase());
      expect(ours.length, `authority transactions in block ${n}`).toBeLessThanOrEqual(2);
      const batches = ours.filter((tx) => decodeFunctionData({ abi: marketplaceAbi, data: tx.input }).functionName === "consumeQueries");
      expect(batches.length, `charge batches in block ${n}`).toBeLessThanOrEqual(1);
      expect(ours.filter((tx) => decodeFunctionData({ abi: marketplaceAbi, data: tx.input }).functionName === "consumeQuery")).toEqual([]);
    }
  }, 420_000);
});
