// x402 settlement on a chain that mines a block every 2 s, beside the per-task balance path, in one run and
// through one settler (src/execution/settler/): x402 payments (EIP-3009 authorizations signed by 100
// payers to the TokenMarketplace, as the official client signs them) and per-task balance charges on the
// Marketplace are handed to the settlement queue as completed runs hand them over; the settler sends the
// block's settlePayments batch beside its consumeQueries batch. Each payment and charge is waited for as a
// request waits for it (the settlement watcher following blocks).
//  - payments settled per block: a heavy feed of 300 payments a second (600 per 2 s block) for 10 s;
//  - added latency: a light feed of 25 payments and 25 balance charges a second, side by side: handed over
//    -> its block seen, p50/p95 of each, and the difference at p95;
//  - gas per payment: the settlePayments batches mined (gas used / payments), beside bench/gas-tokens.ts's
//    batch of 100 and one EIP-3009 transfer per transaction, measured on a fresh chain in the same run.
// Targets: >= 500 payments per block; <= 40,000 gas per payment in a batch of 100; added latency over a
// per-task balance run p95 <= one block + 300 ms.
// Run: npm run bench -- x402   (or: node --import tsx bench/x402.ts)
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { getAddress, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { authorizationTypes } from "@x402/evm";
import { tokenSetting } from "@agent-rental/core/tokens";
import { startChain } from "../local/chain.ts";
import { startDynamo, startQueues } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { createTokenListing } from "../local/token-listings.ts";
import { chainFor } from "../src/chain/client.ts";
import { deployTokenMarketplace, mintLocalTokens } from "../src/chain/deploy.ts";
import { loadConfig } from "../src/config.ts";
import { createSettlementWatcher } from "../src/execution/money/settlement-watcher.ts";
import { chargeMessageBody } from "../src/execution/money/charge-message.ts";
import { chargeRefHex } from "../src/execution/money/charge-refs.ts";
import { createSettler, type BatchEvent } from "../src/execution/settler/settler.ts";
import { createLogger } from "../src/logger.ts";
import { createServices, type Services } from "../src/services.ts";
import { createServicesOn, fundAccount, type Account } from "../test/support/chain-actions.ts";
import { runTokenGasBench } from "./gas-tokens.ts";
import { ms, summarize } from "./stats.ts";

const BLOCK_TIME_MS = 2_000;
const CHAIN_ID = 31337;
const HEAVY_RATE = 300;
const LIGHT_RATE = 25;
const HEAVY_SECONDS = 10;
const LIGHT_SECONDS = 10;
const PAYERS = 100;
const PRICE_USDC = 10_000n; // 0.01 USDC
const PRICE_WEI = parseEther("0.0001");

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Feed {
  /** Charge messages for one tick, each with its reference. */
  next(count: number, fromBlock: bigint | undefined): { ref: Hex; body: string }[];
}

/** Feeds `rate` a second for `seconds` through the queue; waits for each as a request would. */
async function feed(services: Services, rate: number, seconds: number, feeds: Record<string, Feed>): Promise<Record<string, { latencies: number[]; blocks: bigint[]; offered: number }>> {
  const watcher = createSettlementWatcher(services.chain, { blockTimeMs: BLOCK_TIME_MS, logger: createLogger("silent") });
  const out: Record<string, { latencies: number[]; blocks: bigint[]; offered: number }> = {};
  for (const name of Object.keys(feeds)) out[name] = { latencies: [], blocks: [], offered: 0 };
  const waits: Promise<void>[] = [];
  const started = performance.now();
  for (let tick = 0; tick < seconds * 10; tick++) {
    const due = started + tick * 100;
    if (due > performance.now()) await sleep(due - performance.now());
    const fromBlock = await watcher.from();
    for (const [name, f] of Object.entries(feeds)) {
      const messages = f.next(rate / 10, fromBlock);
      const handedAt = performance.now();
      const figures = out[name]!;
      figures.offered += messages.length;
      for (const m of messages) {
        waits.push(
          watcher.wait(m.ref, fromBlock, 120_000).then((decision) => {
            if (!decision || decision.kind !== "charged") return;
            figures.latencies.push(performance.now() - handedAt);
            figures.blocks.push(decision.blockNumber);
          }),
        );
      }
      void services.queue.sendMany(services.config.SETTLEMENT_QUEUE_URL, messages.map((m) => m.body));
    }
  }
  await Promise.race([Promise.all(waits), sleep(30_000)]);
  watcher.close();
  return out;
}

/** Decided per block over the feed's blocks (the first and last hold only its edges). */
function perBlock(blocks: bigint[]): { mean: number; max: number; n: number } {
  const by = new Map<bigint, number>();
  for (const b of blocks) by.set(b, (by.get(b) ?? 0) + 1);
  const steady = [...by.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(1, -1).map(([, n]) => n);
  return { mean: steady.length ? steady.reduce((a, b) => a + b, 0) / steady.length : 0, max: Math.max(0, ...steady), n: steady.length };
}

export async function runX402Bench(): Promise<string[]> {
  const rows: string[] = [];
  const node = await startChain({ port: await freePort() });
  const [dynamo, aws] = await Promise.all([freePort().then((port) => startDynamo({ port })), freePort().then((port) => startQueues({ port }))]);
  try {
    const rpcUrl = node.rpcUrl;
    const chain = chainFor(CHAIN_ID, rpcUrl);
    // The Marketplace and its authority; the TokenMarketplace deployed with the same authority, and the
    // services configured with both (one settler for both contracts).
    const on = await createServicesOn({ rpcUrl, dynamoEndpoint: dynamo.endpoint, awsEndpoint: aws.endpoint, env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_TIME_MS), LOG_LEVEL: "silent" } });
    const authority = on.authority as Account;
    const deployment = { rpcUrl, chain, deployerPrivateKey: authority.privateKey };
    const market = await deployTokenMarketplace({ ...deployment, authority: authority.address, feeRecipient: on.treasury.address });
    const usdc = getAddress(market.tokens.usdc.address);
    const tokenMarketplace = getAddress(market.address);
    const config = loadConfig({ ...on.env, TOKEN_MARKETPLACE_ADDRESS: tokenMarketplace, TOKEN_MARKETPLACE_DEPLOY_BLOCK: market.blockNumber.toString(), TOKENS: JSON.stringify(tokenSetting(market.tokens)) });
    await on.services.close();
    const services = createServices(config, { logger: createLogger("silent") });
    const creator = await fundAccount(rpcUrl);
    const { listingId: tokenListing } = await createTokenListing({ rpcUrl, chain, tokenMarketplace, creatorPrivateKey: creator.privateKey, token: usdc, seed: `0x${randomBytes(32).toString("hex")}`, rentalModel: "per_query", price: PRICE_USDC, metadataUri: "ipfs://bafkx402bench" });
    const payers: PrivateKeyAccount[] = Array.from({ length: PAYERS }, () => privateKeyToAccount(generatePrivateKey()));
    await mintLocalTokens(deployment, { usdc, utility: market.tokens.utility.address }, payers.map((p) => p.address), { usdc: PRICE_USDC * 10_000n, utility: 0n });
    const { listingId: ethListing } = await on.market.createListing(creator, { accessType: "per_query", price: PRICE_WEI });
    const renters: Account[] = [];
    for (let i = 0; i < 20; i++) {
      const renter = await fundAccount(rpcUrl);
      await on.market.purchasePerQuery(renter, ethListing, PRICE_WEI * 1_000n);
      renters.push(renter);
    }
    // Every payment of the run signed before the feed starts (the clients sign them, not the service).
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600);
    const sign = async (payer: PrivateKeyAccount) => {
      const nonce = `0x${randomBytes(32).toString("hex")}` as Hex;
      const signature = await payer.signTypedData({ domain: { name: "USD Coin", version: "2", chainId: CHAIN_ID, verifyingContract: usdc }, types: authorizationTypes, primaryType: "TransferWithAuthorization", message: { from: payer.address, to: tokenMarketplace, value: PRICE_USDC, validAfter: 0n, validBefore, nonce } });
      return { payer: payer.address, nonce, signature };
    };
    const signed = await Promise.all(Array.from({ length: HEAVY_RATE * HEAVY_SECONDS + LIGHT_RATE * LIGHT_SECONDS }, (_, i) => sign(payers[i % PAYERS]!)));
    let dense = 1 << 16;
    const runId = () => `run_${randomBytes(16).toString("hex")}`;
    const payments: Feed = {
      next: (count, fromBlock) =>
        signed.splice(0, count).map((p) => {
          const ref = chargeRefHex(dense++);
          return { ref, body: chargeMessageBody({ v: 1, run_id: runId(), listing: tokenListing, buyer: p.payer as Address, ref, max_price: PRICE_USDC.toString(), market: "token", payment: { valid_after: "0", valid_before: validBefore.toString(), nonce: p.nonce, signature: p.signature }, ...(fromBlock === undefined ? {} : { since_block: fromBlock.toString() }) }) };
        }),
    };
    const balances: Feed = {
      next: (count, fromBlock) =>
        Array.from({ length: count }, () => {
          const ref = chargeRefHex(dense++);
          return { ref, body: chargeMessageBody({ v: 1, run_id: runId(), listing: ethListing, buyer: renters[Math.floor(Math.random() * renters.length)]!.address.toLowerCase() as Address, ref, max_price: PRICE_WEI.toString(), ...(fromBlock === undefined ? {} : { since_block: fromBlock.toString() }) }) };
        }),
    };

    await node.setBlockTime(BLOCK_TIME_MS);
    const events: BatchEvent[] = [];
    let lastBatchAt = Date.now();
    const settler = createSettler(services, { onBatch: (event) => (events.push(event), (lastBatchAt = Date.now())) });
    const stop = new AbortController();
    const running = settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    await sleep(6 * BLOCK_TIME_MS);
    const heavy = (await feed(services, HEAVY_RATE, HEAVY_SECONDS, { payments }))["payments"]!;
    const heavyEvents = events.splice(0).filter((e) => e.kind === "mined");
    // The light feed starts once the heavy one's backlog is settled (no batch for three blocks, the queue
    // empty), up to three minutes: its latencies are a chain keeping its pace, not a queue draining.
    const drainBy = Date.now() + 180_000;
    while (Date.now() < drainBy && (Date.now() - lastBatchAt < 3 * BLOCK_TIME_MS || (await services.queue.approximateCount(config.SETTLEMENT_QUEUE_URL)) > 0)) await sleep(500);
    const light = await feed(services, LIGHT_RATE, LIGHT_SECONDS, { payments, balances });
    stop.abort();
    await running;
    await services.close();

    const heavyBlocks = perBlock(heavy.blocks);
    const paymentBatches = heavyEvents.filter((e) => e.outcomes?.length && e.gasUsed !== undefined);
    const gasPerPayment = paymentBatches.reduce((sum, e) => sum + Number(e.gasUsed), 0) / Math.max(1, paymentBatches.reduce((sum, e) => sum + e.charges, 0));
    const paid = summarize(light["payments"]!.latencies);
    const balance = summarize(light["balances"]!.latencies);
    const gas = await runTokenGasBench();
    const batchRow = gas.find((r) => r.operation.startsWith("settlePayments"));
    const singleRow = gas.find((r) => r.operation.startsWith("transferWithAuthorization"));
    const batchPerPayment = batchRow ? batchRow.gasUsed / 100 : Number.NaN;
    rows.push(`chain: Hardhat node, a block every ${BLOCK_TIME_MS} ms; one settler for the Marketplace and the TokenMarketplace; ${PAYERS} payers of one USDC per-task listing, 20 renters of one ETH per-task listing`);
    rows.push(`heavy feed: ${heavy.offered} payments (${HEAVY_RATE}/s for ${HEAVY_SECONDS} s), settled ${heavy.blocks.length} within 30 s of the feed's end; payments per block over ${heavyBlocks.n} blocks: mean ${heavyBlocks.mean.toFixed(0)}, max ${heavyBlocks.max}; settlePayments gas per payment as mined ${gasPerPayment.toFixed(0)}`);
    rows.push(`light feed (${LIGHT_RATE}/s each, side by side): x402 payment handed over -> block seen p50 ${ms(paid.p50)}, p95 ${ms(paid.p95)} (n=${paid.n}); per-task balance charge p50 ${ms(balance.p50)}, p95 ${ms(balance.p95)} (n=${balance.n})`);
    rows.push(`gas (fresh chain, bench/gas-tokens.ts): settlePayments batch of 100 ${batchRow?.gasUsed ?? "?"} (${batchPerPayment.toFixed(0)} per payment); one EIP-3009 transfer per transaction ${singleRow?.gasUsed ?? "?"}; ratio ${(batchPerPayment / (singleRow?.gasUsed ?? Number.NaN)).toFixed(3)}`);
    rows.push(`target >= 500 payments per block: ${heavyBlocks.mean.toFixed(0)}: ${heavyBlocks.mean >= 500 ? "met" : "MISSED"}`);
    rows.push(`target <= 40000 gas per payment in a batch of 100: ${batchPerPayment.toFixed(0)}: ${batchPerPayment <= 40_000 ? "met" : "MISSED"}`);
    const added = paid.p95 - balance.p95;
    rows.push(`target added latency over a per-task balance run p95 <= ${BLOCK_TIME_MS + 300} ms: ${ms(added)}: ${added <= BLOCK_TIME_MS + 300 ? "met" : "MISSED"}`);
  } finally {
    await Promise.allSettled([node.stop(), dynamo.stop(), aws.stop()]);
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const row of await runX402Bench()) console.log(row);
  process.exit(0);
}
