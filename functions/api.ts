// Lambda entry point of the API (API Gateway): the same Hono app the local stack serves.
import { handle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { bootServices } from "../src/boot.ts";
import { traced } from "../src/observability/tracing.ts";

export const handler = traced("api", handle(buildApp(bootServices())));
