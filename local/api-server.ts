// The API alone, as one process, configured from the environment (the same variables the Lambda
// functions receive). The local stack serves the API in-process; this entry serves it against stores
// that are already running, for example a stack started elsewhere or the benchmarks.
import { buildApp } from "../src/api/app.ts";
import { apiUrl, httpTimeouts, listenApi } from "../src/api/server.ts";
import { ConfigError, loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
const services = createServices(config);
const server = await listenApi(buildApp(services).fetch, config.PORT, { timeouts: httpTimeouts(config), logger: services.logger });
process.stdout.write(`API listening on ${apiUrl(server)}\n`);
// In-flight requests finish; idle kept-alive connections are closed at once.
const stop = () => server.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
