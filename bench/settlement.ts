// Per-task settlement on a chain that mines a block every 2 s (the pace of Base and OP chains), in one
// run, the batched path beside today's one-transaction-per-run path, both fed charges straight (as the
// runs of many API processes would hand them over), so the sandbox does not bound the figure:
//  - batched: charges go on the settlement queue (SendMessageBatch) at a steady rate, 600 per block (above
//    the 500 the target asks for) and then a light 50 per block; the settler (src/execution/settler/) sends
//    them to consumeQueries, one batch per block; each charge is waited for as a request waits for it (the
//    settlement watcher following blocks). The Hardhat node itself takes a second or more to mine a block
//    holding 800 charges on a busy 2-core machine, which stretches its 2 s interval: the heavy feed gives
//    the charges per block, the light one the latency of a chain that keeps its pace; both print the
//    node's block intervals;
//  - one transaction per run: the same offered load through consumeQuery, as the service charged before
//    the settler, each charge its own transaction from the authority's nonce-managed signer, waiting for
//    its receipt, with at most 16 of them pending (the executable slots geth guarantees one sender);
// for each: charges per second sustained, charges per block, gas per charge, the added latency from "run
// finished" (the charge handed over) to "result released" (the block holding it seen) p50/p95, and the
// authority's transactions pending (max). Then one per-task run at a time, end to end through the API
// (a connected agent answering at once), on automine and on 2 s blocks.
// Targets: >= 500 charges per 2 s block sustained; added latency p95 <= 2,300 ms (one block + 300 ms);
// one run at a time end to end <= the automine figure + 2,300 ms.
// Run: npm run bench -- settlement   (or: node --import tsx bench/settlement.ts)
import { randomBytes } from "node:crypto";
import { parseEther, toHex, type Address, type Hex } from "viem";
import { startChain, type ChainNode } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { consumeQuery } from "../src/chain/consume-query.ts";
import { createSettlementWatcher } from "../src/execution/money/settlement-watcher.ts";
import { chargeMessageBody } from "../src/execution/money/charge-message.ts";
import { chargeRefHex } from "../src/execution/money/charge-refs.ts";
import { createSettler, type BatchEvent } from "../src/execution/settler/settler.ts";
import { createLogger } from "../src/logger.ts";
import { createServicesOn, fundAccount, type Account, type ServicesOn } from "../test/support/chain-actions.ts";
import { startWorldOn } from "../test/support/world-on.ts";
import { ms, summarize } from "./stats.ts";

const BLOCK_TIME_MS = 2_000;
/** Charges offered per second: 300 a second is 600 per 2 s block, above the 500 the target asks for. */
const HEAVY_RATE = 300;
/** A light load the node mines within its interval: 50 charges per block. */
const LIGHT_RATE = 25;
const FEED_SECONDS = 20;
const RENTERS = 200;
const PRICE = parseEther("0.0001");
/** One-per-run path: the executable slots geth guarantees one sender (txpool AccountSlots). */
const SLOTS = 16;
const SINGLE_RUNS = 30;

interface PathFigures {
  label: string;
  rate: number;
  offered: number;
  decided: number;
  backlog: number;
  perSecond: number;
  perBlock: { mean: number; min: number; max: number; blocks: number };
  gasPerCharge: number;
  latency: { p50: number; p95: number; n: number };
  maxPending: number;
  maxAuthorityTxPerBlock: number;
  /** The node's block intervals while the feed ran, as seen (p50, max), in milliseconds. */
  blockIntervals: { p50: number; max: number };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The renters of one marketplace, each with a per-task balance for many runs. */
async function setUp(on: ServicesOn, node: ChainNode): Promise<{ listingId: Hex; renters: Account[] }> {
  const creator = await fundAccount(node.rpcUrl);
  const { listingId } = await on.market.createListing(creator, { accessType: "per_query", price: PRICE });
  const renters: Account[] = [];
  for (let i = 0; i < RENTERS; i++) {
    const renter = await fundAccount(node.rpcUrl);
    await on.market.purchasePerQuery(renter, listingId, PRICE * 1_000n);
    renters.push(renter);
  }
  return { listingId, renters };
}

/** Authority transactions per block in [from, to] (and the gas each used), read from the chain. */
async function authorityBlocks(on: ServicesOn, from: bigint, to: bigint): Promise<{ perBlock: number[]; gasUsed: bigint }> {
  const perBlock: number[] = [];
  let gasUsed = 0n;
  for (let n = from; n <= to; n++) {
    const block = await on.services.chain.client.getBlock({ blockNumber: n, includeTransactions: true });
    const ours = block.transactions.filter((tx) => tx.from.toLowerCase() === on.authority.address.toLowerCase() && tx.to !== null);
    perBlock.push(ours.length);
    for (const tx of ours) gasUsed += (await on.services.chain.client.getTransactionReceipt({ hash: tx.hash })).gasUsed;
  }
  return { perBlock, gasUsed };
}

/** Feeds `rate` charges a second for `FEED_SECONDS` through `handOver`, waits for each to be decided as a
 * request would, and measures. */
async function measurePath(
  label: string,
  rate: number,
  on: ServicesOn,
  setup: { listingId: Hex; renters: Account[] },
  nextRef: () => Hex,
  handOver: (charges: { ref: Hex; buyer: Address; fromBlock: bigint | undefined }[]) => Promise<void>,
  pending: () => number,
  extra: { onBlock?: (events: BatchEvent[]) => void } = {},
): Promise<PathFigures> {
  const watcher = createSettlementWatcher(on.services.chain, { blockTimeMs: BLOCK_TIME_MS, logger: createLogger("silent") });
  const latencies: number[] = [];
  const decidedIn: bigint[] = [];
  const waits: Promise<void>[] = [];
  let maxPending = 0;
  let offered = 0;
  const sampler = setInterval(() => (maxPending = Math.max(maxPending, pending())), 20);
  const startBlock = (await on.services.chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
  // The node's pace while the feed runs: when each block is first seen (polled every 10 ms).
  const arrivals: number[] = [];
  let lastHead = startBlock - 1n;
  let watching = true;
  const watchingDone = (async () => {
    while (watching) {
      const headNow = await on.services.chain.client.getBlockNumber({ cacheTime: 0 }).catch(() => lastHead);
      if (headNow > lastHead) {
        arrivals.push(performance.now());
        lastHead = headNow;
      }
      await sleep(10);
    }
  })();
  const started = performance.now();
  const perTick = rate / 10;
  for (let tick = 0; tick < FEED_SECONDS * 10; tick++) {
    const due = started + tick * 100;
    if (due > performance.now()) await sleep(due - performance.now());
    const fromBlock = await watcher.from();
    const charges = Array.from({ length: perTick }, () => ({ ref: nextRef(), buyer: setup.renters[Math.floor(Math.random() * setup.renters.length)]!.address, fromBlock }));
    const handedAt = performance.now();
    for (const charge of charges) {
      waits.push(
        watcher.wait(charge.ref, fromBlock, 120_000).then((decision) => {
          if (!decision) return;
          latencies.push(performance.now() - handedAt);
          decidedIn.push(decision.blockNumber);
        }),
      );
    }
    offered += charges.length;
    void handOver(charges);
  }
  const fedFor = (performance.now() - started) / 1000;
  // Everything handed over is waited for up to half a minute more (the one-per-run path never catches up).
  await Promise.race([Promise.all(waits), sleep(30_000)]);
  clearInterval(sampler);
  watching = false;
  await watchingDone;
  const intervals = summarize(arrivals.slice(1).map((at, i) => at - arrivals[i]!));
  watcher.close();
  const endBlock = await on.services.chain.client.getBlockNumber({ cacheTime: 0 });
  const { perBlock: txsPerBlock, gasUsed } = await authorityBlocks(on, startBlock, endBlock);
  // Charges per block over the blocks of the feed (the first holds only what arrived in its last moments).
  const byBlock = new Map<bigint, number>();
  for (const block of decidedIn) byBlock.set(block, (byBlock.get(block) ?? 0) + 1);
  const feedBlocks = Math.floor((fedFor * 1000) / BLOCK_TIME_MS);
  const steady = [...byBlock.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(1, feedBlocks).map(([, n]) => n);
  const lastDecided = decidedIn.length;
  const lat = summarize(latencies);
  extra.onBlock?.([]);
  return {
    label,
    rate,
    offered,
    decided: lastDecided,
    backlog: offered - lastDecided,
    perSecond: lastDecided / Math.max(fedFor, (Number(decidedIn.reduce((a, b) => (b > a ? b : a), 0n) - startBlock) * BLOCK_TIME_MS) / 1000),
    perBlock: { mean: steady.length ? steady.reduce((a, b) => a + b, 0) / steady.length : 0, min: steady.length ? Math.min(...steady) : 0, max: steady.length ? Math.max(...steady) : 0, blocks: steady.length },
    gasPerCharge: lastDecided ? Number(gasUsed) / lastDecided : 0,
    latency: { p50: lat.p50, p95: lat.p95, n: lat.n },
    maxPending,
    maxAuthorityTxPerBlock: Math.max(0, ...txsPerBlock),
    blockIntervals: { p50: intervals.p50, max: intervals.max },
  };
}

function row(f: PathFigures): string[] {
  return [
    `${f.label}: offered ${f.offered} charges (${f.rate}/s for ${FEED_SECONDS} s, ${(f.rate * BLOCK_TIME_MS) / 1000} per 2 s block); decided ${f.decided}, left waiting ${f.backlog}; the node's block interval p50 ${ms(f.blockIntervals.p50)}, max ${ms(f.blockIntervals.max)}`,
    `  charges/s sustained ${f.perSecond.toFixed(1)}; charges per block over ${f.perBlock.blocks} blocks of the feed: mean ${f.perBlock.mean.toFixed(0)}, min ${f.perBlock.min}, max ${f.perBlock.max}`,
    `  gas per charge ${f.gasPerCharge.toFixed(0)}; added latency (charge handed over -> its block seen) p50 ${ms(f.latency.p50)}, p95 ${ms(f.latency.p95)} (n=${f.latency.n})`,
    `  authority transactions pending (max) ${f.maxPending}; authority transactions in one block (max) ${f.maxAuthorityTxPerBlock}`,
  ];
}

/** One per-task run at a time through the API, end to end (request sent -> answer read), n runs: on a
 * service configured for automine with the node on automine, then on one configured for 2 s blocks with
 * the node mining every 2 s, each run arriving at a random moment of the block interval. */
async function singleRuns(node: ChainNode, infra: { dynamoEndpoint: string; awsEndpoint: string }): Promise<{ automine: ReturnType<typeof summarize>; paced: ReturnType<typeof summarize> }> {
  const open = async (blockTimeMs: number) => {
    const world = await startWorldOn({ rpcUrl: node.rpcUrl, ...infra }, { serve: false, agent: true, env: { CHAIN_BLOCK_TIME_MS: String(blockTimeMs), LOG_LEVEL: "silent" } });
    const listing = await world.publishConnected(`bench-${randomBytes(3).toString("hex")}`, { rental: "per_query", price: "0.0001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 100n });
    const once = async (task: string) => {
      const began = performance.now();
      const res = await world.app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.agent_id, task }) });
      const body = (await res.json()) as { status?: string; settlement?: string };
      if (res.status !== 200 || body.status !== "completed" || body.settlement !== undefined) throw new Error(`run ${task} answered ${res.status} ${JSON.stringify(body)}`);
      return performance.now() - began;
    };
    return { world, once };
  };
  // Both worlds are set up while the node mines at once.
  const automineWorld = await open(0);
  const pacedWorld = await open(BLOCK_TIME_MS);
  try {
    for (let i = 0; i < 3; i++) await automineWorld.once(`warm ${i}`);
    const automine: number[] = [];
    for (let i = 0; i < SINGLE_RUNS; i++) automine.push(await automineWorld.once(`automine ${i}`));
    await automineWorld.world.close();
    await node.setBlockTime(BLOCK_TIME_MS);
    // Let the settler's cadence see the pace, then one run at a time arriving at random moments.
    await sleep(5 * BLOCK_TIME_MS);
    await pacedWorld.once("warm paced");
    const paced: number[] = [];
    for (let i = 0; i < SINGLE_RUNS; i++) {
      await sleep(Math.random() * BLOCK_TIME_MS);
      paced.push(await pacedWorld.once(`paced ${i}`));
    }
    return { automine: summarize(automine), paced: summarize(paced) };
  } finally {
    await Promise.allSettled([automineWorld.world.close(), pacedWorld.world.close()]);
  }
}

export async function runSettlementBench(): Promise<string[]> {
  const rows: string[] = [];
  const node = await startChain({ port: await freePort() });
  const [dynamo, aws] = await Promise.all([freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))]);
  const infra = { dynamoEndpoint: dynamo.endpoint, awsEndpoint: aws.endpoint };
  try {
    // One run at a time, end to end: automine first, then 2 s blocks (the node keeps that pace after).
    const single = await singleRuns(node, infra);

    // Two marketplaces, each with its own authority: one for each path, set up while blocks come fast.
    await node.setBlockTime(0);
    const env = { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), LOG_LEVEL: "silent" };
    const batched = await createServicesOn({ rpcUrl: node.rpcUrl, ...infra, env });
    const perRun = await createServicesOn({ rpcUrl: node.rpcUrl, ...infra, env });
    const batchedSetup = await setUp(batched, node);
    const perRunSetup = await setUp(perRun, node);
    await node.setBlockTime(BLOCK_TIME_MS);

    // Batched: the settler, fed through the settlement queue, first at 600 charges per block, then 50.
    const events: BatchEvent[] = [];
    const settler = createSettler(batched.services, { onBatch: (event) => events.push(event) });
    const stop = new AbortController();
    const running = settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    // Let it learn the chain's phase before the feed starts.
    await sleep(6 * BLOCK_TIME_MS);
    // Dense references from aligned blocks, as a process of the service takes them.
    let nextDense = 1 << 16;
    const feedSettler = async (charges: { ref: Hex; buyer: Address; fromBlock: bigint | undefined }[]) => {
      const bodies = charges.map((c) => chargeMessageBody({ v: 1, run_id: `run_${randomBytes(16).toString("hex")}`, listing: batchedSetup.listingId, buyer: c.buyer, ref: c.ref, max_price: PRICE.toString(), ...(c.fromBlock === undefined ? {} : { since_block: c.fromBlock.toString() }) }));
      await batched.services.queue.sendMany(batched.config.SETTLEMENT_QUEUE_URL, bodies);
    };
    const heavy = await measurePath("batched (settler, consumeQueries), heavy", HEAVY_RATE, batched, batchedSetup, () => chargeRefHex(nextDense++), feedSettler, () => 0);
    const heavyEvents = events.splice(0);
    await sleep(3 * BLOCK_TIME_MS);
    const light = await measurePath("batched (settler, consumeQueries), light", LIGHT_RATE, batched, batchedSetup, () => chargeRefHex(nextDense++), feedSettler, () => 0);
    stop.abort();
    const tally = await running;
    // The settler counts its own pending transactions (it never sends a third).
    heavy.maxPending = tally.maxPending;
    light.maxPending = tally.maxPending;

    // One transaction per run, at most SLOTS pending: the charges queue in this process beyond them.
    const signer = perRun.services.authority!;
    let inFlight = 0;
    const waiting: (() => void)[] = [];
    const slot = async () => {
      while (inFlight >= SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight++;
    };
    const free = () => {
      inFlight--;
      waiting.shift()?.();
    };
    let stopping = false;
    const perRunFigures = await measurePath(
      "one transaction per run (consumeQuery, <= 16 pending)",
      HEAVY_RATE,
      perRun,
      perRunSetup,
      () => toHex(randomBytes(32)),
      async (charges) => {
        for (const c of charges) {
          void (async () => {
            await slot();
            try {
              if (!stopping) await consumeQuery(signer, { listingId: perRunSetup.listingId, buyer: c.buyer, runRef: c.ref, maxPrice: PRICE });
            } catch {
              // counted as not decided
            } finally {
              free();
            }
          })();
        }
      },
      () => inFlight,
    );
    stopping = true;

    rows.push(`chain: Hardhat node, a block every ${BLOCK_TIME_MS} ms; ${RENTERS} renters of one per-task listing per path; dynalite and fauxqs in this process; the settler and the charges' waiters in this process`);
    rows.push(...row(heavy));
    const mined = heavyEvents.filter((e) => e.kind === "mined");
    const nextBlock = mined.filter((e) => e.blockNumber !== undefined && e.sentAtHead !== undefined && e.blockNumber === e.sentAtHead + 1n).length;
    rows.push(`  batches mined ${mined.length} (${heavyEvents.filter((e) => e.kind !== "mined").length} reverted or dropped), ${nextBlock} of them in the block after the head they were sent at; charges per batch max ${Math.max(0, ...mined.map((e) => e.charges))}`);
    rows.push(...row(light));
    const lightMined = events.filter((e) => e.kind === "mined");
    rows.push(`  batches mined ${lightMined.length}, ${lightMined.filter((e) => e.blockNumber !== undefined && e.sentAtHead !== undefined && e.blockNumber === e.sentAtHead + 1n).length} of them in the block after the head they were sent at`);
    rows.push(...row(perRunFigures));
    rows.push(`one per-task run at a time, end to end through the API (n=${SINGLE_RUNS} each): automine p50 ${ms(single.automine.p50)}, p95 ${ms(single.automine.p95)}; 2 s blocks p50 ${ms(single.paced.p50)}, p95 ${ms(single.paced.p95)}`);
    const sustained = heavy.perBlock.mean >= 500 && heavy.backlog === 0;
    rows.push(`target >= 500 charges per 2 s block sustained (heavy feed: mean per block, nothing left waiting): ${heavy.perBlock.mean.toFixed(0)} per block, backlog ${heavy.backlog}: ${sustained ? "met" : "MISSED"}`);
    rows.push(`target added latency p95 <= 2300 ms (light feed, the node keeping its pace): ${ms(light.latency.p95)}: ${light.latency.p95 <= 2_300 ? "met" : "MISSED"}; under the heavy feed ${ms(heavy.latency.p95)} with the node's blocks ${ms(heavy.blockIntervals.p50)} apart (p50)`);
    const singleMet = single.paced.p50 <= single.automine.p50 + 2_300 && single.paced.p95 <= single.automine.p95 + 2_300;
    rows.push(`target one run at a time <= automine + 2300 ms (p50 and p95): +${ms(single.paced.p50 - single.automine.p50)} p50, +${ms(single.paced.p95 - single.automine.p95)} p95: ${singleMet ? "met" : "MISSED"}`);
    rows.push(`ratio batched / one per run (heavy feed): throughput ${(heavy.perSecond / Math.max(perRunFigures.perSecond, 0.001)).toFixed(1)}x, gas per charge ${(heavy.gasPerCharge / Math.max(perRunFigures.gasPerCharge, 1)).toFixed(3)}`);
    await Promise.allSettled([batched.services.close(), perRun.services.close()]);
  } finally {
    await Promise.allSettled([node.stop(), dynamo.stop(), aws.stop()]);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await runSettlementBench()) console.log(line);
  process.exit(0);
}
