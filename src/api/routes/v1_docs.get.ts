// GET /v1/docs: the API reference rendered by Scalar from GET /v1/openapi.json. Public. The page loads
// Scalar's standalone script from this service (GET /v1/docs/scalar.js), never from a CDN, so the
// reference works offline and under a strict Content-Security-Policy: one nonce per page for its inline
// start-up script, everything else 'self'.
import { randomBytes } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../env.ts";
import { DOCS_PATH, DOCS_SCRIPT_PATH, OPENAPI_PATH } from "../openapi.ts";
import { answerAs, defineRoute } from "../route.ts";

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

export const route = defineRoute({
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

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c, next) => {
    const nonce = randomBytes(16).toString("base64");
    c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
    c.header("Cache-Control", "no-cache");
    // Scalar types its middleware for a plain Hono context (this one only adds typed variables), and
    // answers the page itself (c.html).
    const page = await reference(nonce)(c as unknown as Parameters<ReturnType<typeof reference>>[0], next);
    return answerAs(route, page ?? c.res);
  });
}
