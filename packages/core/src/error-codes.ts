// Every error code the API answers with, and its HTTP status: the server builds its envelope from these
// (src/errors.ts), the SDK types `AgentRentalError.code` with them, and the dashboard matches them.

/** The specification's codes, each with its HTTP status. */
const SPECIFICATION_ERRORS = {
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
} as const;

/** The codes the service adds for requests the specification does not describe, each with its HTTP
 * status (docs/design/decisions/0004-error-codes-beyond-the-specification.md). */
const SERVICE_ERRORS = {
  not_found: 404,
  forbidden: 403,
  creator_not_approved: 403,
  credential_revoked: 403,
  listing_closed: 403,
  price_not_agreed: 403,
  rating_not_allowed: 403,
  feedback_not_allowed: 403,
  feedback_exists: 409,
  receipt_pending: 409,
  agent_not_registered: 409,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  invalid_token: 401,
  insufficient_scope: 403,
  request_not_found: 404,
  request_decided: 409,
  origin_not_allowed: 403,
  spend_limit_reached: 402,
  payment_required: 402,
} as const;

/** Each code with its HTTP status: the specification's, then the service's. */
export const ERROR_STATUS = { ...SPECIFICATION_ERRORS, ...SERVICE_ERRORS } as const;

/** Whether a code is one the specification names (the others are the service's own). */
export function isSpecificationErrorCode(code: ErrorCode): boolean {
  return Object.hasOwn(SPECIFICATION_ERRORS, code);
}

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
