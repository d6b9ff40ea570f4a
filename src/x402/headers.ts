// The three x402 v2 headers, each base64 of JSON. Encoding is @x402/core's own (so a client decodes
// exactly what it expects); reading PAYMENT-SIGNATURE is ours, because the library's decoder accepts
// any size and throws bare errors: here a header that cannot be a payment (too long, not base64, not
// JSON, not an x402 v2 `exact` EIP-3009 payload) is the API's 400 `invalid_request` envelope, never a
// 5xx, and nothing runs. A well-formed payment that does not pay is a 402 (verify.ts).
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { PaymentPayloadV2Schema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "@x402/core/types";
import { ApiError } from "../errors.ts";

export const PAYMENT_REQUIRED_HEADER = "PAYMENT-REQUIRED";
export const PAYMENT_SIGNATURE_HEADER = "PAYMENT-SIGNATURE";
export const PAYMENT_RESPONSE_HEADER = "PAYMENT-RESPONSE";

/** The longest PAYMENT-SIGNATURE read (an EIP-3009 payment is about 1.2 KB encoded). Over HTTP the
 * server refuses headers over 16 KB before any route (431 headers_too_large). */
export const MAX_PAYMENT_HEADER_CHARS = 8_192;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT = /^(0|[1-9][0-9]{0,77})$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

/** An `exact` EIP-3009 authorization, as signed. */
export interface Eip3009Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

export interface Eip3009Payment {
  payload: PaymentPayload;
  authorization: Eip3009Authorization;
  signature: `0x${string}`;
}

function malformed(why: string): never {
  throw new ApiError("invalid_request", `The ${PAYMENT_SIGNATURE_HEADER} header is not an x402 payment: ${why}.`);
}

/** Reads a PAYMENT-SIGNATURE header into an EIP-3009 payment, or throws the 400 `invalid_request`. */
export function readPaymentSignature(header: string): Eip3009Payment {
  const text = header.trim();
  if (text.length > MAX_PAYMENT_HEADER_CHARS) malformed(`it is over ${MAX_PAYMENT_HEADER_CHARS} characters`);
  if (text.length === 0 || text.length % 4 !== 0 || !BASE64.test(text)) malformed("it is not base64");
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, "base64").toString("utf8"));
  } catch {
    malformed("it is not base64 of JSON");
  }
  const version = (json as { x402Version?: unknown } | null)?.x402Version;
  if (version !== 2) malformed(`x402Version is ${JSON.stringify(version) ?? "missing"}; this service speaks version 2`);
  const parsed = PaymentPayloadV2Schema.safeParse(json);
  if (!parsed.success) malformed(`${parsed.error.issues[0]?.path.join(".") || "the payload"} ${parsed.error.issues[0]?.message ?? "is invalid"}`);
  const inner = parsed.data.payload as { signature?: unknown; authorization?: Record<string, unknown> };
  const auth = inner.authorization;
  if (!auth || typeof auth !== "object") malformed("payload.authorization is missing (only the exact scheme over EIP-3009 is accepted)");
  if (typeof inner.signature !== "string" || !SIGNATURE.test(inner.signature)) malformed("payload.signature is not a 65-byte hex signature");
  for (const field of ["from", "to"] as const) if (typeof auth[field] !== "string" || !ADDRESS.test(auth[field])) malformed(`payload.authorization.${field} is not an address`);
  for (const field of ["value", "validAfter", "validBefore"] as const) if (typeof auth[field] !== "string" || !UINT.test(auth[field]) || BigInt(auth[field]) >= 2n ** 256n) malformed(`payload.authorization.${field} is not a decimal uint256`);
  if (typeof auth.nonce !== "string" || !HEX32.test(auth.nonce)) malformed("payload.authorization.nonce is not 32 bytes of hex");
  return {
    payload: parsed.data as PaymentPayload,
    authorization: { from: auth.from, to: auth.to, value: auth.value, validAfter: auth.validAfter, validBefore: auth.validBefore, nonce: auth.nonce } as Eip3009Authorization,
    signature: inner.signature as `0x${string}`,
  };
}

export function paymentRequiredHeader(body: PaymentRequired): string {
  return encodePaymentRequiredHeader(body);
}

export function paymentResponseHeader(body: SettleResponse): string {
  return encodePaymentResponseHeader(body);
}
