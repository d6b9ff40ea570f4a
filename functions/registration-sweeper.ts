// Lambda entry point of the registration sweeper (every 5 minutes): re-enqueues jobs whose message
// was lost.
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients, traced } from "../src/observability/tracing.ts";
import { sweepQueuedJobs } from "../src/registration/process.ts";

const services = traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) })));

async function handle(): Promise<{ requeued: number }> {
  const requeued = await sweepQueuedJobs(services);
  if (requeued > 0) services.logger.info("registration jobs re-enqueued", { requeued });
  return { requeued };
}

export const handler = traced("registration-sweeper", handle);
