// GET /v1/jobs/{job_id}: a registration job, to the creator who submitted it.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { getJob } from "../../registration/jobs.ts";
import { defineRoute } from "../route.ts";
import { JobStatusSchema } from "../schemas/common.ts";

const JobSchema = z
  .object({
    job_id: z.string(),
    status: JobStatusSchema,
    result: z
      .object({ agent_id: z.string(), listing_id: z.string(), listing_seed: z.string(), metadata_uri: z.string(), market: z.literal("token").optional().openapi({ description: "Registered with market=token: create the listing on the TokenMarketplace." }) })
      .optional()
      .openapi({ description: "On completed. Create the listing on-chain with createListing(listing_seed, rental model, price, metadata_uri)." }),
    error: z
      .object({ code: z.string(), message: z.string(), details: z.array(z.object({ pointer: z.string(), code: z.string(), message: z.string() })).optional() })
      .optional()
      .openapi({ description: "On failed: every problem of the manifest with its JSON pointer" }),
  })
  .openapi("Job");

export const route = defineRoute({
  method: "get",
  path: "/v1/jobs/{job_id}",
  operationId: "getJob",
  tag: "Jobs",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a registration job",
  description:
    "A registration job of the caller: `queued`, then `completed` with the ids createListing needs (agent_id, listing_id, listing_seed, metadata_uri), or `failed` with every problem of the manifest, each with its JSON pointer. Another wallet's job is 404 not_found, as a missing one.",
  request: { params: z.object({ job_id: z.string() }) },
  responses: {
    200: { description: "The job", content: { "application/json": { schema: JobSchema } } },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const jobId = c.req.valid("param").job_id;
    const job = /^job_[0-9a-f]{24}$/.test(jobId) ? await getJob(c.get("services").tables, jobId) : null;
    // Another wallet's job is as unknown as one that does not exist.
    if (!job || job.wallet !== c.get("principal").wallet.toLowerCase()) throw new ApiError("not_found", `No job ${jobId} for this wallet.`);
    return c.json(
      { job_id: job.job_id, status: job.status, ...(job.status === "completed" && job.result ? { result: job.result } : {}), ...(job.status === "failed" && job.error ? { error: job.error } : {}) },
      200,
    );
  });
}
