// The run log's batches through reorganisations (docs/design/run-log.md, decision 0124). A logged batch
// is included, not final, until its block is the network's finality depth under the head; until then
// it sits in the `runbatch#included` index and every pass looks at it:
//  - its transaction's receipt is on the chain: final once deep enough (it leaves the index);
//  - its block left the chain, and its root is logged in another transaction (the authority's sender
//    sent it again, or a replacement landed): its runs' receipts follow the batch index and transaction
//    that hold the root now;
//  - its block left the chain and its transaction is still waiting at the node: looked at again;
//  - gone for good (no node holds it): the same root is logged again, and the runs' receipts follow.
// A receipt's leaf, root and proof never change: only where the root sits. A root logged twice (a late
// copy landing after the second send) verifies at both indexes.
import { parseEventLogs, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type TransactionReceipt } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { findRunsLogged } from "../../chain/find-runs-logged.ts";
import { logRuns } from "../../chain/log-runs.ts";
import { moveRunReceipt } from "../runs/run.store.ts";
import { getBatch, listIncludedBatches, transitionBatch, type RunBatchItem } from "./run-batch.store.ts";
import { CONCURRENCY, mapLimit, message, type RunLogContext } from "./context.ts";

export interface FinalityTally {
  /** Batches whose block became final. */
  final: number;
  /** Batches whose root moved to another batch index or transaction (their runs' receipts corrected). */
  moved: number;
  /** Batches logged again (their transaction gone for good). */
  relogged: number;
}

type Logged = RunBatchItem & { root: Hex; batch_index: number; tx_hash: Hex };

/** The batch index the marketplace's RunsLogged event of `root` carries in `receipt`, if any. */
function indexIn(context: RunLogContext, receipt: TransactionReceipt, root: Hex): number | undefined {
  const marketplace = context.services.chain.marketplace.toLowerCase();
  const event = parseEventLogs({ abi: marketplaceAbi, eventName: "RunsLogged", logs: receipt.logs }).find((log) => log.address.toLowerCase() === marketplace && log.args.root.toLowerCase() === root.toLowerCase());
  return event ? Number(event.args.batchIndex) : undefined;
}

/** Points the batch and its runs' receipts at `batchIndex` in `txHash`; keeps it among the included. */
async function moveBatch(context: RunLogContext, batch: Logged, batchIndex: number, txHash: Hex, relogged: boolean): Promise<void> {
  const { services } = context;
  const set: Record<string, unknown> = { batch_index: batchIndex, tx_hash: txHash };
  if (relogged) set.relogged = (batch.relogged ?? 0) + 1;
  // The runs first: a crash before the batch is moved leaves it pointing at the transaction that left,
  // so the next pass finds the root where it is now and moves them again (the same values).
  await mapLimit(batch.run_ids, CONCURRENCY, (runId) => moveRunReceipt(services.tables, runId, batch.root, { batch_index: batchIndex, tx_hash: txHash }));
  if (!(await transitionBatch(services.tables, batch.batch_id, "logged", "logged", { set, included: true, expectUpdatedAt: batch.updated_at }))) return;
  services.logger.warn(relogged ? "run batch's block left the chain and its transaction is gone; its root is logged again" : "run batch's block left the chain; its root is logged in another transaction", {
    batch_id: batch.batch_id,
    from_batch_index: batch.batch_index,
    batch_index: batchIndex,
    tx_hash: txHash,
    runs: batch.count,
  });
}

/** Whether `read` found nothing (the node answered that it holds no such thing). */
async function absent<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError || error instanceof TransactionNotFoundError) return undefined;
    throw error;
  }
}

/** One included batch at head `head`: what became of it. */
async function confirmBatch(context: RunLogContext, batch: Logged, head: bigint, depth: bigint, tally: FinalityTally): Promise<void> {
  const { client } = context.services.chain;
  const receipt = await absent(client.getTransactionReceipt({ hash: batch.tx_hash }));
  const index = receipt && receipt.status === "success" ? indexIn(context, receipt, batch.root) : undefined;
  if (receipt && index !== undefined) {
    if (index !== batch.batch_index) return moveBatch(context, batch, index, batch.tx_hash, false).then(() => void tally.moved++);
    if (head - receipt.blockNumber < depth) return;
    if (await transitionBatch(context.services.tables, batch.batch_id, "logged", "logged", { set: { final_block: receipt.blockNumber.toString() }, expectUpdatedAt: batch.updated_at })) tally.final++;
    return;
  }
  // Its block left the chain. The root may sit in another transaction already.
  const fromBlock = batch.from_block === undefined ? context.services.config.MARKETPLACE_DEPLOY_BLOCK : BigInt(batch.from_block);
  const search = await findRunsLogged(context.services.chain, { root: batch.root, fromBlock });
  if (search.found) {
    await moveBatch(context, batch, search.found.batchIndex, search.found.transactionHash, false);
    tally.moved++;
    return;
  }
  // Still waiting at the node to be mined again (the authority's sender sent its bytes again).
  const waiting = await absent(client.getTransaction({ hash: batch.tx_hash }));
  if (waiting && waiting.blockNumber === null) return;
  const logged = await context.sendInTurn(() => logRuns(context.services.chain, context.authority, { root: batch.root, count: batch.count }));
  if (logged.batchIndex === undefined) throw new Error(`logRuns transaction ${logged.receipt.transactionHash} carries no RunsLogged event for batch ${batch.batch_id}`);
  const current = await getBatch(context.services.tables, batch.batch_id);
  if (current?.state !== "logged") return;
  await moveBatch(context, current as Logged, logged.batchIndex, logged.receipt.transactionHash, true);
  tally.relogged++;
}

/** Looks at every logged batch whose block is not yet final. Batches it cannot look at now (the chain
 * does not answer) are looked at again on the next pass. */
export async function confirmLoggedBatches(context: RunLogContext): Promise<FinalityTally> {
  const { services } = context;
  const tally: FinalityTally = { final: 0, moved: 0, relogged: 0 };
  const batches = (await listIncludedBatches(services.tables)).filter((b): b is Logged => b.state === "logged" && !!b.root && b.batch_index !== undefined && !!b.tx_hash);
  if (batches.length === 0) return tally;
  const depth = BigInt(services.config.network.finalityDepth);
  const head = await services.chain.client.getBlockNumber({ cacheTime: 0 });
  for (const batch of batches) {
    try {
      await confirmBatch(context, batch, head, depth, tally);
    } catch (error) {
      services.logger.warn("run batch's block not confirmed; looked at again on the next pass", { batch_id: batch.batch_id, cause: message(error) });
    }
  }
  return tally;
}
