// What the settler's parts share during one run: the service's ports, the run's tally, and the observer
// tests and the benchmark hang on it. The parts are the lease (lease.ts), the batcher (the charges it
// holds: intake.ts, batcher.ts) and the sender (its transactions: sender.ts); settler.ts runs them.
import type { Hex } from "viem";
import type { Services } from "../services.ts";

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
  /** Batches the node's pool let go before they were mined (sent again under their nonce, higher fees). */
  dropped: number;
  /** Batches whose nonce another transaction took (their charges were checked and sent again). */
  replaced: number;
  /** Messages dropped: unreadable, or past their `not_after`. */
  discarded: number;
  /** The most authority transactions pending at once. */
  maxPending: number;
  /** Charge batches whose block left the chain (a reorganisation): sent again. */
  orphaned: number;
}

export function emptyTally(): SettlerTally {
  return { leased: false, batches: 0, charged: 0, refused: 0, skipped: 0, reverted: 0, outOfGas: 0, dropped: 0, replaced: 0, discarded: 0, maxPending: 0, orphaned: 0 };
}

/** A mined charge batch, as tests and the benchmark observe it. */
export interface BatchEvent {
  kind: "mined" | "reverted" | "out_of_gas" | "dropped" | "replaced" | "orphaned";
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

/** One run's shared parts. */
export interface PassContext {
  services: Services;
  options: SettlerOptions;
  tally: SettlerTally;
  /** Wakes the settler's loop (something may be due). */
  wake(): void;
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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
