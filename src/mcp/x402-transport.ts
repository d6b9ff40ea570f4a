// x402 v2 over MCP (coinbase/x402 specs/transports-v2/mcp.md; decision 0230): the payment travels in the
// tools/call's `_meta["x402/payment"]` (a PaymentPayload object), the settlement in the result's
// `_meta["x402/payment-response"]` (a SettleResponse), and a call that must pay is answered with a tool
// result (`isError: true`) carrying the PaymentRequired: as `content[0].text`, JSON of the `x402/error`
// wrapper (`{code: 402, message, data}`), which the spec requires, and as `structuredContent`, which it
// recommends, except for a tool that declares an output schema (the official MCP client checks any
// structuredContent against it, error or not, and would throw before its caller sees the offer).
// What is paid and how is exactly the HTTP routes' (src/x402/): the payload is read by the same reader as
// PAYMENT-SIGNATURE and admitted by admitPaidRun; only the names in the messages are MCP's.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../errors.ts";
import type { RunResponse } from "../execution/perform.ts";
import { paymentRequiredError, type X402Offer } from "../x402/offer.ts";
import { MAX_PAYMENT_HEADER_CHARS, PAYMENT_REQUIRED_HEADER, PAYMENT_SIGNATURE_HEADER, readPaymentSignature } from "../x402/headers.ts";

/** The call's `_meta` key of the PaymentPayload. */
export const PAYMENT_META = "x402/payment";
/** The result's `_meta` key of the SettleResponse. */
export const PAYMENT_RESPONSE_META = "x402/payment-response";
/** The `content[0].text` wrapper of a PaymentRequired. */
export const ERROR_WRAPPER = "x402/error";

const NAME = `_meta["${PAYMENT_META}"]`;

/** The `resource.url` of a tool's PaymentRequired, as the spec names MCP tools. */
export function toolResourceUrl(toolName: string): string {
  return `mcp://tool/${encodeURIComponent(toolName)}`;
}

/**
 * The call's payment as the PAYMENT-SIGNATURE header would carry it (base64 of its JSON), for
 * admitPaidRun; undefined when the call carries none. Throws the 400 `invalid_request`, naming
 * `_meta["x402/payment"]`, for anything that is not an x402 v2 `exact` EIP-3009 payment object.
 */
export function paymentOfCall(meta: Record<string, unknown> | undefined): string | undefined {
  const value = meta?.[PAYMENT_META];
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError("invalid_request", `${NAME} is not an x402 payment: it is not a PaymentPayload object.`);
  const header = Buffer.from(JSON.stringify(value), "utf8").toString("base64");
  if (header.length > MAX_PAYMENT_HEADER_CHARS) throw new ApiError("invalid_request", `${NAME} is not an x402 payment: it is over ${(MAX_PAYMENT_HEADER_CHARS / 4) * 3} bytes of JSON.`);
  try {
    readPaymentSignature(header);
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_request") throw new ApiError("invalid_request", error.message.replace(`The ${PAYMENT_SIGNATURE_HEADER} header`, NAME));
    throw error;
  }
  return header;
}

/** The PaymentRequired an `payment_required` refusal carries (its PAYMENT-REQUIRED header), if any. */
export function paymentRequiredOf(error: unknown): PaymentRequired | undefined {
  if (!(error instanceof ApiError) || error.code !== "payment_required") return undefined;
  const header = error.headers[PAYMENT_REQUIRED_HEADER];
  return header === undefined ? undefined : decodePaymentRequiredHeader(header);
}

/** The tool result of a call that must pay (no payment, or a refused one: `error` says why). */
export function paymentRequiredResult(required: PaymentRequired, message: string, options: { structured: boolean; requestId: string }): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify({ [ERROR_WRAPPER]: { code: 402, message, data: required } }) }],
    ...(options.structured ? { structuredContent: required as unknown as Record<string, unknown> } : {}),
    _meta: { error: { code: "payment_required", message, status: 402, request_id: options.requestId, reason: required.error ?? null } },
  };
}

/** The result's `_meta` of a settled payment. */
export function paymentResponseMeta(response: SettleResponse): Record<string, unknown> {
  return { [PAYMENT_RESPONSE_META]: response };
}

/** A completed run whose payment the contract refused at settlement (the listing's price changed or it
 * closed): its output is withheld and the payer keeps its money. */
export class PaymentSettlementFailed extends Error {
  readonly required: PaymentRequired;
  constructor(
    readonly run: RunResponse,
    offer: X402Offer,
    resourceUrl: string,
    readonly response: SettleResponse,
  ) {
    const message = `Run ${run.run_id} completed, but its payment was refused at settlement (${run.error?.message ?? "refused"}); nothing was paid and its output is withheld.`;
    super(message);
    this.required = paymentRequiredOf(paymentRequiredError(offer, resourceUrl, response.errorReason ?? "settlement_refused", message))!;
  }
}

/** The spec's settlement failure: the PaymentRequired with the failed SettleResponse inside it. */
export function settlementFailedResult(error: PaymentSettlementFailed, options: { structured: boolean; requestId: string }): CallToolResult {
  const data = { ...error.required, [PAYMENT_RESPONSE_META]: error.response };
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify({ [ERROR_WRAPPER]: { code: 402, message: error.message, data } }) }],
    ...(options.structured ? { structuredContent: data as unknown as Record<string, unknown> } : {}),
    _meta: { error: { code: "settlement_refused", message: error.message, status: 402, request_id: options.requestId, run_id: error.run.run_id } },
  };
}
