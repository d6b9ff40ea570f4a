// The A2A x402 payments extension (google-agentic-commerce/a2a-x402, spec v0.2, standalone flow) on an
// agent whose listing is sold by x402 (a per-task listing priced in an EIP-3009 token;
// docs/design/currencies.md, decision 0225). A client activates it with the A2A-Extensions header (v0.3:
// X-A2A-Extensions) naming the extension's URI, and then needs no bearer token: its first message is
// answered with a Task in input-required whose status message's metadata carries
// `x402.payment.status: "payment-required"` and `x402.payment.required` (the PaymentRequired of POST
// /v1/execute's 402); its next message carries `payment-submitted` and `x402.payment.payload` (the
// PaymentPayload), which is admitted exactly as PAYMENT-SIGNATURE is (src/x402/admission.ts). This file
// holds the extension's vocabulary and the status messages; x402-executor.ts runs the messages.
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { x402OfferOf } from "../x402/offer.ts";
import { PAYMENT_REQUIRED_HEADER } from "../x402/headers.ts";
import { PAYMENT_REFUSALS } from "../x402/verify.ts";
import type { RunRecord } from "../execution/runs/run.ts";
import { X402_EXTENSION_URI } from "./card.ts";
import { textPart } from "./tasks.ts";

export { X402_EXTENSION_URI };

/** The extension's metadata keys (spec v0.2 §7). */
export const X402_METADATA = {
  status: "x402.payment.status",
  required: "x402.payment.required",
  payload: "x402.payment.payload",
  receipts: "x402.payment.receipts",
  error: "x402.payment.error",
} as const;

/** The stages of a payment (`x402.payment.status`). */
export type X402PaymentStatus = "payment-required" | "payment-submitted" | "payment-rejected" | "payment-verified" | "payment-completed" | "payment-failed";

/** The extension's activation headers: A2A v1.0's, and v0.3's (which the extension's text names). */
export const EXTENSION_HEADERS = ["a2a-extensions", "x-a2a-extensions"] as const;

/** The methods a payer may call: those that send a message (a task is one run, paid once). */
export const PAID_METHODS: ReadonlySet<string> = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

/** The extension URIs a request activates, from its headers (lower-cased names): comma-separated lists. */
export function extensionsRequested(headers: Record<string, string | undefined>): string[] {
  return EXTENSION_HEADERS.flatMap((name) => (headers[name] ?? "").split(",")).map((uri) => uri.trim()).filter((uri) => uri !== "");
}

/** Whether the request activates the x402 extension. */
export function activatesX402(extensions: readonly string[]): boolean {
  return extensions.includes(X402_EXTENSION_URI);
}

/**
 * Whether a request without a bearer token goes on to the A2A handler as a payer's: it activates the
 * extension, calls a method that sends a message (read from a copy of the body), and the agent is sold
 * by x402. Anything else is answered 401 as before. An offer that cannot be looked up is no offer.
 */
export async function a2aPaymentApplies(services: Services, agentId: string, extensions: readonly string[], body: string): Promise<boolean> {
  if (!activatesX402(extensions) || agentId === "" || agentId.length > 200) return false;
  let method: unknown;
  try {
    method = (JSON.parse(body) as { method?: unknown } | null)?.method;
  } catch {
    return false;
  }
  if (typeof method !== "string" || !PAID_METHODS.has(method)) return false;
  return (await x402OfferOf(services, agentId).catch(() => undefined)) !== undefined;
}

/** What the payment part of a message says: its stage, and the payload when submitted. */
export function paymentOfMessage(message: Message): { status: string | undefined; payload: unknown } {
  const metadata = (message.metadata ?? {}) as Record<string, unknown>;
  const status = metadata[X402_METADATA.status];
  return { status: typeof status === "string" ? status : undefined, payload: metadata[X402_METADATA.payload] };
}

/** The extension's error codes (spec v0.2 §9.1) for the x402 refusals; the x402 reason goes in the receipt. */
const ERROR_CODES: Record<string, string> = {
  [PAYMENT_REFUSALS.balance]: "INSUFFICIENT_FUNDS",
  [PAYMENT_REFUSALS.signature]: "INVALID_SIGNATURE",
  [PAYMENT_REFUSALS.expired]: "EXPIRED_PAYMENT",
  [PAYMENT_REFUSALS.notYetValid]: "EXPIRED_PAYMENT",
  [PAYMENT_REFUSALS.nonceUsed]: "DUPLICATE_NONCE",
  [PAYMENT_REFUSALS.network]: "NETWORK_MISMATCH",
  [PAYMENT_REFUSALS.amount]: "INVALID_AMOUNT",
  [PAYMENT_REFUSALS.asset]: "INVALID_ASSET",
  [PAYMENT_REFUSALS.payTo]: "INVALID_PAY_TO",
  [PAYMENT_REFUSALS.scheme]: "INVALID_SCHEME",
};

/** The PaymentRequired a 402 payment_required carries (its PAYMENT-REQUIRED header, decoded). */
export function paymentRequiredOf(error: ApiError): PaymentRequired {
  return decodePaymentRequiredHeader(error.headers[PAYMENT_REQUIRED_HEADER]!);
}

/** A status message from the agent with the extension's metadata. */
function paymentMessage(taskId: string, contextId: string, text: string, metadata: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata, extensions: [X402_EXTENSION_URI], referenceTaskIds: [] };
}

interface TaskIds {
  taskId: string;
  contextId: string;
  history: Message[];
}

/** The answer to a message without payment: what to pay, in input-required. */
export function paymentRequiredTask(ids: TaskIds, required: PaymentRequired): Task {
  const accepts = required.accepts[0]!;
  const text = `Payment is required: one run costs ${accepts.amount} of ${accepts.asset} on ${accepts.network}. Sign the x402.payment.required offer and send the PaymentPayload in x402.payment.payload with x402.payment.status "payment-submitted".`;
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: paymentMessage(ids.taskId, ids.contextId, text, { [X402_METADATA.status]: "payment-required", [X402_METADATA.required]: required }), timestamp: new Date().toISOString() },
    artifacts: [],
    history: ids.history,
    metadata: undefined,
  };
}

/** The answer to a refused payment: failed, with the reason; nothing ran and nothing is charged. */
export function paymentRefusedTask(ids: TaskIds, refusal: { reason: string; message: string; network: string; payer: string }): Task {
  const receipt: SettleResponse = { success: false, errorReason: refusal.reason, transaction: "", network: refusal.network as SettleResponse["network"], payer: refusal.payer };
  const metadata = { [X402_METADATA.status]: "payment-failed", [X402_METADATA.error]: ERROR_CODES[refusal.reason] ?? "INVALID_PAYMENT", [X402_METADATA.receipts]: [receipt] };
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_FAILED, message: paymentMessage(ids.taskId, ids.contextId, `Payment refused (${refusal.reason}): ${refusal.message} Nothing ran and nothing was charged.`, metadata), timestamp: new Date().toISOString() },
    artifacts: [],
    history: ids.history,
    metadata: undefined,
  };
}

/** The answer to a message that declined to pay (`payment-rejected`): the task ends, nothing ran. */
export function paymentRejectedTask(ids: TaskIds): Task {
  const text = "Payment declined: the task was not run.";
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_CANCELED, message: paymentMessage(ids.taskId, ids.contextId, text, { [X402_METADATA.status]: "payment-rejected", [X402_METADATA.receipts]: [] }), timestamp: new Date().toISOString() },
    artifacts: [],
    history: ids.history,
    metadata: undefined,
  };
}

/**
 * A paid run's task (taskOf's, the run's metadata and receipt as today) with its status message carrying
 * the payment's stage: completed with the settlement's receipt; failed (the run failed, or settlement
 * refused it) with nothing charged; verified while the settlement is not confirmed yet (output withheld).
 */
export function withPaymentStatus(task: Task, run: RunRecord, payment: { network: string; payer: string }): Task {
  const ids = { taskId: task.id, contextId: task.contextId };
  const said = task.status?.message?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join(" ").trim();
  let stage: X402PaymentStatus;
  let text: string;
  let metadata: Record<string, unknown>;
  if (run.settlement === "settled" && run.settlement_tx) {
    const receipt: SettleResponse = { success: true, transaction: run.settlement_tx, network: payment.network as SettleResponse["network"], payer: payment.payer };
    stage = "payment-completed";
    text = said || `Payment settled in ${run.settlement_tx}.`;
    metadata = { [X402_METADATA.receipts]: [receipt] };
  } else if (run.settlement === "pending" || run.status === "running") {
    stage = "payment-verified";
    text = said || "Payment verified; its settlement is not confirmed yet.";
    metadata = { [X402_METADATA.receipts]: [] };
  } else {
    const refused = run.settlement === "refused";
    const reason = refused ? "settlement_refused" : "run_failed";
    const receipt: SettleResponse = { success: false, errorReason: reason, transaction: "", network: payment.network as SettleResponse["network"], payer: payment.payer };
    stage = "payment-failed";
    text = `${said || reason}. The payment was not settled: nothing was charged.`;
    metadata = { [X402_METADATA.error]: refused ? "SETTLEMENT_FAILED" : "RUN_FAILED", [X402_METADATA.receipts]: [receipt] };
  }
  const message = paymentMessage(ids.taskId, ids.contextId, text, { [X402_METADATA.status]: stage, ...metadata });
  return { ...task, status: { ...task.status!, message } };
}
