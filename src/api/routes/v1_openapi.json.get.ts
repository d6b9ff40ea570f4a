// GET /v1/openapi.json: the OpenAPI 3.1 description of the API, generated from the routes' schemas and
// what each route declares about itself (src/api/openapi.ts). Public.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { OPENAPI_PATH, openApiDocumentOf, registerOpenApiComponents } from "../openapi.ts";
import { answerAs, defineRoute } from "../route.ts";

export const route = defineRoute({
  method: "get",
  path: OPENAPI_PATH,
  operationId: "getOpenApiDocument",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get this OpenAPI document",
  description:
    "The OpenAPI 3.1 document of every operation, generated from the routes: their schemas, and what each declares beside them (`security`, `x-rate-limit` and its error codes per status). Needs no token.",
  responses: { 200: { description: "The OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object", additionalProperties: true } } } } },
  errors: {},
});

/** Serves the document of `api`: the app every route is mounted on, which may be another than the one
 * this route is registered on. */
export function register(app: OpenAPIHono<AppEnv>, api: OpenAPIHono<AppEnv> = app): void {
  registerOpenApiComponents(app.openAPIRegistry);
  app.openapi(route, (c) => answerAs(route, c.json(openApiDocumentOf(api, new URL(c.req.url).origin), 200)));
}
