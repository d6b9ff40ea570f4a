// The background work of a long-lived process, one pass every interval (never two at once): runs whose
// end was never recorded are finished first, runs whose charge is still unconfirmed are settled next
// (the run log does not log them until they are), then the run log's pass.
import type { Services } from "../../services.ts";
import { settlePendingRuns } from "../money/settlement.ts";
import { finishStaleRuns } from "../runs/stale-runs.ts";
import { message } from "./context.ts";
import { createRunLog, type LogPendingRunsOptions } from "./pass.ts";

export interface RunLogLoop {
  /** Stops the loop; resolves once the pass in flight (if any) has finished. */
  stop(): Promise<void>;
}

/** Runs a pass every `intervalMs` until stopped: the run log of a long-lived process. */
export function startRunLogLoop(services: Services, options: { intervalMs: number } & Omit<LogPendingRunsOptions, "deadline">): RunLogLoop {
  const { intervalMs, ...passOptions } = options;
  const runLog = createRunLog(services);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        await finishStaleRuns(services);
        await settlePendingRuns(services);
        const pass = await runLog.pass(passOptions);
        if (pass.runs > 0) services.logger.debug("run log pass", { ...pass });
      } catch (error) {
        services.logger.warn("run log pass failed; retried on the next pass", { cause: message(error) });
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
