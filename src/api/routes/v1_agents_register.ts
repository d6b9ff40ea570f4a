// POST /v1/agents: registers an agent from its manifest, asynchronously (poll the job).
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { submitRegistration } from "../../registration/submit.ts";
import { bearer, errorResponses } from "../schemas.ts";

const ManifestSchema = z
  .object({
    name: z.string().openapi({ description: "Kebab-case; becomes part of the agent_id" }),
    category: z.string().openapi({ description: "finance, legal, coding, research, sales, content" }),
    description: z.string(),
    model: z.object({ provider: z.string(), model: z.string().optional(), endpoint_url: z.string().optional() }).passthrough(),
    system_prompt: z.string().optional(),
    entrypoint_url: z.string().optional(),
    tools: z.array(z.object({ name: z.string(), scope: z.string() })).optional(),
    input_schema: z.record(z.string(), z.unknown()),
    output_schema: z.record(z.string(), z.unknown()),
    timeout_seconds: z.number().int().optional(),
  })
  .passthrough()
  .openapi("AgentManifest", { description: "The agent manifest (64 KB at most). Every rule is checked by the validator on the queue; the job's error lists each problem with its JSON pointer." });

const route = createRoute({
  method: "post",
  path: "/v1/agents",
  summary: "Register an agent",
  description: "Queues the manifest for validation and answers at once. A body that is not JSON or is over 64 KB is refused here; every other problem is reported by the job (GET /v1/jobs/{job_id}).",
  security: bearer,
  request: { body: { content: { "application/json": { schema: z.record(z.string(), z.unknown()).openapi("AgentManifestBody", { description: "An AgentManifest" }) } }, required: true } },
  responses: {
    202: { description: "Queued", content: { "application/json": { schema: z.object({ job_id: z.string(), status: z.literal("queued") }).openapi("JobQueued") } } },
    ...errorResponses(400, 413, 415),
  },
});

export function registerV1AgentsRegister(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.register("AgentManifest", ManifestSchema);
  app.openapi(route, async (c) => {
    const raw = await c.req.text();
    return c.json(await submitRegistration(c.get("services"), c.get("principal").wallet, raw), 202);
  });
}
