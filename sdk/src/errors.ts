// Typed errors. Every error the API answers with is an ApiError (or one of its subclasses, chosen by
// HTTP status); failures that never reached an answer (the network, an interrupted stream that could
// not be resumed) are AgentRentalError with status 0.

import type { components } from "./generated/api.ts";

/** Every code the API answers with: the OpenAPI document's, which the service builds from the shared
 * core's list (so the installed package's declarations name no unpublished package). */
export type ErrorCode = components["schemas"]["Error"]["error"]["code"];

/** The codes the SDK sets itself when no answer came (status 0): the network failed, a stream was
 * interrupted past resuming, a wait ran out. */
export type ClientErrorCode = "connection_failed" | "stream_interrupted" | "timeout";

/** An error's code: one the API answers with (`ErrorCode`), one of the SDK's own, or
 * a code this version of the SDK does not know yet (a newer API's; `http_<status>` for a body without
 * one). */
export type AgentRentalErrorCode = ErrorCode | ClientErrorCode | (string & {});

/** The contract custom error behind a refusal, decoded by the service from the revert data. */
export interface OnChainError {
  contract: string;
  error: string;
}

export interface AgentRentalErrorOptions {
  code: AgentRentalErrorCode;
  status: number;
  message: string;
  requestId?: string | undefined;
  onChainError?: OnChainError | undefined;
  /** Seconds the API asked to wait before trying again (its Retry-After header). */
  retryAfter?: number | undefined;
  cause?: unknown;
}

/** The base of every error the SDK throws. */
export class AgentRentalError extends Error {
  /** The API's error code (for example `credential_not_found`), or an SDK code when no answer came. */
  readonly code: AgentRentalErrorCode;
  /** The HTTP status; 0 when the API did not answer. */
  readonly status: number;
  /** The request id of the failed request (quote it to support). */
  readonly requestId: string | undefined;
  /** The contract error behind the refusal, when there is one. */
  readonly onChainError: OnChainError | undefined;
  /** Seconds to wait before trying again, from the answer's Retry-After header (a 429, a 503, or a 409
   * such as receipt_pending); undefined when the answer had none. */
  readonly retryAfter: number | undefined;

  constructor(options: AgentRentalErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status;
    this.requestId = options.requestId;
    this.onChainError = options.onChainError;
    this.retryAfter = options.retryAfter;
  }
}

/** An error answered by the API. The subclasses below narrow it by status. */
export class ApiError extends AgentRentalError {}

/** 401: no, an invalid, a revoked or an expired credential; or a signature that cannot be verified. */
export class AuthError extends ApiError {}

/** 403: access refused (no credential, expired, empty balance, paused or closed listing, ...). */
export class AccessError extends ApiError {}

/** 404: no such listing, run, key or endpoint. */
export class NotFoundError extends ApiError {}

/** 429: a rate or concurrency limit; `retryAfter` says how long to wait. */
export class RateLimitError extends ApiError {}

/** The spending limit a refused run would have passed (the error's `spend_limit`). */
export interface SpendLimitHit {
  /** Whose limit: the API key's or the connected app's. */
  scope: "key" | "app";
  /** The key_id or app_id. */
  id: string;
  currency: string;
  period: "day" | "month" | "total";
  /** The limit, spent this period, held by runs in flight, and what remains (wei, decimal strings). */
  amount: string;
  spent: string;
  reserved: string;
  remaining: string;
  /** When the period ends (ISO 8601, UTC); null for a limit in total. */
  resets_at: string | null;
}

/** 402 spend_limit_reached: the key's or app's spending limit is reached; nothing ran, nothing was
 * charged. `limit` names it; `resetsAt` is when it resets (undefined for a limit in total), and
 * `retryAfter` the seconds until then. */
export class SpendLimitError extends ApiError {
  readonly limit: SpendLimitHit | undefined;
  readonly resetsAt: Date | undefined;
  constructor(options: AgentRentalErrorOptions & { limit?: SpendLimitHit | undefined }) {
    super(options);
    this.limit = options.limit;
    this.resetsAt = options.limit?.resets_at ? new Date(options.limit.resets_at) : undefined;
  }
}

/** One way to pay an x402 402 (an entry of `accepts`): x402 v2's `PaymentRequirements`. */
export interface PaymentOption {
  /** `exact`: an EIP-3009 authorization for exactly `amount`. */
  scheme: string;
  /** CAIP-2, `eip155:<chain id>`. */
  network: string;
  /** In the token's smallest unit (decimal string). */
  amount: string;
  /** The token's address. */
  asset: string;
  /** Whom the authorization pays: the TokenMarketplace. */
  payTo: string;
  maxTimeoutSeconds: number;
  /** For `exact` on EVM: the token's EIP-712 domain `name` and `version`. */
  extra?: Record<string, unknown>;
}

/** The decoded PAYMENT-REQUIRED header of an x402 v2 402. */
export interface PaymentRequired {
  x402Version: number;
  /** Why: no payment was sent, or the refusal's reason (`invalid_exact_evm_*`). */
  error?: string;
  resource?: { url: string; description?: string; mimeType?: string };
  accepts: PaymentOption[];
  extensions?: Record<string, unknown>;
}

/** 402 payment_required: the run is sold by x402 (a per-task listing priced in an EIP-3009 token) and
 * no payment, or a refused one, came with the request; nothing ran and nothing was charged.
 * `paymentRequired` is the decoded PAYMENT-REQUIRED header (undefined when the answer carried none a
 * browser may read); `accepts[0]`'s `amount`, `asset`, `payTo` and `network` are at hand, and `reason`
 * says why. Sign an authorization for it and retry with PAYMENT-SIGNATURE (`@x402/fetch` does both). */
export class PaymentRequiredError extends ApiError {
  readonly paymentRequired: PaymentRequired | undefined;
  constructor(options: AgentRentalErrorOptions & { paymentRequired?: PaymentRequired | undefined }) {
    super(options);
    this.paymentRequired = options.paymentRequired;
  }
  /** The ways to pay ([] when the header was missing). */
  get accepts(): PaymentOption[] {
    return this.paymentRequired?.accepts ?? [];
  }
  /** The x402 reason: `payment_required` for a request without payment, else the refusal's code. */
  get reason(): string | undefined {
    return this.paymentRequired?.error;
  }
  get amount(): string | undefined {
    return this.accepts[0]?.amount;
  }
  get asset(): string | undefined {
    return this.accepts[0]?.asset;
  }
  get payTo(): string | undefined {
    return this.accepts[0]?.payTo;
  }
  get network(): string | undefined {
    return this.accepts[0]?.network;
  }
}

/** The PAYMENT-REQUIRED header (base64 of UTF-8 JSON) decoded, or undefined when absent or unreadable. */
export function decodePaymentRequired(header: string | null): PaymentRequired | undefined {
  if (header === null || header.trim() === "") return undefined;
  try {
    const bytes = Uint8Array.from(atob(header.trim()), (c) => c.charCodeAt(0));
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    if (typeof parsed !== "object" || parsed === null || !Array.isArray((parsed as PaymentRequired).accepts)) return undefined;
    return parsed as PaymentRequired;
  } catch {
    return undefined;
  }
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; status?: unknown; request_id?: unknown; on_chain_error?: unknown; spend_limit?: unknown };
}

/** Seconds from a Retry-After header (delta seconds or an HTTP date). */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function onChainErrorOf(value: unknown): OnChainError | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { contract, error } = value as { contract?: unknown; error?: unknown };
  return typeof contract === "string" && typeof error === "string" ? { contract, error } : undefined;
}

/** Builds the typed error for a non-2xx response, from its body text and headers. */
export function errorFromResponse(status: number, headers: Headers, bodyText: string): ApiError {
  let envelope: ErrorEnvelope = {};
  try {
    const parsed = JSON.parse(bodyText) as unknown;
    if (typeof parsed === "object" && parsed !== null) envelope = parsed as ErrorEnvelope;
  } catch {
    envelope = {};
  }
  const body = envelope.error ?? {};
  const options: AgentRentalErrorOptions = {
    code: typeof body.code === "string" ? body.code : `http_${status}`,
    status,
    message: typeof body.message === "string" ? body.message : bodyText.slice(0, 500) || `HTTP ${status}`,
    requestId: typeof body.request_id === "string" ? body.request_id : (headers.get("x-request-id") ?? undefined),
    onChainError: onChainErrorOf(body.on_chain_error),
    retryAfter: parseRetryAfter(headers.get("retry-after")),
  };
  switch (status) {
    case 402: {
      // Two 402s: x402's (payment_required, with PAYMENT-REQUIRED) and a spending limit's.
      const paymentRequired = decodePaymentRequired(headers.get("payment-required"));
      if (options.code === "payment_required" || paymentRequired !== undefined) return new PaymentRequiredError({ ...options, paymentRequired });
      return new SpendLimitError({ ...options, limit: typeof body.spend_limit === "object" && body.spend_limit !== null ? (body.spend_limit as SpendLimitHit) : undefined });
    }
    case 401:
      return new AuthError(options);
    case 403:
      return new AccessError(options);
    case 404:
      return new NotFoundError(options);
    case 429:
      return new RateLimitError(options);
    default:
      return new ApiError(options);
  }
}
