// What the protected resource metadata routes share (RFC 9728; GET /.well-known/oauth-protected-resource
// and its path forms for the MCP endpoint and each A2A agent): the document they answer, for the API's
// base URL and one resource, cacheable for an hour, and the declaration of a route whose resource
// follows from the base alone.
import type { Context } from "hono";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { defineRoute } from "./route.ts";
import { apiBaseOf } from "../a2a/card.ts";
import { protectedResourceMetadata } from "../oauth/metadata.ts";
import { ProtectedResourceMetadataSchema } from "./schemas/oauth.ts";

/** The responses a protected resource metadata route declares. */
export const RESOURCE_METADATA_RESPONSES = { 200: { description: "The metadata", content: { "application/json": { schema: ProtectedResourceMetadataSchema } } } };

/** The metadata of `resource`, as a route answers it. */
export function answerResourceMetadata(c: Context<AppEnv>, base: string, resource: string) {
  c.header("Cache-Control", "public, max-age=3600");
  return c.json(protectedResourceMetadata(base, resource), 200);
}

/** A public route that answers the metadata of one resource, `resourceOf` the API's base URL. */
export function resourceMetadataRoute({ path, operationId, summary, description, resourceOf }: { path: string; operationId: string; summary: string; description: string; resourceOf: (base: string) => string }) {
  const route = defineRoute({
    method: "get",
    path,
    operationId,
    tag: "OAuth",
    access: "public",
    rateLimit: { rule: "default", failMode: "open" },
    summary,
    description,
    responses: RESOURCE_METADATA_RESPONSES,
    errors: {},
  });
  function register(app: OpenAPIHono<AppEnv>): void {
    app.openapi(route, (c) => {
      const base = apiBaseOf(c.get("services"));
      return answerResourceMetadata(c, base, resourceOf(base));
    });
  }
  return { route, register };
}
