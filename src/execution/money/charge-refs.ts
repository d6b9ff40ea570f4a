// Dense charge references: the number a per-query run is charged under on-chain (its `runRef`). The
// contract marks a charged reference below 2^64 as one bit of a 256-bit storage word (reference >> 8
// is the word, reference & 255 the bit), so charges whose references share a word share one storage
// write: that is most of what makes a batched charge cheap (docs/design/settlement.md). Each process
// therefore takes references in aligned blocks of 256 from one counter (charge-refs.store.ts) and
// hands them to its runs in order, so the runs one process admits around the same time (the ones a
// batch carries together) sit in the same word.
//
// A reference is handed out once and stored in the run's record at admission, before anything can
// charge it; references a process never used (it stopped mid-block) are simply never charged.
import { toHex } from "viem";

/** References per block: one storage word of the contract's bitmap. */
export const CHARGE_REF_BLOCK = 256;

export interface ChargeRefs {
  /** The next unused reference of this process (claims a new block when its block is used up). */
  next(): Promise<number>;
}

/**
 * A process's charge references, from `claim` (a block's first reference; each call a new block).
 * Concurrent callers share one claim in flight, and each reference is given to exactly one caller.
 *
 * @example
 * // src/services.ts: one per process, over the counter in `meta`
 * const refs = createChargeRefs(() => claimChargeRefBlock(tables, CHARGE_REF_BLOCK));
 * const ref = await refs.next();
 */
export function createChargeRefs(claim: () => Promise<number>, size = CHARGE_REF_BLOCK): ChargeRefs {
  let next = 0;
  let end = 0;
  let claiming: Promise<void> | undefined;
  const refill = () =>
    (claiming ??= claim()
      .then((start) => {
        next = start;
        end = start + size;
      })
      .finally(() => (claiming = undefined)));
  return {
    async next() {
      // Each waiter takes a reference as soon as a block is there; a block used up by the waiters before
      // it is claimed again (more than `size` at once) sends the rest round for another.
      while (next >= end) await refill();
      return next++;
    },
  };
}

/** A charge reference as the contract's bytes32 `runRef`. */
export function chargeRefHex(ref: number | bigint | string): `0x${string}` {
  return toHex(BigInt(ref), { size: 32 });
}

/** A stored reference (decimal text) read back, or undefined when it is not one. */
export function parseChargeRef(value: unknown): number | undefined {
  if (typeof value !== "string" || !/^[1-9][0-9]{0,15}$/.test(value)) return undefined;
  const ref = Number(value);
  return Number.isSafeInteger(ref) ? ref : undefined;
}
