// POST /v1/agents: registers an agent from its manifest, asynchronously (poll the job).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { submitRegistration } from "../../registration/submit.ts";
import { defineRoute } from "../route.ts";
import { AgentManifestBodySchema } from "../schemas/manifest.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/agents",
  operationId: "registerAgent",
  tag: "Agents",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" }, // registration is queued and validated asynchronously; no money moves
  summary: "Register an agent",
  description:
    "Queues the manifest for validation and answers at once. A body that is not JSON or is over 64 KB is refused here; every other problem is reported by the job (GET /v1/jobs/{job_id}). " +
    "With `market=token` the agent is to be listed on the TokenMarketplace, priced in a token: the job's listing_id is that contract's listingIdOf(creator, listing_seed), and the creator calls its createListing(listing_seed, token, …).",
  request: {
    query: z.object({ market: z.enum(["eth", "token"]).optional().openapi({ description: "The marketplace the agent is listed on: eth (default) or token (priced in an allowed ERC-20)." }) }),
    body: { content: { "application/json": { schema: AgentManifestBodySchema } }, required: true },
  },
  responses: {
    202: { description: "Queued", content: { "application/json": { schema: z.object({ job_id: z.string(), status: z.literal("queued") }).openapi("JobQueued") } } },
  },
  errors: { 400: ["invalid_request"], 403: ["creator_not_approved"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const raw = await c.req.text();
    const market = c.req.valid("query").market;
    return c.json(await submitRegistration(c.get("services"), c.get("principal").wallet, raw, market === "token" ? { market } : {}), 202);
  });
}
