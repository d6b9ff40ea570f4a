// The agent manifest as the OpenAPI document describes it: the request body of POST /v1/agents,
// described by the manifest's one schema (@agent-rental/core/manifest: manifestSchema, whose JSON Schema
// is manifestJsonSchema). The route's own check stays what it was, a JSON object: the registration
// queue's consumer validates with that schema and lists every problem with its JSON pointer in the job.
import { z } from "@hono/zod-openapi";
import { MANIFEST_MAX_BYTES, manifestJsonSchema } from "@agent-rental/core/manifest";

/**
 * The body of POST /v1/agents. Parsing checks what it always did (a JSON object); the document shows
 * the manifest (component `AgentManifest`).
 */
export const AgentManifestBodySchema = z.record(z.string(), z.unknown()).openapi("AgentManifest", {
  ...(manifestJsonSchema() as object),
  description: `The agent manifest (${MANIFEST_MAX_BYTES / 1024} KB at most). The request is queued at once; every rule is checked by the validator on the queue, and a failed job lists each problem with its JSON pointer (GET /v1/jobs/{job_id}).`,
});
