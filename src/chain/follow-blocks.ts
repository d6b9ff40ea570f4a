// Follows the chain's head (eth_blockNumber) and reports each new block once, in order, with when it
// was seen. On a chain with a block time it polls around the block it expects (block-cadence.ts): a
// few probes before it and short polls from it on, instead of a steady stream, and a block seen within
// one short poll of its arrival. On a chain that mines per transaction it polls at a steady short
// interval. Hand-written: viem's watchBlockNumber polls at one fixed interval, which is either slow to
// see a block or costly in requests to a hosted node, and reports nothing about when a block is due.
//
// A block once seen is not final: the follower reads the head's header (number, hash, parent) and keeps
// the hashes of the blocks it saw, so it notices a head that went back, or changed under the same or a
// higher number (a reorganisation), and reports the last block both chains share before the new head.
import type { Hex } from "viem";
import type { ChainClient } from "./client.ts";
import { createBlockCadence, type BlockCadence } from "./block-cadence.ts";

/** The header of a head the follower saw. */
export interface SeenBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  baseFeePerGas?: bigint | null;
  gasLimit: bigint;
}

/** A reorganisation: the blocks after `fork` that the follower saw left the chain. */
export interface Reorg {
  /** The last block the old and the new chain share (every block after it left the chain). */
  fork: bigint;
  /** The head before, and the new head. */
  from: bigint;
  to: bigint;
  /** True when the follower remembers no block both chains share (deeper than it keeps hashes for):
   * `fork` is then the oldest block it knew, minus one. */
  deep: boolean;
}

export interface FollowBlocksOptions {
  /** Milliseconds between the chain's blocks (0: a block per transaction). */
  blockTimeMs: number;
  /** Called once per new head, in order (a head that skips blocks reports only the new head), with its
   * header; after a reorganisation, again for the new chain's head. */
  onHead(head: bigint, seenAt: number, block: SeenBlock): void | Promise<void>;
  /** Called before the new head when blocks the follower saw left the chain. */
  onReorg?(reorg: Reorg): void | Promise<void>;
  /** Block hashes remembered (default 256): a reorganisation deeper than that is reported `deep`. */
  keepBlocks?: number;
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
async function headerOf(chain: ChainClient, at: bigint | "latest"): Promise<SeenBlock> {
  const block = await chain.client.getBlock(at === "latest" ? { blockTag: "latest" } : { blockNumber: at });
  return { number: block.number, hash: block.hash, parentHash: block.parentHash, baseFeePerGas: block.baseFeePerGas, gasLimit: block.gasLimit };
}

/**
 * The hashes of the blocks seen, and the check of a new head against them. A new head that descends
 * from the last one seen (its parent is the last head, or the last head is still on the chain under a
 * head that skipped blocks) is no reorganisation; otherwise the chain is read down from the new head
 * to the highest block remembered with the same hash: the fork.
 */
function createChainMemory(chain: ChainClient, keep: number) {
  const hashes = new Map<bigint, Hex>();
  const remember = (block: Pick<SeenBlock, "number" | "hash">) => {
    hashes.set(block.number, block.hash);
    for (const n of hashes.keys()) if (n <= block.number - BigInt(keep) || n > block.number) hashes.delete(n);
  };
  const sameAt = async (n: bigint) => hashes.get(n) === (await headerOf(chain, n).catch(() => undefined))?.hash;
  return {
    remember,
    /** The reorganisation `block` reveals, if any (the remembered hashes are trimmed to the new chain). */
    async check(block: SeenBlock, head: bigint): Promise<Reorg | undefined> {
      if (block.number > head) {
        const parent = hashes.get(block.number - 1n);
        if (parent !== undefined && parent === block.parentHash) return undefined;
        if (parent === undefined && (await sameAt(head))) return undefined;
      } else if (hashes.get(block.number) === block.hash && block.number === head) return undefined;
      const known = [...hashes.keys()].filter((n) => n < block.number || (n === block.number && hashes.get(n) === block.hash)).sort((a, b) => (a < b ? 1 : -1));
      let fork: bigint | undefined;
      for (const n of known) {
        if (n === block.number || (await sameAt(n))) {
          fork = n;
          break;
        }
      }
      const oldest = [...hashes.keys()].reduce((min, n) => (n < min ? n : min), head);
      for (const n of [...hashes.keys()]) if (fork === undefined || n > fork) hashes.delete(n);
      return { fork: fork ?? oldest - 1n, from: head, to: block.number, deep: fork === undefined };
    },
  };
}

export function followBlocks(chain: ChainClient, options: FollowBlocksOptions): BlockFollower {
  const cadence = options.cadence ?? createBlockCadence(options.blockTimeMs);
  const steadyMs = options.pollMs ?? 50;
  const closeMs = options.blockTimeMs > 0 ? closePollMs(options.blockTimeMs, Math.min(steadyMs, 20)) : steadyMs;
  const memory = createChainMemory(chain, options.keepBlocks ?? 256);
  let head: bigint | undefined;
  let headHash: Hex | undefined;
  // What a listener does with a block is its own business: its failure is not the chain's.
  const tell = (listen: () => void | Promise<void>) => Promise.resolve().then(listen).catch(() => undefined);
  const done = (async () => {
    let backoffMs = 0;
    while (!options.signal.aborted) {
      let block: SeenBlock;
      let reorg: Reorg | undefined;
      try {
        block = await headerOf(chain, "latest");
        if (head !== undefined && (block.number !== head || block.hash !== headHash)) reorg = await memory.check(block, head);
        backoffMs = 0;
      } catch (error) {
        if (options.signal.aborted) break;
        options.onError?.(error);
        backoffMs = Math.min(2_000, backoffMs ? backoffMs * 2 : 100);
        await sleep(backoffMs, options.signal);
        continue;
      }
      if (reorg) await tell(() => options.onReorg?.(reorg));
      if (head === undefined || block.number > head || reorg) {
        const seenAt = Date.now();
        // The first head read says nothing of when it was mined (it may be a block old): only a head seen
        // to change between two polls tells the cadence when a block came.
        if (head !== undefined && !reorg) cadence.observe(block.number, seenAt);
        head = block.number;
        headHash = block.hash;
        memory.remember(block);
        const number = block.number;
        await tell(() => options.onHead(number, seenAt, block));
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
