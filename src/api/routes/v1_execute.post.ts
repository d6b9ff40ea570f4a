// POST /v1/execute: runs a task synchronously and answers with the Run.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { performRun } from "../../execution/perform.ts";
import { waitForRun } from "../../execution/idempotency/protocol.ts";
import { claimedRuns } from "../../execution/runs/run.store.ts";
import { admitFromRequest, admitPaidFromRequest, EXECUTE_ERRORS, paidByX402, setPaymentResponse } from "../execution.ts";
import { ExecuteRequestSchema, RunSchema } from "../schemas/execution.ts";
import { finishedRunBody, runBody } from "../run-json.ts";
import { header, requestHeader } from "../openapi.ts";
import { defineRoute } from "../route.ts";
import { runFinished, runStarted } from "../../observability/run-metrics.ts";

export const route = defineRoute({
  method: "post",
  path: "/v1/execute",
  operationId: "executeTask",
  tag: "Execution",
  access: "bearer",
  payableBy: "x402",
  oauthScope: "tasks:run",
  rateLimit: { rule: "execution", failMode: "closed" }, // a run spends the renter's balance, our compute and the charge's gas
  summary: "Run a task",
  description:
    "Authenticates the caller, verifies the on-chain credential of the caller's wallet for the agent, runs the task in a fresh sandbox and returns the Run. A failed run is still 200 with status failed. Send an Idempotency-Key header to make retries safe: a retry returns the first run's result and is never charged again. A per-task listing priced in an EIP-3009 token (USDC) is also paid per run by x402 v2, without Authorization: the request without it is answered 402 with a PAYMENT-REQUIRED header; the retry with PAYMENT-SIGNATURE runs the task, settles the payment only if the run completed, and answers once the payment is in a block, with a PAYMENT-RESPONSE header (success, transaction, network, payer). A refused payment is 402 with the reason in PAYMENT-REQUIRED; nothing runs.",
  parameters: [requestHeader("IdempotencyKey"), requestHeader("PaymentSignature")],
  request: { body: { content: { "application/json": { schema: ExecuteRequestSchema } }, required: true } },
  responses: {
    200: { description: "The run (completed or failed)", headers: { "PAYMENT-RESPONSE": header("PAYMENT-RESPONSE") }, content: { "application/json": { schema: RunSchema } } },
  },
  errors: EXECUTE_ERRORS,
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    if (paidByX402(c)) {
      const paid = await admitPaidFromRequest(c, "execute", c.req.valid("json"));
      c.set("runId", paid.admission.run.run_id);
      runStarted(services.metrics, paid.admission, c.get("receivedAt"));
      const result = await performRun(services, paid.admission, { stream: false, payment: paid.payment });
      runFinished(services, result.response, result.settlementPending);
      setPaymentResponse(c, paid, result);
      return c.json(runBody(result.response, result.settlementPending), 200);
    }
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
