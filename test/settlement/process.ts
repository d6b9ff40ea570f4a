// One process of the settlement suite, configured from the environment as the service's processes are:
// the API served on PORT (unless SERVE_API=0) and the settler job (when RUN_SETTLER=1), in one process as
// the local stack runs them. Log lines are JSON on stdout; "ready <url>" says it serves. SIGTERM stops it
// cleanly; the suite's SIGKILL is a crash.
import { buildApp } from "../../src/api/app.ts";
import { apiUrl, closeApiServer, listenApi } from "../../src/api/server.ts";
import { loadConfig } from "../../src/config.ts";
import { startJobs } from "../../src/jobs.ts";
import { createLogger } from "../../src/logger.ts";
import { createServices } from "../../src/services.ts";

const config = loadConfig(process.env);
const services = createServices(config, { logger: createLogger(config.LOG_LEVEL, (line) => process.stdout.write(`${line}\n`)) });
const jobs = process.env.RUN_SETTLER === "1" ? startJobs(services, { only: ["settler"] }) : undefined;
const server = process.env.SERVE_API === "0" ? undefined : await listenApi(buildApp(services).fetch, config.PORT, {});
process.stdout.write(`ready ${server ? apiUrl(server) : "-"}\n`);

let stopping = false;
process.on("SIGTERM", () => {
  if (stopping) return;
  stopping = true;
  void (async () => {
    if (server) await closeApiServer(server);
    await jobs?.stop();
    await services.close();
    process.exit(0);
  })();
});
