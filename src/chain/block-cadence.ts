// When the chain's next block will come. A network on an interval (a block every 2 s on Base and OP
// chains) mines at a steady phase; a follower sees each block a little after it was mined (its poll's
// lag). From the blocks seen, the cadence keeps the chain's phase (the earliest each recent block implies,
// since a block is never seen before it is mined) and says when a block is due: the settler sends its
// batch a lead before that, and followers poll around it instead of all the time.
//
// The pace is the configured block time, never one measured: a node that mines slowly for a while (a
// Hardhat node mining blocks of hundreds of charges) stretches its gaps without changing its setting, and
// a pace learned from those gaps would put the next block late, so a batch timed by it would miss its
// block. Taken at the setting, a late block only makes the next prediction early, which costs a batch
// some of the charges it could have gathered, never its block. A block far from where it was expected
// (more than half a block) starts the phase over from it.

export interface BlockCadence {
  /** Records that block `number` was seen at `seenAt` (milliseconds since the epoch). */
  observe(number: bigint, seenAt: number): void;
  /** When block `number` is expected (milliseconds since the epoch); undefined while nothing is known or
   * on a chain that mines a block per transaction (block time 0). */
  expectedAt(number: bigint): number | undefined;
  /** The gap between blocks the cadence goes by, in milliseconds (0 without a block time). */
  readonly intervalMs: number;
}

/** Blocks the cadence remembers: enough to ride out a late sighting, few enough to follow a phase shift. */
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
  const expectedAt = (number: bigint): number | undefined => {
    if (blockTimeMs === 0 || seen.length === 0) return undefined;
    const latest = seen.at(-1)!.number;
    // Each sighting implies the phase it was seen at; the earliest is the closest to the mining.
    let phase = Number.POSITIVE_INFINITY;
    for (const s of seen) phase = Math.min(phase, s.at + Number(latest - s.number) * blockTimeMs);
    return phase + Number(number - latest) * blockTimeMs;
  };
  return {
    intervalMs: blockTimeMs,
    observe(number, seenAt) {
      const last = seen.at(-1);
      if (last && number <= last.number) return;
      // A block far from where the cadence expected it (blocks mined on demand before an interval was set,
      // a node that fell behind, a follower that stalled) starts the phase over from it.
      const expected = expectedAt(number);
      if (expected !== undefined && Math.abs(seenAt - expected) > blockTimeMs / 2) seen.length = 0;
      seen.push({ number, at: seenAt });
      if (seen.length > WINDOW) seen.shift();
    },
    expectedAt,
  };
}
