// The A2A operations of a payer: a caller without a bearer token that activated the x402 extension
// (x402.ts). A message without payment is answered with what to pay; a message with a payment is
// admitted by admitPaidRun (src/x402/admission.ts: the offer, the execution rate rule per payer, the
// payment checked against the offer and the chain, one run per authorization) and performed by
// performRun with the payment, exactly as POST /v1/execute does: the settler settles it in its batch
// only when the run completed, and the output is released only once the payment is in a block. A
// refused payment is a failed task with the reason; nothing runs. Only the methods that send a message
// reach here (the authentication lets no other through without a token).
import { TaskState, type Message, type SendMessageRequest, type Task } from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { Address } from "viem";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { admitPaidRun, x402OfferOf, type PaidAdmission } from "../x402/admission.ts";
import { paymentRequiredError, type X402Offer } from "../x402/offer.ts";
import { readPaymentSignature } from "../x402/headers.ts";
import { performRun } from "../execution/perform.ts";
import { newRunId, RUN_ID, type RunRecord } from "../execution/runs/run.ts";
import { getRun, RunIdTakenError } from "../execution/runs/run.store.ts";
import { invalidParams, unsupportedOperation } from "./errors.ts";
import { executeRequestOf } from "./params.ts";
import { contextOf, taskOf } from "./tasks.ts";
import { paymentOfMessage, paymentRefusedTask, paymentRejectedTask, paymentRequiredOf, paymentRequiredTask, withPaymentStatus, X402_METADATA } from "./x402.ts";
import type { EventIds } from "./executor.ts";
import { claimPaidTask, releasePaidTask } from "./x402-task.store.ts";
import { refusingHandler } from "./refusing-handler.ts";

export interface PaidCallOptions {
  services: Services;
  /** The agent as the URL names it. */
  agentId: string;
  /** The A2A endpoint's URL: the payment's resource. */
  resourceUrl: string;
  /** Applies the execution rate rule to a run of the listing by the payer (as on POST /v1/execute). */
  rateLimit(listingId: string, payer: Address): Promise<void>;
  onRun(runId: string): void;
}

const PAYLOAD_FIELD = `message.metadata.${X402_METADATA.payload}`;

/** The payment's text for admitPaidRun: the PaymentPayload object as PAYMENT-SIGNATURE carries it. */
function paymentHeaderOf(payload: unknown): string {
  if (typeof payload === "string") return payload;
  if (payload && typeof payload === "object" && !Array.isArray(payload)) return Buffer.from(JSON.stringify(payload)).toString("base64");
  throw invalidParams(`${X402_METADATA.payload} must be the PaymentPayload object.`, { field: PAYLOAD_FIELD });
}

type Answer = { kind: "task"; task: Task } | { kind: "paid"; paid: PaidAdmission; ids: { taskId: string; contextId: string; history: Message[] } };

/** The handler of a payer's request. */
export function a2aPaidRequestHandler(options: PaidCallOptions, eventIds: EventIds): A2ARequestHandler {
  const { services } = options;

  /** A message's answer before anything runs: what to pay, a refusal, or the admitted run. */
  async function answer(params: SendMessageRequest, delivery: "stream" | "sync"): Promise<Answer> {
    const message = params.message;
    if (!message) throw invalidParams("params.message is required.", { field: "message" });
    if (message.role !== 1 /* ROLE_USER */) throw invalidParams("message.role must be ROLE_USER (\"user\" in v0.3).", { field: "message.role" });
    if (params.configuration?.returnImmediately) throw unsupportedOperation("returnImmediately is not offered: a run is answered when it ends.");
    const request = executeRequestOf(options.agentId, message, params.metadata as { timeout_seconds?: number; priority?: "standard" | "priority" } | undefined);
    if (message.taskId && !RUN_ID.test(message.taskId)) throw invalidParams(`Task ${message.taskId.slice(0, 100)} is not one this agent named: send the payment with the payment-required task's id, or without taskId.`, { field: "message.taskId" });
    const offer = await x402OfferOf(services, options.agentId);
    if (!offer) throw new ApiError("unauthorized", "Missing Authorization header: send Authorization: Bearer <API key, JWT or access token> (this listing is not paid by x402).");
    // The payment-required task's id becomes the run's: the task the payment completes is the one that asked for it.
    const taskId = message.taskId || newRunId();
    const contextId = message.contextId || taskId;
    const ids = { taskId, contextId, history: [{ ...message, taskId, contextId }] };
    const { status, payload } = paymentOfMessage(message);
    if (status === "payment-rejected") return { kind: "task", task: paymentRejectedTask(ids) };
    if (status !== "payment-submitted") {
      const asked = paymentRequiredError(offer, options.resourceUrl, "payment_required", "This agent is paid per run by x402.");
      return { kind: "task", task: paymentRequiredTask(ids, paymentRequiredOf(asked)) };
    }
    if (payload === undefined) throw invalidParams(`payment-submitted needs the PaymentPayload in ${X402_METADATA.payload}.`, { field: PAYLOAD_FIELD });
    const header = paymentHeaderOf(payload);
    if (!message.taskId) return admit(offer, request, header, ids, delivery);
    // The task the client names: one payment at a time, and never a task that has run.
    const taken = () => invalidParams(`Task ${taskId} has already run or is being paid for: pay for a new task with a new message without taskId.`, { field: "message.taskId" });
    if ((await getRun(services.tables, taskId)) || !(await claimPaidTask(services.tables, taskId))) throw taken();
    const answered = await admit(offer, request, header, ids, delivery).catch(async (error: unknown) => {
      await releasePaidTask(services.tables, taskId).catch(() => undefined);
      throw error;
    });
    if (answered.kind === "task") await releasePaidTask(services.tables, taskId).catch(() => undefined);
    return answered;
  }

  async function admit(offer: X402Offer, request: ReturnType<typeof executeRequestOf>, header: string, ids: { taskId: string; contextId: string; history: Message[] }, delivery: "stream" | "sync"): Promise<Answer> {
    try {
      const paid = await admitPaidRun(services, offer, request, { header, resourceUrl: options.resourceUrl, delivery, rateLimit: options.rateLimit, runId: ids.taskId, ...(ids.contextId !== ids.taskId ? { contextId: ids.contextId } : {}) });
      return { kind: "paid", paid, ids };
    } catch (error) {
      if (error instanceof RunIdTakenError) throw invalidParams(`Task ${ids.taskId} has already run: pay for a new task with a new message without taskId.`, { field: "message.taskId" });
      if (!(error instanceof ApiError)) throw error;
      if (error.code === "invalid_request" && error.message.startsWith("The PAYMENT-SIGNATURE header")) {
        throw invalidParams(error.message.replace("The PAYMENT-SIGNATURE header", X402_METADATA.payload), { field: PAYLOAD_FIELD });
      }
      if (error.code !== "payment_required") throw error;
      const payer = readPaymentSignature(header).authorization.from;
      return { kind: "task", task: paymentRefusedTask(ids, { reason: paymentRequiredOf(error).error ?? "payment_required", message: error.message, network: offer.requirements.network, payer }) };
    }
  }

  /** Performs an admitted run and answers its task, with the payment's stage and receipt. */
  async function perform(paid: PaidAdmission, history: Message[], stream: boolean): Promise<{ task: Task; record: RunRecord }> {
    const run = paid.admission.run;
    options.onRun(run.run_id);
    const result = await performRun(services, paid.admission, { stream, payment: paid.payment });
    const stored = await getRun(services.tables, run.run_id).catch(() => null);
    const { response } = result;
    const record: RunRecord =
      stored && stored.status !== "running"
        ? stored
        : { ...run, status: response.status, output: response.output, cost_wei: response.cost_wei.toString(), duration_ms: response.duration_ms, settlement: result.settlementPending ? "pending" : result.settlementTx ? "settled" : "none", ...(result.settlementTx ? { settlement_tx: result.settlementTx } : {}), ...(response.error ? { error: response.error } : {}) };
    return { task: withPaymentStatus(taskOf(record, { history }), record, paid.payment), record };
  }

  return {
    ...refusingHandler("Missing Authorization header: only SendMessage and SendStreamingMessage are paid by x402; send Authorization: Bearer <API key, JWT or access token> for the others."),
    async sendMessage(params) {
      const answered = await answer(params, "sync");
      if (answered.kind === "task") return answered.task;
      return (await perform(answered.paid, answered.ids.history, false)).task;
    },
    async *sendMessageStream(params) {
      const answered = await answer(params, "stream");
      eventIds.push("task");
      if (answered.kind === "task") {
        yield { payload: { $case: "task", value: answered.task } };
        return;
      }
      // Nothing of the output leaves before the payment is in a block: the task, then the whole run.
      const run = answered.paid.admission.run;
      yield { payload: { $case: "task", value: { ...taskOf(run, { history: answered.ids.history }), artifacts: [] } } };
      const { task, record } = await perform(answered.paid, answered.ids.history, true);
      const artifact = task.artifacts[0];
      if (artifact) {
        eventIds.push("output");
        yield { payload: { $case: "artifactUpdate", value: { taskId: run.run_id, contextId: contextOf(record), artifact, append: false, lastChunk: true, metadata: undefined } } };
      }
      eventIds.push("done");
      yield { payload: { $case: "statusUpdate", value: { taskId: run.run_id, contextId: contextOf(record), status: task.status ?? { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() }, metadata: task.metadata } } };
    },
  };
}
