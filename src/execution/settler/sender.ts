// The settler's sender: its transactions, through the authority's one sender (src/chain/authority-sender.ts).
// Each block it learns the fees and what became of what it sent; it sends the next charge batch a lead
// before the block is due (so a charge that arrives just after a batch left waits one block, not two),
// builds the next batch while one is being mined, sends the run log's transactions in between, and
// never has more than two of the Marketplace's transactions pending (a charge batch and one other). The
// TokenMarketplace's batches go beside them; x402 payments, whose transfers cost some 45,000 gas each, may
// take two transactions of a block (within half its gas) when one transaction's gas cap cannot carry them.
//
// A batch that reverts or runs out of gas charged nothing (a transaction is all or nothing): it is split
// in halves for the next blocks, and an out-of-gas batch doubles the gas each charge is allowed; a single
// charge that reverts on its own waits and is tried again. A batch dropped from the node's pool is sent
// again under its nonce with higher fees (the authority's sender does it); one whose nonce another
// transaction took (replaced) has its charges checked against the chain and sent again.
//
// A mined batch is included, not final: its charges' messages are kept (hidden on the queue) until its
// block is the network's finality depth under the head. A reorganisation that takes its block away
// makes it pending again under its nonce (the authority's sender sends its signed bytes again), and its
// charges are decided by the block that holds it next: charged exactly once (a reference already
// charged is skipped by the contract), never lost. The fee ceiling: a batch is not sent while the base
// fee is at the network's maximum fee per gas, nor while its gas would cost more than the network's
// share of the charges it carries; the settler waits, and says so (alarms.ts).
import { decodeFunctionResult, encodeFunctionData, BaseError, ContractFunctionRevertedError, type TransactionReceipt } from "viem";
import type { Address, Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { AuthorityRevertError, AuthorityUnavailableError, type AuthoritySigner } from "../../chain/authority.ts";
import { FeeCeilingError, SendRefusedError, type AuthoritySender, type TxResult } from "../../chain/authority-sender.ts";
import type { BlockCadence } from "../../chain/block-cadence.ts";
import type { ChainClient } from "../../chain/client.ts";
import { outcomesOf, sendConsumeQueries, type ConsumeQueriesOutcome } from "../../chain/consume-queries.ts";
import { paymentOutcomesOf, sendSettlePayments } from "../../chain/settle-payments.ts";
import type { ChargeKind } from "../money/charge-message.ts";
import { resettleRun } from "../money/settlement.ts";
import type { MarketplaceWriteArgs, MarketplaceWriteName } from "../../chain/write.ts";
import { createGasModel, TX_GAS_CAP, wordsOf, type GasModel } from "./batch.ts";
import type { Batcher, Held } from "./batcher.ts";
import { message, type BatchEvent, type PassContext } from "./context.ts";

/** A transaction of the run log's waiting for a slot, and who waits for its outcome. */
export interface OtherTx {
  data: Hex;
  gas: bigint;
  resolve(result: TxResult): void;
  reject(error: unknown): void;
}

/** The run log's transactions, queued for whichever run of the settler holds the lease. */
export interface OtherTxQueue {
  running: boolean;
  waiting: OtherTx[];
  wake(): void;
}

function revertName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.reason ?? "reverted";
  return undefined;
}

/** The kinds of batch, in the order a block's batches are sent: the Marketplace's first, as before
 * tokens existed, then the TokenMarketplace's consumeQueries and settlePayments beside it. */
const KINDS: readonly ChargeKind[] = ["eth", "token", "x402"];

/** What a mined batch did to each of its charges, from its receipt's events: an x402 payment settled is
 * charged (its amount), refused is refused, no event is skipped (decided before). */
function decide(receipt: TransactionReceipt, batch: Held[]): ConsumeQueriesOutcome[] {
  if (batch[0]?.kind !== "x402") return outcomesOf(receipt, batch.map((entry) => entry.charge));
  return paymentOutcomesOf(receipt, batch.map((entry) => entry.payment!)).map((o): ConsumeQueriesOutcome =>
    o.outcome === "settled" ? { outcome: "charged", price: o.amount, fee: o.fee, newBalance: 0n } : o.error === "NoEvent" ? { outcome: "skipped" } : { outcome: "refused", error: o.error },
  );
}

/**
 * The authority as the run log sees it: each write is simulated here, then queued for the settler,
 * which sends it when a slot is free; refused as unavailable while no settler of this process runs.
 */
export function createQueuedSigner(chain: ChainClient, address: Hex, queue: OtherTxQueue): AuthoritySigner {
  return {
    address,
    async write<name extends MarketplaceWriteName>(functionName: name, args: MarketplaceWriteArgs<name>): Promise<{ receipt: TransactionReceipt; result: unknown }> {
      if (!queue.running) throw new AuthorityUnavailableError(functionName, { cause: new Error("the settler is not running") });
      const data = encodeFunctionData({ abi: marketplaceAbi, functionName, args } as never);
      let result: unknown;
      let limit: bigint;
      try {
        const call = await chain.client.call({ account: address, to: chain.marketplace, data });
        result = call.data === undefined ? undefined : decodeFunctionResult({ abi: marketplaceAbi, functionName, data: call.data } as never);
        limit = ((await chain.client.estimateGas({ account: address, to: chain.marketplace, data })) * 12n) / 10n + 10_000n;
      } catch (error) {
        const name = revertName(error);
        if (name) throw new AuthorityRevertError(functionName, name);
        throw new AuthorityUnavailableError(functionName, { cause: error });
      }
      const outcome = await new Promise<TxResult>((resolve, reject) => {
        queue.waiting.push({ data, gas: limit, resolve, reject });
        queue.wake();
      }).catch((error: unknown) => {
        throw new AuthorityUnavailableError(functionName, { cause: error });
      });
      if (!("receipt" in outcome)) throw new AuthorityUnavailableError(functionName, { cause: new Error("another transaction took its nonce") });
      if (outcome.receipt.status !== "success") throw new AuthorityRevertError(functionName, "reverted");
      return { receipt: outcome.receipt, result };
    },
  };
}

/** What the gas model allows an x402 payment before it has seen a batch mined (a transferWithAuthorization
 * with its signature check, the escrow and fee credits and the run mark; learned down from batches). */
const X402_INITIAL_GAS_PER_PAYMENT = 80_000;
/** The most x402 batches sent for one block: a batch of payments fills EIP-7825's per-transaction cap
 * with fewer than 400 of them, and a block takes 500 and more (within half its gas). */
const X402_BATCHES_PER_BLOCK = 2;
/** The margin over the dearest recent payment: a payment's cost varies less than a balance charge's (its
 * authorization nonce is always a new slot; the payer's balance cold or warm moves it by 2,100 of some
 * 45,000), and a batch that runs out of gas is split and sent again, never charged in part. */
const X402_GAS_MARGIN = 1.15;

/** Why charges wait unsent, when it is the fees. */
export type FeeWait = { reason: "max_fee"; baseFeePerGas: bigint; maxFeePerGas: bigint } | { reason: "gas_share"; gasCostWei: bigint; chargesWei: bigint; maxGasShareBps: number };

export interface TxSender {
  /** The chain's new head: fees, the gas a batch may have, and what became of what was sent. */
  onHead(head: bigint, block: { baseFeePerGas?: bigint | null; gasLimit: bigint }): Promise<void>;
  /** Blocks after `fork` left the chain: what was mined in them is pending again. */
  onReorg(fork: bigint): Promise<void>;
  /** Why the next batch waits for lower fees, if it does. */
  feeWait(): FeeWait | undefined;
  /** Sends the run log's next transaction, when a slot is free. */
  sendOthers(): Promise<void>;
  /** Sends the next charge batch, if one is due and allowed. */
  sendCharges(): Promise<void>;
  /** When the next charge batch is due (milliseconds since the epoch). */
  dueAt(): number;
  /** Charges in transactions not yet mined. */
  charges(): number;
  /** Whether nothing this run sent is still being mined. */
  settled(): boolean;
  /** Charges mined in blocks not yet final. */
  included(): number;
  /** The settler stops: whoever waits for a transaction of the run log's is told it will not be mined
   * here (its charges' messages go back to the queue with the batcher's). */
  stop(): void;
}

interface ResultState {
  batcher: Batcher;
  /** The gas model of a kind of batch (a payment costs more than a balance charge). */
  gasOf(kind: ChargeKind): GasModel;
  /** Batches sent and not mined, by nonce. */
  inFlight: Map<number, Held[]>;
  /** Batches mined in blocks not yet final, by nonce: their messages are kept until they are. */
  included: Map<number, Held[]>;
  otherInFlight: Map<number, OtherTx>;
  /** The most charges the next batch may carry (halved after a revert, doubled back after a mined one). */
  limits: { batch: number };
}

/** What the sender does with what became of a transaction: a batch mined (included), reverted, dropped,
 * orphaned by a reorganisation or final; the run log's answered. */
function createResultHandler(context: PassContext, state: ResultState): (result: TxResult) => void {
  const { services, tally, options } = context;
  const { config, logger, metrics } = services;
  const { batcher, gasOf, inFlight, included, otherInFlight, limits } = state;
  const failed = (result: Extract<TxResult, { receipt: TransactionReceipt }>, batch: Held[]) => {
    const { receipt } = result;
    const gas = gasOf(batch[0]!.kind);
    const outOfGas = receipt.gasUsed * 100n >= result.tx.gas * 99n;
    if (outOfGas) {
      tally.outOfGas++;
      gas.outOfGas();
    } else tally.reverted++;
    metrics.count("SettlerBatches", 1, { outcome: outOfGas ? "out_of_gas" : "reverted" });
    options.onBatch?.({ kind: outOfGas ? "out_of_gas" : "reverted", nonce: result.tx.nonce, charges: batch.length, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, hash: receipt.transactionHash });
    // Nothing in a reverted transaction was charged: split it and send its halves again.
    limits.batch = Math.max(1, Math.ceil(batch.length / 2));
    if (batch.length === 1 && !outOfGas) batch[0]!.retryAt = Date.now() + 30_000;
    logger.warn(outOfGas ? "charge batch ran out of gas; split and sent again with more gas" : "charge batch reverted; split and sent again", { nonce: result.tx.nonce, charges: batch.length, gas_used: receipt.gasUsed.toString(), gas_limit: result.tx.gas.toString() });
    batcher.putBack(batch, false);
  };

  /** Nonces whose batch was mined once already (before a reorganisation): counted once. */
  const minedBefore = new Set<number>();

  const mined = (result: Extract<TxResult, { receipt: TransactionReceipt }>, batch: Held[]) => {
    const { receipt } = result;
    const decided = decide(receipt, batch);
    const gas = gasOf(batch[0]!.kind);
    const outcomes: NonNullable<BatchEvent["outcomes"]> = [];
    const first = !minedBefore.has(result.tx.nonce);
    minedBefore.add(result.tx.nonce);
    for (const [i, entry] of batch.entries()) {
      const outcome = decided[i]!.outcome;
      entry.included = true;
      if (!first) entry.reorged = true;
      else if (outcome === "charged") tally.charged++;
      else if (outcome === "refused") tally.refused++;
      else tally.skipped++;
      outcomes.push({ ref: entry.charge.runRef, runIds: [...entry.runIds], outcome, receivedAt: entry.receivedAt });
    }
    if (first) tally.batches++;
    if (first) gas.learn(batch.length, wordsOf(batch.map((e) => e.charge)), receipt.gasUsed);
    limits.batch = Math.min(config.SETTLER_MAX_BATCH, limits.batch * 2);
    metrics.count("SettlerBatches", 1, { outcome: "mined" });
    metrics.observe("ChargesPerBatch", batch.length);
    metrics.observe("GasPerCharge", Number(receipt.gasUsed) / batch.length);
    options.onBatch?.({ kind: "mined", nonce: result.tx.nonce, charges: batch.length, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, hash: receipt.transactionHash, sentAtHead: result.tx.sentAtHead, sentAt: result.tx.sentAt, outcomes });
    included.set(result.tx.nonce, batch);
  };

  /** The records of a final batch's reorganised charges follow what its (final) receipt says. */
  const resettle = (batch: Held[], receipt: TransactionReceipt) => {
    const reorged = batch.filter((entry) => entry.reorged);
    if (reorged.length === 0) return;
    const decided = decide(receipt, batch);
    for (const [i, entry] of batch.entries()) {
      const outcome = decided[i]!;
      if (!entry.reorged || outcome.outcome === "skipped") continue;
      const charge = outcome.outcome === "charged" ? { outcome: "charged" as const, costWei: outcome.price, txHash: receipt.transactionHash } : { outcome: "refused" as const, contractError: outcome.error };
      for (const runId of entry.runIds) void resettleRun(services, runId, charge).catch((error: unknown) => logger.warn("run's settlement not corrected after a reorganisation", { run_id: runId, cause: message(error) }));
    }
  };

  const handle = (result: TxResult) => {
    const other = otherInFlight.get(result.tx.nonce);
    if (other) {
      // A dropped one was sent again under its nonce: still followed, answered when it is mined.
      if ("dropped" in result) return;
      otherInFlight.delete(result.tx.nonce);
      if (!("orphaned" in result) && !("final" in result)) other.resolve(result);
      return;
    }
    if ("final" in result) {
      const batch = included.get(result.tx.nonce);
      included.delete(result.tx.nonce);
      // Final: the charges' messages go (a batch mined before this run is the queue's to hand over again),
      // and the records of runs whose charge moved in a reorganisation follow the chain.
      if (batch) {
        resettle(batch, result.receipt);
        batcher.settle(batch);
      }
      return;
    }
    if ("orphaned" in result) {
      // Mined, then its block left the chain: its same bytes are sent again under its nonce, and the
      // block that holds it next decides its charges (the follower saw the reorganisation, or the sender
      // found its nonce free again before it read the receipt).
      const batch = included.get(result.tx.nonce) ?? inFlight.get(result.tx.nonce);
      if (!batch) return;
      included.delete(result.tx.nonce);
      inFlight.set(result.tx.nonce, batch);
      for (const entry of batch) entry.included = false;
      tally.orphaned++;
      metrics.count("SettlerBatches", 1, { outcome: "orphaned" });
      logger.warn("charge batch orphaned: its block left the chain (a reorganisation); its transaction is sent again", { nonce: result.tx.nonce, charges: batch.length });
      options.onBatch?.({ kind: "orphaned", nonce: result.tx.nonce, charges: batch.length });
      return;
    }
    const batch = inFlight.get(result.tx.nonce);
    if (!batch) return;
    if ("dropped" in result) {
      // Never mined and the node let it go: the sender sent it again under its nonce with higher fees.
      tally.dropped++;
      metrics.count("SettlerBatches", 1, { outcome: "dropped" });
      logger.warn("charge batch dropped from the node's pool; sent again under its nonce with higher fees", { nonce: result.tx.nonce, charges: batch.length });
      options.onBatch?.({ kind: "dropped", nonce: result.tx.nonce, charges: batch.length });
      return;
    }
    inFlight.delete(result.tx.nonce);
    if ("replaced" in result) {
      tally.replaced++;
      metrics.count("SettlerBatches", 1, { outcome: "replaced" });
      logger.warn("charge batch replaced: another transaction took its nonce; its charges are checked and sent again", { nonce: result.tx.nonce, charges: batch.length });
      options.onBatch?.({ kind: "replaced", nonce: result.tx.nonce, charges: batch.length });
      batcher.putBack(batch, true);
      return;
    }
    if (result.receipt.status !== "success") failed(result, batch);
    else mined(result, batch);
  };

  return handle;
}

export interface TxSenderDeps {
  sender: AuthoritySender;
  batcher: Batcher;
  gas: GasModel;
  cadence: BlockCadence;
  others: OtherTxQueue;
  /** Whether the lease is fresh (nothing is sent otherwise). */
  leaseFresh(): boolean;
}

/**
 * The sender of one settler run.
 *
 * @example
 * const txs = createTxSender(context, { sender, batcher, gas, cadence, others, leaseFresh: keeper.fresh });
 * if (Date.now() >= txs.dueAt()) await txs.sendCharges();
 */
/**
 * How long before the block a batch goes: SETTLER_LEAD_MS, plus the time the charges it would carry take
 * to sign and reach the node (`sendMsPerCharge`: recent large batches' sends per charge; a batch of
 * hundreds of charges takes a few hundred milliseconds, a few take nothing worth counting), at most a
 * quarter block. Every millisecond of lead is one a charge arriving in it waits a block for.
 */
function sendLeadMs(config: Pick<PassContext["services"]["config"], "SETTLER_MAX_BATCH" | "SETTLER_LEAD_MS" | "CHAIN_BLOCK_TIME_MS">, waiting: number, sendMsPerCharge: number[]): number {
  const perCharge = sendMsPerCharge.length ? Math.max(...sendMsPerCharge) : 0;
  const carried = Math.min(waiting, config.SETTLER_MAX_BATCH);
  return Math.min(config.SETTLER_LEAD_MS + carried * perCharge, Math.max(config.SETTLER_LEAD_MS, config.CHAIN_BLOCK_TIME_MS / 4));
}

/** Why a batch of `chosen` must wait for lower fees (undefined: it may go): the fee ceiling, or (an ETH
 * batch) gas costing more than `maxGasShareBps` of what it charges. */
function feeWaitOf(sender: AuthoritySender, gas: GasModel, chosen: Held[], maxGasShareBps: number): FeeWait | undefined {
  let price: bigint;
  try {
    price = sender.gasPrice();
  } catch (error) {
    if (error instanceof FeeCeilingError) return { reason: "max_fee", baseFeePerGas: error.baseFeePerGas, maxFeePerGas: error.maxFeePerGas };
    throw error;
  }
  // A token batch's charges are in token units, not wei: only the fee ceiling (above) holds it back.
  if (chosen[0]?.kind !== "eth") return undefined;
  const gasCostWei = price * gas.limitFor(chosen.map((e) => e.charge));
  const chargesWei = chosen.reduce((sum, e) => sum + e.charge.maxPrice, 0n);
  return gasCostWei * 10_000n > chargesWei * BigInt(maxGasShareBps) ? { reason: "gas_share", gasCostWei, chargesWei, maxGasShareBps } : undefined;
}

/** Sends a batch of one kind: the Marketplace's charges, the TokenMarketplace's, or its x402 payments. */
function sendBatch(sender: AuthoritySender, chosen: Held[], gas: bigint, head: bigint, tokenMarketplace: Address | undefined) {
  const charges = chosen.map((e) => e.charge);
  const kind = chosen[0]!.kind;
  if (kind === "eth") return sendConsumeQueries(sender, { charges, gas, head });
  if (kind === "token") return sendConsumeQueries(sender, { charges, gas, head, to: tokenMarketplace! });
  return sendSettlePayments(sender, { payments: chosen.map((e) => e.payment!), gas, head, to: tokenMarketplace! });
}

export function createTxSender(context: PassContext, deps: TxSenderDeps): TxSender {
  const { services, tally } = context;
  const { config, logger } = services;
  const { sender, batcher, gas } = deps;
  const { chain } = services;
  /** The TokenMarketplace's batches learn their own cost per charge (a payment's transfer costs more). */
  const gasModels: Record<ChargeKind, GasModel> = { eth: gas, token: createGasModel(), x402: createGasModel(X402_INITIAL_GAS_PER_PAYMENT, X402_GAS_MARGIN) };
  const gasOf = (kind: ChargeKind) => gasModels[kind];
  const inFlight = new Map<number, Held[]>();
  /** Batches mined in blocks not yet final, by nonce: their messages are kept until they are. */
  const included = new Map<number, Held[]>();
  const otherInFlight = new Map<number, OtherTx>();
  let waitingForFees: FeeWait | undefined;
  let head: bigint | undefined;
  /** The head each kind's last batch was sent at (one batch of each kind per block; x402 payments up to
   * X402_BATCHES_PER_BLOCK), how many went at it and the gas they were sent with. */
  const lastChargeHead: Partial<Record<ChargeKind, { head: bigint; batches: number; gas: bigint; full: boolean }>> = {};
  const limits = { batch: config.SETTLER_MAX_BATCH };
  /** Half a block's gas: the most the settler's batches of one kind take of a block. */
  let blockShare = TX_GAS_CAP;
  let blockGasCap = TX_GAS_CAP;
  let blockedUntil = 0;
  let backoffMs = 0;
  /** How long the recent large batches' sends took per charge (signing and the node's acceptance), in
   * milliseconds: batches of fifty or more, whose size outweighs the fixed part of a send. */
  const sendMsPerCharge: number[] = [];
  const pendingCount = () => sender.pending().length;
  const notePending = () => (tally.maxPending = Math.max(tally.maxPending, pendingCount()));

  const handle = createResultHandler(context, { batcher, gasOf, inFlight, included, otherInFlight, limits });
  /** Batches of the TokenMarketplace in flight: they go beside the Marketplace's batch and the run log's
   * transaction, so they do not count against those two's slots. */
  const batchesInFlight = (kind: ChargeKind) => [...inFlight.values()].filter((batch) => batch[0]?.kind === kind).length;
  const tokenBatchesInFlight = () => batchesInFlight("token") + batchesInFlight("x402");

  const leadMs = () => sendLeadMs(config, batcher.waiting, sendMsPerCharge);

  const send = async (chosen: Held[], at: bigint) => {
    const charges = chosen.map((e) => e.charge);
    waitingForFees = feeWaitOf(sender, gas, chosen, config.network.maxGasShareBps);
    if (waitingForFees) {
      // Never overpaid: the charges wait (their runs answer `settlement: pending`, output withheld).
      batcher.putBack(chosen, false);
      blockedUntil = Date.now() + Math.max(config.CHAIN_BLOCK_TIME_MS, 1_000);
      return;
    }
    try {
      const sendStarted = performance.now();
      const kind = chosen[0]!.kind;
      const limit = gasOf(kind).limitFor(charges);
      const tx = await sendBatch(sender, chosen, limit, at, chain.tokenMarketplace);
      if (charges.length >= 50) {
        sendMsPerCharge.push((performance.now() - sendStarted) / charges.length);
        if (sendMsPerCharge.length > 16) sendMsPerCharge.shift();
      }
      inFlight.set(tx.nonce, chosen);
      const last = lastChargeHead[kind];
      const before = last?.head === at ? last : { batches: 0, gas: 0n };
      // Full: the batch took what the gas allowed and more waited (a second may follow in the same block).
      const full = batcher.waitingOf(kind) > 0;
      lastChargeHead[kind] = { head: at, batches: before.batches + 1, gas: before.gas + limit, full };
      backoffMs = 0;
      notePending();
      logger.debug("charge batch sent", { nonce: tx.nonce, charges: chosen.length, tx_hash: tx.hashes[0], head: at.toString(), pending: pendingCount() });
    } catch (error) {
      batcher.putBack(chosen, false);
      backoffMs = Math.min(10_000, backoffMs ? backoffMs * 2 : 500);
      blockedUntil = Date.now() + backoffMs;
      const refused = error instanceof SendRefusedError;
      logger.warn(refused ? `charge batch not sent: ${error.message}; tried again in ${backoffMs} ms` : `charge batch not sent: the chain could not be reached; tried again in ${backoffMs} ms`, {
        charges: chosen.length,
        ...(refused ? {} : { cause: message(error) }),
      });
    }
  };

  return {
    async onHead(number, block) {
      head = number;
      sender.setBaseFee(block.baseFeePerGas);
      // A new block may bring lower fees: the batch that waited for them is looked at again.
      if (waitingForFees) blockedUntil = 0;
      // Half a block's gas at most, and never above the per-transaction cap.
      blockShare = block.gasLimit / 2n;
      blockGasCap = blockShare < TX_GAS_CAP ? blockShare : TX_GAS_CAP;
      for (const result of await sender.poll(number)) handle(result);
    },
    async onReorg(fork) {
      // The next batch may go at the new chain's next block.
      for (const kind of KINDS) delete lastChargeHead[kind];
      for (const result of await sender.reorg(fork)) handle(result);
    },
    feeWait: () => waitingForFees,
    async sendOthers() {
      const { others } = deps;
      while (others.waiting.length > 0 && otherInFlight.size === 0 && pendingCount() - tokenBatchesInFlight() < 2 && head !== undefined && deps.leaseFresh()) {
        const next = others.waiting.shift()!;
        try {
          const tx = await sender.send("other", next.data, next.gas, head);
          otherInFlight.set(tx.nonce, next);
          notePending();
        } catch (error) {
          next.reject(error);
        }
      }
    },
    async sendCharges() {
      for (const kind of KINDS) {
        if (batcher.waitingOf(kind) === 0 || head === undefined || Date.now() < blockedUntil || !deps.leaseFresh()) continue;
        const last = lastChargeHead[kind];
        // A second x402 batch in the same block: the first took all one transaction's gas may carry and
        // more payments wait, and the two stay within half the block's gas (a payment's transfer costs
        // some 45,000 gas, so one transaction under EIP-7825's cap carries fewer than 400).
        const again = kind === "x402" && last !== undefined && last.head === head && last.full && last.batches < X402_BATCHES_PER_BLOCK && blockShare - last.gas >= blockGasCap / 4n;
        // One batch of a kind in flight, and the Marketplace's batch with the run log's transaction at
        // most two pending (the TokenMarketplace's batches go beside them).
        if (batchesInFlight(kind) > (again ? last.batches : 0)) continue;
        if (kind === "eth" ? pendingCount() - tokenBatchesInFlight() >= 2 : pendingCount() >= 4 + (again ? last.batches : 0)) continue;
        // One batch per block: the next waits for the block that holds (or passes over) this one.
        if (last !== undefined && last.head >= head && !again) continue;
        const at = head;
        const room = again ? blockShare - last.gas : blockGasCap;
        const chosen = await batcher.choose(at, limits.batch, room < blockGasCap ? room : blockGasCap, gasOf(kind), kind);
        if (chosen === undefined) blockedUntil = Date.now() + 1_000;
        if (!chosen || chosen.length === 0) continue;
        await send(chosen, at);
      }
    },
    dueAt() {
      // A lead before the next block on an interval chain, at once on a chain that mines per transaction
      // (or before the cadence is known).
      if (head === undefined) return Date.now() + 50;
      const expected = deps.cadence.expectedAt(head + 1n);
      return expected === undefined ? Date.now() : expected - leadMs();
    },
    charges: () => [...inFlight.values()].reduce((n, batch) => n + batch.length, 0),
    settled: () => inFlight.size === 0 && otherInFlight.size === 0,
    included: () => [...included.values()].reduce((n, batch) => n + batch.length, 0),
    stop() {
      for (const other of [...deps.others.waiting.splice(0), ...otherInFlight.values()]) other.reject(new Error("the settler stopped"));
      otherInFlight.clear();
    },
  };
}
