// Waiting for deferred charges to settle while a settler runs in the background: settler passes are run
// until the runs' records say settled. A pass's own tally is not the measure: the background settler's
// round may resolve a run first, and each settlement is counted by the one pass that records it.
import { expect } from "vitest";
import { runJob } from "../../src/jobs.ts";
import { getRuns } from "../../src/execution/runs/run.store.ts";
import type { Services } from "../../src/services.ts";
import { until } from "./until.ts";

/** Runs settler passes until every one of `runIds` is settled (bounded by `timeoutMs`). */
export async function settledByPasses(services: Services, runIds: string[], timeoutMs = 60_000): Promise<void> {
  await until(`the settlement passes to settle ${runIds.length} run(s)`, async () => {
    await runJob(services, "settler");
    const runs = await getRuns(services.tables, runIds);
    return runIds.every((id) => runs.get(id)?.settlement === "settled");
  }, timeoutMs, 200);
  const runs = await getRuns(services.tables, runIds);
  for (const id of runIds) expect(runs.get(id)?.settlement, id).toBe("settled");
}
