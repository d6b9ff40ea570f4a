// The run log on a chain that reorganises, on a real Hardhat node with a finality depth of 8 blocks: a
// block holding a `logRuns` batch is taken off the chain (evm_revert to a snapshot before it, then more
// blocks mined over it than were taken), 1 block deep and 6. The settler passes are separate settlers
// (a cloud invocation and its successor), so the one that sent the batch is gone and its transaction
// with it, unless another node sends it again:
//  - gone for good: the next pass logs the same root again; every run's receipt, as the API serves it,
//    names the batch index and transaction that hold it now, and verifies (verifyRunReceipt);
//  - sent again by another node: it lands again; nothing is logged twice and the receipts verify;
//  - a batch counts as final only once its block is the finality depth under the head.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeTransaction, type Hex } from "viem";
import { runJob } from "../../src/jobs.ts";
import { runDetailBody } from "../../src/api/run-json.ts";
import { runReceiptFields } from "../../src/execution/run-log/receipts.ts";
import { listIncludedBatches } from "../../src/execution/run-log/run-batch.store.ts";
import type { RunRecord } from "../../src/execution/runs/run.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { startWorldOn, type World } from "../support/world.ts";
import { expectLoggedAndVerified, finishedRun, readBatches, readRuns, runsLoggedSince, verifyOnChain, writeRuns } from "../run-log/support.ts";
import { startSuiteChain } from "./support.ts";

const DEPTH = 8;
let node: Awaited<ReturnType<typeof startSuiteChain>>;
let world: World;

async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return (await world.services.chain.client.request({ method: method as never, params: params as never })) as T;
}
const head = () => world.services.chain.client.getBlockNumber({ cacheTime: 0 });
const mine = (blocks: bigint | number) => rpc("hardhat_mine", [`0x${BigInt(blocks).toString(16)}`]);
/** One pass of the settler job, by a settler of its own (its transactions unknown to the next). */
const settlerPass = () => runJob(world.services, "settler");

/** The signed bytes of a mined transaction (the node keeps no raw copy): what another node re-broadcasts. */
async function rawOf(hash: Hex): Promise<Hex> {
  const tx = await world.services.chain.client.getTransaction({ hash });
  return serializeTransaction(
    { type: "eip1559", chainId: tx.chainId!, nonce: tx.nonce, to: tx.to!, value: tx.value, data: tx.input, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! },
    { r: tx.r, s: tx.s, yParity: tx.yParity! },
  );
}

beforeAll(async () => {
  node = await startSuiteChain();
  world = await startWorldOn({ ...sharedInfrastructure(), rpcUrl: node.rpcUrl }, { serve: false, settler: false, env: { FINALITY_DEPTH: String(DEPTH) } });
}, 180_000);

afterAll(async () => {
  await world?.close();
  await node?.stop();
});

/** Logs `count` finished runs after a snapshot, lets `deeper` blocks come over the batch's block, then
 * takes them all off the chain and mines one block more than it took. */
async function reorganiseBatch(count: number, deeper: number) {
  const runs: RunRecord[] = Array.from({ length: count }, () => finishedRun());
  await writeRuns(world.services, runs);
  const snapshot = await rpc<Hex>("evm_snapshot");
  const from = await head();
  expect((await settlerPass()).log.runs).toBe(count);
  await expectLoggedAndVerified(world.services, runs);
  const [first] = await readRuns(world.services, [runs[0]!.run_id]);
  const receipt = first!.receipt!;
  const raw = await rawOf(receipt.tx_hash);
  const block = (await world.services.chain.client.getTransactionReceipt({ hash: receipt.tx_hash })).blockNumber;
  expect((await listIncludedBatches(world.services.tables)).map((b) => b.root), "logged, not yet final").toContain(receipt.root);
  await mine(deeper);
  const before = await head();
  expect(await rpc("evm_revert", [snapshot])).toBe(true);
  await mine(before - from + 1n);
  expect(await head()).toBeGreaterThan(before);
  // The batch's block is off the chain, and its receipt no longer verifies where it points.
  expect(await verifyOnChain(world.services, receipt.batch_index, runReceiptFields(first!), receipt.proof)).toBe(false);
  expect(block).toBeGreaterThan(from);
  return { runs, receipt, raw, depth: before - from };
}

/** What the API serves for each run: its receipt, verified on the chain as it stands. */
async function expectServedReceiptsVerify(runs: RunRecord[]) {
  for (const run of await readRuns(world.services, runs.map((r) => r.run_id))) {
    const served = runDetailBody(run).receipt!;
    expect(served, run.run_id).toEqual(run.receipt);
    expect(await verifyOnChain(world.services, served.batch_index, runReceiptFields(run), served.proof), run.run_id).toBe(true);
    const mined = await world.services.chain.client.getTransactionReceipt({ hash: served.tx_hash });
    expect(mined.status).toBe("success");
  }
}

describe("a run-log batch whose block is reorganised away", () => {
  for (const deeper of [0, 5]) {
    it(`${deeper + 1}+ blocks deep, its transaction gone for good: the next pass logs its root again, and every receipt verifies`, async () => {
      const { runs, receipt, depth } = await reorganiseBatch(3, deeper);
      expect(depth).toBeGreaterThanOrEqual(BigInt(deeper + 1));
      const logFrom = await head();
      await settlerPass();
      // The same root, logged once more; the receipts' leaves and proofs unchanged, their batch and
      // transaction the ones on the chain.
      expect((await runsLoggedSince(world.services, logFrom)).filter((e) => e.root === receipt.root)).toHaveLength(1);
      await expectLoggedAndVerified(world.services, runs);
      await expectServedReceiptsVerify(runs);
      const stored = await readRuns(world.services, runs.map((r) => r.run_id));
      expect(stored[0]!.receipt).toMatchObject({ root: receipt.root, leaf: receipt.leaf, proof: receipt.proof });
      for (const run of stored) expect(run.receipt!.tx_hash).not.toBe(receipt.tx_hash);
      const batch = (await readBatches(world.services)).find((b) => b.root === receipt.root)!;
      expect(batch).toMatchObject({ state: "logged", relogged: 1 });
      // Another pass sends nothing more.
      const again = await head();
      await settlerPass();
      expect((await runsLoggedSince(world.services, again + 1n)).filter((e) => e.root === receipt.root)).toHaveLength(0);
    }, 120_000);
  }

  it("1+ block deep, its same transaction sent again by another node: it lands again, nothing is logged twice, and the receipts verify", async () => {
    const { runs, receipt, raw } = await reorganiseBatch(2, 0);
    await rpc("eth_sendRawTransaction", [raw]);
    const logFrom = await head();
    await settlerPass();
    expect((await runsLoggedSince(world.services, logFrom + 1n)).filter((e) => e.root === receipt.root)).toHaveLength(0);
    await expectServedReceiptsVerify(runs);
    const batch = (await readBatches(world.services)).find((b) => b.root === receipt.root)!;
    expect(batch.relogged).toBeUndefined();
    expect(batch.tx_hash).toBe(receipt.tx_hash);
  }, 120_000);

  it("a batch counts as final only once its block is the finality depth under the head", async () => {
    const runs = Array.from({ length: 2 }, () => finishedRun());
    await writeRuns(world.services, runs);
    await settlerPass();
    const [run] = await readRuns(world.services, [runs[0]!.run_id]);
    const root = run!.receipt!.root;
    const block = (await world.services.chain.client.getTransactionReceipt({ hash: run!.receipt!.tx_hash })).blockNumber;
    await mine(DEPTH - 2);
    await settlerPass();
    expect((await listIncludedBatches(world.services.tables)).map((b) => b.root)).toContain(root);
    await mine(2);
    await settlerPass();
    expect((await listIncludedBatches(world.services.tables)).map((b) => b.root)).not.toContain(root);
    const batch = (await readBatches(world.services)).find((b) => b.root === root)!;
    expect(batch.final_block).toBe(block.toString());
  }, 120_000);
});
