// Lambda entry point of the chain indexer (scheduled every minute): catches the credentials index up
// with the chain, within the invocation's time budget.
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients, traced } from "../src/observability/tracing.ts";
import { catchUp } from "../src/credentials/indexer.ts";

const services = traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) })));

async function handle(_event: unknown, context?: { getRemainingTimeInMillis?: () => number }) {
  const budget = (context?.getRemainingTimeInMillis?.() ?? 55_000) - 10_000;
  const result = await catchUp(
    {
      tables: services.tables,
      chain: services.chain,
      logger: services.logger,
      fromBlock: services.config.MARKETPLACE_DEPLOY_BLOCK,
      confirmations: services.config.INDEXER_CONFIRMATIONS,
    },
    Math.max(1_000, budget),
  );
  services.logger.info("indexer caught up", result);
  return result;
}

export const handler = traced("indexer", handle);
