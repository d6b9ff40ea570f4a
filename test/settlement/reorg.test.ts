// Settlement on a chain that reorganises, on a real Hardhat node mining a block every second, with the
// world's settler running as the local stack runs it and a finality depth of 8 blocks:
//  - a block holding a charge is taken off the chain (evm_revert to a snapshot before it, then blocks
//    mined over it), 1 block deep and 6, its transaction gone for good or sent again by someone else:
//    the charge lands again, charged exactly once; the runs after it settle (no nonce gap stalls them);
//  - a charge batch mined, then its block taken away between the settler's read of its receipt and its
//    read of the chain's nonce (a hop in front of the node reverts right after the nonce's answer): the
//    batch is orphaned, its same bytes land again under its nonce (never taken for one whose nonce
//    another transaction used, its charges put in a later batch and its nonce filled with a transfer);
//  - a transaction of the settler's dropped from the node's pool before it is mined (a nonce gap): it is
//    sent again under its nonce with higher fees, and the runs after it settle;
//  - the base fee forced far above the network's ceiling: no authority transaction pays past the ceiling,
//    the run answers `settlement: pending` with its output withheld, and is charged once the fee falls;
//  - a send whose answer never came but which reached the node is followed, not mislabelled.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, http, parseGwei, serializeTransaction, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { createAuthoritySender, nodeRefusal } from "../../src/chain/authority-sender.ts";
import { consumeQueriesData } from "../../src/chain/consume-queries.ts";
import { createLogger } from "../../src/logger.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { settledByPasses } from "../support/settlement.ts";
import { until } from "../support/until.ts";
import { startWorldOn, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import { chargeRefOf } from "../../src/execution/runs/run.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { chargesOfRun, startSuiteChain } from "./support.ts";
import { startRpcHop, type RpcHop } from "./rpc-hook.ts";

const BLOCK_MS = 1_000;
const DEPTH = 8;
let node: Awaited<ReturnType<typeof startSuiteChain>>;
/** The world reaches the node through it. */
let hop: RpcHop;
let world: World;
let listing: PublishedAgent;
let renter: Renter;
const lines: Record<string, unknown>[] = [];
/** Every run that was charged (or is to be), in order. */
const charged: string[] = [];

async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return (await world.services.chain.client.request({ method: method as never, params: params as never })) as T;
}
const head = () => world.services.chain.client.getBlockNumber({ cacheTime: 0 });

async function execute(task: string): Promise<Record<string, unknown>> {
  const res = await world.app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function chargeRefOfRun(runId: string): Promise<Hex> {
  return chargeRefOf((await getRun(world.services.tables, runId))!);
}

async function balance(): Promise<bigint> {
  const [wei] = await world.services.chain.client.readContract({ address: world.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, renter.account.address] });
  return wei;
}

/** The signed bytes of a mined transaction (the node keeps no raw copy): what a node re-broadcasts. */
async function rawOf(hash: Hex): Promise<Hex> {
  const tx = await world.services.chain.client.getTransaction({ hash });
  return serializeTransaction(
    { type: "eip1559", chainId: tx.chainId!, nonce: tx.nonce, to: tx.to!, value: tx.value, data: tx.input, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! },
    { r: tx.r, s: tx.s, yParity: tx.yParity! },
  );
}

/** Runs `task` after a snapshot, lets `deeper` blocks come on top of its charge's block, then takes them
 * all off the chain and mines one block more than it took: a reorganisation `deeper + 1` (or more) deep.
 * The run counts among `charged` from the moment it ran, whatever fails after. */
async function reorganiseCharge(task: string, deeper: number, rebroadcast: boolean) {
  const snapshot = await rpc<Hex>("evm_snapshot");
  const from = await head();
  const run = await execute(task);
  charged.push(run.run_id as string);
  expect(run).toMatchObject({ status: "completed", cost_wei: Number(listing.priceWei) });
  expect(run.settlement).toBeUndefined();
  const charge = await chargesOfRun(world.services, run.run_id as string);
  expect(charge.charged).toEqual([listing.priceWei]);
  const block = charge.blocks[0]!;
  const [event] = await world.services.chain.client.getContractEvents({ address: world.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId }, fromBlock: block, toBlock: block });
  const raw = await rawOf(event!.transactionHash!);
  await until(`${deeper} blocks over the charge`, async () => (await head()) >= block + BigInt(deeper), 30_000, 50);
  const before = await head();
  expect(await rpc("evm_revert", [snapshot])).toBe(true);
  // The longer chain: one block more than the one taken away, none of them the charge's block. The
  // settler may already have sent its charge again by the time these are mined (it follows the head
  // every block), so what proves the reorganisation is the block: the charge's block is off the chain.
  await rpc("hardhat_mine", [`0x${(before - from + 1n).toString(16)}`]);
  expect((await world.services.chain.client.getBlock({ blockNumber: block })).hash).not.toBe(event!.blockHash);
  if (rebroadcast) await rpc("eth_sendRawTransaction", [raw]).catch(() => undefined);
  return { run, depth: before - from };
}

beforeAll(async () => {
  node = await startSuiteChain();
  hop = await startRpcHop(node.rpcUrl);
  world = await startWorldOn(
    { ...sharedInfrastructure(), rpcUrl: hop.url },
    {
      serve: false,
      agent: { handler: async (call) => call.output({ findings: [call.task] }) },
      env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_MS), FINALITY_DEPTH: String(DEPTH), SETTLEMENT_WAIT_MS: "8000", MAX_FEE_PER_GAS_WEI: parseGwei("50").toString(), RUN_LOG_INTERVAL_MS: "1000" },
      adapters: { logger: createLogger("info", (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) },
    },
  );
  listing = await world.publishConnected(`reorg-${randomBytes(3).toString("hex")}`, { rental: "per_query" });
  renter = await world.renter();
  await world.rent(renter.account, listing, { deposit: listing.priceWei * 40n });
  await node.setBlockTime(BLOCK_MS);
}, 180_000);

afterAll(async () => {
  await world?.close();
  await hop?.stop();
  await node?.stop();
});

/** Every run of `runIds` charged exactly once on the chain as it stands, and the renter's balance says so. */
async function expectChargedOnce(runIds: string[], deposit: bigint) {
  for (const id of runIds) expect((await chargesOfRun(world.services, id)).charged, id).toEqual([listing.priceWei]);
  const all = await world.services.chain.client.getContractEvents({ address: world.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId: listing.onChainId, buyer: renter.account.address }, fromBlock: 0n, toBlock: "latest" });
  expect(all.length).toBe(runIds.length);
  expect(await balance()).toBe(deposit - listing.priceWei * BigInt(runIds.length));
}

const DEPOSIT = () => listing.priceWei * 40n;

/** Runs `count` more tasks: each answered settled (never pending: no stalled nonce), charged once. */
async function moreRuns(prefix: string, count: number) {
  for (let i = 0; i < count; i++) {
    const run = await execute(`${prefix} ${i}`);
    charged.push(run.run_id as string);
    expect(run, "a later run settles: the settler's nonces are the chain's again").toMatchObject({ status: "completed", output: { findings: [`${prefix} ${i}`] } });
    expect(run.settlement).toBeUndefined();
  }
}

describe("a charge whose block is reorganised away", () => {
  for (const [deeper, rebroadcast] of [
    [0, false],
    [5, false],
    [0, true],
    [5, true],
  ] as const) {
    it(`${deeper + 1}+ blocks deep, its transaction ${rebroadcast ? "sent again by another node" : "gone for good"}: charged again exactly once, and the runs after it settle`, async () => {
      const { run, depth } = await reorganiseCharge(`reorg ${deeper} ${rebroadcast}`, deeper, rebroadcast);
      expect(depth).toBeGreaterThanOrEqual(BigInt(deeper + 1));
      // The settler notices (the head went back, then changed) and its transaction lands again.
      await until("the reorganised charge to land again", async () => (await chargesOfRun(world.services, run.run_id as string)).charged.length === 1, 30_000, 200);
      await moreRuns(`after ${deeper} ${rebroadcast}`, 2);
      await expectChargedOnce(charged, DEPOSIT());
      // The record's charge transaction is the one on the chain once its block is final (the same signed
      // transaction landed again, or a replacement with higher fees did).
      const [consumed] = await world.services.chain.client.getContractEvents({ address: world.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { runRef: (await chargeRefOfRun(run.run_id as string)) }, fromBlock: 0n, toBlock: "latest" });
      await until("the run's record to name the charge's transaction", async () => {
        const record = (await (await world.app.request(`/v1/runs/${run.run_id as string}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
        return record.settlement === "settled" && record.status === "completed" && record.settlement_tx === consumed!.transactionHash;
      }, 30_000, 250);
      expect(lines.some((line) => line.message === "chain reorganised; the settler's transactions in the blocks that left are sent again")).toBe(true);
    }, 120_000);
  }
});

/** The settled run's record, read through the API. */
async function recordOf(runId: string): Promise<Record<string, unknown>> {
  return (await (await world.app.request(`/v1/runs/${runId}`, { headers: { authorization: `Bearer ${renter.key}` } })).json()) as Record<string, unknown>;
}

/** The transaction that charged `runId` on the chain as it stands. */
async function chargeTxOf(runId: string) {
  const [consumed] = await world.services.chain.client.getContractEvents({ address: world.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { runRef: await chargeRefOfRun(runId) }, fromBlock: 0n, toBlock: "latest" });
  return world.services.chain.client.getTransaction({ hash: consumed!.transactionHash! });
}

/** The authority's empty transfers to itself (gap fillers) in blocks from `from` on. */
async function fillersSince(from: bigint): Promise<number> {
  let n = 0;
  const authority = world.ctx.authority.address.toLowerCase();
  for (let b = from; b <= (await head()); b++) {
    const block = await world.services.chain.client.getBlock({ blockNumber: b, includeTransactions: true });
    n += block.transactions.filter((tx) => tx.from.toLowerCase() === authority && tx.to?.toLowerCase() === authority).length;
  }
  return n;
}

describe("a charge batch orphaned between the settler's reads", () => {
  it("its block taken away after its receipt was read and before the chain's nonce was: its same transaction lands again under its nonce, charged once, settled", async () => {
    const authority = world.ctx.authority.address.toLowerCase();
    const selector = consumeQueriesData([]).slice(0, 10);
    const snapshot = await rpc<Hex>("evm_snapshot");
    const from = await head();
    let orphaned: { hash: Hex; nonce: number; block: bigint } | undefined;
    // The first read of the authority's nonce that counts a charge batch mined since the snapshot: the
    // blocks since are taken off the chain before that answer reaches the settler.
    let scanned = from;
    hop.hook = async (call, result) => {
      if (orphaned || call.method !== "eth_getTransactionCount" || String((call.params[0] as string).toLowerCase()) !== authority || call.params[1] !== "latest") return;
      for (const latest = await head(); scanned < latest && !orphaned; ) {
        const block = await world.services.chain.client.getBlock({ blockNumber: ++scanned, includeTransactions: true });
        const batch = block.transactions.find((tx) => tx.from.toLowerCase() === authority && tx.input.startsWith(selector));
        if (batch && Number(result) > batch.nonce) orphaned = { hash: batch.hash, nonce: batch.nonce, block: block.number };
        else if (batch) scanned--;
      }
      if (orphaned) await rpc("evm_revert", [snapshot]);
    };
    try {
      const run = await execute("orphaned between reads");
      charged.push(run.run_id as string);
      await until("the batch's block to be taken away", () => orphaned !== undefined, 30_000, 50);
      await until("the orphaned charge to land again", async () => (await chargesOfRun(world.services, run.run_id as string)).charged.length === 1 && (await head()) > orphaned!.block, 30_000, 200);
      // The same transaction (or its replacement) under the same nonce carried it: the nonce was never
      // left to a filler, and the charge never went into a later batch.
      const tx = await chargeTxOf(run.run_id as string);
      expect(tx.nonce).toBe(orphaned!.nonce);
      expect(await fillersSince(from + 1n)).toBe(0);
      expect(lines.some((line) => String(line.message).startsWith("charge batch orphaned"))).toBe(true);
      expect(lines.some((line) => String(line.message).startsWith("charge batch replaced"))).toBe(false);
      await moreRuns("after the orphan", 2);
      await expectChargedOnce(charged, DEPOSIT());
      await settledByPasses(world.services, [run.run_id as string], 60_000);
      await until("the run's record to name the charge's transaction", async () => {
        const record = await recordOf(run.run_id as string);
        return record.settlement === "settled" && record.status === "completed" && record.settlement_tx === tx.hash;
      }, 30_000, 250);
    } finally {
      hop.hook = undefined;
    }
  }, 120_000);
});

describe("a nonce gap", () => {
  it("a charge batch dropped from the node's pool before its block is sent again: the run and the ones after it settle", async () => {
    // Mining stops, so the settler's next batch waits in the pool; it is dropped there.
    await node.setBlockTime(0);
    await rpc("evm_setAutomine", [false]);
    const answering = execute("dropped");
    let pending: { hash: Hex; from: string; input: Hex }[] = [];
    const selector = consumeQueriesData([]).slice(0, 10);
    // The charge batch itself (a run-log transaction may be in the pool before it).
    await until("the settler's charge batch in the pool", async () => {
      const block = await rpc<{ transactions: { hash: Hex; from: string; input: Hex }[] }>("eth_getBlockByNumber", ["pending", true]);
      pending = block.transactions.filter((tx) => tx.from.toLowerCase() === world.ctx.authority.address.toLowerCase());
      return pending.some((tx) => tx.input.startsWith(selector));
    }, 30_000, 50);
    const dropped = await Promise.all(pending.map((tx) => world.services.chain.client.getTransaction({ hash: tx.hash })));
    for (const tx of pending) expect(await rpc("hardhat_dropTransaction", [tx.hash])).toBe(true);
    const from = await head();
    await node.setBlockTime(BLOCK_MS);
    const run = await answering;
    charged.push(run.run_id as string);
    await settledByPasses(world.services, [run.run_id as string], 60_000);
    // Sent again under the same nonce with higher fees (a pool that let it go for its fee would again).
    const tx = await chargeTxOf(run.run_id as string);
    const before = dropped.find((d) => d.nonce === tx.nonce);
    expect(before, "the charge landed under the dropped batch's nonce").toBeDefined();
    expect(tx.maxFeePerGas!).toBeGreaterThan(before!.maxFeePerGas!);
    expect(tx.input).toBe(before!.input);
    expect(await fillersSince(from + 1n)).toBe(0);
    expect(lines.some((line) => String(line.message).startsWith("charge batch dropped from the node's pool"))).toBe(true);
    await moreRuns("after the gap", 2);
    await expectChargedOnce(charged, DEPOSIT());
    expect((await recordOf(run.run_id as string)).settlement_tx).toBe(tx.hash);
  }, 120_000);
});

describe("a base fee past the network's ceiling", () => {
  it("sends nothing that pays past it: the run answers pending with its output withheld, and is charged once the fee falls", async () => {
    const ceiling = parseGwei("50");
    const from = (await head()) + 1n;
    await rpc("hardhat_setNextBlockBaseFeePerGas", [`0x${parseGwei("1000").toString(16)}`]);
    await until("the spike's block", async () => ((await world.services.chain.client.getBlock()).baseFeePerGas ?? 0n) > ceiling, 10_000, 50);
    const run = await execute("spike");
    expect(run).toMatchObject({ status: "completed", output: null, settlement: "pending" });
    expect(lines.some((line) => line.level === "error" && String(line.message).startsWith("settlement alarm on: fee_ceiling"))).toBe(true);
    const health = (await (await world.app.request("/v1/health")).json()) as { settlements: { alarms: { name: string }[] } };
    expect(health.settlements.alarms.map((a) => a.name)).toContain("fee_ceiling");
    // The base fee falls an eighth a block once blocks are empty; the charge goes once it is under.
    charged.push(run.run_id as string);
    await settledByPasses(world.services, [run.run_id as string], 90_000);
    await expectChargedOnce(charged, DEPOSIT());
    const to = await head();
    for (let n = from; n <= to; n++) {
      const block = await world.services.chain.client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== world.ctx.authority.address.toLowerCase()) continue;
        expect(tx.maxFeePerGas!, `block ${n}`).toBeLessThanOrEqual(ceiling);
        expect(block.baseFeePerGas!, `block ${n}`).toBeLessThan(ceiling);
      }
    }
  }, 150_000);
});

describe("a send whose answer never came", () => {
  it("is followed under its nonce when it reached the node, and never reported as refused gas", async () => {
    const key = (`0x${randomBytes(32).toString("hex")}`) as Hex;
    const { privateKeyToAccount } = await import("viem/accounts");
    const account = privateKeyToAccount(key);
    await rpc("hardhat_setBalance", [account.address, "0xde0b6b3a7640000"]);
    // The node takes the transaction; its answer is lost (the transport times out).
    const fetchFn: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (typeof init?.body === "string" && init.body.includes("eth_sendRawTransaction")) throw Object.assign(new Error("The request took too long to respond."), { name: "TimeoutError" });
      return res;
    };
    const sender = createAuthoritySender(world.services.chain, { rpcUrl: node.rpcUrl, privateKey: key, fetchFn });
    await sender.sync(1_000);
    // The fees of the chain as it is (the spike above may still be falling).
    sender.setBaseFee((await world.services.chain.client.getBlock()).baseFeePerGas);
    const at = await head();
    const tx = await sender.send("charges", consumeQueriesData([]), 100_000n, at);
    expect(sender.pending().map((p) => p.nonce)).toEqual([tx.nonce]);
    const client = createPublicClient({ transport: http(node.rpcUrl) });
    await until("the send to be seen mined", async () => (await sender.poll(await head())).some((r) => "receipt" in r), 20_000, 200);
    expect(await client.getTransactionCount({ address: account.address })).toBe(tx.nonce + 1);
    // A timeout is no refusal; a node's "known transaction" is about the nonce, not the gas.
    expect(nodeRefusal(new Error("The request took too long to respond."))).toBeUndefined();
    expect(nodeRefusal(Object.assign(new Error("Missing or invalid parameters."), { details: "Known transaction: 0xabc" }))).toBe("nonce");
  }, 60_000);
});
