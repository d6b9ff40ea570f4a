// GET /v1/runs: the caller's runs of a listing, newest first (the run history a renter reads a run
// again from, or rates it).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { listOwnRuns, RUNS_PAGE_DEFAULT, RUNS_PAGE_MAX } from "../../execution/runs/history.ts";
import { runSummaryBody } from "../run-json.ts";
import { defineRoute } from "../route.ts";
import { RunSummarySchema } from "../schemas/execution.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/runs",
  operationId: "listRuns",
  tag: "Runs",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "List your runs of a listing",
  description:
    "The calling wallet's runs of one listing (listing_id, required), newest first, however they were made (execute, its stream, MCP, A2A): each with every field of GET /v1/runs/{run_id} but its output, which that route gives. " +
    `limit: 1 to ${RUNS_PAGE_MAX} (default ${RUNS_PAGE_DEFAULT}); cursor: the next_cursor of the previous page (null on the last page). ` +
    "Another wallet's runs are never listed; a listing the wallet never ran gives an empty list. A completed run whose receipt is logged can be rated (POST /v1/runs/{run_id}/feedback).",
  request: {
    query: z.object({
      listing_id: z.string().max(100).openapi({ description: "The listing (lst_…, or its 0x on-chain id)" }),
      limit: z.coerce.number().int().min(1).max(RUNS_PAGE_MAX).default(RUNS_PAGE_DEFAULT),
      cursor: z.string().max(512).optional(),
    }),
  },
  responses: {
    200: {
      description: "A page of runs",
      content: { "application/json": { schema: z.object({ listing_id: z.string(), runs: z.array(RunSummarySchema), next_cursor: z.string().nullable() }).openapi("RunList") } },
    },
  },
  errors: { 400: ["invalid_request", "invalid_listing_id"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const page = await listOwnRuns(c.get("services").tables, c.get("principal").wallet, query.listing_id, { limit: query.limit, cursor: query.cursor });
    return c.json({ listing_id: page.listing_id, runs: page.runs.map(runSummaryBody), next_cursor: page.next_cursor }, 200);
  });
}
