// Chain indexer catch-up: 10,000 marketplace events indexed from a fresh cursor to the head, beside
// its floors measured in the same run on the same node and the same dynalite:
//  - a bare eth_getLogs over the same block range plus decoding of the logs (no writes), and
//  - a bare write of as many items as the indexer wrote (PutItem, same concurrency, no condition).
// Two workloads, each of 10,000 events on a marketplace of its own:
//  - "folded": 50 renters each buy a per_query rental once, then top up many times (few keys, so the
//    indexer folds thousands of events into one write per key);
//  - "distinct": 9,996 renters each buy a per_query rental once (one key per event: one write each,
//    the indexer's worst case).
// Event generation is timed separately: automine off, transactions from impersonated accounts with
// explicit nonces and gas sent as JSON-RPC batches without waiting, then blocks mined until every
// transaction is in.
// Run: node --import tsx bench/indexer.ts
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { encodeFunctionData, getAddress, parseEventLogs, toHex, type Address } from "viem";
import { PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { startChain, LOCAL_CHAIN_ID, type ChainNode } from "../local/chain.ts";
import { startDynamo, type Emulator } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { createChainClient } from "../src/chain/client.ts";
import { createTables, ensureTables, type Tables } from "../src/adapters/tables/dynamo.ts";
import { catchUp } from "../src/credentials/indexer.ts";
import { createLogger } from "../src/logger.ts";
import { deployOn, fundAccount, market } from "../test/support/chain-actions.ts";

const EVENTS = 10_000;
const PRICE = 10n ** 12n; // the minimum price: every top-up sends one run's worth
const BATCH = 500;
const CONCURRENCY = 32; // the indexer's default write concurrency

let rpcId = 0;
async function rpcBatch(rpcUrl: string, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < calls.length; i += BATCH) {
    const body = calls.slice(i, i + BATCH).map((c) => ({ jsonrpc: "2.0", id: ++rpcId, method: c.method, params: c.params }));
    const res = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const answers = (await res.json()) as { id: number; result?: unknown; error?: { message: string } }[];
    const byId = new Map(answers.map((a) => [a.id, a]));
    for (const request of body) {
      const answer = byId.get(request.id);
      if (!answer || answer.error) throw new Error(`${request.method} failed: ${answer?.error?.message ?? "no answer"}`);
      out.push(answer.result);
    }
  }
  return out;
}
const rpc = async (rpcUrl: string, method: string, params: unknown[] = []) => (await rpcBatch(rpcUrl, [{ method, params }]))[0];

interface Workload {
  name: string;
  renters: number;
  description: string;
}

interface Generated {
  marketplace: Address;
  fromBlock: bigint;
  toBlock: bigint;
  events: number;
  transactions: number;
  blocks: number;
  seconds: number;
}

/** Deploys a marketplace and fills it with exactly EVENTS marketplace events. */
async function generate(rpcUrl: string, workload: Workload): Promise<Generated> {
  const deployed = await deployOn(rpcUrl);
  const m = market({ rpcUrl, marketplace: deployed.address });
  const creator = await fundAccount(rpcUrl);
  const { listingId } = await m.createListing(creator, { accessType: "per_query", price: PRICE });
  // 3 constructor events + 1 ListingCreated, then one event per transaction below.
  const transactions = EVENTS - 4;
  const renters: Address[] = Array.from({ length: workload.renters }, () => getAddress(toHex(randomBytes(20))));
  const started = performance.now();
  await rpcBatch(rpcUrl, [
    ...renters.map((a) => ({ method: "hardhat_impersonateAccount", params: [a] })),
    ...renters.map((a) => ({ method: "hardhat_setBalance", params: [a, toHex(10n ** 21n)] })),
  ]);
  await rpc(rpcUrl, "evm_setAutomine", [false]);
  try {
    const purchase = encodeFunctionData({ abi: marketplaceAbi, functionName: "purchasePerQuery", args: [listingId] });
    const topUp = encodeFunctionData({ abi: marketplaceAbi, functionName: "topUpBalance", args: [listingId] });
    const nonces = new Map<Address, number>(renters.map((a) => [a, 0]));
    const txs: { method: string; params: unknown[] }[] = [];
    for (let i = 0; i < transactions; i++) {
      const from = renters[i % renters.length]!;
      const nonce = nonces.get(from)!;
      nonces.set(from, nonce + 1);
      txs.push({
        method: "eth_sendTransaction",
        params: [
          {
            from,
            to: deployed.address,
            data: nonce === 0 ? purchase : topUp,
            value: toHex(PRICE),
            gas: toHex(nonce === 0 ? 80_000 : 50_000),
            nonce: toHex(nonce),
            maxFeePerGas: toHex(200n * 10n ** 9n),
            maxPriorityFeePerGas: toHex(10n ** 9n),
          },
        ],
      });
    }
    await rpcBatch(rpcUrl, txs);
    // Mine until every renter's last nonce is in a block.
    const first = BigInt((await rpc(rpcUrl, "eth_blockNumber")) as string) + 1n;
    let blocks = 0;
    for (;;) {
      await rpc(rpcUrl, "evm_mine");
      blocks++;
      const counts = (await rpcBatch(rpcUrl, renters.map((a) => ({ method: "eth_getTransactionCount", params: [a, "latest"] })))) as string[];
      if (counts.every((c, i) => Number(c) === nonces.get(renters[i]!)!)) break;
      if (blocks > 1_000) throw new Error("transactions never all mined");
    }
    const seconds = (performance.now() - started) / 1000;
    const toBlock = BigInt((await rpc(rpcUrl, "eth_blockNumber")) as string);
    const logs = await m.client.getLogs({ address: deployed.address, fromBlock: deployed.blockNumber, toBlock });
    if (logs.length !== EVENTS) throw new Error(`expected ${EVENTS} events, found ${logs.length}`);
    void first;
    return { marketplace: deployed.address, fromBlock: deployed.blockNumber, toBlock, events: logs.length, transactions, blocks, seconds };
  } finally {
    await rpc(rpcUrl, "evm_setAutomine", [true]);
  }
}

async function countItems(tables: Tables, table: "credentials" | "chain_listings"): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(new ScanCommand({ TableName: tables.name(table), Select: "COUNT", ExclusiveStartKey: startKey }));
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

async function freshTables(endpoint: string): Promise<{ tables: Tables; prefix: string }> {
  const prefix = `bench${randomBytes(3).toString("hex")}-`;
  const tables = createTables({ region: "us-east-1", prefix, endpoint });
  await ensureTables(tables, prefix);
  return { tables, prefix };
}

async function measure(rpcUrl: string, dynamoEndpoint: string, generated: Generated): Promise<{ seconds: number; events: number; writes: number; logsSeconds: number; writeSeconds: number; rounds: number }> {
  const logger = createLogger("silent");
  const chain = createChainClient({ rpcUrl, chainId: LOCAL_CHAIN_ID, marketplace: generated.marketplace });

  // Floor 1: the same range read and decoded, nothing written; timed before and after the indexer
  // (the faster of the two is the floor, so node-side caching never flatters the ratio).
  const readAndDecode = async () => {
    const t = performance.now();
    const logs = await chain.client.getLogs({ address: generated.marketplace, fromBlock: generated.fromBlock, toBlock: generated.toBlock });
    const decoded = parseEventLogs({ abi: marketplaceAbi, logs, strict: true });
    return { seconds: (performance.now() - t) / 1000, events: decoded.length };
  };
  const floorBefore = await readAndDecode();

  // The indexer from a fresh cursor (fresh tables) to the head.
  const { tables } = await freshTables(dynamoEndpoint);
  const started = performance.now();
  const result = await catchUp({ tables, chain, logger, fromBlock: generated.fromBlock, confirmations: 0 });
  const seconds = (performance.now() - started) / 1000;
  // One round covers the range (fewer blocks than a chunk), so each key was written exactly once.
  const writes = (await countItems(tables, "credentials")) + (await countItems(tables, "chain_listings"));

  const floorAfter = await readAndDecode();
  const logsSeconds = Math.min(floorBefore.seconds, floorAfter.seconds);
  if (floorAfter.events !== result.events) throw new Error(`decoded ${floorAfter.events} events, the indexer saw ${result.events}`);

  // Floor 2: as many plain item writes as the indexer made, at the indexer's concurrency.
  const { tables: plain } = await freshTables(dynamoEndpoint);
  const items = Array.from({ length: writes }, (_, i) => ({
    pk: `wallet#0x${i.toString(16).padStart(40, "0")}`,
    sk: `listing#0x${"ab".repeat(32)}`,
    rental_model: "per_query",
    balance_wei: "1000000000000",
    revoked: false,
    position: "000000000001:000001",
  }));
  const writeStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
      while (next < items.length) await plain.doc.send(new PutCommand({ TableName: plain.name("credentials"), Item: items[next++]! }));
    }),
  );
  const writeSeconds = (performance.now() - writeStarted) / 1000;
  return { seconds, events: result.events, writes, logsSeconds, writeSeconds, rounds: result.rounds };
}

const WORKLOADS: Workload[] = [
  { name: "folded", renters: 50, description: "50 renters: 1 purchasePerQuery + ~199 topUpBalance each" },
  { name: "distinct", renters: EVENTS - 4, description: `${EVENTS - 4} renters: 1 purchasePerQuery each (one key per event)` },
];

export async function runIndexerBench(options: { workloads?: string[] } = {}): Promise<string[]> {
  const rows: string[] = [];
  let node: ChainNode | undefined;
  let dynamo: Emulator | undefined;
  try {
    [node, dynamo] = await Promise.all([freePort().then((port) => startChain({ port })), freePort().then((port) => startDynamo({ port }))]);
    for (const workload of WORKLOADS.filter((w) => !options.workloads || options.workloads.includes(w.name))) {
      const generated = await generate(node.rpcUrl, workload);
      rows.push(`workload "${workload.name}": ${workload.description}`);
      rows.push(
        `  generation: ${generated.events} events (${generated.transactions} transactions) in ${generated.blocks} blocks, ${generated.seconds.toFixed(2)} s (${Math.round(generated.events / generated.seconds)} events/s)`,
      );
      const r = await measure(node.rpcUrl, dynamo.endpoint, generated);
      const floor = r.logsSeconds + r.writeSeconds;
      rows.push(
        `  catchUp() fresh cursor → head: ${r.events} events, ${r.writes} writes, ${r.rounds} round(s), ${r.seconds.toFixed(2)} s, ${Math.round(r.events / r.seconds)} events/s; target < 10 s: ${r.seconds < 10 ? "met" : "NOT met"}`,
      );
      rows.push(
        `  baseline: bare eth_getLogs + decode ${r.logsSeconds.toFixed(2)} s (faster of one run before and one after); bare ${r.writes} PutItem writes (concurrency ${CONCURRENCY}) ${r.writeSeconds.toFixed(2)} s; sum ${floor.toFixed(2)} s; ratio catchUp/sum ${(r.seconds / floor).toFixed(2)}x`,
      );
    }
  } finally {
    await Promise.allSettled([node?.stop(), dynamo?.stop()]);
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const wanted = process.argv.slice(2).filter((a) => a !== "--");
  console.log(`# indexer  (${new Date().toISOString()}, node ${process.version})`);
  for (const row of await runIndexerBench(wanted.length ? { workloads: wanted } : {})) console.log(row);
}
