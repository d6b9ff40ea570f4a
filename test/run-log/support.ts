// Helpers of the run-log suites: finished run records written straight into the `runs` table, and the
// on-chain checks a renter would make (verifyRunReceipt, runReceiptLeaf, RunsLogged).
import { randomBytes, randomInt } from "node:crypto";
import { GetCommand, PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { getAddress, toHex, type Hex } from "viem";
import { expect } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { batchWrite } from "../../src/adapters/tables/dynamo.ts";
import { newRunId, runRef, type RunRecord } from "../../src/execution/runs/run.ts";
import { runKey, RUN_LOG_PENDING } from "../../src/execution/runs/run.store.ts";
import { runReceiptFields } from "../../src/execution/run-log/receipts.ts";
import type { RunBatchItem } from "../../src/execution/run-log/run-batch.store.ts";
import type { RunReceiptFields } from "../../src/execution/run-log/merkle.ts";
import type { AuthoritySigner } from "../../src/chain/authority.ts";
import type { Services } from "../../src/services.ts";
import { RENTAL_MODELS } from "@agent-rental/core/vocabulary";

/** Finish times start a day back (a pass logs runs finished before it started). */
let clock = Date.now() - 86_400_000;

/** A finished run as the execution path leaves it: log_state pending, queued in gsi1. Each call is
 * one millisecond after the previous one, so the queue order is the creation order. */
export function finishedRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const runId = overrides.run_id ?? newRunId();
  const finishedAt = overrides.finished_at ?? new Date(clock++).toISOString();
  const status = overrides.status ?? (randomInt(4) === 0 ? "failed" : "completed");
  const model = RENTAL_MODELS[randomInt(RENTAL_MODELS.length)]!;
  return {
    ...runKey(runId),
    run_id: runId,
    agent_id: `agent_${randomBytes(4).toString("hex")}`,
    listing_id: `lst_${randomBytes(8).toString("hex")}`,
    on_chain_id: toHex(randomBytes(32)),
    wallet: toHex(randomBytes(20)),
    rental_model: model,
    status,
    output: status === "completed" ? "done" : null,
    streamed: "",
    cost_wei: model === "per_query" && status === "completed" ? (BigInt(randomInt(1, 1_000_000)) * 10n ** 12n).toString() : "0",
    duration_ms: randomInt(1, 300_000),
    settlement: model === "per_query" && status === "completed" ? "settled" : "none",
    created_at: finishedAt,
    finished_at: finishedAt,
    log_state: "pending",
    gsi1pk: RUN_LOG_PENDING,
    gsi1sk: `${finishedAt}#${runId}`,
    ...overrides,
  };
}

export async function writeRuns(services: Services, runs: readonly object[]): Promise<void> {
  await batchWrite(services.tables, "runs", runs.map((Item) => ({ PutRequest: { Item } })), 4);
}

export async function putItem(services: Services, item: object): Promise<void> {
  await services.tables.doc.send(new PutCommand({ TableName: services.tables.name("runs"), Item: item as Record<string, unknown> }));
}

export async function readRun(services: Services, runId: string): Promise<(RunRecord & { log_batch?: string }) | undefined> {
  const out = await services.tables.doc.send(new GetCommand({ TableName: services.tables.name("runs"), Key: runKey(runId), ConsistentRead: true }));
  return out.Item as (RunRecord & { log_batch?: string }) | undefined;
}

export async function readRuns(services: Services, runIds: string[]): Promise<(RunRecord & { log_batch?: string })[]> {
  return Promise.all(runIds.map(async (id) => (await readRun(services, id))!));
}

/** Every run-batch item of the table. */
export async function readBatches(services: Services): Promise<RunBatchItem[]> {
  const items: RunBatchItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await services.tables.doc.send(
      new ScanCommand({ TableName: services.tables.name("runs"), ConsistentRead: true, FilterExpression: "begins_with(pk, :p)", ExpressionAttributeValues: { ":p": "runbatch#" }, ExclusiveStartKey: startKey }),
    );
    items.push(...((page.Items ?? []) as RunBatchItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** RunsLogged events of the file's marketplace from `fromBlock`. */
export async function runsLoggedSince(services: Services, fromBlock: bigint): Promise<{ batchIndex: bigint; root: Hex; count: number }[]> {
  const logs = await services.chain.client.getContractEvents({ address: services.chain.marketplace, abi: marketplaceAbi, eventName: "RunsLogged", fromBlock, toBlock: "latest" });
  return logs.map((log) => ({ batchIndex: log.args.batchIndex!, root: log.args.root!, count: Number(log.args.count!) }));
}

/** The contract's verifyRunReceipt: it takes the receipt's fields and hashes the leaf itself. */
export async function verifyOnChain(services: Services, batchIndex: number | bigint, receipt: RunReceiptFields, proof: readonly Hex[]): Promise<boolean> {
  return services.chain.client.readContract({
    address: services.chain.marketplace,
    abi: marketplaceAbi,
    functionName: "verifyRunReceipt",
    args: [BigInt(batchIndex), { ...receipt, renter: getAddress(receipt.renter) }, proof],
  });
}

/** The contract's own leaf of a run's fields. */
export async function contractLeaf(services: Services, run: RunRecord): Promise<Hex> {
  const f = runReceiptFields(run);
  return services.chain.client.readContract({ address: services.chain.marketplace, abi: marketplaceAbi, functionName: "runReceiptLeaf", args: [f.runId, f.listingId, getAddress(f.renter), f.status, f.costWei, f.durationMs] });
}

/**
 * What a renter checks for each run: it is logged, its leaf is the contract's leaf of its fields, the
 * contract verifies its proof in its batch, and its leaf's runId is runRef(run_id).
 */
export async function expectLoggedAndVerified(services: Services, runs: RunRecord[]): Promise<void> {
  const stored = await readRuns(services, runs.map((run) => run.run_id));
  await Promise.all(
    stored.map(async (run, i) => {
      expect(run.log_state, run.run_id).toBe("logged");
      expect(run.gsi1pk).toBeUndefined();
      expect(run.gsi1sk).toBeUndefined();
      expect(run.log_batch).toBeUndefined();
      const receipt = run.receipt!;
      expect(receipt.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(runReceiptFields(run).runId).toBe(runRef(runs[i]!.run_id));
      expect(receipt.leaf).toBe(await contractLeaf(services, runs[i]!));
      expect(await verifyOnChain(services, receipt.batch_index, runReceiptFields(runs[i]!), receipt.proof)).toBe(true);
    }),
  );
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** An authority whose `write` is intercepted around the real one (a logger stalled or cut off mid-send). */
export function interceptedAuthority(real: AuthoritySigner, write: (send: () => ReturnType<AuthoritySigner["write"]>) => ReturnType<AuthoritySigner["write"]>): AuthoritySigner {
  return {
    address: real.address,
    write: ((functionName: Parameters<AuthoritySigner["write"]>[0], args: Parameters<AuthoritySigner["write"]>[1]) => write(() => real.write(functionName, args as never))) as AuthoritySigner["write"],
  };
}
