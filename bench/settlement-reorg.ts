// Per-task settlement through reorganisations (the reorg row of docs/benchmarks/settlement.md): a Hardhat
// node mining a block every 2 s, the settler fed 300 charges a second (600 per block) straight on its
// queue, a finality depth of 2. First the baseline: the same feed with no reorganisation. Then the feed
// again with a one-block reorganisation every REORG_EVERY_S seconds (30 by default, as the target row is stated; 15
// for more of them): a snapshot at a head, the next block (holding a charge batch) taken off the chain by
// evm_revert, the authority's transactions the node then holds dropped from its pool (the orphaned ones
// gone for good), and the node mining on.
// Figures, read from the final chain: charges per block sustained in each phase and their ratio, charges
// never charged (free), charged twice, and for each reorganisation when the settler saw it and the blocks
// from the one taken away to the block where its last charge landed again, plus the finality depth (when
// every affected charge is final again; a charge of the baseline is final depth + 1 blocks after its block).
// Targets: >= 500 charges per block sustained; 0 free; 0 charged twice; final again within depth + 2 blocks.
// Run: npm run bench -- settlement-reorg   (or: REORG_EVERY_S=15 node --import tsx bench/settlement-reorg.ts)
import { randomBytes } from "node:crypto";
import { parseEther, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { startChain } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { chargeMessageBody } from "../src/execution/money/charge-message.ts";
import { chargeRefHex } from "../src/execution/money/charge-refs.ts";
import { getPagedLogs } from "../src/chain/get-paged-logs.ts";
import { createSettler, type BatchEvent } from "../src/execution/settler/settler.ts";
import { createServicesOn, fundAccount, type Account } from "../test/support/chain-actions.ts";

const BLOCK_TIME_MS = 2_000;
const RATE = 300;
const REORG_EVERY_S = Number(process.env.REORG_EVERY_S ?? 30);
/** Two reorganisations, and the blocks after the second. */
const FEED_SECONDS = 2 * REORG_EVERY_S + 10;
const BASELINE_SECONDS = 30;
const DEPTH = 2;
const RENTERS = 50;
const PRICE = parseEther("0.0001");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

interface Reorg {
  taken: bigint;
  refs: Hex[];
  /** performance.now() when the block was taken away. */
  revertedAt: number;
}

export async function runSettlementReorgBench(): Promise<string[]> {
  const node = await startChain({ port: await freePort() });
  const [dynamo, aws] = await Promise.all([freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))]);
  try {
    await node.setBlockTime(0);
    const on = await createServicesOn({ rpcUrl: node.rpcUrl, dynamoEndpoint: dynamo.endpoint, awsEndpoint: aws.endpoint, env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), LOG_LEVEL: "silent", FINALITY_DEPTH: String(DEPTH) } });
    const { client } = on.services.chain;
    const rpc = <T = unknown>(method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never }) as Promise<T>;
    const readHead = () => client.getBlockNumber({ cacheTime: 0 });
    const creator = await fundAccount(node.rpcUrl);
    const { listingId } = await on.market.createListing(creator, { accessType: "per_query", price: PRICE });
    const renters: Account[] = [];
    for (let i = 0; i < RENTERS; i++) {
      const renter = await fundAccount(node.rpcUrl);
      await on.market.purchasePerQuery(renter, listingId, PRICE * 40_000n);
      renters.push(renter);
    }
    await node.setBlockTime(BLOCK_TIME_MS);
    const events: (BatchEvent & { at: number })[] = [];
    const settler = createSettler(on.services, { onBatch: (event) => events.push({ ...event, at: performance.now() }) });
    const stop = new AbortController();
    const running = settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    await sleep(3 * BLOCK_TIME_MS);
    let nextDense = 1 << 16;
    /** Errors of the bench's own background work (a feed's send, a reorganisation's reads), reported
     * with the figures rather than ending the process. */
    const errors: string[] = [];
    const noted = (what: string) => (error: unknown) => void errors.push(`${what}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    /** A read tried again (the node answers slowly, or not at all, while it mines a block of 800 charges
     * on a busy machine), each attempt bounded in time. */
    const retried = async <T>(read: () => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await Promise.race([read(), sleep(15_000).then(() => Promise.reject(new Error("no answer within 15 s")))]);
        } catch (error) {
          if (attempt >= 6) throw error;
          await sleep(500 * attempt);
        }
      }
    };
    /** The listing's charges in blocks [from, to], in pages of 4 blocks (a block of 830 charges is about
     * half a megabyte of logs), a page split when its answer is too large and tried again when the node
     * does not answer (src/chain/get-paged-logs.ts). */
    const consumedIn = (from: bigint, to: bigint) => getPagedLogs(from, to, readConsumed, { pageBlocks: 4n, attempts: 6 });
    const readConsumed = (from: bigint, to: bigint) => client.getContractEvents({ address: on.services.chain.marketplace, abi: marketplaceAbi, eventName: "QueryConsumed", args: { listingId }, fromBlock: from, toBlock: to });
    const head = () => retried(readHead);
    const consumedFrom = async (from: bigint) => consumedIn(from, await head());

    /** A snapshot right after a head, the next block (holding a batch) taken away, and the authority's
     * transactions the node holds then dropped: the orphaned batch is gone for good. */
    const reorgOnce = async (reorgs: Reorg[]) => {
      for (;;) {
        const at = await head();
        while ((await head()) === at) await sleep(5);
        const snapshot = await retried(() => rpc<Hex>("evm_snapshot"));
        const taken = (await head()) + 1n;
        while ((await head()) < taken) await sleep(10);
        const inBlock = await consumedIn(taken, taken);
        if (inBlock.length === 0) continue;
        await retried(() => rpc("evm_revert", [snapshot]));
        const revertedAt = performance.now();
        const pool = await retried(() => rpc<{ transactions: { hash: Hex; from: string }[] }>("eth_getBlockByNumber", ["pending", true]));
        for (const tx of pool.transactions) if (tx.from.toLowerCase() === on.authority.address.toLowerCase()) await rpc("hardhat_dropTransaction", [tx.hash]).catch(() => undefined);
        reorgs.push({ taken, refs: inBlock.map((e) => e.args.runRef!), revertedAt });
        return;
      }
    };

    /** Feeds RATE charges a second for `seconds`, with a reorganisation every `reorgEveryS` (0: none), and
     * waits until every charge is in (or nothing has landed for 30 s). */
    const phase = async (seconds: number, reorgEveryS: number) => {
      const refs: Hex[] = [];
      const reorgs: Reorg[] = [];
      const startBlock = (await head()) + 1n;
      const started = performance.now();
      // One reorganisation after the other: one still looking for a block with charges delays the next.
      let reorgsDone = Promise.resolve();
      for (let tick = 0; tick < seconds * 10; tick++) {
        const due = started + tick * 100;
        if (due > performance.now()) await sleep(due - performance.now());
        if (reorgEveryS > 0 && tick > 0 && tick % (reorgEveryS * 10) === 0) reorgsDone = reorgsDone.then(() => reorgOnce(reorgs)).catch(noted("a reorganisation"));
        const bodies = Array.from({ length: RATE / 10 }, () => {
          const ref = chargeRefHex(nextDense++);
          refs.push(ref);
          return chargeMessageBody({ v: 1, run_id: `run_${randomBytes(16).toString("hex")}`, listing: listingId, buyer: renters[Math.floor(Math.random() * RENTERS)]!.address, ref, max_price: PRICE.toString() });
        });
        void on.services.queue.sendMany(on.config.SETTLEMENT_QUEUE_URL, bodies).catch(noted("a feed's send"));
      }
      await reorgsDone;
      // Until every charge is in, or nothing has landed for 60 s (read block by block as they come; a
      // charge counted twice here is counted once on the final chain, read at the end).
      const wanted = new Set(refs);
      const landed = new Set<string>();
      let next = startBlock;
      for (let progressAt = Date.now(); landed.size < refs.length && Date.now() - progressAt < 60_000; ) {
        await sleep(BLOCK_TIME_MS);
        const to = await head();
        if (to < next) continue;
        const before = landed.size;
        for (const e of await consumedIn(next, to)) if (wanted.has(e.args.runRef!)) landed.add(e.args.runRef!);
        next = to + 1n;
        if (landed.size > before) progressAt = Date.now();
      }
      return { refs, reorgs, startBlock, started, seconds };
    };

    const baseline = await phase(BASELINE_SECONDS, 0);
    const reorged = await phase(FEED_SECONDS, REORG_EVERY_S);
    // Past the finality depth, so every charge is final.
    const last = await head();
    while ((await head()) < last + BigInt(DEPTH)) await sleep(200);
    stop.abort();
    const tally = await running;
    const consumed = await consumedFrom(baseline.startBlock);

    const times = new Map<string, number>();
    for (const e of consumed) times.set(e.args.runRef!, (times.get(e.args.runRef!) ?? 0) + 1);
    const blockOf = new Map(consumed.map((e) => [e.args.runRef!, e.blockNumber!]));
    /** Charges per block over the feed's blocks (the first and those after the feed left out). */
    const perBlockOf = (p: Awaited<ReturnType<typeof phase>>) => {
      const wanted = new Set(p.refs);
      const perBlock = new Map<bigint, number>();
      for (const e of consumed) if (wanted.has(e.args.runRef!)) perBlock.set(e.blockNumber!, (perBlock.get(e.blockNumber!) ?? 0) + 1);
      const feedBlocks = Math.floor((p.seconds * 1000) / BLOCK_TIME_MS);
      return [...perBlock.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(1, feedBlocks).map(([, n]) => n);
    };
    const allRefs = [...baseline.refs, ...reorged.refs];
    const free = allRefs.filter((ref) => !times.has(ref)).length;
    const twice = [...times.values()].filter((n) => n > 1).length;
    const steadyBase = perBlockOf(baseline);
    const steady = perBlockOf(reorged);
    const sentAgain = (e: BatchEvent) => e.kind === "orphaned" || e.kind === "dropped" || e.kind === "replaced";
    const orphaned = events.filter(sentAgain).length;
    const rows = [
      `chain: Hardhat node, a block every ${BLOCK_TIME_MS} ms, finality depth ${DEPTH}; ${RENTERS} renters of one per-task listing; ${RATE} charges/s; baseline ${BASELINE_SECONDS} s with no reorganisation, then ${FEED_SECONDS} s with a one-block reorganisation every ${REORG_EVERY_S} s, its authority transactions dropped from the pool`,
      `fed ${allRefs.length} charges; charged on the final chain ${times.size}; batches orphaned, dropped or replaced and sent again ${orphaned}`,
      `the settler: ${tally.batches} batches mined, ${tally.charged} charged, ${tally.skipped} skipped, ${tally.orphaned} orphaned, ${tally.dropped} dropped, ${tally.replaced} replaced, ${tally.reverted + tally.outOfGas} reverted; head ${await head()}`,
      `baseline (no reorganisation): charges per block over ${steadyBase.length} blocks: mean ${mean(steadyBase).toFixed(0)}, min ${Math.min(...steadyBase)}, max ${Math.max(...steadyBase)}; a charge final ${DEPTH + 1} blocks after its block`,
      `with reorganisations: charges per block over ${steady.length} blocks: mean ${mean(steady).toFixed(0)}, min ${Math.min(...steady)}, max ${Math.max(...steady)}`,
    ];
    let worst = 0;
    for (const [i, reorg] of reorged.reorgs.entries()) {
      const landed = reorg.refs.map((ref) => blockOf.get(ref)).filter((b): b is bigint => b !== undefined);
      const lastLanded = landed.reduce((a, b) => (b > a ? b : a), 0n);
      const blocks = landed.length ? Number(lastLanded - reorg.taken) + 1 + DEPTH : Number.NaN;
      worst = Math.max(worst, Number.isNaN(blocks) ? Number.POSITIVE_INFINITY : blocks);
      const seen = events.find((e) => sentAgain(e) && e.at >= reorg.revertedAt);
      rows.push(
        `reorganisation ${i + 1}: block ${reorg.taken} taken away holding ${reorg.refs.length} charges; the settler saw it ${seen ? `${Math.round(seen.at - reorg.revertedAt)} ms after (${seen.kind})` : "never"}; ${landed.length} charged again, the last in block ${lastLanded}: final again ${blocks} blocks after the block taken away (landing + depth ${DEPTH})`,
      );
    }
    const ratio = mean(steady) / Math.max(1, mean(steadyBase));
    rows.push(`ratio with reorganisations / baseline: charges per block ${ratio.toFixed(2)}; blocks until final ${(worst / (DEPTH + 1)).toFixed(2)} (worst ${worst} against ${DEPTH + 1})`);
    if (errors.length) rows.push(`the bench's own errors (not the settler's): ${errors.length}: ${[...new Set(errors)].join("; ")}`);
    rows.push(`target >= 500 charges per block sustained: ${mean(steady).toFixed(0)}: ${mean(steady) >= 500 ? "met" : "MISSED"}`);
    rows.push(`target 0 runs free, 0 charged twice: ${free} free, ${twice} charged twice: ${free === 0 && twice === 0 ? "met" : "MISSED"}`);
    rows.push(`target every affected charge final again within depth + 2 = ${DEPTH + 2} blocks of the reorganisation: worst ${worst}: ${reorged.reorgs.length > 0 && worst <= DEPTH + 2 ? "met" : "MISSED"}`);
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
