// The settler: the one sender of the protocol authority's key (docs/design/settlement.md). Every
// process hands its per-query charges to it through the settlement queue; it sends them to the
// contract's `consumeQueries`, many per transaction, one batch per block, and deletes a charge's message
// once the chain has decided it. The requests waiting for their charges learn of them from the blocks
// themselves (money/settlement-watcher.ts), not from the settler. Its parts:
//  - the lease (lease.ts): only the holder of the key's lease sends, and only while its last renewal is
//    fresh;
//  - the batcher (intake.ts, batcher.ts): the charges it holds, from the queue to their decision;
//  - the sender (sender.ts): its transactions, timed by the chain's blocks.
//
// The settler dies mid-batch: its charges' messages come back to the queue after their visibility
// timeout; the next settler takes the lease once it expires, waits until nothing the dead one sent is
// still pending, checks every charge it is handed again against the chain, and sends only the undecided
// ones (the contract would skip a charged reference anyway, but a refused one must not be charged
// later: a refusal is final).
import { randomBytes } from "node:crypto";
import type { Hex } from "viem";
import type { Services } from "../services.ts";
import type { AuthoritySigner } from "../../chain/authority.ts";
import { createAuthoritySender, type AuthoritySender } from "../../chain/authority-sender.ts";
import { createBlockCadence, type BlockCadence } from "../../chain/block-cadence.ts";
import { followBlocks } from "../../chain/follow-blocks.ts";
import { createGasModel, type GasModel } from "./batch.ts";
import { createSettlerAlarms, type SettlerAlarms } from "./alarms.ts";
import { createBatcher } from "./batcher.ts";
import { emptyTally, message, sleep, type PassContext, type SettlerOptions, type SettlerTally } from "./context.ts";
import { startIntake } from "./intake.ts";
import { createSettlerLease, keepLease, type SettlerLease } from "./lease.ts";
import { settlerLeaseStore } from "./lease.store.ts";
import { createQueuedSigner, createTxSender, type FeeWait, type OtherTxQueue } from "./sender.ts";

export type { BatchEvent, SettlerOptions, SettlerTally } from "./context.ts";

/** The settler was run without the protocol authority's key. */
export class SettlerKeyMissingError extends Error {
  constructor() {
    super("The settler needs the protocol authority's key (AUTHORITY_PRIVATE_KEY): it is the one process that sends with it.");
    this.name = "SettlerKeyMissingError";
  }
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

/** How long a settler waits for another's lease when the other means to stop soon (a cloud handover). */
const HANDOVER_WAIT_MS = 70_000;
/** Blocks the settler waits, after it stops sending, for its pending transactions to be mined. */
const FINAL_BLOCKS = 3;

/** What lives as long as the settler: its key's sender, lease, gas model and the run log's queue. */
interface SettlerParts {
  services: Services;
  options: SettlerOptions;
  sender: AuthoritySender;
  lease: SettlerLease;
  owner: string;
  gas: GasModel;
  cadence: BlockCadence;
  others: OtherTxQueue;
  alarms: SettlerAlarms;
  /** What the alarms that end with a condition wait for: the highest nonce a gap was filled at (off
   * once nothing at or under it is unmined), and the block a deep reorganisation's new chain is final at. */
  clears: { gapNonce?: number; deepFinalAt?: bigint };
}

/** Turns off the alarms whose condition ended: a nonce gap once the transactions that filled it are
 * mined, a deep reorganisation once the new chain's head at it is final. */
function clearEnded(parts: SettlerParts, head: bigint | undefined): void {
  const { clears, alarms, sender } = parts;
  if (clears.gapNonce !== undefined && !sender.pending().some((tx) => tx.nonce <= clears.gapNonce!)) {
    delete clears.gapNonce;
    alarms.set("nonce_gap", undefined);
  }
  if (clears.deepFinalAt !== undefined && head !== undefined && head >= clears.deepFinalAt) {
    delete clears.deepFinalAt;
    alarms.set("deep_reorg", undefined);
  }
}

/** What the fee-ceiling alarm says. */
function feeWaitMessage(wait: FeeWait): string {
  return wait.reason === "max_fee"
    ? `the base fee (${wait.baseFeePerGas} wei) is at or above the network's maximum fee per gas (${wait.maxFeePerGas} wei); charges wait for it to fall`
    : `a batch's gas (${wait.gasCostWei} wei) would exceed ${wait.maxGasShareBps / 100}% of its charges (${wait.chargesWei} wei); charges wait for lower fees or more charges`;
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
  const { config, chain } = services;
  // Without the key the settler cannot start; it says so when it is run (a function that was not given
  // the key, or a process that should not settle).
  const key = (config.AUTHORITY_PRIVATE_KEY ?? `0x${"11".repeat(32)}`) as Hex;
  const sender = createAuthoritySender(chain, {
    rpcUrl: config.RPC_URL,
    privateKey: key,
    finalityDepth: config.network.finalityDepth,
    maxFeePerGasWei: config.network.maxFeePerGasWei,
    onGap: (gap) => {
      clears.gapNonce = Math.max(clears.gapNonce ?? gap.nonce, gap.nonce);
      alarms.set("nonce_gap", `the chain's next nonce (${gap.chainNonce}) was below nonce ${gap.nonce} the settler sent; filled with ${gap.with === "resent" ? "the transaction sent under it" : "an empty transfer"}`);
    },
  });
  const clears: SettlerParts["clears"] = {};
  const owner = options.owner ?? `settler-${randomBytes(6).toString("hex")}`;
  const alarms = createSettlerAlarms(services.tables, sender.address, services.logger);
  const others: OtherTxQueue = { running: false, waiting: [], wake: () => undefined };
  const parts: SettlerParts = {
    services,
    options,
    sender,
    owner,
    lease: createSettlerLease(settlerLeaseStore(services.tables, sender.address), { owner, ttlMs: config.SETTLER_LEASE_MS }),
    gas: createGasModel(options.initialGasPerCharge),
    cadence: createBlockCadence(config.CHAIN_BLOCK_TIME_MS),
    others,
    alarms,
    clears,
  };
  return {
    signer: createQueuedSigner(chain, sender.address, others),
    async run(pass) {
      if (others.running) throw new Error("this settler is already running");
      if (!config.AUTHORITY_PRIVATE_KEY) throw new SettlerKeyMissingError();
      const tally = emptyTally();
      const drain = pass.drain ?? false;
      const endsAt = Number.isFinite(pass.deadline) ? pass.deadline : 0;
      const waitForEndMs = drain ? 0 : Number.isFinite(pass.deadline) ? HANDOVER_WAIT_MS : Number.POSITIVE_INFINITY;
      if (!(await parts.lease.acquire({ endsAt, deadline: pass.deadline, waitForEndMs, ...(pass.signal ? { signal: pass.signal } : {}) }))) return tally;
      tally.leased = true;
      others.running = true;
      try {
        await runLeased(parts, pass, tally, endsAt);
      } finally {
        others.wake = () => undefined;
        others.running = false;
        await parts.lease.release().catch(() => undefined);
      }
      return tally;
    },
  };
}

/** One run while the lease is held: intake, blocks, lease renewals and the run log's work beside a loop
 * that sends what is due; then the wind-down (what was sent is waited for, the rest handed back). */
async function runLeased(parts: SettlerParts, pass: SettlerRun, tally: SettlerTally, endsAt: number): Promise<void> {
  const { services, options, sender, others } = parts;
  const { config, chain, logger, queue } = services;
  const drain = pass.drain ?? false;
  const blockTimeMs = config.CHAIN_BLOCK_TIME_MS;
  const queueUrl = config.SETTLEMENT_QUEUE_URL;
  // `intake` stops taking charges; `halt` stops sending (the lease is lost, or the settler is done).
  const intake = new AbortController();
  const halt = new AbortController();
  const following = new AbortController();
  let intakeStoppedAt: number | undefined;
  pass.signal?.addEventListener("abort", () => intake.abort(), { once: true });
  intake.signal.addEventListener("abort", () => (intakeStoppedAt = Date.now()), { once: true });
  // A stop asked for while the lease was being taken has already fired: the listener above never runs.
  if (pass.signal?.aborted) intake.abort();
  const deadlineTimer = Number.isFinite(pass.deadline) ? setTimeout(() => intake.abort(), Math.max(0, pass.deadline - Date.now())) : undefined;
  /** Once it takes no more charges, the settler sends what it holds for a couple of blocks at most. */
  const windDownMs = 2 * Math.max(blockTimeMs, 500) + 1_000;
  /** A charge waiting longer than this (unsent, or sent and not mined) raises `settlement_stalled`. */
  const stallMs = Math.max(60_000, 10 * blockTimeMs);

  let wake: () => void = () => undefined;
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  const context: PassContext = { services, options, tally, wake: () => wake() };
  others.wake = () => wake();

  const keeper = keepLease(parts.lease, {
    endsAt,
    ttlMs: config.SETTLER_LEASE_MS,
    signal: halt.signal,
    onLost: () => (intake.abort(), halt.abort()),
    onProblem: (problem) =>
      problem === "lost"
        ? logger.error("settler lease lost to another settler; this one stops sending", { owner: parts.owner })
        : logger.warn("settler lease not renewed (storage did not answer); sending paused until it is", { owner: parts.owner }),
  });
  let txs: ReturnType<typeof createTxSender> | undefined;
  const batcher = createBatcher(context, { queueUrl, inFlight: () => txs?.charges() ?? 0 });
  txs = createTxSender(context, { sender, batcher, gas: parts.gas, cadence: parts.cadence, others, leaseFresh: keeper.fresh });
  const sending = txs;

  const follower = followBlocks(chain, {
    blockTimeMs,
    cadence: parts.cadence,
    signal: following.signal,
    onError: () => undefined,
    onReorg: async (reorg) => {
      const depth = reorg.from - reorg.fork;
      if (reorg.deep || depth > BigInt(config.network.finalityDepth)) {
        parts.clears.deepFinalAt = reorg.to + BigInt(config.network.finalityDepth);
        parts.alarms.set("deep_reorg", `the chain reorganised ${reorg.deep ? "deeper than the blocks remembered" : `${depth} blocks deep`} (from block ${reorg.from}, fork at ${reorg.fork}), past the finality depth of ${config.network.finalityDepth}: charges counted final there are checked only by the settlement pass`);
      } else logger.warn("chain reorganised; the settler's transactions in the blocks that left are sent again", { fork: reorg.fork.toString(), from: reorg.from.toString(), to: reorg.to.toString() });
      await sending.onReorg(reorg.fork).catch((error: unknown) => logger.warn("settler could not look at a reorganisation's transactions; it looks again at the next block", { cause: message(error) }));
    },
    onHead: async (number, _seenAt, block) => {
      try {
        await sending.onHead(number, block);
      } catch (error) {
        logger.warn("settler could not read the new block; it looks again at the next one", { block: number.toString(), cause: message(error) });
      }
      wake();
    },
  });
  const received = startIntake(context, batcher, { queueUrl, drain, intake: intake.signal, halt: halt.signal });
  let whileLeasedDone = pass.whileLeased === undefined;
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
      await sending.sendOthers();
      if (Date.now() >= sending.dueAt()) await sending.sendCharges();
      const idle = batcher.waiting === 0 && sending.settled() && others.waiting.length === 0;
      if (intakeStoppedAt !== undefined && ((batcher.waiting === 0 && whileLeasedDone) || Date.now() - intakeStoppedAt > windDownMs)) break;
      if (drain && idle && received.idle() && whileLeasedDone) break;
      const feeWait = sending.feeWait();
      parts.alarms.set("fee_ceiling", feeWait && batcher.waiting > 0 ? feeWaitMessage(feeWait) : undefined);
      const oldest = batcher.oldestWaiting();
      parts.alarms.set("settlement_stalled", oldest !== undefined && Date.now() - oldest > stallMs ? `a charge has waited ${Math.round((Date.now() - oldest) / 1000)} s unsent or unmined` : undefined);
      clearEnded(parts, follower.head);
      await parts.alarms.flush();
      const wait = batcher.waiting > 0 ? Math.max(10, sending.dueAt() - Date.now()) : 1_000;
      await Promise.race([woken(), sleep(wait, halt.signal)]);
    }
  } catch (error) {
    logger.error("settler stopped on an error", { cause: message(error) });
  } finally {
    intake.abort();
    if (deadlineTimer) clearTimeout(deadlineTimer);
    // What was sent is waited for (a few blocks at most); what was not goes back to the queue at once.
    const waitUntil = Date.now() + FINAL_BLOCKS * Math.max(blockTimeMs, 1_000) + 1_000;
    while (!sending.settled() && Date.now() < waitUntil && !halt.signal.aborted) await Promise.race([woken(), sleep(100)]);
    halt.abort();
    following.abort();
    await Promise.allSettled([received.done, keeper.done, work, follower.done, batcher.deleted()]);
    const unsent = batcher.undecided();
    if (unsent.length) await queue.changeVisibility(queueUrl, unsent, 0).catch(() => undefined);
    sending.stop();
  }
}
