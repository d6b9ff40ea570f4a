// The settlement suite's world: a Hardhat node of its own that mines a block every 2 s once the test's
// setup is done (the deployment, listings and rentals are mined at once, then the node keeps a real
// network's pace), the shared emulators, and what the suite reads back from the chain: each block's
// authority transactions, each run's charges, and when each block was first seen.
import { decodeFunctionData, type Address, type Hex } from "viem";
import { startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import type { ChainClient } from "../../src/chain/client.ts";
import { chargeRefOf } from "../../src/execution/runs/run.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import type { Services } from "../../src/services.ts";

export const BLOCK_TIME_MS = 2_000;

/** Starts the suite's node on automine (setup is mined at once); `paced()` switches it to 2 s blocks. */
export async function startSuiteChain(): Promise<ChainNode & { paced(): Promise<void> }> {
  const node = await startChain({ port: await freePort() });
  return Object.assign(node, { paced: () => node.setBlockTime(BLOCK_TIME_MS) });
}

/** The authority's transactions of each block in [from, to]: the function each called. */
export async function authorityTransactions(chain: ChainClient, authority: Address, from: bigint, to: bigint): Promise<Map<bigint, { hash: Hex; functionName: string; charges: number; nonce: number }[]>> {
  const byBlock = new Map<bigint, { hash: Hex; functionName: string; charges: number; nonce: number }[]>();
  for (let n = from; n <= to; n++) {
    const block = await chain.client.getBlock({ blockNumber: n, includeTransactions: true });
    // The authority's calls to the marketplace (its deployment, a transaction to no one, is not one).
    const ours = block.transactions.filter((tx) => tx.from.toLowerCase() === authority.toLowerCase() && tx.to !== null);
    byBlock.set(
      n,
      ours.map((tx) => {
        const call = decodeFunctionData({ abi: marketplaceAbi, data: tx.input });
        const charges = call.functionName === "consumeQueries" ? (call.args[0] as readonly unknown[]).length : call.functionName === "consumeQuery" ? 1 : 0;
        return { hash: tx.hash, functionName: call.functionName, charges, nonce: tx.nonce };
      }),
    );
  }
  return byBlock;
}

/** The charges (QueryConsumed prices) and refusals the chain holds for a run, by its charge reference. */
export async function chargesOfRun(services: Services, runId: string): Promise<{ charged: bigint[]; refused: string[]; blocks: bigint[] }> {
  const run = await getRun(services.tables, runId);
  if (!run) throw new Error(`no run ${runId}`);
  const ref = chargeRefOf(run);
  const { chain } = services;
  const [consumed, refused] = await Promise.all([
    chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { runRef: ref }, fromBlock: 0n, toBlock: "latest" }),
    chain.client.getContractEvents({ address: chain.marketplace, abi: marketplaceAbi, eventName: "QueryRefused", args: { runRef: ref }, fromBlock: 0n, toBlock: "latest" }),
  ]);
  return {
    charged: consumed.map((e) => e.args.price!),
    refused: refused.map((e) => e.args.reason!),
    blocks: [...consumed, ...refused].map((e) => e.blockNumber!),
  };
}

/** Watches the chain's head every 10 ms and records when each block was first seen (for "released as
 * soon as its block is seen, not before"). */
export function watchBlocks(chain: ChainClient): { seenAt(block: bigint): number | undefined; stop(): void } {
  const seen = new Map<bigint, number>();
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const head = await chain.client.getBlockNumber({ cacheTime: 0 });
        if (!seen.has(head)) seen.set(head, Date.now());
      } catch {
        // the next poll
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return { seenAt: (block) => seen.get(block), stop: () => void (stopped = true) };
}
