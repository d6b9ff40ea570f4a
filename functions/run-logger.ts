// Lambda entry point of the run logger (every minute): logs the receipts of finished runs on-chain as
// Merkle batches, and recovers batches a previous invocation left unfinished; first it retries the
// per-query charges the chain could not confirm when their runs finished.
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients, traced } from "../src/observability/tracing.ts";
import { createRunLog, type RunLogPass } from "../src/execution/run-log/pass.ts";
import { settlePendingRuns } from "../src/execution/money/settlement.ts";
import { finishStaleRuns } from "../src/execution/runs/stale-runs.ts";

const services = traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) })));
// One run log per function instance: it says once that it is disabled, and sends one batch at a time.
const runLog = createRunLog(services);

/** Time kept back for the last batch started: its transaction, its receipt and the runs' updates. */
const LAST_BATCH_MS = 25_000;

async function handle(_event: unknown, context?: { getRemainingTimeInMillis?: () => number }): Promise<RunLogPass> {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 55_000;
  // Runs whose end was never recorded (their process died): finished from what the chain says.
  const stale = await finishStaleRuns(services);
  if (stale.charged + stale.failed > 0) services.logger.warn("stale runs finished", { ...stale });
  // Settlements the chain could not confirm when their runs finished; their runs are logged once settled.
  const settled = await settlePendingRuns(services);
  if (settled.settled + settled.refused > 0) services.logger.info("pending settlements resolved", { ...settled });
  const result = await runLog.pass({ deadline: Date.now() + remaining - LAST_BATCH_MS });
  if (result.runs > 0) services.logger.info("runs logged on-chain", { ...result });
  return result;
}

export const handler = traced("run-logger", handle);
