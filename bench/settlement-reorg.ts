// Per-task settlement through reorganisations (the reorg row of docs/benchmarks/settlement.md): a Hardhat
// node mining a block every 2 s, the settler fed 300 charges a second (600 per block) straight on its
// queue, a finality depth of 2, and every REORG_EVERY_S a one-block reorganisation: a snapshot at a head,
// the next block (holding a charge batch) taken off the chain by evm_revert, the authority's transactions
// the node then holds dropped from its pool (the orphaned ones gone for good), and the node mining on.
// Figures, read from the final chain: charges per block sustained, charges never charged (free), charged
// twice, and for each reorganisation the blocks from the one taken away to the block where its last
// charge landed again, plus the finality depth (when every affected charge is final again).
// Targets: >= 500 charges per block sustained; 0 free; 0 charged twice; final again within depth + 2 blocks.
// Run: npm run bench -- settlement-reorg   (or: node --import tsx bench/settlement-reorg.ts)
import { randomBytes } from "node:crypto";
import { parseEther, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { startChain } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { chargeMessageBody } from "../src/execution/money/charge-message.ts";
import { chargeRefHex } from "../src/execution/money/charge-refs.ts";
import { createSettler, type BatchEvent } from "../src/execution/settler/settler.ts";
import { createServicesOn, fundAccount, type Account } from "../test/support/chain-actions.ts";

const BLOCK_TIME_MS = 2_000;
const RATE = 300;
const FEED_SECONDS = 40;
const REORG_EVERY_S = 15;
const DEPTH = 2;
const RENTERS = 50;
const PRICE = parseEther("0.0001");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSettlementReorgBench(): Promise<string[]> {
  const node = await startChain({ port: await freePort() });
  const [dynamo, aws] = await Promise.all([freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))]);
  try {
    await node.setBlockTime(0);
    const on = await createServicesOn({ rpcUrl: node.rpcUrl, dynamoEndpoint: dynamo.endpoint, awsEndpoint: aws.endpoint, env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), LOG_LEVEL: "silent", FINALITY_DEPTH: String(DEPTH) } });
    const { client } = on.services.chain;
    const rpc = <T = unknown>(method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never }) as Promise<T>;
    const head = () => client.getBlockNumber({ cacheTime: 0 });
    const creator = await fundAccount(node.rpcUrl);
    const { listingId } = await on.market.createListing(creator, { accessType: "per_query", price: PRICE });
    const renters: Account[] = [];
    for (let i = 0; i < RENTERS; i++) {
      const renter = await fundAccount(node.rpcUrl);
      await on.market.purchasePerQuery(renter, listingId, PRICE * 20_000n);
      renters.push(renter);
    }
    await node.setBlockTime(BLOCK_TIME_MS);
    const events: BatchEvent[] = [];
    const settler = createSettler(on.services, { onBatch: (event) => events.push(event) });
    const stop = new AbortController();
    const running = settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    await sleep(3 * BLOCK_TIME_MS);

    const refs: Hex[] = [];
    let nextDense = 1 << 16;
    const startBlock = (await head()) + 1n;
    const reorgs: { taken: bigint; refs: Hex[] }[] = [];
    const reorgOnce = async () => {
      // A snapshot right after a head, the next block (holding a batch) taken away, and the authority's
      // transactions the node holds then dropped: the orphaned batch is gone for good.
      // Snapshots at each head until the next block holds a batch of charges.
      for (;;) {
        const at = await head();
        while ((await head()) === at) await sleep(5);
        const snapshot = await rpc<Hex>("evm_snapshot");
        const taken = (await head()) + 1n;
        while ((await head()) < taken) await sleep(10);
        const inBlock = await client.getContractEvents({ address: on.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId }, fromBlock: taken, toBlock: taken });
        if (inBlock.length === 0) continue;
        await rpc("evm_revert", [snapshot]);
        const pool = await rpc<{ transactions: { hash: Hex; from: string }[] }>("eth_getBlockByNumber", ["pending", true]);
        for (const tx of pool.transactions) if (tx.from.toLowerCase() === on.authority.address.toLowerCase()) await rpc("hardhat_dropTransaction", [tx.hash]).catch(() => undefined);
        reorgs.push({ taken, refs: inBlock.map((e) => e.args.runRef!) });
        return;
      }
    };
    const started = performance.now();
    const reorgsDone: Promise<void>[] = [];
    for (let tick = 0; tick < FEED_SECONDS * 10; tick++) {
      const due = started + tick * 100;
      if (due > performance.now()) await sleep(due - performance.now());
      if (tick > 0 && tick % (REORG_EVERY_S * 10) === 0) reorgsDone.push(reorgOnce());
      const bodies = Array.from({ length: RATE / 10 }, () => {
        const ref = chargeRefHex(nextDense++);
        refs.push(ref);
        return chargeMessageBody({ v: 1, run_id: `run_${randomBytes(16).toString("hex")}`, listing: listingId, buyer: renters[Math.floor(Math.random() * RENTERS)]!.address, ref, max_price: PRICE.toString() });
      });
      void on.services.queue.sendMany(on.config.SETTLEMENT_QUEUE_URL, bodies);
    }
    await Promise.all(reorgsDone);
    // Every charge decided on the chain as it stands, waited for up to a minute.
    const consumedOn = async () => client.getContractEvents({ address: on.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId }, fromBlock: startBlock, toBlock: "latest" });
    let consumed = await consumedOn();
    // (until every charge is in, or nothing has landed for 30 s: the node on a loaded machine mines slowly).
    for (let progressAt = Date.now(), seen = 0; new Set(consumed.map((e) => e.args.runRef)).size < refs.length && Date.now() - progressAt < 30_000; ) {
      await sleep(BLOCK_TIME_MS);
      consumed = await consumedOn();
      if (consumed.length > seen) (seen = consumed.length), (progressAt = Date.now());
    }
    // Past the finality depth, so every charge is final.
    const last = await head();
    while ((await head()) < last + BigInt(DEPTH)) await sleep(200);
    stop.abort();
    const tally = await running;
    consumed = await consumedOn();

    const times = new Map<string, number>();
    const perBlock = new Map<bigint, number>();
    for (const e of consumed) {
      times.set(e.args.runRef!, (times.get(e.args.runRef!) ?? 0) + 1);
      perBlock.set(e.blockNumber!, (perBlock.get(e.blockNumber!) ?? 0) + 1);
    }
    const free = refs.filter((ref) => !times.has(ref)).length;
    const twice = [...times.values()].filter((n) => n > 1).length;
    const blockOf = new Map(consumed.map((e) => [e.args.runRef!, e.blockNumber!]));
    const feedBlocks = Math.floor((FEED_SECONDS * 1000) / BLOCK_TIME_MS);
    const steady = [...perBlock.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(1, feedBlocks).map(([, n]) => n);
    const mean = steady.reduce((a, b) => a + b, 0) / Math.max(1, steady.length);
    const orphaned = events.filter((e) => e.kind === "orphaned" || e.kind === "dropped").length;
    const rows = [
      `chain: Hardhat node, a block every ${BLOCK_TIME_MS} ms, finality depth ${DEPTH}; ${RENTERS} renters of one per-task listing; a one-block reorganisation every ${REORG_EVERY_S} s, its authority transactions dropped from the pool`,
      `fed ${refs.length} charges (${RATE}/s for ${FEED_SECONDS} s); charged on the final chain ${times.size}; batches orphaned or dropped and sent again ${orphaned}`,
      `the settler: ${tally.batches} batches mined, ${tally.charged} charged, ${tally.skipped} skipped, ${tally.orphaned} orphaned, ${tally.dropped} dropped, ${tally.reverted + tally.outOfGas} reverted; head ${await head()}, last charge in block ${consumed.reduce((a, e) => (e.blockNumber! > a ? e.blockNumber! : a), 0n)}`,
      `charges per block over ${steady.length} blocks of the feed: mean ${mean.toFixed(0)}, min ${Math.min(...steady)}, max ${Math.max(...steady)}`,
    ];
    let worst = 0;
    for (const [i, reorg] of reorgs.entries()) {
      const landed = reorg.refs.map((ref) => blockOf.get(ref)).filter((b): b is bigint => b !== undefined);
      const lastLanded = landed.reduce((a, b) => (b > a ? b : a), 0n);
      const blocks = landed.length ? Number(lastLanded - reorg.taken) + 1 + DEPTH : Number.NaN;
      worst = Math.max(worst, Number.isNaN(blocks) ? Number.POSITIVE_INFINITY : blocks);
      rows.push(`reorganisation ${i + 1}: block ${reorg.taken} taken away holding ${reorg.refs.length} charges; ${landed.length} of them charged again, the last in block ${lastLanded}: final again ${blocks} blocks after the block taken away (landing + depth ${DEPTH})`);
    }
    rows.push(`target >= 500 charges per block sustained: ${mean.toFixed(0)}: ${mean >= 500 ? "met" : "MISSED"}`);
    rows.push(`target 0 runs free, 0 charged twice: ${free} free, ${twice} charged twice: ${free === 0 && twice === 0 ? "met" : "MISSED"}`);
    rows.push(`target every affected charge final again within depth + 2 = ${DEPTH + 2} blocks of the reorganisation: worst ${worst}: ${reorgs.length > 0 && worst <= DEPTH + 2 ? "met" : "MISSED"}`);
    await on.services.close();
    return rows;
  } finally {
    await Promise.allSettled([node.stop(), dynamo.stop(), aws.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await runSettlementReorgBench()) console.log(line);
  process.exit(0);
}
