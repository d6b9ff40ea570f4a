// The run log: every finished run's receipt is logged on-chain, many runs per transaction. A pass
// recovers what stale loggers left behind (recovery.ts), then reads the runs waiting in the
// `runlog#pending` queue (oldest first) and logs them in batches (batches.ts): each batch's runs are
// claimed, the Merkle tree of their receipt leaves built (merkle.ts, receipts.ts), the batch recorded,
// `logRuns(root, count)` sent from the protocol authority, and every run given its receipt (batch index,
// root, leaf, proof, transaction) for verifyRunReceipt. docs/design/run-log.md describes the receipt and how
// a renter verifies it.
//
// A run log is an object its caller creates and keeps (a process's loop, a function's cold start): it
// owns the turn-taking of its authority's sends and whether it said it is disabled.
import type { Services } from "../services.ts";
import { pendingLogPages, type RunLogItem } from "../runs/run.store.ts";
import { logBatch } from "./batches.ts";
import { confirmLoggedBatches } from "./finality.ts";
import { recoverStale } from "./recovery.ts";
import { runReceiptFields } from "./receipts.ts";
import { message, type RunLogContext } from "./context.ts";

/** Runs per batch unless told otherwise. */
export const DEFAULT_MAX_BATCH = 500;
/** The most runs one batch may hold (the batch item, with every run id and leaf, stays far below DynamoDB's 400 KB). */
export const MAX_BATCH_LIMIT = 1000;
/** Batches one pass sends at most unless told otherwise. */
export const DEFAULT_MAX_BATCHES = 20;
/** A claim or batch untouched for this long belongs to a logger that is gone; recovery takes it over. */
export const DEFAULT_STALE_AFTER_MS = 10 * 60_000;

export interface LogPendingRunsOptions {
  /** Runs per batch (1 to MAX_BATCH_LIMIT; default DEFAULT_MAX_BATCH). */
  maxBatch?: number;
  /** Batches sent by this pass at most (default DEFAULT_MAX_BATCHES). */
  maxBatches?: number;
  /** No new batch starts after this time (milliseconds since the epoch). */
  deadline?: number;
  /** Age after which a claim or an unfinished batch is recovered (default DEFAULT_STALE_AFTER_MS). It
   * must exceed the longest a logger may take between claiming and recording the outcome. */
  staleAfterMs?: number;
}

export interface RunLogPass {
  /** Batches whose runs this pass gave their receipts (recovered ones included). */
  batches: number;
  /** Runs this pass gave their receipt. */
  runs: number;
}

export interface RunLog {
  /**
   * One pass: recovers what stale loggers left behind, then logs the runs pending when the pass started,
   * in batches of `maxBatch`, oldest first. Rejects when the chain cannot be reached or the contract
   * refuses (the runs of the failed batch stay pending, or are recovered once stale); resolves with what
   * was logged otherwise. Without an authority key it logs nothing (and says so once per run log).
   */
  pass(options?: LogPendingRunsOptions): Promise<RunLogPass>;
}

/** A timestamp bound for gsi1sk range conditions: every key written at or before `ms` sorts below it. */
function upTo(ms: number): string {
  return `${new Date(ms).toISOString()}~`;
}

/** Finished runs waiting to be logged, oldest first, up to `limit`; runs with no valid receipt are
 * skipped (and said so). */
async function readPendingRuns(services: Services, limit: number, upper: string): Promise<RunLogItem[]> {
  const runs: RunLogItem[] = [];
  for await (const page of pendingLogPages(services.tables, limit, upper)) {
    for (const item of page) {
      try {
        runReceiptFields(item);
        runs.push(item);
      } catch (error) {
        services.logger.error("run has no valid receipt; it is not logged", { run_id: item.run_id, cause: message(error) });
      }
    }
    if (runs.length >= limit) break;
  }
  return runs.slice(0, limit);
}

/** A run log over `services`: create one per process (or function instance) and keep it. */
export function createRunLog(services: Services): RunLog {
  let sending: Promise<unknown> = Promise.resolve();
  let saidDisabled = false;
  const sendInTurn = <T>(send: () => Promise<T>): Promise<T> => {
    const result = sending.then(send);
    sending = result.catch(() => undefined);
    return result;
  };

  return {
    async pass(options = {}) {
      const authority = services.authority;
      if (!authority) {
        if (!saidDisabled) {
          saidDisabled = true;
          services.logger.warn("run log disabled: no protocol authority key is configured (AUTHORITY_PRIVATE_KEY)");
        }
        return { batches: 0, runs: 0 };
      }
      const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
      if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > MAX_BATCH_LIMIT) throw new RangeError(`maxBatch must be an integer from 1 to ${MAX_BATCH_LIMIT}`);
      const maxBatches = options.maxBatches ?? DEFAULT_MAX_BATCHES;
      const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
      const upper = upTo(Date.now());
      const context: RunLogContext = { services, authority, sendInTurn };

      // Batches logged in blocks not yet final first: one a reorganisation took away is logged again.
      await confirmLoggedBatches(context).catch((error: unknown) => services.logger.warn("run batches' finality not looked at; looked at again on the next pass", { cause: message(error) }));
      const tally = await recoverStale(context, upTo(Date.now() - staleAfterMs));
      for (let sent = 0; sent < maxBatches && (options.deadline === undefined || Date.now() < options.deadline); sent++) {
        const candidates = await readPendingRuns(services, maxBatch, upper);
        if (candidates.length === 0) break;
        const logged = await logBatch(context, candidates);
        if (logged === 0) break;
        tally.batches++;
        tally.runs += logged;
      }
      return tally;
    },
  };
}

/** One pass of a run log made for it (a one-off caller: a script, a test). */
export function logPendingRuns(services: Services, options: LogPendingRunsOptions = {}): Promise<RunLogPass> {
  return createRunLog(services).pass(options);
}
