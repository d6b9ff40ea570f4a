// The stale-run sweep: a run whose end was never recorded (its process died, or storage stayed down
// longer than the finishing writes' retries) would stay `running` for ever, holding its listing slot and
// its per-query reservation. Well past its timeout (STALE_AFTER_TIMEOUT_MS, longer than any request
// lives) the sweep finishes it from what the chain says: a per-query run whose charge landed is recorded
// completed with that charge (its output is what it streamed, if anything: a synchronous run's answer
// was never stored); every other run is recorded failed and free. Its holds are given back either way.
import type { Services } from "../services.ts";
import { concurrencySlots } from "../leases/concurrency.store.ts";
import { releaseReservation, settleReservation } from "../money/ledger.ts";
import { releaseSpend, settleSpend } from "../money/spend.ts";
import { earlierCharge, settlementRecorded } from "../money/settlement.ts";
import { chargeRefOf } from "./run.ts";
import { finishRun, getRun, listStaleRunningRuns } from "./run.store.ts";

export interface StaleRunSweep {
  /** Runs recorded completed with the charge found on-chain. */
  charged: number;
  /** Runs recorded failed, free. */
  failed: number;
  /** Runs left for the next sweep (the chain could not be read). */
  skipped: number;
}

/** Finishes every run still `running` past its stale time (`now` is injectable for tests). */
export async function finishStaleRuns(services: Services, now = Date.now()): Promise<StaleRunSweep> {
  return finishRuns(services, await listStaleRunningRuns(services.tables, now), now, "stale run finished by the sweep");
}

/**
 * Finishes every run still `running`, stale or not, as the sweep would: for a start that knows that no
 * process is running any run (the local stack, one per data folder under its lock: a run left `running`
 * was in flight when the previous stack was killed). Its holds (the listing's concurrency slot, the
 * per-task reservation) are given back at once instead of after the run's timeout and the sweep's margin.
 */
export async function finishInterruptedRuns(services: Services, now = Date.now()): Promise<StaleRunSweep> {
  const tally: StaleRunSweep = { charged: 0, failed: 0, skipped: 0 };
  for (;;) {
    const page = await finishRuns(services, await listStaleRunningRuns(services.tables, "any"), now, "interrupted run finished at start");
    tally.charged += page.charged;
    tally.failed += page.failed;
    tally.skipped += page.skipped;
    // A page with nothing finished (every run skipped, the chain unreadable) ends the pass: the sweep
    // finishes what is left later.
    if (page.charged + page.failed === 0) return tally;
  }
}

async function finishRuns(services: Services, items: Awaited<ReturnType<typeof listStaleRunningRuns>>, now: number, message: string): Promise<StaleRunSweep> {
  const tally: StaleRunSweep = { charged: 0, failed: 0, skipped: 0 };
  for (const item of items) {
    const run = await getRun(services.tables, item.run_id);
    if (!run || run.status !== "running") continue; // finished since the index was read
    let charge: Awaited<ReturnType<typeof earlierCharge>> = undefined;
    if (run.rental_model === "per_query") {
      try {
        charge = await earlierCharge(services, run.on_chain_id, run.wallet, chargeRefOf(run));
      } catch {
        tally.skipped++;
        continue;
      }
    }
    const finishedAt = new Date(now).toISOString();
    const durationMs = Math.max(0, now - Date.parse(run.created_at));
    const finished = charge
      ? await finishRun(services.tables, run.run_id, {
          status: "completed",
          output: run.delivery === "stream" ? (run.streamed ?? "") : null,
          streamed: run.streamed ?? "",
          cost_wei: charge.price.toString(),
          duration_ms: durationMs,
          settlement: "settled",
          settlement_tx: charge.txHash,
          finished_at: finishedAt,
        })
      : await finishRun(services.tables, run.run_id, {
          status: "failed",
          output: null,
          streamed: "",
          error: { code: "internal_error", message: "The run did not finish on the service's side; it was not charged." },
          cost_wei: "0",
          duration_ms: durationMs,
          settlement: "none",
          finished_at: finishedAt,
        });
    if (run.rental_model === "per_query") {
      const price = BigInt(run.price_wei ?? "0");
      if (charge) await Promise.all([settleReservation(services, run.on_chain_id, run.wallet, run.run_id), settleSpend(services, run.spend_holds, run.run_id, price)]);
      else await Promise.all([releaseReservation(services, run.on_chain_id, run.wallet, run.run_id), releaseSpend(services, run.spend_holds, run.run_id, price)]);
    }
    await concurrencySlots(services.tables, run.on_chain_id).remove(run.run_id);
    if (finished === "finished") {
      services.logger.warn(message, { run_id: run.run_id, charged: charge !== undefined });
      settlementRecorded(services, charge
        ? { ...run, status: "completed", duration_ms: durationMs, cost_wei: charge.price.toString(), finished_at: finishedAt }
        : { ...run, status: "failed", error: { code: "internal_error", message: "" }, duration_ms: durationMs, cost_wei: "0", finished_at: finishedAt });
      if (charge) tally.charged++;
      else tally.failed++;
    }
  }
  return tally;
}
