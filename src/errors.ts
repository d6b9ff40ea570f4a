// The one error module: every error code the API returns, its HTTP status, the error class, and the
// envelope `{error: {code, message, status, request_id, on_chain_error?}}`. Nothing else builds error
// bodies.

/** Each code with its HTTP status. The first block is the specification's; the second adds the codes
 * HTTP itself needs for requests the specification does not describe (see docs/api.md, "Errors"). */
export const ERROR_STATUS = {
  unauthorized: 401,
  invalid_api_key: 401,
  jwt_expired: 401,
  invalid_signature: 401,
  credential_not_found: 403,
  credential_expired: 403,
  insufficient_balance: 403,
  listing_paused: 403,
  invalid_request: 400,
  invalid_listing_id: 400,
  listing_not_found: 404,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,

  not_found: 404,
  forbidden: 403,
  creator_not_approved: 403,
  credential_revoked: 403,
  listing_closed: 403,
  rating_not_allowed: 403,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The contract custom error behind a refusal, decoded from revert data. */
export interface OnChainError {
  contract: string;
  error: string;
}

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    status: number;
    request_id: string;
    on_chain_error?: OnChainError;
  };
}

export interface ApiErrorOptions {
  onChainError?: OnChainError;
  /** Extra response headers, for example Retry-After. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error class. Throw it anywhere below a route; `app.onError` renders it. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly onChainError: OnChainError | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.onChainError = options.onChainError;
    this.headers = options.headers ?? {};
  }

  toBody(requestId: string): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: this.status,
        request_id: requestId,
        ...(this.onChainError ? { on_chain_error: this.onChainError } : {}),
      },
    };
  }
}

/** What an unexpected failure becomes: no internals, only the request id to quote to support. */
export function internalError(cause?: unknown): ApiError {
  return new ApiError("internal_error", "An unexpected error occurred. Retry the request; quote the request id to support if it persists.", { cause });
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
