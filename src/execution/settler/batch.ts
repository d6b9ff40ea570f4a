// The gas a batch of charges (one `consumeQueries` transaction, src/chain/consume-queries.ts) is sent with.
// eth_estimateGas runs the whole batch many times over (half a second for 500 charges on a local node),
// which a batch sent a moment before its block cannot wait for; so the limit comes from a model
// of what a charge costs, learned from the batches mined: the most a charge cost in recent batches, with
// a margin, plus a new storage word for every bitmap word the batch touches. A batch that runs out of
// gas anyway (the state changed under it) is split, and the model's allowance per charge doubles.
import type { ConsumeQueriesCharge } from "../../chain/consume-queries.ts";

export type Charge = ConsumeQueriesCharge;

/** The most gas one transaction may have (EIP-7825's cap, in force on Osaka chains). */
export const TX_GAS_CAP = 16_777_216n;
/** The transaction and the loop around the charges. */
const FIXED_GAS = 60_000n;
/** A bitmap word the batch sets for the first time: a storage slot from zero. */
const NEW_WORD_GAS = 22_100n;
/** What the model allows a charge before it has seen a batch mined (a charge measured at 9,000 to 14,000
 * gas in batches of 100, a new renter and a cold listing each). */
export const INITIAL_GAS_PER_CHARGE = 30_000;
/** Floor and ceiling of the learned allowance: a charge on a listing and a balance no earlier charge of
 * the batch touched costs up to about 20,000 (two cold slots), so the floor never starves such a batch
 * and still lets one transaction carry some 800 charges under the cap. */
const MIN_GAS_PER_CHARGE = 20_000;
const MAX_GAS_PER_CHARGE = 120_000;
/** Batches the model remembers. */
const MEMORY = 16;
/** Batches smaller than this teach nothing: their fixed costs swamp the charges'. */
const MIN_LEARNING_BATCH = 8;

/** The bitmap words a batch touches (a reference below 2^64 is bit ref & 255 of word ref >> 8). */
export function wordsOf(charges: readonly Charge[]): number {
  const words = new Set<bigint>();
  for (const c of charges) {
    const ref = BigInt(c.runRef);
    words.add(ref < 1n << 64n ? ref >> 8n : ref);
  }
  return words.size;
}

export interface GasModel {
  /** The limit a batch of these charges is sent with. */
  limitFor(charges: readonly Charge[]): bigint;
  /** How many of `charges` (oldest first) fit under `cap` gas. */
  fitting(charges: readonly Charge[], cap: bigint): number;
  /** A batch of `count` charges touching `words` bitmap words was mined having used `gasUsed`. */
  learn(count: number, words: number, gasUsed: bigint): void;
  /** A batch ran out of gas: allow every charge twice as much until batches show otherwise. */
  outOfGas(): void;
  readonly perCharge: number;
}

/**
 * @param initialPerCharge What a charge is allowed before a batch was seen mined.
 * @param margin What the dearest recent charge is multiplied by (a quarter more by default: a balance
 *   charge's cold slots vary from batch to batch).
 */
export function createGasModel(initialPerCharge = INITIAL_GAS_PER_CHARGE, margin = 1.25): GasModel {
  let perCharge = initialPerCharge;
  const seen: number[] = [];
  const limit = (count: number, words: number) => FIXED_GAS + BigInt(count) * BigInt(perCharge) + BigInt(words) * NEW_WORD_GAS;
  return {
    get perCharge() {
      return perCharge;
    },
    limitFor(charges) {
      return limit(charges.length, wordsOf(charges));
    },
    fitting(charges, cap) {
      let n = Math.min(charges.length, Number((cap - FIXED_GAS) / BigInt(perCharge)));
      while (n > 0 && limit(n, wordsOf(charges.slice(0, n))) > cap) n--;
      return Math.max(0, n);
    },
    learn(count, words, gasUsed) {
      if (count < MIN_LEARNING_BATCH) return;
      const charges = gasUsed - FIXED_GAS - BigInt(words) * NEW_WORD_GAS;
      seen.push(Math.max(0, Number(charges)) / count);
      if (seen.length > MEMORY) seen.shift();
      // The dearest recent charge, with the margin: cold slots vary from batch to batch.
      perCharge = Math.round(Math.min(MAX_GAS_PER_CHARGE, Math.max(MIN_GAS_PER_CHARGE, Math.max(...seen) * margin)));
    },
    outOfGas() {
      seen.length = 0;
      perCharge = Math.min(MAX_GAS_PER_CHARGE, Math.max(perCharge * 2, MIN_GAS_PER_CHARGE));
    },
  };
}
