// What the run log costs on-chain: the gas of one logRuns transaction does not depend on the batch size
// (one storage slot and one event per batch), so the cost per run falls as 1/N. The figures printed
// here are the ones quoted in docs/design/run-log.md.
import { beforeAll, describe, expect, it } from "vitest";
import { logPendingRuns } from "../../src/execution/run-log/pass.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { expectLoggedAndVerified, finishedRun, readRun, writeRuns } from "./support.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});

async function logBatchOf(size: number): Promise<bigint> {
  const runs = Array.from({ length: size }, () => finishedRun());
  await writeRuns(ctx.services, runs);
  expect(await logPendingRuns(ctx.services, { maxBatch: Math.max(size, 1) })).toEqual({ batches: 1, runs: size });
  await expectLoggedAndVerified(ctx.services, runs.slice(0, 3));
  const txHash = (await readRun(ctx.services, runs[0]!.run_id))!.receipt!.tx_hash;
  const receipt = await ctx.services.chain.client.getTransactionReceipt({ hash: txHash });
  return receipt.gasUsed;
}

describe("logRuns gas", () => {
  // Batches of up to 1,000 runs (their Merkle trees and receipts built here): beside the other lanes on two
  // cores this took over 120 s once.
  it("is the same for every batch size, so the cost per run is gas / N", { timeout: 300_000 }, async () => {
    const sizes = [1, 2, 10, 100, 500, 1000];
    const gas: bigint[] = [];
    for (const size of sizes) gas.push(await logBatchOf(size));
    const rows = sizes.map((size, i) => ({ runs: size, gas: Number(gas[i]), gas_per_run: Math.round(Number(gas[i]) / size) }));
    console.info(`logRuns gas by batch size (runs, gas, gas per run)\n${rows.map((r) => `${r.runs}\t${r.gas}\t${r.gas_per_run}`).join("\n")}`);
    // Only the calldata bytes of the root and the count differ (4 gas per zero byte, 16 per other byte).
    const spread = Number(gas.reduce((a, b) => (a > b ? a : b))) - Number(gas.reduce((a, b) => (a < b ? a : b)));
    expect(spread).toBeLessThan(400);
    // 21,000 intrinsic + calldata + one new slot (the root) + the counter + the event.
    expect(Number(gas[0])).toBeLessThan(60_000);
  });
});
