// The writers' entry points: the settlement (a run's settled outcome), the run log (a receipt logged)
// and the indexer (marketplace events) hand their facts here. A run's facts are applied in the
// background, so the settlement that hands one over waits for nothing but this call (the roll-ups are
// not on the run's answer path); each is retried, and what a crash loses the rebuild restores
// (rebuild.ts). Chain facts are applied before the indexer moves its cursor, so a crash replays them.
import pRetry from "p-retry";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { Logger } from "../logger.ts";
import { getRun } from "../execution/runs/run.store.ts";
import { encodeOutcome } from "./adjust.ts";
import { applyFact, receiptTargets, receiptToken, runTargets, runToken, type SettledRunFact } from "./rollups.ts";

const inFlight = new Set<Promise<unknown>>();
/** Roll-up writes run at most this many at a time; the rest wait their turn in order. A run-log batch of
 * a thousand receipts would otherwise start a thousand writes at once against the table the run log and
 * the settlement write to. */
const WRITERS = 8;
let running = 0;
const waiting: (() => void)[] = [];

async function turn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= WRITERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function background(logger: Pick<Logger, "warn">, what: string, work: () => Promise<unknown>): void {
  const done: Promise<unknown> = turn(() => pRetry(work, { retries: 4, minTimeout: 50, maxTimeout: 2_000 }))
    .catch((error: unknown) => logger.warn(`analytics roll-up not written: ${what}`, { cause: error instanceof Error ? error.message : String(error) }))
    .finally(() => inFlight.delete(done));
  inFlight.add(done);
}

/** Resolves when every roll-up write this process started has ended (tests, the benchmark, shutdown). */
export async function rollupsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}

/** Counts a run whose settlement is recorded (once per run, whoever calls). Returns at once. */
export function recordSettledRun(tables: Tables, logger: Pick<Logger, "warn">, run: SettledRunFact): void {
  background(logger, run.run_id, () => applyFact(tables, runToken(run.run_id), runTargets(run), { listing: run.on_chain_id, detail: { outcome: encodeOutcome(run) } }));
}

/** Counts a run's receipt logged on-chain (once per run). Returns at once. */
export function recordReceipt(tables: Tables, logger: Pick<Logger, "warn">, runId: string): void {
  background(logger, runId, async () => {
    const run = await getRun(tables, runId);
    if (!run?.finished_at || run.log_state !== "logged") return;
    await applyFact(tables, receiptToken(runId), receiptTargets({ run_id: runId, on_chain_id: run.on_chain_id, finished_at: run.finished_at }), { listing: run.on_chain_id });
  });
}
