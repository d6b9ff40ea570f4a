// GET /v1/docs: the API reference rendered by Scalar from GET /v1/openapi.json. Public. The page loads
// Scalar's standalone script from this service (GET /v1/docs/scalar.js, shipped in the
// @scalar/api-reference package), never from a CDN, so the reference works offline and under a strict
// Content-Security-Policy: one nonce per page for its inline start-up script, everything else 'self'.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../env.ts";
import { OPENAPI_PATH } from "../openapi.ts";
import { defineRoute } from "../route.ts";

export const DOCS_PATH = "/v1/docs";
export const DOCS_SCRIPT_PATH = "/v1/docs/scalar.js";

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

function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    // Scalar injects its styles at run time (and the page's theme is an inline style tag).
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const reference = (nonce: string) =>
  Scalar({
    url: OPENAPI_PATH,
    cdn: DOCS_SCRIPT_PATH,
    nonce,
    pageTitle: "Agent Rental API reference",
    // Nothing leaves for third parties: no web fonts, no telemetry, no hosted AI agent, MCP helper or
    // deploy and share toolbar (they call Scalar's services).
    withDefaultFonts: false,
    telemetry: false,
    mcp: { disabled: true },
    agent: { disabled: true },
    // Options of the rendered page that this package's configuration type does not list in every
    // version the lockfile resolves; the page reads them all the same.
    ...({ showToolbar: "never", showDeveloperTools: "never" } as Record<string, unknown>),
  });

const page = defineRoute({
  method: "get",
  path: DOCS_PATH,
  operationId: "getApiReference",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "The rendered API reference",
  description: "An HTML page that renders this document (Scalar); its script is served by GET /v1/docs/scalar.js.",
  responses: { 200: { description: "The reference page", content: { "text/html": { schema: { type: "string" } } } } },
  errors: {},
});

const pageScript = defineRoute({
  method: "get",
  path: DOCS_SCRIPT_PATH,
  operationId: "getApiReferenceScript",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "The reference page's script",
  responses: { 200: { description: "Scalar's standalone script", content: { "text/javascript": { schema: { type: "string" } } } } },
  errors: {},
});

export function registerV1Docs(app: OpenAPIHono<AppEnv>): void {
  app.openapi(page, async (c, next) => {
    const nonce = randomBytes(16).toString("base64");
    c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
    c.header("Cache-Control", "no-cache");
    // Scalar types its middleware for a plain Hono context; this one only adds typed variables.
    return (await reference(nonce)(c as never, next)) as never;
  });
  app.openapi(pageScript, async (c) => {
    const body = await standaloneScript();
    return c.body(body as Uint8Array<ArrayBuffer>, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" }) as never;
  });
}
