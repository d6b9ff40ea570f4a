// Lambda entry point of the API (API Gateway): the same Hono app the local stack serves.
import { handle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients, traced } from "../src/observability/tracing.ts";

const app = buildApp(traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) }))));

export const handler = traced("api", handle(app));
