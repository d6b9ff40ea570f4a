// Lambda entry point for the streaming route (POST /v1/execute/stream) with Lambda response streaming.
import { streamHandle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients } from "../src/observability/tracing.ts";

const app = buildApp(traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) }))));

export const handler = streamHandle(app);
