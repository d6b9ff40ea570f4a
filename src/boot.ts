// How a Lambda function (functions/*) gets its services: the configuration from the environment plus,
// in the cloud, SST's linked secrets; the adapters from src/services.ts; the AWS clients traced. Once
// per execution environment, at its cold start, so every invocation it serves shares them.
import { loadConfig } from "./config.ts";
import { createServices, type Services } from "./services.ts";
import { cloudSecretSettings } from "./adapters/secrets/sst.ts";
import { traceClients } from "./observability/tracing.ts";

let booted: Services | undefined;

/**
 * The services of this execution environment, created on the first call.
 *
 * @example
 * export const handler = traced("api", handle(buildApp(bootServices())));
 */
export function bootServices(): Services {
  booted ??= traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) })));
  return booted;
}
