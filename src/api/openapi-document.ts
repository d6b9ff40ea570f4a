// The OpenAPI document without a running service: the routes registered on a bare app (no services,
// no middleware), rendered the way GET /v1/openapi.json renders it. For the linter and the SDK's type
// generation (scripts/openapi-write.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { registerRoutes } from "./app.ts";
import { openApiDocumentOf } from "./openapi.ts";

/** The document as served from `origin` (its `servers` entry). */
export async function openApiDocument(origin = "http://127.0.0.1:3000"): Promise<Record<string, unknown>> {
  const app = new OpenAPIHono<AppEnv>();
  registerRoutes(app);
  return openApiDocumentOf(app, origin);
}
