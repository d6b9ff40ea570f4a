// Lambda entry point of the API (API Gateway): the same Hono app the local stack serves.
import { handle } from "hono/aws-lambda";
import { buildApp } from "../src/api/app.ts";
import { loadConfig } from "../src/config.ts";
import { createServices } from "../src/services.ts";

const app = buildApp(createServices(loadConfig(process.env)));

export const handler = handle(app);
