// Per-task settlement on a chain that mines a block every 2 s (the pace of Base and OP chains), through
// the API: many runs at once are charged in one transaction per block, each exactly once; each result
// is released as soon as the block holding its charge is seen and not before; a charge the contract
// refuses fails that run alone, at no cost, while the others of its batch complete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { writeMarketplace } from "../../src/chain/write.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { sharedInfrastructure } from "../support/services.ts";
import { startJobs } from "../../src/jobs.ts";
import { startWorldOn, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import { parseSseJson } from "../support/sse.ts";
import { authorityTransactions, BLOCK_TIME_MS, chargesOfRun, startSuiteChain, watchBlocks } from "./support.ts";

let node: Awaited<ReturnType<typeof startSuiteChain>>;
let world: World;
let blocks: ReturnType<typeof watchBlocks>;
/** Tasks the agent holds until the test lets them go. */
const held = new Map<string, Promise<void>>();

function execute(renter: Renter, agentId: string, task: string, stream: boolean) {
  return world.app.request(stream ? "/v1/execute/stream" : "/v1/execute", {
    method: "POST",
    headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: agentId, task }),
  });
}

/** A run's answer: its Run (the JSON body, or the stream's done event), and when it arrived. */
async function answer(renter: Renter, agentId: string, task: string, stream: boolean): Promise<{ run: Record<string, unknown>; at: number }> {
  const res = await execute(renter, agentId, task, stream);
  const text = await res.text();
  const at = Date.now();
  expect(res.status, text).toBe(200);
  const run = stream ? (parseSseJson(text).at(-1)!.data as Record<string, unknown>) : (JSON.parse(text) as Record<string, unknown>);
  return { run, at };
}

beforeAll(async () => {
  node = await startSuiteChain();
  world = await startWorldOn({ ...sharedInfrastructure(), rpcUrl: node.rpcUrl }, {
    serve: false,
    env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), SETTLEMENT_WAIT_MS: "20000" },
    agent: {
      handler: async (call) => {
        await held.get(call.task);
        if (call.task.startsWith("stream")) await call.stream(["one ", "two"], { findings: [call.task] });
        else call.output({ findings: [call.task] });
      },
    },
  });
  blocks = watchBlocks(world.services.chain);
}, 120_000);

afterAll(async () => {
  blocks?.stop();
  await world?.close();
  await node?.stop();
});

describe("on 2 s blocks", () => {
  let listing: PublishedAgent;
  let renters: Renter[];
  beforeAll(async () => {
    listing = await world.publishConnected("paced", { rental: "per_query" });
    renters = await Promise.all(Array.from({ length: 10 }, () => world.renter()));
    for (const renter of renters) await world.rent(renter.account, listing, { deposit: listing.priceWei * 3n });
    // Setup was mined at once; from here on a block every 2 s.
    await node.paced();
  }, 120_000);

  it("charges 20 per-task runs at once exactly once each, one batch per block, at most 2 authority transactions per block, each result released once its block is seen", async () => {
    const from = (await world.services.chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const renter = renters[i % renters.length]!;
        const stream = i % 2 === 1;
        const { run, at } = await answer(renter, listing.agent_id, `${stream ? "stream" : "run"} ${i}`, stream);
        // Released no earlier than the block holding its charge: the charge is on-chain when the answer arrives.
        const charges = await chargesOfRun(world.services, run.run_id as string);
        return { run, at, charges };
      }),
    );
    const to = await world.services.chain.client.getBlockNumber({ cacheTime: 0 });
    for (const { run, at, charges } of answers) {
      expect(run).toMatchObject({ status: "completed", cost_wei: Number(listing.priceWei) });
      expect(run.settlement).toBeUndefined();
      expect(charges.charged).toEqual([listing.priceWei]);
      expect(charges.refused).toEqual([]);
      // Not before its block, and as soon as it is seen: the answer follows the block's first sighting by
      // the run's own writes (its record, its holds, the listing's figures: under load, a second or two),
      // never by a settlement pass or the whole wait.
      const seen = blocks.seenAt(charges.blocks[0]!);
      expect(seen).toBeDefined();
      expect(at).toBeGreaterThanOrEqual(seen! - 50);
      expect(at - seen!).toBeLessThan(2 * BLOCK_TIME_MS);
    }
    const txs = await authorityTransactions(world.services.chain, world.ctx.authority.address, from, to);
    const batches = [...txs.values()].flat().filter((tx) => tx.functionName === "consumeQueries");
    expect(batches.reduce((n, tx) => n + tx.charges, 0)).toBe(20);
    // 20 runs finishing within a moment of each other share a few batches, not 20 transactions.
    expect(batches.length).toBeLessThanOrEqual(4);
    for (const [block, ours] of txs) {
      expect(ours.length, `authority transactions in block ${block}`).toBeLessThanOrEqual(2);
      expect(ours.filter((tx) => tx.functionName === "consumeQueries").length, `charge batches in block ${block}`).toBeLessThanOrEqual(1);
    }
    // No consumeQuery one by one: every charge went through the settler's batches.
    expect([...txs.values()].flat().filter((tx) => tx.functionName === "consumeQuery")).toEqual([]);
  }, 90_000);

  it("fails a run whose charge the contract refuses, at no cost and with nothing released, while the others of its batch complete", async () => {
    const revoked = await world.renter();
    await world.rent(revoked.account, listing, { deposit: listing.priceWei * 2n });
    const others = renters.slice(0, 4);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const tasks = ["refused run", ...others.map((_, i) => `kept run ${i}`)];
    for (const task of tasks) held.set(task, gate);
    const answering = [answer(revoked, listing.agent_id, tasks[0]!, false), ...others.map((renter, i) => answer(renter, listing.agent_id, tasks[i + 1]!, false))];
    await expect.poll(() => world.agent.deliveries.filter((d) => tasks.includes(d.task)).length, { timeout: 20_000 }).toBe(tasks.length);
    // The creator revokes the renter's credential while the runs are at the agent.
    const creator = (await world.creator()).account;
    await writeMarketplace(world.target, creator, "revokePerQueryAccess", [listing.onChainId, revoked.account.address]);
    // The five charges travel in one batch: the settler is stopped while the runs finish and hand them
    // over, then started again (the runs wait for their block meanwhile).
    await world.jobs!.stop();
    open();
    await expect.poll(() => world.services.queue.approximateCount(world.config.SETTLEMENT_QUEUE_URL), { timeout: 20_000 }).toBe(tasks.length);
    const settler = startJobs(world.services, { only: ["settler"] });
    world.defer(() => settler.stop());
    const [refused, ...kept] = await Promise.all(answering);
    expect(refused!.run).toMatchObject({ status: "failed", output: null, cost_wei: 0, error: { code: "settlement_refused" } });
    expect((refused!.run.error as { message: string }).message).toMatch(/CredentialRevoked/);
    const refusal = await chargesOfRun(world.services, refused!.run.run_id as string);
    expect(refusal.charged).toEqual([]);
    expect(refusal.refused).toHaveLength(1);
    for (const { run } of kept) {
      expect(run).toMatchObject({ status: "completed", cost_wei: Number(listing.priceWei) });
      expect((await chargesOfRun(world.services, run.run_id as string)).charged).toEqual([listing.priceWei]);
    }
    // The refusal and the charges travelled together: one transaction held them all.
    const all = [refusal, ...(await Promise.all(kept.map(({ run }) => chargesOfRun(world.services, run.run_id as string))))];
    expect(new Set(all.map((c) => c.blocks[0]))).toHaveProperty("size", 1);
    // The refused renter paid nothing: the balance is the deposit.
    const [balance] = await world.services.chain.client.readContract({ address: world.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, revoked.account.address as Hex] });
    expect(balance).toBe(listing.priceWei * 2n);
  }, 90_000);
});
