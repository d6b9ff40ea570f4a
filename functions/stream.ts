// Lambda entry point for the streamed routes (POST /v1/execute/stream, POST /v1/mcp) with Lambda response
// streaming: a run's events and an MCP tool call's progress notifications reach the caller as they happen.
import { streamHandle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";
import { cloudSecretSettings } from "../src/adapters/secrets/sst.ts";
import { traceClients } from "../src/observability/tracing.ts";

const app = buildApp(traceClients(createServices(loadConfig({ ...process.env, ...(process.env.STAGE === "cloud" ? cloudSecretSettings() : {}) }))));

export const handler = streamHandle(app);
