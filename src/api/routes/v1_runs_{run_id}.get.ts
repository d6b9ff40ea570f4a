// GET /v1/runs/{run_id}: a run, to the wallet that ran it: status, output, cost, duration, settlement and
// the receipt's on-chain reference once the run log has recorded it.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { RUN_ID } from "../../execution/runs/run.ts";
import { getRun } from "../../execution/runs/run.store.ts";
import { runDetailBody } from "../run-json.ts";
import { defineRoute } from "../route.ts";
import { RunDetailSchema } from "../schemas/execution.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/runs/{run_id}",
  operationId: "getRun",
  tag: "Runs",
  access: "bearer",
  oauthScope: "tasks:run",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Get a run",
  description:
    "A run, to the wallet that ran it (another wallet's run is 404 not_found, as a missing one): its status, output, cost, duration and settlement, and its receipt in the on-chain run log once a batch has logged it (every minute in the cloud). `output` is null while the run is in flight and while a per-query charge is unconfirmed (`settlement: pending`); a failed synchronous run's partial output is never shown. cost_wei is an exact JSON integer, in the smallest unit of the run's `currency` (its listing's: ETH, or the token a TokenMarketplace listing is priced in).",
  request: { params: z.object({ run_id: z.string() }) },
  responses: {
    200: { description: "The run", content: { "application/json": { schema: RunDetailSchema } } },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const runId = c.req.valid("param").run_id;
    const record = RUN_ID.test(runId) ? await getRun(c.get("services").tables, runId) : null;
    // Another wallet's run is as unknown as one that does not exist.
    if (!record || record.wallet !== c.get("principal").wallet.toLowerCase()) throw new ApiError("not_found", `No run ${runId} for this wallet.`);
    return c.json(runDetailBody(record), 200);
  });
}
