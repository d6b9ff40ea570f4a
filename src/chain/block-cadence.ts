// When the chain's next block will come. A network on an interval (a block every 2 s on Base and OP
// chains) mines at a steady phase; a follower sees each block a little after it was mined (its poll's
// lag). From the blocks seen, the cadence keeps the chain's pace (the median gap between blocks, near the
// configured block time) and its phase (the earliest each recent block implies, since a block is never
// seen before it is mined), and says when a block is due: the settler sends its batch a lead before
// that, and followers poll around it instead of all the time. (A Hardhat node on an interval keeps a
// fixed phase, each block within about 40 ms of it; the pace is taken from the first and last block of
// the window, whose lags differ by no more than that, so it drifts only when the node does.)

export interface BlockCadence {
  /** Records that block `number` was seen at `seenAt` (milliseconds since the epoch). */
  observe(number: bigint, seenAt: number): void;
  /** When block `number` is expected (milliseconds since the epoch); undefined while nothing is known or
   * on a chain that mines a block per transaction (block time 0). */
  expectedAt(number: bigint): number | undefined;
  /** The gap between blocks the cadence goes by, in milliseconds (0 without a block time). */
  readonly intervalMs: number;
}

/** Blocks the cadence remembers: enough to ride out one late sighting, few enough to follow drift. */
const WINDOW = 8;

/**
 * A cadence for a chain whose blocks are `blockTimeMs` apart (0: a block per transaction, no cadence).
 *
 * @example
 * const cadence = createBlockCadence(2_000);
 * cadence.observe(head, Date.now());
 * const sendAt = cadence.expectedAt(head + 1n)! - leadMs;
 */
export function createBlockCadence(blockTimeMs: number): BlockCadence {
  const seen: { number: bigint; at: number }[] = [];
  let interval = blockTimeMs;
  return {
    get intervalMs() {
      return interval;
    },
    observe(number, seenAt) {
      const last = seen.at(-1);
      if (last && number <= last.number) return;
      // A block far from where the cadence expected it (a node that changed pace, blocks mined on demand
      // before an interval was set, a follower that stalled) starts the cadence over from it.
      const expected = this.expectedAt(number);
      if (expected !== undefined && Math.abs(seenAt - expected) > interval / 2) {
        seen.length = 0;
        interval = blockTimeMs;
      }
      seen.push({ number, at: seenAt });
      if (seen.length > WINDOW) seen.shift();
      if (blockTimeMs > 0 && seen.length === WINDOW) {
        const first = seen[0]!;
        const pace = (seenAt - first.at) / Number(number - first.number);
        // A node under load mines a little late; the pace never strays beyond half or twice the setting.
        interval = Math.min(2 * blockTimeMs, Math.max(blockTimeMs / 2, pace));
      }
    },
    expectedAt(number) {
      if (blockTimeMs === 0 || seen.length === 0) return undefined;
      const latest = seen.at(-1)!.number;
      // Each sighting implies the phase it was seen at; the earliest is the closest to the mining.
      let phase = Number.POSITIVE_INFINITY;
      for (const s of seen) phase = Math.min(phase, s.at + Number(latest - s.number) * interval);
      return phase + Number(number - latest) * interval;
    },
  };
}
