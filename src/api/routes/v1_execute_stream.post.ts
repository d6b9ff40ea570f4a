// POST /v1/execute/stream: runs a task and streams it as Server-Sent Events: `output` {delta} while the
// agent produces output, then one `done` with the Run. Every refusal happens before the stream opens
// (a JSON error, as on /v1/execute). Event ids are offsets into the output; a client that lost the
// connection resumes with the same Idempotency-Key and Last-Event-ID (or GET /v1/runs/{run_id}/events).
// A client that disconnects does not stop its run: it finishes, is charged as usual, and stays
// retrievable. A per-query run whose charge cannot be confirmed yet ends with a `done` whose output is
// null and `settlement: "pending"` (the result is released by GET /v1/runs/{run_id} once paid).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "../env.ts";
import { performRun } from "../../execution/perform.ts";
import { claimedRun } from "../../execution/idempotency/protocol.ts";
import { claimedRuns } from "../../execution/runs/run.store.ts";
import { admitFromRequest, admitPaidFromRequest, EXECUTE_ERRORS, paidByX402, setPaymentResponse } from "../execution.ts";
import { ExecuteRequestSchema } from "../schemas/execution.ts";
import { doneEvent, outputEvent, parseLastEventId, runEvents, type StreamEvent } from "../run-events.ts";
import { runBody } from "../run-json.ts";
import { header, requestHeader } from "../openapi.ts";
import { answerAs, defineRoute } from "../route.ts";
import { runEventStream } from "../schemas/run-events.ts";
import { runFinished, runStarted } from "../../observability/run-metrics.ts";

export const RUN_ID_HEADER = "X-Run-Id";

export const route = defineRoute({
  method: "post",
  path: "/v1/execute/stream",
  operationId: "streamTask",
  tag: "Execution",
  access: "bearer",
  payableBy: "x402",
  oauthScope: "tasks:run",
  rateLimit: { rule: "execution", failMode: "closed" }, // a run spends the renter's balance, our compute and the charge's gas
  summary: "Run a task, streamed",
  description:
    "Same request as POST /v1/execute. The response is text/event-stream: `output` events with data {delta} and ids (offsets into the output), then one `done` event with the Run (run_id, status, output, cost_wei, duration_ms). The run id is in the X-Run-Id header. Resume a dropped stream with the same Idempotency-Key and a Last-Event-ID header, or with GET /v1/runs/{run_id}/events. Paid by x402 (as POST /v1/execute), the output is released only once the payment is in a block: the stream opens then, with the whole output in one `output` event and the PAYMENT-RESPONSE header.",
  parameters: [requestHeader("IdempotencyKey"), requestHeader("LastEventId"), requestHeader("PaymentSignature")],
  request: { body: { content: { "application/json": { schema: ExecuteRequestSchema } }, required: true } },
  responses: {
    200: { description: "The event stream: `output` events, then one `done` event", headers: { [RUN_ID_HEADER]: header("X-Run-Id"), "PAYMENT-RESPONSE": header("PAYMENT-RESPONSE") }, content: runEventStream },
  },
  errors: EXECUTE_ERRORS,
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    c.header("Cache-Control", "no-cache");
    c.header("X-Accel-Buffering", "no");
    if (paidByX402(c)) {
      // Nothing leaves before the payment is in a block: the run is performed first, then streamed.
      const paid = await admitPaidFromRequest(c, "execute/stream", c.req.valid("json"));
      const runId = paid.admission.run.run_id;
      c.header(RUN_ID_HEADER, runId);
      c.set("runId", runId);
      runStarted(services.metrics, paid.admission, c.get("receivedAt"));
      const result = await performRun(services, paid.admission, { stream: true, payment: paid.payment });
      runFinished(services, result.response, result.settlementPending);
      setPaymentResponse(c, paid, result);
      const { response, settlementPending } = result;
      return answerAs(route, streamSSE(c, async (stream) => {
        const text = typeof response.output === "string" ? response.output : response.output === null || response.output === undefined ? "" : JSON.stringify(response.output);
        if (!settlementPending && text.length > 0) await stream.writeSSE(outputEvent(text, text.length));
        await stream.writeSSE(doneEvent(settlementPending ? runBody({ ...response, output: null }, true) : runBody(response)));
      }));
    }
    const admitted = await admitFromRequest(c, "execute/stream", c.req.valid("json"));
    if (admitted.kind === "existing") {
      c.set("runId", admitted.runId);
      await claimedRun(claimedRuns(services.tables), admitted); // refusals become JSON errors before the stream opens
      c.header(RUN_ID_HEADER, admitted.runId);
      const from = parseLastEventId(c.req.header("last-event-id"));
      return answerAs(route, streamSSE(c, async (stream) => {
        for await (const event of runEvents(services, admitted.runId, from, { timeoutMs: 310_000 })) {
          if (stream.aborted) return;
          await stream.writeSSE(event);
        }
      }));
    }
    const { admission } = admitted;
    c.header(RUN_ID_HEADER, admission.run.run_id);
    c.set("runId", admission.run.run_id);
    runStarted(services.metrics, admission, c.get("receivedAt"));
    return answerAs(route, streamSSE(c, async (stream) => {
      let offset = 0;
      let writes = Promise.resolve();
      const send = (event: StreamEvent) => {
        writes = writes.then(() => (stream.aborted ? undefined : stream.writeSSE(event))).catch(() => undefined);
      };
      const { response, settlementPending } = await performRun(services, admission, {
        stream: true,
        onDelta: (delta) => {
          offset += delta.length;
          send(outputEvent(delta, offset));
        },
      });
      runFinished(services, response, settlementPending);
      // A per-query charge that could not be confirmed yet: the result stays withheld, as GET
      // /v1/runs/{run_id} shows it, until the settlement pass lands the charge.
      send(doneEvent(settlementPending ? runBody({ ...response, output: null }, true) : runBody(response)));
      await writes;
    }));
  });
}
