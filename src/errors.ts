// The one error module: every error code the API returns, its HTTP status, the error class, and the
// envelope `{error: {code, message, status, request_id, on_chain_error?}}`. Nothing else builds error
// bodies.

import { ERROR_CODES, ERROR_STATUS, isSpecificationErrorCode, type ErrorCode, type ErrorStatus } from "@agent-rental/core/vocabulary";

// The codes and their statuses are the shared core's (packages/core/src/error-codes.ts), so the SDK and
// the dashboard type and match the same ones.
export { ERROR_CODES, ERROR_STATUS, isSpecificationErrorCode, type ErrorCode, type ErrorStatus };

/**
 * What each code tells the caller, and what to do about it. The error catalogue
 * (docs/reference/errors.md) is generated from this table, so a new code cannot ship without it.
 */
export const ERROR_MEANINGS: { readonly [C in ErrorCode]: string } = {
  unauthorized: "No `Authorization` header, one that is not `Bearer <token>`, or a JWT that is not the service's (wrong algorithm, key, issuer or audience, or altered). Send an API key or a fresh JWT.",
  invalid_api_key: "An API key that is unknown, malformed, revoked, or of the other network (`svc_test_` on mainnet, `svc_live_` on a test network). Create a new key.",
  jwt_expired: "A JWT past its `exp` (one hour after sign-in). Sign in again.",
  invalid_signature: "A wallet signature that cannot be verified, a signature by another wallet, or a challenge that is unknown, expired, already used or not of this service's shape. Ask for a new challenge and sign it.",
  credential_not_found: "The wallet holds no rental of this listing. Rent it on-chain first. Carries `on_chain_error` (`CredentialNotFound`).",
  credential_expired: "The wallet's subscription has passed its expiry. Renew it on-chain (`renewSubscription`). No `on_chain_error`: the contract reports expiry as a status, not an error.",
  insufficient_balance: "The per-task balance cannot pay for one run at the listing's current price, or its withdrawal was requested on-chain (`requestBalanceWithdrawal`: no new run is admitted on a balance that is leaving). Top it up on-chain (`topUpBalance`): a top-up also cancels a pending withdrawal. Carries `on_chain_error` (`InsufficientBalance`).",
  listing_paused: "The creator has paused the listing: no runs until it is resumed. The credential stays valid.",
  invalid_request: "Malformed JSON, or a field, parameter or header that is missing, of the wrong type, out of range, or unknown where unknown fields are refused. The message names each one.",
  invalid_listing_id: "An agent or listing id of the wrong shape: neither `<name>-<8 hex>`, `lst_<64 hex>` nor `0x<64 hex>`.",
  listing_not_found: "No such listing, or one that is not published (awaiting review, rejected, or not yet created on-chain). Also another creator's listing on the creator's own routes.",
  rate_limit_exceeded: "A rate limit refused the request, or every slot it needs is in use (a listing's 20 concurrent runs, or a per-task balance fully held by the renter's runs in flight). Retry after `Retry-After` seconds.",
  internal_error: "An unexpected failure. Nothing about it is returned but the request id: retry with backoff, and quote the request id to support if it persists.",
  service_unavailable: "A dependency could not be reached (the chain, the rate limiter's store on a route that fails closed), or a run could not be admitted yet. Nothing ran and nothing was charged: retry after `Retry-After` seconds.",
  not_found: "No endpoint at this method and path (answered to anyone, token or not), or an API key, job or run that is not the caller's (indistinguishable from one that does not exist).",
  forbidden: "A review endpoint called by anyone but the protocol authority (the wallet the contract names); or a spending limit changed (`PATCH /v1/keys/{key_id}`, `PATCH /v1/oauth/apps/{app_id}`) with an API key instead of a wallet sign-in (a key could otherwise lift its own limit); or alert settings changed (`PUT /v1/alerts/settings`) without a wallet sign-in.",
  creator_not_approved: "`POST /v1/agents` by a wallet whose creator application is not approved (beta). The message says what to do.",
  credential_revoked: "The creator revoked the wallet's rental. An unspent per-task balance can be withdrawn on-chain. Carries `on_chain_error` (`CredentialRevoked`).",
  listing_closed: "The listing was closed for good; every credential on it is invalid. Carries `on_chain_error` (`ListingNotActive`).",
  price_not_agreed: "The listing's per-task price is above the price the renter's balance was deposited at: the creator raised it since. The message names both prices. Top up on-chain at the current price (`topUpBalance`) to agree to it, or take the balance back (`requestBalanceWithdrawal`, then `withdrawUnspentBalance`). No `on_chain_error`: the contract would charge no more than the deposit price.",
  rating_not_allowed: "A rating by a wallet without a completed run of the listing, or by the listing's own creator.",
  feedback_not_allowed: "On-chain feedback (`POST /v1/runs/{run_id}/feedback`) for a run that did not complete (only a completed run is rated), or by the wallet that owns or operates the listing's ERC-8004 agent (the Reputation Registry refuses self-feedback).",
  feedback_exists: "The run already has feedback on-chain that counts (one per run). Revoke it on-chain (`revokeFeedback`) to take it back; a second one would never count.",
  receipt_pending: "The run's receipt is not in the on-chain run log yet (runs are logged in batches: every few seconds locally, every minute in the cloud). Retry after `Retry-After` seconds.",
  agent_not_registered: "The listing is not registered as an ERC-8004 agent yet, so it cannot receive on-chain feedback. Its creator registers it (dashboard or CLI).",
  method_not_allowed: "`GET` or `DELETE /v1/mcp`, or `GET /v1/mcp/x402` (the MCP endpoints take `POST` only), or `CONNECT` (the service is no proxy); the `Allow` header lists the methods. Any other method and path no route serves is 404 `not_found`.",
  idempotency_key_reused: "An execute request whose `Idempotency-Key` was already used, within 24 hours, with a different body. Use a new key for a new request.",
  request_timeout: "The request's headers and body did not arrive within the server's request timeout. The connection is closed.",
  payload_too_large: "A request body over the limit (1 MiB by default; a manifest 64 KB). Larger task inputs go through `POST /v1/inputs`.",
  unsupported_media_type: "A request body whose `Content-Type` is not JSON.",
  headers_too_large: "Request headers over 16 KB. The connection is closed.",
  invalid_token: "An OAuth access token that is unknown, expired (one hour after it was issued), revoked (its app was removed from Connected apps, or its refresh token was reused), or issued for another resource than the one called. The app signs in again; the `WWW-Authenticate` header names the resource's metadata.",
  insufficient_scope: "An OAuth access token without the scope the route needs, or one used on a route no OAuth token may call (API keys, ratings, creators, agents, reviews, connected apps). The `WWW-Authenticate` header names the scope needed, where there is one.",
  request_not_found: "An OAuth sign-in request that does not exist or has expired (ten minutes after the app started it). Start again from the app.",
  request_decided: "An OAuth sign-in request that was already approved or denied. Start again from the app.",
  spend_limit_reached: "A per-task run that would take an API key's or a connected app's spending limit past its amount (what is charged in the limit's period plus what runs in flight hold, plus this run's price). Nothing ran and nothing was charged. `error.spend_limit` names the limit (`scope` key or app, `id`, `currency`, `period`, `amount`, `spent`, `reserved`, `remaining`) and `resets_at`, when its period ends (null for a limit in total); `Retry-After` gives the seconds until then. Wait for the reset, or raise the limit (`PATCH /v1/keys/{key_id}`, `PATCH /v1/oauth/apps/{app_id}`). Also a per-task run past the renter's own on-chain charge cap on the listing (`setChargeCap`): then no `spend_limit`, and `on_chain_error` names the contract's `ChargeCapExceeded`; `Retry-After` gives the seconds until the cap's period ends.",
  payment_required: "An execute request without `Authorization` for a per-task listing priced in an EIP-3009 token (x402 v2), or whose `PAYMENT-SIGNATURE` payment was refused: an expired or not yet valid authorization, a wrong amount, asset, network or recipient, a nonce already used, a payer without the balance, or a signature that is not the payer's. The `PAYMENT-REQUIRED` header (base64 JSON, `x402Version: 2`) says what to pay (`accepts`) and, for a refused payment, why (`error`, `@x402/evm`'s `invalid_exact_evm_*` reason). Nothing ran and nothing was charged: sign a new authorization and retry with it.",
  origin_not_allowed: "A request to the remote MCP endpoint from a browser page of another origin (its `Origin` is not the API's, the dashboard's or one of `MCP_ALLOWED_ORIGINS`), or, on a local stack, one whose `Host` is not the machine's own (DNS rebinding). Refused before authentication; nothing ran.",
};

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
    spend_limit?: SpendLimitDetail;
  };
}

/** The spending limit a refused run would have passed (spend_limit_reached). */
export interface SpendLimitDetail {
  scope: "key" | "app";
  id: string;
  currency: string;
  period: string;
  amount: string;
  spent: string;
  reserved: string;
  remaining: string;
  resets_at: string | null;
}

export interface ApiErrorOptions {
  onChainError?: OnChainError;
  spendLimit?: SpendLimitDetail;
  /** Extra response headers, for example Retry-After. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error class. Throw it anywhere below a route; `app.onError` renders it. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly onChainError: OnChainError | undefined;
  readonly spendLimit: SpendLimitDetail | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.onChainError = options.onChainError;
    this.spendLimit = options.spendLimit;
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
        ...(this.spendLimit ? { spend_limit: this.spendLimit } : {}),
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
