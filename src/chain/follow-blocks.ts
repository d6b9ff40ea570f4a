// Follows the chain's head (eth_blockNumber) and reports each new block once, in order, with when it
// was seen. On a chain with a block time it polls around the block it expects (block-cadence.ts): a
// few probes before it and short polls from it on, instead of a steady stream, and a block seen within
// one short poll of its arrival. On a chain that mines per transaction it polls at a steady short
// interval. Hand-written: viem's watchBlockNumber polls at one fixed interval, which is either slow to
// see a block or costly in requests to a hosted node, and reports nothing about when a block is due.
import type { ChainClient } from "./client.ts";
import { createBlockCadence, type BlockCadence } from "./block-cadence.ts";

export interface FollowBlocksOptions {
  /** Milliseconds between the chain's blocks (0: a block per transaction). */
  blockTimeMs: number;
  /** Called once per new head, in order (a head that skips blocks reports only the new head). */
  onHead(head: bigint, seenAt: number): void | Promise<void>;
  /** Called when the chain does not answer a poll (polling goes on, backing off up to 2 s). A listener's
   * own failure in `onHead` is its to report: it is swallowed here. */
  onError?(error: unknown): void;
  /** Stops following. */
  signal: AbortSignal;
  /** Poll interval without a block time, and the floor of the polls around an expected block (default 50 ms). */
  pollMs?: number;
  /** The cadence to record blocks in (one that outlives this follower keeps the chain's phase). */
  cadence?: BlockCadence;
}

export interface BlockFollower {
  /** The pace and phase of the blocks seen so far. */
  cadence: BlockCadence;
  /** The latest head seen, if any. */
  readonly head: bigint | undefined;
  /** Settles once following has stopped. */
  done: Promise<void>;
}

/** The poll interval around an expected block: a fiftieth of the block time, 20 to 200 ms. */
export function closePollMs(blockTimeMs: number, floorMs = 20): number {
  return Math.min(200, Math.max(floorMs, Math.round(blockTimeMs / 50)));
}

/**
 * When to poll next for a block expected at `due`: probes a quarter block, an eighth, ... before it, then
 * closely from it on until it comes. A follower that slept until the expected time would never see a
 * block before it, so a phase learned late (a first sighting made late, a node whose blocks moved) would
 * stay late: the probes see an early block early, and the cadence (which keeps the earliest phase its
 * sightings imply) moves to it within a block or two. A few polls a block, not a steady stream.
 */
export function nextPollAt(now: number, due: number, blockTimeMs: number, closeMs: number): number {
  for (let before = blockTimeMs / 4; before > closeMs; before /= 2) if (due - before > now) return due - before;
  return now >= due ? now + closeMs : Math.max(due, now + closeMs);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Follows the head of `chain` until `options.signal` aborts.
 *
 * @example
 * const stop = new AbortController();
 * const follower = followBlocks(services.chain, { blockTimeMs: 2_000, signal: stop.signal, onHead: (head) => console.log(head) });
 */
export function followBlocks(chain: ChainClient, options: FollowBlocksOptions): BlockFollower {
  const cadence = options.cadence ?? createBlockCadence(options.blockTimeMs);
  const steadyMs = options.pollMs ?? 50;
  const closeMs = options.blockTimeMs > 0 ? closePollMs(options.blockTimeMs, Math.min(steadyMs, 20)) : steadyMs;
  let head: bigint | undefined;
  const done = (async () => {
    let backoffMs = 0;
    while (!options.signal.aborted) {
      let number: bigint;
      try {
        number = await chain.client.getBlockNumber({ cacheTime: 0 });
        backoffMs = 0;
      } catch (error) {
        if (options.signal.aborted) break;
        options.onError?.(error);
        backoffMs = Math.min(2_000, backoffMs ? backoffMs * 2 : 100);
        await sleep(backoffMs, options.signal);
        continue;
      }
      if (head === undefined || number > head) {
        const seenAt = Date.now();
        // The first head read says nothing of when it was mined (it may be a block old): only a head seen
        // to change between two polls tells the cadence when a block came.
        if (head !== undefined) cadence.observe(number, seenAt);
        head = number;
        // What the listener does with a block is its own business: its failure is not the chain's.
        await Promise.resolve()
          .then(() => options.onHead(number, seenAt))
          .catch(() => undefined);
      }
      const due = head === undefined ? undefined : cadence.expectedAt(head + 1n);
      const now = Date.now();
      await sleep((due === undefined ? now + closeMs : nextPollAt(now, due, options.blockTimeMs, closeMs)) - now, options.signal);
    }
  })();
  return {
    cadence,
    get head() {
      return head;
    },
    done,
  };
}
