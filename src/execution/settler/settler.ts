// The settler: the one sender of the protocol authority's key (docs/design/settlement.md). Every
// process hands its per-query charges to it through the settlement queue; it sends them to the
// contract's `consumeQueries`, many per transaction, one batch per block, timed to reach the node a
// lead before the block is due (so a charge that arrives just after a batch left waits one block, not
// two); it builds the next batch while the previous one is being mined, never has more than two
// transactions pending (a charge batch and one other: the run log's), and deletes a charge's message
// once the chain has decided it. The requests waiting for their charges learn of them from the blocks
// themselves (money/settlement-watcher.ts), not from the settler.
//
// What goes wrong, and what it does:
//  - the chain cannot be reached, or the authority cannot pay the gas: nothing is sent; the charges stay
//    held (their messages hidden a while longer), and sending resumes when the chain answers;
//  - a batch reverts or runs out of gas: nothing in it was charged (a transaction is all or nothing); it
//    is split in halves for the next blocks, and an out-of-gas batch doubles the gas each charge is
//    allowed; a single charge that reverts on its own waits and is tried again;
//  - the settler dies mid-batch: its charges' messages come back to the queue after their visibility
//    timeout; the next settler takes the lease once it expires, waits until nothing the dead one sent is
//    still pending, checks every charge it is handed again against the chain, and sends only the
//    undecided ones (the contract would skip a charged reference anyway, but a refused one must not be
//    charged later: a refusal is final).
import { randomBytes } from "node:crypto";
import { encodeFunctionData, decodeFunctionResult, BaseError, ContractFunctionRevertedError, type Hex, type TransactionReceipt } from "viem";
import type { Services } from "../../services.ts";
import type { QueueMessage } from "../../adapters/queue/sqs.ts";
import { SETTLEMENT_VISIBILITY_SECONDS } from "../../adapters/queue/sqs.ts";
import { AuthorityRevertError, AuthorityUnavailableError, type AuthoritySigner } from "../../chain/authority.ts";
import { createBlockCadence } from "../../chain/block-cadence.ts";
import { followBlocks } from "../../chain/follow-blocks.ts";
import { getChargeOutcomes } from "../../chain/get-charge-outcomes.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import type { MarketplaceWriteArgs, MarketplaceWriteName } from "../../chain/write.ts";
import { parseChargeMessage, type ChargeMessage } from "../money/charge-message.ts";
import { createGasModel, encodeCharges, TX_GAS_CAP, wordsOf, type Charge } from "./batch.ts";
import { createSettlerLease } from "./lease.ts";
import { settlerLeaseStore } from "./lease.store.ts";
import { createAuthoritySender, SendRefusedError, type PendingTx, type TxResult } from "../../chain/authority-sender.ts";
import { outcomesOf } from "../../chain/consume-queries.ts";

/** What one run of the settler did. */
export interface SettlerTally {
  /** Whether it held the lease (false: another settler holds it; nothing was sent). */
  leased: boolean;
  /** Charge batches mined. */
  batches: number;
  charged: number;
  refused: number;
  /** Charges the contract skipped (charged before) or found decided before sending. */
  skipped: number;
  /** Batches that reverted or ran out of gas (their charges were sent again). */
  reverted: number;
  outOfGas: number;
  /** Transactions whose nonce the chain used without them (their charges were checked and sent again). */
  dropped: number;
  /** Messages dropped: unreadable, or past their `not_after`. */
  discarded: number;
  /** The most authority transactions pending at once. */
  maxPending: number;
}

/** The settler was run without the protocol authority's key. */
export class SettlerKeyMissingError extends Error {
  constructor() {
    super("The settler needs the protocol authority's key (AUTHORITY_PRIVATE_KEY): it is the one process that sends with it.");
    this.name = "SettlerKeyMissingError";
  }
}

/** A mined charge batch, as tests and the benchmark observe it. */
export interface BatchEvent {
  kind: "mined" | "reverted" | "out_of_gas" | "dropped";
  nonce: number;
  charges: number;
  blockNumber?: bigint;
  gasUsed?: bigint;
  hash?: Hex;
  /** The head when it was sent, and when (milliseconds since the epoch). */
  sentAtHead?: bigint;
  sentAt?: number;
  /** The charges of the batch, with their outcomes once mined. */
  outcomes?: { ref: Hex; runIds: string[]; outcome: "charged" | "refused" | "skipped"; receivedAt: number }[];
}

export interface SettlerRun {
  /** No new charge is taken after this (milliseconds since the epoch; Infinity: until stopped). */
  deadline: number;
  /** Stops the settler (the local scheduler's stop). */
  signal?: AbortSignal;
  /** Returns once the queue is empty and nothing is in flight (one pass: tests, a script); never waits
   * for another settler's lease. */
  drain?: boolean;
  /** Work that sends through `signer` (the run log), run while the lease is held: the settler keeps
   * sending until it resolves (with `drain`) or until it stops. It gets the settler's stop signal. */
  whileLeased?: (stop: AbortSignal) => Promise<void>;
}

export interface Settler {
  run(pass: SettlerRun): Promise<SettlerTally>;
  /** The authority as the run log sees it: its transactions go out through this settler (while it runs
   * and holds the lease; otherwise they are refused as unavailable). */
  signer: AuthoritySigner;
}

export interface SettlerOptions {
  /** The lease owner's name (default: a random one per settler). */
  owner?: string;
  /** The gas each charge is allowed before the settler has seen a batch mined (tests make it too low to
   * make a real batch run out of gas). */
  initialGasPerCharge?: number;
  /** Called for each charge batch mined, reverted or dropped. */
  onBatch?: (event: BatchEvent) => void;
  /** Concurrent receives from the queue (default 4). */
  receivers?: number;
}

interface Held {
  charge: Charge;
  message: ChargeMessage;
  messages: QueueMessage[];
  runIds: Set<string>;
  /** Checked against the chain before it is sent: handed over again (received more than once, put back
   * after a dropped transaction) or by a settlement pass, or from an earlier settler. Decided when it is
   * sent (the head is known then), from `since` and this flag. */
  check: boolean;
  /** The first block the charge can be in, when the message says. */
  since: bigint | undefined;
  receivedAt: number;
  /** Not sent before this time (a charge that reverted on its own). */
  retryAt: number;
}

interface OtherTx {
  data: Hex;
  gas: bigint;
  resolve(result: TxResult): void;
  reject(error: unknown): void;
}

/** Charges held in memory at most (received, not yet decided): four full batches. */
const MAX_HELD_BATCHES = 4;
/** How long a settler waits for another's lease when the other means to stop soon (a cloud handover). */
const HANDOVER_WAIT_MS = 70_000;
/** Blocks the settler waits, after it stops sending, for its pending transactions to be mined. */
const FINAL_BLOCKS = 3;
/** Another settler's charge that a fresh one receives is older than its `since_block` by at least this. */
const FRESH_BLOCKS = 4n;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

function revertName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.reason ?? "reverted";
  return undefined;
}

/**
 * The settler for `services`' authority key (AUTHORITY_PRIVATE_KEY). Create one per process that runs
 * the settler job and keep it.
 *
 * @example
 * const settler = createSettler(services);
 * await settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
 */
export function createSettler(services: Services, options: SettlerOptions = {}): Settler {
  const { config, chain, queue, logger } = services;
  // Without the key the settler cannot start; it says so when it is run (a function that was not given
  // the key, or a process that should not settle).
  const key = (config.AUTHORITY_PRIVATE_KEY ?? `0x${"11".repeat(32)}`) as Hex;
  const sender = createAuthoritySender(chain, { rpcUrl: config.RPC_URL, privateKey: key });
  const owner = options.owner ?? `settler-${randomBytes(6).toString("hex")}`;
  const lease = createSettlerLease(settlerLeaseStore(services.tables, sender.address), { owner, ttlMs: config.SETTLER_LEASE_MS });
  const gas = createGasModel(options.initialGasPerCharge);
  const queueUrl = config.SETTLEMENT_QUEUE_URL;
  const blockTimeMs = config.CHAIN_BLOCK_TIME_MS;
  const cadence = createBlockCadence(blockTimeMs);
  const others: OtherTx[] = [];
  let wakeOthers: (() => void) | undefined;
  let running = false;

  const signer: AuthoritySigner = {
    address: sender.address,
    async write<name extends MarketplaceWriteName>(functionName: name, args: MarketplaceWriteArgs<name>): Promise<{ receipt: TransactionReceipt; result: unknown }> {
      if (!running) throw new AuthorityUnavailableError(functionName, { cause: new Error("the settler is not running") });
      const data = encodeFunctionData({ abi: marketplaceAbi, functionName, args } as never);
      let result: unknown;
      let limit: bigint;
      try {
        const call = await chain.client.call({ account: sender.address, to: chain.marketplace, data });
        result = call.data === undefined ? undefined : decodeFunctionResult({ abi: marketplaceAbi, functionName, data: call.data } as never);
        limit = ((await chain.client.estimateGas({ account: sender.address, to: chain.marketplace, data })) * 12n) / 10n + 10_000n;
      } catch (error) {
        const name = revertName(error);
        if (name) throw new AuthorityRevertError(functionName, name);
        throw new AuthorityUnavailableError(functionName, { cause: error });
      }
      const outcome = await new Promise<TxResult>((resolve, reject) => {
        others.push({ data, gas: limit, resolve, reject });
        wakeOthers?.();
      }).catch((error: unknown) => {
        throw new AuthorityUnavailableError(functionName, { cause: error });
      });
      if ("dropped" in outcome) throw new AuthorityUnavailableError(functionName, { cause: new Error("the transaction was dropped") });
      if (outcome.receipt.status !== "success") throw new AuthorityRevertError(functionName, "reverted");
      return { receipt: outcome.receipt, result };
    },
  };

  async function run(pass: SettlerRun): Promise<SettlerTally> {
    const tally: SettlerTally = { leased: false, batches: 0, charged: 0, refused: 0, skipped: 0, reverted: 0, outOfGas: 0, dropped: 0, discarded: 0, maxPending: 0 };
    if (running) throw new Error("this settler is already running");
    if (!config.AUTHORITY_PRIVATE_KEY) throw new SettlerKeyMissingError();
    const drain = pass.drain ?? false;
    const endsAt = Number.isFinite(pass.deadline) ? pass.deadline : 0;
    const leased = await lease.acquire({ endsAt, deadline: pass.deadline, waitForEndMs: drain ? 0 : Number.isFinite(pass.deadline) ? HANDOVER_WAIT_MS : Number.POSITIVE_INFINITY, ...(pass.signal ? { signal: pass.signal } : {}) });
    if (!leased) return tally;
    tally.leased = true;
    running = true;

    // `intake` stops taking charges; `halt` stops sending (the lease is lost, or the settler is done).
    const intake = new AbortController();
    const halt = new AbortController();
    const following = new AbortController();
    const stopAll = () => {
      intake.abort();
      halt.abort();
    };
    pass.signal?.addEventListener("abort", () => intake.abort(), { once: true });
    intake.signal.addEventListener("abort", () => (intakeStoppedAt = Date.now()), { once: true });
    const deadlineTimer = Number.isFinite(pass.deadline) ? setTimeout(() => intake.abort(), Math.max(0, pass.deadline - Date.now())) : undefined;
    /** Once it takes no more charges, the settler sends what it holds for a couple of blocks at most. */
    const windDownMs = 2 * Math.max(blockTimeMs, 500) + 1_000;

    const buffer = new Map<Hex, Held>();
    const inFlight = new Map<number, Held[]>();
    const byRef = new Map<Hex, Held>();
    const otherInFlight = new Map<number, OtherTx>();
    let head: bigint | undefined;
    let lastChargeHead: bigint | undefined;
    let batchLimit = config.SETTLER_MAX_BATCH;
    let blockGasCap = TX_GAS_CAP;
    let blockedUntil = 0;
    let backoffMs = 0;
    let queueEmpty = false;
    /** How long the recent large batches' sends took per charge (signing and the node's acceptance), in
     * milliseconds: batches of fifty or more, whose size outweighs the fixed part of a send. */
    const sendMsPerCharge: number[] = [];
    let renewedAt = Date.now();
    /** Whether the lease is surely still this settler's: renewed within two thirds of its length. */
    const leaseFresh = () => Date.now() - renewedAt < (2 * config.SETTLER_LEASE_MS) / 3;
    let receiving = 0;
    let intakeStoppedAt: number | undefined;
    // A stop asked for while the lease was being taken has already fired: the listener above never runs.
    if (pass.signal?.aborted) intake.abort();
    let whileLeasedDone = pass.whileLeased === undefined;
    let wake: () => void = () => undefined;
    const woken = () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      });
    wakeOthers = () => wake();
    const held = () => buffer.size + [...inFlight.values()].reduce((n, batch) => n + batch.length, 0);
    const pendingCount = () => sender.pending().length;
    const notePending = () => (tally.maxPending = Math.max(tally.maxPending, pendingCount()));

    const discard = async (m: QueueMessage, why: string, fields: Record<string, unknown>) => {
      tally.discarded++;
      logger.error(`settlement message dropped: ${why}`, { message_id: m.id, ...fields });
      await queue.deleteMany(queueUrl, [m]).catch(() => undefined);
    };

    const accept = async (m: QueueMessage) => {
      const parsed = parseChargeMessage(m.body);
      if (!parsed.ok) return discard(m, "it is not a charge", { reason: parsed.reason });
      const msg = parsed.message;
      if (msg.not_after !== undefined && Date.now() > msg.not_after) return discard(m, "its run may have been finished by the stale-run sweep meanwhile", { run_id: msg.run_id });
      const existing = byRef.get(msg.ref);
      if (existing) {
        existing.messages.push(m);
        existing.runIds.add(msg.run_id);
        return;
      }
      const entry: Held = {
        charge: { listingId: msg.listing, buyer: msg.buyer, runRef: msg.ref, maxPrice: BigInt(msg.max_price) },
        message: msg,
        messages: [m],
        runIds: new Set([msg.run_id]),
        check: m.receiveCount > 1,
        since: msg.since_block === undefined ? undefined : BigInt(msg.since_block),
        receivedAt: Date.now(),
        retryAt: 0,
      };
      buffer.set(msg.ref, entry);
      byRef.set(msg.ref, entry);
    };

    /** Charges decided (or found decided): their messages go, with every duplicate. The deletes run beside
     * the loop (hundreds of messages take a while, and the next batch must not wait for them); a message
     * not deleted comes back later and is found decided. */
    const deletions = new Set<Promise<void>>();
    const settleHeld = (entries: Held[]) => {
      for (const entry of entries) byRef.delete(entry.charge.runRef);
      const messages = entries.flatMap((entry) => entry.messages);
      if (messages.length === 0) return;
      const deletion = queue
        .deleteMany(queueUrl, messages)
        .then((failed) => {
          if (failed.length) logger.warn("settled charges' messages not deleted; they come back and are found decided", { messages: failed.length });
        })
        .catch((error: unknown) => logger.warn("settled charges' messages not deleted; they come back and are found decided", { cause: message(error) }))
        .finally(() => deletions.delete(deletion));
      deletions.add(deletion);
    };

    /** Charges back to the front of the buffer (a batch that was not mined). */
    const putBack = (entries: Held[], check: boolean) => {
      const rest = [...buffer.entries()];
      buffer.clear();
      for (const entry of entries) {
        if (check) entry.check = true;
        buffer.set(entry.charge.runRef, entry);
      }
      for (const [ref, entry] of rest) buffer.set(ref, entry);
    };

    const handle = async (result: TxResult) => {
      const other = otherInFlight.get(result.tx.nonce);
      if (other) {
        otherInFlight.delete(result.tx.nonce);
        other.resolve(result);
        return;
      }
      const batch = inFlight.get(result.tx.nonce);
      if (!batch) return;
      inFlight.delete(result.tx.nonce);
      if ("dropped" in result) {
        tally.dropped++;
        logger.warn("charge batch dropped; its charges are checked and sent again", { nonce: result.tx.nonce, charges: batch.length });
        options.onBatch?.({ kind: "dropped", nonce: result.tx.nonce, charges: batch.length });
        putBack(batch, true);
        return;
      }
      const { receipt } = result;
      if (receipt.status !== "success") {
        const outOfGas = receipt.gasUsed * 100n >= result.tx.gas * 99n;
        if (outOfGas) {
          tally.outOfGas++;
          gas.outOfGas();
        } else tally.reverted++;
        services.metrics.count("SettlerBatches", 1, { outcome: outOfGas ? "out_of_gas" : "reverted" });
        options.onBatch?.({ kind: outOfGas ? "out_of_gas" : "reverted", nonce: result.tx.nonce, charges: batch.length, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, hash: receipt.transactionHash });
        // Nothing in a reverted transaction was charged: split it and send its halves again.
        batchLimit = Math.max(1, Math.ceil(batch.length / 2));
        if (batch.length === 1 && !outOfGas) batch[0]!.retryAt = Date.now() + 30_000;
        logger.warn(outOfGas ? "charge batch ran out of gas; split and sent again with more gas" : "charge batch reverted; split and sent again", { nonce: result.tx.nonce, charges: batch.length, gas_used: receipt.gasUsed.toString(), gas_limit: result.tx.gas.toString() });
        putBack(batch, false);
        return;
      }
      const decided = outcomesOf(receipt, batch.map((entry) => entry.charge));
      const outcomes: NonNullable<BatchEvent["outcomes"]> = [];
      for (const [i, entry] of batch.entries()) {
        const outcome = decided[i]!.outcome;
        if (outcome === "charged") tally.charged++;
        else if (outcome === "refused") tally.refused++;
        else tally.skipped++;
        outcomes.push({ ref: entry.charge.runRef, runIds: [...entry.runIds], outcome, receivedAt: entry.receivedAt });
      }
      tally.batches++;
      gas.learn(batch.length, wordsOf(batch.map((e) => e.charge)), receipt.gasUsed);
      batchLimit = Math.min(config.SETTLER_MAX_BATCH, batchLimit * 2);
      services.metrics.count("SettlerBatches", 1, { outcome: "mined" });
      services.metrics.observe("ChargesPerBatch", batch.length);
      services.metrics.observe("GasPerCharge", Number(receipt.gasUsed) / batch.length);
      options.onBatch?.({ kind: "mined", nonce: result.tx.nonce, charges: batch.length, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, hash: receipt.transactionHash, sentAtHead: result.tx.sentAtHead, sentAt: result.tx.sentAt, outcomes });
      settleHeld(batch);
    };

    const onHead = async (number: bigint) => {
      head = number;
      try {
        const block = await chain.client.getBlock({ blockNumber: number });
        sender.setBaseFee(block.baseFeePerGas);
        // Half a block's gas at most, and never above the per-transaction cap.
        blockGasCap = block.gasLimit / 2n < TX_GAS_CAP ? block.gasLimit / 2n : TX_GAS_CAP;
        for (const result of await sender.poll(number)) await handle(result);
      } catch (error) {
        logger.warn("settler could not read the new block; it looks again at the next one", { block: number.toString(), cause: message(error) });
      }
      wake();
    };

    // The lease is renewed on a clock of its own (a chain that mines per transaction has no blocks while
    // idle). A renewal that cannot reach storage is not a loss, but the lease may run out meanwhile and
    // another settler take it: this one sends only while its last renewal is fresh (two thirds of the
    // lease), holding its charges until storage answers again. A refusal (another settler took the lease
    // over) stops it.
    const renewer = (async () => {
      let failing = false;
      while (!halt.signal.aborted) {
        // Every third of the lease; every second while storage does not answer, so the settler sends again
        // as soon as it does.
        await sleep(failing ? 1_000 : config.SETTLER_LEASE_MS / 3, halt.signal);
        if (halt.signal.aborted) break;
        const renewed = await lease.renew(endsAt).then(
          (held) => held,
          () => undefined,
        );
        failing = renewed === undefined;
        if (renewed === true) renewedAt = Date.now();
        if (renewed === false) {
          logger.error("settler lease lost to another settler; this one stops sending", { owner });
          stopAll();
        }
        if (renewed === undefined && !leaseFresh()) logger.warn("settler lease not renewed (storage did not answer); sending paused until it is", { owner });
      }
    })();

    const follower = followBlocks(chain, { blockTimeMs, cadence, signal: following.signal, onHead, onError: () => undefined });

    /** Sends the run log's (and any other) transaction when a slot is free. */
    const sendOthers = async () => {
      while (others.length > 0 && otherInFlight.size === 0 && pendingCount() < 2 && head !== undefined && leaseFresh()) {
        const next = others.shift()!;
        try {
          const tx = await sender.send("other", next.data, next.gas, head);
          otherInFlight.set(tx.nonce, next);
          notePending();
        } catch (error) {
          next.reject(error);
        }
      }
    };

    /** Sends the next charge batch, if one is due and allowed. */
    const sendCharges = async () => {
      if (buffer.size === 0 || head === undefined || Date.now() < blockedUntil || !leaseFresh()) return;
      if (inFlight.size > 0 || pendingCount() >= 2) return;
      // One batch per block: the next waits for the block that holds (or passes over) this one.
      if (lastChargeHead !== undefined && lastChargeHead >= head) return;
      const now = Date.now();
      const ready = [...buffer.values()].filter((entry) => entry.retryAt <= now);
      let chosen = ready.slice(0, batchLimit);
      // A charge is checked unless it is fresh: handed over by a run in the last few blocks, once.
      const current = head;
      const checks = chosen.filter((entry) => entry.check || entry.since === undefined || entry.since + FRESH_BLOCKS < current);
      if (checks.length > 0) {
        const from = checks.reduce((min, e) => {
          const since = e.since ?? config.MARKETPLACE_DEPLOY_BLOCK;
          return since < min ? since : min;
        }, head);
        let decided: Awaited<ReturnType<typeof getChargeOutcomes>>;
        try {
          decided = await getChargeOutcomes(chain, { refs: checks.map((e) => e.charge.runRef), fromBlock: from, toBlock: head });
        } catch (error) {
          logger.warn("settler could not check charges against the chain; it tries again", { cause: message(error) });
          blockedUntil = Date.now() + 1_000;
          return;
        }
        const found = checks.filter((e) => decided.has(e.charge.runRef));
        for (const entry of found) buffer.delete(entry.charge.runRef);
        tally.skipped += found.length;
        settleHeld(found);
        // Checked now: sent under this head, it is not checked again unless it comes back.
        for (const entry of checks) (entry.check = false), (entry.since = head);
        chosen = chosen.filter((e) => !decided.has(e.charge.runRef));
        if (chosen.length === 0) return;
      }
      const fit = gas.fitting(chosen.map((e) => e.charge), blockGasCap);
      chosen = chosen.slice(0, Math.max(1, fit));
      const charges = chosen.map((e) => e.charge);
      for (const entry of chosen) buffer.delete(entry.charge.runRef);
      try {
        const sendStarted = performance.now();
        const tx: PendingTx = await sender.send("charges", encodeCharges(charges), gas.limitFor(charges), head);
        if (charges.length >= 50) {
          sendMsPerCharge.push((performance.now() - sendStarted) / charges.length);
          if (sendMsPerCharge.length > 16) sendMsPerCharge.shift();
        }
        inFlight.set(tx.nonce, chosen);
        lastChargeHead = head;
        backoffMs = 0;
        notePending();
        logger.debug("charge batch sent", { nonce: tx.nonce, charges: chosen.length, tx_hash: tx.hashes[0], head: head.toString(), pending: pendingCount() });
      } catch (error) {
        putBack(chosen, false);
        backoffMs = Math.min(10_000, backoffMs ? backoffMs * 2 : 500);
        blockedUntil = Date.now() + backoffMs;
        const refused = error instanceof SendRefusedError;
        logger.warn(refused ? `charge batch not sent: ${error.message}; tried again in ${backoffMs} ms` : `charge batch not sent: the chain could not be reached; tried again in ${backoffMs} ms`, {
          charges: chosen.length,
          ...(refused ? {} : { cause: message(error) }),
        });
      }
    };

    /** How long before the block a batch goes: SETTLER_LEAD_MS, plus the time the charges it would carry
     * take to sign and reach the node (a batch of hundreds of charges takes a few hundred milliseconds, a
     * few take nothing worth counting), at most a quarter block. Every millisecond of lead is one a charge
     * arriving in it waits a block for. */
    const leadMs = (): number => {
      const perCharge = sendMsPerCharge.length ? Math.max(...sendMsPerCharge) : 0;
      const carried = Math.min(buffer.size, config.SETTLER_MAX_BATCH);
      return Math.min(config.SETTLER_LEAD_MS + carried * perCharge, Math.max(config.SETTLER_LEAD_MS, blockTimeMs / 4));
    };
    /** When the next charge batch is due: a lead before the next block on an interval chain, at once on a
     * chain that mines per transaction (or before the cadence is known). */
    const dueAt = (): number => {
      if (head === undefined) return Date.now() + 50;
      const expected = cadence.expectedAt(head + 1n);
      return expected === undefined ? Date.now() : expected - leadMs();
    };

    // One pass (drain) reads with one receiver, so "the queue was empty" is true when it says so.
    const receivers = Array.from({ length: drain ? 1 : (options.receivers ?? 4) }, async () => {
      while (!intake.signal.aborted) {
        if (held() >= MAX_HELD_BATCHES * config.SETTLER_MAX_BATCH) {
          await sleep(50, intake.signal);
          continue;
        }
        try {
          receiving++;
          // A receive is never cut short: the queue would hide what it handed to a request nobody reads
          // for the whole visibility timeout. What arrives once intake has stopped goes straight back.
          const messages = await queue.receive(queueUrl, { max: 10, waitSeconds: drain ? 0 : 1 }).finally(() => receiving--);
          if (intake.signal.aborted) {
            if (messages.length) await queue.changeVisibility(queueUrl, messages, 0).catch(() => undefined);
            break;
          }
          if (messages.length === 0) {
            queueEmpty = true;
            if (drain) await sleep(50, intake.signal);
            continue;
          }
          queueEmpty = false;
          for (const m of messages) await accept(m);
          wake();
        } catch (error) {
          if (intake.signal.aborted) break;
          logger.warn("settlement queue receive failed; retried", { cause: message(error) });
          await sleep(1_000, intake.signal);
        }
      }
    });

    // Charges held longer than their visibility timeout would be handed to another settler: keep them hidden.
    const keeper = (async () => {
      while (!halt.signal.aborted) {
        await sleep((SETTLEMENT_VISIBILITY_SECONDS * 1000) / 3, halt.signal);
        if (halt.signal.aborted) break;
        const messages = [...byRef.values()].flatMap((entry) => entry.messages);
        if (messages.length) await queue.changeVisibility(queueUrl, messages, SETTLEMENT_VISIBILITY_SECONDS).catch(() => undefined);
      }
    })();

    const work = pass.whileLeased
      ? pass
          .whileLeased(intake.signal)
          .catch((error: unknown) => logger.warn("settler's scheduled work failed; retried on its next round", { cause: message(error) }))
          .finally(() => {
            whileLeasedDone = true;
            wake();
          })
      : Promise.resolve();

    try {
      await sender.sync(config.SETTLER_LEASE_MS, halt.signal);
      // The loop: send what is due, then wait for the next moment something may be.
      while (!halt.signal.aborted) {
        await sendOthers();
        if (Date.now() >= dueAt()) await sendCharges();
        const idle = buffer.size === 0 && inFlight.size === 0 && otherInFlight.size === 0 && others.length === 0;
        if (intakeStoppedAt !== undefined && ((buffer.size === 0 && whileLeasedDone) || Date.now() - intakeStoppedAt > windDownMs)) break;
        if (drain && idle && queueEmpty && receiving === 0 && whileLeasedDone) break;
        const wait = buffer.size > 0 ? Math.max(10, dueAt() - Date.now()) : 1_000;
        await Promise.race([woken(), sleep(wait, halt.signal)]);
      }
    } catch (error) {
      logger.error("settler stopped on an error", { cause: message(error) });
    } finally {
      intake.abort();
      if (deadlineTimer) clearTimeout(deadlineTimer);
      // What was sent is waited for (a few blocks at most); what was not goes back to the queue at once.
      const waitUntil = Date.now() + FINAL_BLOCKS * Math.max(blockTimeMs, 1_000) + 1_000;
      while ((inFlight.size > 0 || otherInFlight.size > 0) && Date.now() < waitUntil && !halt.signal.aborted) await Promise.race([woken(), sleep(100)]);
      halt.abort();
      following.abort();
      await Promise.allSettled([...receivers, keeper, renewer, work, follower.done, ...deletions]);
      const unsent = [...buffer.values(), ...[...inFlight.values()].flat()].flatMap((entry) => entry.messages);
      if (unsent.length) await queue.changeVisibility(queueUrl, unsent, 0).catch(() => undefined);
      for (const other of [...others.splice(0), ...otherInFlight.values()]) other.reject(new Error("the settler stopped"));
      wakeOthers = undefined;
      running = false;
      await lease.release().catch(() => undefined);
    }
    return tally;
  }

  return { run, signer };
}
