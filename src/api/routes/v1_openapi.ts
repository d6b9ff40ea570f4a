// GET /v1/openapi.json: the OpenAPI 3.1 description of the API, generated from the routes' schemas and
// what each route declares about itself (src/api/openapi.ts). Public.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { header, OPENAPI_PATH, registerOpenApiComponents, TAGS } from "../openapi.ts";

const DESCRIPTION = [
  "Rent AI agents on-chain and run tasks against them.",
  "",
  "**Authentication.** Every operation except sign-in, the health check, listings' public metadata, this document and its rendered reference (GET /v1/docs) requires `Authorization: Bearer <API key or JWT>`.",
  "",
  "**Errors** use the envelope `{error: {code, message, status, request_id, on_chain_error?}}`; each operation lists, per status, the codes it can return. Before routing, the HTTP server itself may answer any request with 408 `request_timeout` or 431 `headers_too_large`, and an unknown path gets 404 `not_found`, in the same envelope.",
  "",
  "**Every response** carries `X-Request-Id` and the `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` headers; 429 and 503 answers add `Retry-After`.",
].join("\n");

export function registerV1OpenApi(app: OpenAPIHono<AppEnv>): void {
  registerOpenApiComponents(app.openAPIRegistry);
  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Agent Rental and Task Execution API",
      version: "1.0.0",
      description: DESCRIPTION,
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: new URL(c.req.url).origin }],
    tags: TAGS.map((tag) => ({ ...tag })),
  }));
  // The document describes itself too, though it is served by doc31 rather than an openapi route.
  app.openAPIRegistry.registerPath({
    method: "get",
    path: OPENAPI_PATH,
    operationId: "getOpenApiDocument",
    tags: ["System"],
    summary: "Get this OpenAPI document",
    security: [],
    responses: {
      200: {
        description: "The OpenAPI 3.1 document",
        headers: { "X-Request-Id": header("X-Request-Id"), "X-RateLimit-Limit": header("X-RateLimit-Limit"), "X-RateLimit-Remaining": header("X-RateLimit-Remaining"), "X-RateLimit-Reset": header("X-RateLimit-Reset") },
        content: { "application/json": { schema: { type: "object", additionalProperties: true } } },
      },
      429: { $ref: "#/components/responses/RateLimited" },
      500: { $ref: "#/components/responses/InternalError" },
    },
  });
}
