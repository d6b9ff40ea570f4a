// How a request learns that its run's charge landed: each process follows the chain's new blocks once
// (only while some of its requests wait) and matches its waiting runs' charge references in each block's
// QueryConsumed and QueryRefused events. No storage is polled: the chain is the record of what was
// charged, and the first block that holds a run's charge releases its result (docs/design/settlement.md).
// After a reorganisation (a lower head, or a changed block hash) the waiting runs are searched for again
// from the last block both chains share.
import type { Hex } from "viem";
import type { ChainClient } from "../../chain/client.ts";
import { followBlocks, type BlockFollower } from "../../chain/follow-blocks.ts";
import { createBlockCadence } from "../../chain/block-cadence.ts";
import { getChargeOutcomes, type ChargeDecision } from "../../chain/get-charge-outcomes.ts";
import type { Logger } from "../../logger.ts";

export interface SettlementWatcher {
  /** The first block a charge handed over from now on can land in (the head this process has seen, plus
   * one); undefined when the chain does not answer. */
  from(): Promise<bigint | undefined>;
  /** The chain's decision on the charge `ref`, as soon as a block at or after `fromBlock` holding it is
   * seen; undefined after `timeoutMs` without one. With `fromBlock` unknown, the blocks of the last
   * minute or so are searched as well. */
  wait(ref: Hex, fromBlock: bigint | undefined, timeoutMs: number): Promise<ChargeDecision | undefined>;
  /** Stops following (waiting requests get undefined). */
  close(): void;
}

interface Waiter {
  ref: Hex;
  /** The first block not yet searched for this waiter (undefined until a head is known). */
  next: bigint | undefined;
  settle(decision: ChargeDecision | undefined): void;
}

/** Blocks searched back when a waiter's first block is unknown (the chain did not answer when it came). */
const LOOKBACK_BLOCKS = 32n;

export interface SettlementWatcherOptions {
  blockTimeMs: number;
  logger: Logger;
  /** Poll interval without a block time (default 50 ms). */
  pollMs?: number;
}

/**
 * One per process: follows blocks only while requests wait.
 *
 * @example
 * const from = await watcher.from();
 * await queue.send(settlementQueueUrl, body);
 * const decision = await watcher.wait(ref, from, 15_000);
 */
export function createSettlementWatcher(chain: ChainClient, options: SettlementWatcherOptions): SettlementWatcher {
  const waiters = new Set<Waiter>();
  // The chain's phase outlives each stretch of following: a follower started for a new wait polls at
  // once for a block the cadence already expects.
  const cadence = createBlockCadence(options.blockTimeMs);
  let following: { follower: BlockFollower; stop: AbortController } | undefined;
  let closed = false;
  let warned = false;

  async function search(head: bigint): Promise<void> {
    const current = [...waiters];
    if (current.length === 0) return;
    for (const waiter of current) waiter.next ??= head >= LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n;
    const fromBlock = current.reduce((min, w) => (w.next! < min ? w.next! : min), head);
    let decisions: Map<Hex, ChargeDecision>;
    try {
      decisions = await getChargeOutcomes(chain, { refs: current.map((w) => w.ref), fromBlock, toBlock: head });
      warned = false;
    } catch (error) {
      // The next block searches this one again.
      if (!warned) options.logger.warn("charge events could not be read; retried with the next block", { cause: error instanceof Error ? error.message : String(error) });
      warned = true;
      return;
    }
    for (const waiter of current) {
      const decision = decisions.get(waiter.ref);
      if (decision && decision.blockNumber >= waiter.next!) waiter.settle(decision);
      else waiter.next = head + 1n;
    }
  }

  function rewind(fork: bigint): void {
    for (const waiter of waiters) if (waiter.next !== undefined && waiter.next > fork + 1n) waiter.next = fork + 1n;
  }

  function follow(): void {
    if (following || closed) return;
    const stop = new AbortController();
    const follower = followBlocks(chain, {
      blockTimeMs: options.blockTimeMs,
      cadence,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      signal: stop.signal,
      // The head went back or changed: the blocks after the fork are new, and a waiter's charge may be
      // in one of them (its batch sent again lands at a lower number than the old head), so every
      // waiter searches again from the fork on.
      onReorg: (reorg) => rewind(reorg.fork),
      onHead: (head) => search(head),
    });
    following = { follower, stop };
  }

  function unfollowIfIdle(): void {
    if (waiters.size > 0 || !following) return;
    following.stop.abort();
    following = undefined;
  }

  return {
    async from() {
      const head = following?.follower.head;
      if (head !== undefined) return head + 1n;
      try {
        return (await chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
      } catch {
        return undefined;
      }
    },
    wait(ref, fromBlock, timeoutMs) {
      if (closed) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          ref: ref.toLowerCase() as Hex,
          next: fromBlock,
          settle(decision) {
            if (!waiters.delete(waiter)) return;
            clearTimeout(timer);
            resolve(decision);
            unfollowIfIdle();
          },
        };
        const timer = setTimeout(() => waiter.settle(undefined), timeoutMs);
        waiters.add(waiter);
        follow();
      });
    },
    close() {
      closed = true;
      for (const waiter of [...waiters]) waiter.settle(undefined);
      following?.stop.abort();
      following = undefined;
    },
  };
}
