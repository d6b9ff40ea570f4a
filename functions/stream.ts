// Lambda entry point for the streaming route (POST /v1/execute/stream) with Lambda response streaming.
import { streamHandle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { bootServices } from "../src/boot.ts";

export const handler = streamHandle(buildApp(bootServices()));
