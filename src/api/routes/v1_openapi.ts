// GET /v1/openapi.json: the OpenAPI 3.1 description of the API, generated from the routes' schemas.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";

export function registerV1OpenApi(app: OpenAPIHono<AppEnv>): void {
  app.doc31("/v1/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Agent Rental and Task Execution API",
      version: "1.0.0",
      description:
        "Rent AI agents on-chain and run tasks against them. Every endpoint except sign-in, this document and the health check requires `Authorization: Bearer <API key or JWT>`. Errors use the envelope `{error: {code, message, status, request_id, on_chain_error?}}`.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key (svc_test_… / svc_live_…) or a wallet-signature JWT from POST /v1/auth/token.",
  });
}
