// Errors on the A2A endpoint: every failure, the protocol's own and the service's, answers a JSON-RPC 2.0
// error object (A2A §9.5): A2A's code where A2A names the failure (-32700 parse error, -32600 invalid
// request, -32601 method not found, -32602 invalid params, -32001 task not found, -32002 not cancelable,
// -32003 push notifications, -32004 unsupported operation, -32005 content type, -32009 version), -32000
// (an implementation-defined server error) for the service's refusals A2A has no error for (credentials,
// rentals, rate limits), -32603 for internal and temporary failures. `data` is one google.rpc.ErrorInfo
// whose metadata carries the service's error code (the one the REST API would answer) and the request id.
import { A2A_ERROR_CODE } from "@a2a-js/sdk/errors";
import { ApiError, type ErrorCode } from "../errors.ts";

export { A2A_ERROR_CODE };

/** -32000: the service's refusals that A2A names no error for. */
export const SERVICE_REFUSAL = -32000;

const A2A_DOMAIN = "a2a-protocol.org";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

/** A2A's reason (ErrorInfo.reason) for each of its codes. */
const A2A_REASONS: Record<number, string> = {
  [A2A_ERROR_CODE.PARSE_ERROR]: "PARSE_ERROR",
  [A2A_ERROR_CODE.INVALID_REQUEST]: "INVALID_REQUEST",
  [A2A_ERROR_CODE.METHOD_NOT_FOUND]: "METHOD_NOT_FOUND",
  [A2A_ERROR_CODE.INVALID_PARAMS]: "INVALID_PARAMS",
  [A2A_ERROR_CODE.INTERNAL_ERROR]: "INTERNAL_ERROR",
  [A2A_ERROR_CODE.TASK_NOT_FOUND]: "TASK_NOT_FOUND",
  [A2A_ERROR_CODE.TASK_NOT_CANCELABLE]: "TASK_NOT_CANCELABLE",
  [A2A_ERROR_CODE.PUSH_NOTIFICATION_NOT_SUPPORTED]: "PUSH_NOTIFICATION_NOT_SUPPORTED",
  [A2A_ERROR_CODE.UNSUPPORTED_OPERATION]: "UNSUPPORTED_OPERATION",
  [A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED]: "CONTENT_TYPE_NOT_SUPPORTED",
  [A2A_ERROR_CODE.VERSION_NOT_SUPPORTED]: "VERSION_NOT_SUPPORTED",
};

/** A refusal in A2A's own terms: its JSON-RPC code, and the service's code for the same failure. */
export class A2aError extends Error {
  constructor(
    readonly rpcCode: number,
    readonly code: ErrorCode,
    message: string,
    /** More of the refusal, for ErrorInfo's metadata (strings only). */
    readonly detail: Record<string, string> = {},
  ) {
    super(message);
    this.name = "A2aError";
  }
}

export const invalidParams = (message: string, detail?: Record<string, string>) => new A2aError(A2A_ERROR_CODE.INVALID_PARAMS, "invalid_request", message, detail);
export const taskNotFound = (taskId: string) => new A2aError(A2A_ERROR_CODE.TASK_NOT_FOUND, "not_found", `No task ${taskId} for this wallet and agent.`, { task_id: taskId });
export const unsupportedOperation = (message: string) => new A2aError(A2A_ERROR_CODE.UNSUPPORTED_OPERATION, "invalid_request", message);

/** The JSON-RPC code of a service error on the A2A endpoint. */
function rpcCodeOf(error: ApiError): number {
  switch (error.code) {
    case "invalid_request":
    case "invalid_listing_id":
    case "idempotency_key_reused":
      return A2A_ERROR_CODE.INVALID_PARAMS;
    case "payload_too_large":
    case "unsupported_media_type":
    case "headers_too_large":
    case "request_timeout":
    case "method_not_allowed":
      return A2A_ERROR_CODE.INVALID_REQUEST;
    case "internal_error":
    case "service_unavailable":
      return A2A_ERROR_CODE.INTERNAL_ERROR;
    default:
      return SERVICE_REFUSAL;
  }
}

/** Statuses kept on the HTTP response of a JSON-RPC error: the transport's own answers (authentication,
 * a body refused before it is read, rate limits and retries, a fault of the service). Every other error
 * is an answer of the protocol, sent with 200 as JSON-RPC over HTTP does (the API reference says so per
 * route: src/api/openapi.ts). */
export const TRANSPORT_STATUSES: ReadonlySet<number> = new Set([401, 408, 413, 415, 429, 431, 500, 503]);

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data: [{ "@type": typeof ERROR_INFO; reason: string; domain: string; metadata: Record<string, string> }];
}

/**
 * The JSON-RPC error object of any failure on the A2A endpoint, and the HTTP status to send it with.
 * Unknown failures become -32603 with nothing but the request id (internals are logged, never sent).
 */
export function jsonRpcErrorOf(error: unknown, requestId: string, serviceDomain: string): { error: JsonRpcErrorObject; status: number; headers: Record<string, string> } {
  if (error instanceof A2aError) {
    const reason = A2A_REASONS[error.rpcCode] ?? error.code.toUpperCase();
    return {
      error: { code: error.rpcCode, message: error.message, data: [{ "@type": ERROR_INFO, reason, domain: A2A_DOMAIN, metadata: { ...error.detail, code: error.code, request_id: requestId } }] },
      status: 200,
      headers: {},
    };
  }
  const apiError = error instanceof ApiError ? error : new ApiError("internal_error", "An unexpected error occurred. Retry the request; quote the request id to support if it persists.");
  const rpcCode = rpcCodeOf(apiError);
  const a2aReason = rpcCode === SERVICE_REFUSAL ? undefined : A2A_REASONS[rpcCode];
  const metadata: Record<string, string> = { code: apiError.code, status: String(apiError.status), request_id: requestId };
  if (apiError.onChainError) metadata.on_chain_error = `${apiError.onChainError.contract}.${apiError.onChainError.error}`;
  if (apiError.headers["Retry-After"]) metadata.retry_after = apiError.headers["Retry-After"];
  return {
    error: {
      code: rpcCode,
      message: apiError.message,
      data: [{ "@type": ERROR_INFO, reason: a2aReason ?? apiError.code.toUpperCase(), domain: a2aReason ? A2A_DOMAIN : serviceDomain, metadata }],
    },
    status: TRANSPORT_STATUSES.has(apiError.status) ? apiError.status : 200,
    headers: apiError.headers,
  };
}
