// GET /v1/docs/scalar.js: Scalar's standalone script, which the reference page (GET /v1/docs) loads from
// this service rather than a CDN. It ships in the @scalar/api-reference package. Public.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { DOCS_SCRIPT_PATH } from "../openapi.ts";
import { answerAs, defineRoute } from "../route.ts";

/** The package's exports map names only its entry (dist/index.js); the standalone script sits beside it. */
const standalonePath = () => join(dirname(createRequire(import.meta.url).resolve("@scalar/api-reference")), "browser", "standalone.js");

// Read once per process (4 MB): the package is a runtime dependency of the API (in the cloud, the
// function bundle installs it beside the handler).
let script: Promise<Uint8Array> | undefined;
function standaloneScript(): Promise<Uint8Array> {
  script ??= readFile(standalonePath()).catch((error: unknown) => {
    script = undefined;
    throw error;
  });
  return script;
}

export const route = defineRoute({
  method: "get",
  path: DOCS_SCRIPT_PATH,
  operationId: "getApiReferenceScript",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "The reference page's script",
  description: "Scalar's standalone script, served by the API itself so GET /v1/docs requests nothing from third parties and works offline.",
  responses: { 200: { description: "Scalar's standalone script", content: { "text/javascript": { schema: { type: "string" } } } } },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = await standaloneScript();
    return answerAs(route, c.body(body as Uint8Array<ArrayBuffer>, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" }));
  });
}
