// POST /v1/execute: runs a task synchronously and answers with the Run.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { performRun } from "../../execution/perform.ts";
import { waitForRun } from "../../execution/idempotency/protocol.ts";
import { claimedRuns } from "../../execution/runs/run.store.ts";
import { admitFromRequest, EXECUTE_ERRORS } from "../execution.ts";
import { ExecuteRequestSchema, RunSchema } from "../schemas/execution.ts";
import { finishedRunBody, runBody } from "../run-json.ts";
import { requestHeader } from "../openapi.ts";
import { defineRoute } from "../route.ts";
import { runFinished, runStarted } from "../../observability/run-metrics.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/execute",
  operationId: "executeTask",
  tag: "Execution",
  access: "bearer",
  oauthScope: "tasks:run",
  rateLimit: { rule: "execution", failMode: "closed" }, // a run spends the renter's balance, our compute and the charge's gas
  summary: "Run a task",
  description:
    "Authenticates the caller, verifies the on-chain credential of the caller's wallet for the agent, runs the task in a fresh sandbox and returns the Run. A failed run is still 200 with status failed. Send an Idempotency-Key header to make retries safe: a retry returns the first run's result and is never charged again.",
  parameters: [requestHeader("IdempotencyKey")],
  request: { body: { content: { "application/json": { schema: ExecuteRequestSchema } }, required: true } },
  responses: {
    200: { description: "The run (completed or failed)", content: { "application/json": { schema: RunSchema } } },
  },
  errors: EXECUTE_ERRORS,
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const admitted = await admitFromRequest(c, "execute", c.req.valid("json"));
    if (admitted.kind === "existing") {
      c.set("runId", admitted.runId);
      const record = await waitForRun(claimedRuns(services.tables), admitted, 310_000);
      if (record.status === "running") throw new ApiError("service_unavailable", `Run ${admitted.runId} of this Idempotency-Key is still in flight; retry.`, { headers: { "Retry-After": "5" } });
      return c.json(finishedRunBody(record), 200);
    }
    // A run whose charge is not confirmed yet is still a finished run: answered 200 with its output
    // withheld and `settlement: "pending"`, never an error a client would retry into a second run.
    c.set("runId", admitted.admission.run.run_id);
    runStarted(services.metrics, admitted.admission, c.get("receivedAt"));
    const { response, settlementPending } = await performRun(services, admitted.admission, { stream: false });
    runFinished(services, response, settlementPending);
    return c.json(runBody(response, settlementPending), 200);
  });
}
