// Lambda entry point for the streamed routes (POST /v1/execute/stream, POST /v1/mcp, /v1/mcp/x402) with Lambda response
// streaming: a run's events and an MCP tool call's progress notifications reach the caller as they happen.
import { streamHandle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { bootServices } from "../src/boot.ts";

export const handler = streamHandle(buildApp(bootServices()));
