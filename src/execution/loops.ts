// The execution's background work for a long-running process (the local stack): settlements left
// pending when the chain was unreachable, and the batched run log. One pass per interval, never
// overlapping; stop() waits for the pass in flight. In the cloud the same passes run on a schedule
// (functions/run-logger.ts).
import type { Services } from "../services.ts";
import { settlePendingRuns } from "./settlement.ts";
import { logPendingRuns } from "./run-log.ts";

export function startExecutionLoops(services: Services, options: { intervalMs: number }): { stop(): Promise<void> } {
  let stopped = false;
  let pass: Promise<void> | undefined;
  const tick = () => {
    if (stopped || pass) return;
    pass = (async () => {
      try {
        await settlePendingRuns(services);
        await logPendingRuns(services);
      } catch (error) {
        services.logger.warn("execution background pass failed; retried next interval", { cause: error instanceof Error ? error.message : String(error) });
      }
    })().finally(() => void (pass = undefined));
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pass;
    },
  };
}
