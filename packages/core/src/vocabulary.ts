// The product's words, each list written once: categories, rental models, the states of listings,
// credentials, runs, jobs and reviews, and the contract's enums in their declaration order. The API's
// schemas (src/api/schemas.ts), the domain, the CLI, the dashboard, the local demo and the tests import
// them from here; `scripts/check-vocabulary.ts` fails when a list is written out anywhere else.
//
// Plain data with no imports (but the error codes, error-codes.ts, plain data too), so the CLI's bundle and the dashboard's first page can load it without
// zod or viem. The order of each array is the order the OpenAPI document lists the values in.

/** A listing's categories (the manifest's `category`, the search filter). */
export const CATEGORIES = ["finance", "legal", "coding", "research", "sales", "content"] as const;
export type Category = (typeof CATEGORIES)[number];

/** The three rental models, in the order of the contract's `AccessType` enum (its value is the index). */
export const RENTAL_MODELS = ["one_time", "subscription", "per_query"] as const;
export type RentalModel = (typeof RENTAL_MODELS)[number];

/** Rental model → the contract's `AccessType` value (`createListing`'s argument). */
export const ACCESS_TYPE = Object.freeze(Object.fromEntries(RENTAL_MODELS.map((model, index) => [model, index]))) as Readonly<Record<RentalModel, number>>;

/**
 * The contract's `AccessType` value → rental model. The contract's enum has exactly these values, so
 * any other number did not come from the marketplace contract.
 */
export function rentalModelOf(accessType: number): RentalModel {
  const model = RENTAL_MODELS[accessType];
  if (model === undefined) throw new RangeError(`${accessType} is not a value of the contract's AccessType enum (0 to ${RENTAL_MODELS.length - 1}).`);
  return model;
}

/** The model providers a declarative agent's manifest may name. */
export const PROVIDERS = ["provider_a", "provider_b", "self_hosted"] as const;
export type Provider = (typeof PROVIDERS)[number];

/** A published listing's status (the API's `status`). */
export const LISTING_STATUSES = ["active", "paused", "closed"] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** The contract's `ListingStatus` enum in order: `none` means no listing exists at the id. */
export const CHAIN_LISTING_STATUSES = ["none", ...LISTING_STATUSES] as const;
export type ChainListingStatus = (typeof CHAIN_LISTING_STATUSES)[number];

/**
 * A credential's status as the API reports it. The specification names active, expired, low_balance
 * and not_found; a revoked credential reports `revoked` and one on a closed listing `listing_closed`.
 */
export const CREDENTIAL_STATUSES = ["active", "expired", "low_balance", "revoked", "listing_closed", "not_found"] as const;
export type CredentialStatus = (typeof CREDENTIAL_STATUSES)[number];

/** The statuses a credential list can hold (and filter by): every status but `not_found`. */
export const LISTED_CREDENTIAL_STATUSES = ["active", "expired", "low_balance", "revoked", "listing_closed"] as const satisfies readonly Exclude<CredentialStatus, "not_found">[];

/** The contract's `CredentialStatus` enum (`credentialStatus`, `credentialOf`) in order: the same words. */
export const CHAIN_CREDENTIAL_STATUSES = ["not_found", "active", "expired", "low_balance", "revoked", "listing_closed"] as const satisfies readonly CredentialStatus[];

/** A run's status: `running` until it finishes, then one of the two outcomes. */
export const RUN_STATUSES = ["running", "completed", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A finished run's status (the execute response, the stream's `done` event). */
export const FINISHED_RUN_STATUSES = ["completed", "failed"] as const satisfies readonly RunStatus[];
export type FinishedRunStatus = (typeof FINISHED_RUN_STATUSES)[number];

/**
 * Why a run failed: the `error.code` of a Run whose status is `failed` (a failed run is an answer, HTTP
 * 200, not an HTTP error). In the order docs/reference/runs.md lists them, which is generated from this
 * list and RUN_FAILURE_MEANINGS.
 */
export const RUN_FAILURE_CODES = [
  "invalid_input",
  "invalid_output",
  "output_too_large",
  "timeout",
  "crashed",
  "out_of_memory",
  "agent_error",
  "agent_http_error",
  "agent_invalid_response",
  "agent_stream_cut",
  "agent_unreachable",
  "egress_refused",
  "agent_not_configured",
  "cancelled",
  "settlement_refused",
  "internal_error",
] as const;
export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];

/** What each failure code tells the renter: the run failed because … (the API reference and
 * docs/reference/runs.md show these sentences). */
export const RUN_FAILURE_MEANINGS: Readonly<Record<RunFailureCode, string>> = {
  invalid_input: "the input does not match the agent's input schema, or an `input_uri` holds nothing or the wrong content; the agent was never called",
  invalid_output: "the agent's output does not match its output schema, or its JSON nests deeper than 64 levels",
  output_too_large: "the output is over 131,072 characters as JSON (a connected agent's response over 10 MiB, or its JSON over 1,048,576 characters; refused as soon as it passes, never read whole)",
  timeout: "the run reached its time limit (the lower of the request's `timeout_seconds` and the agent's)",
  crashed: "the sandbox ended without a result (or the runner function failed)",
  out_of_memory: "the sandbox ran out of memory",
  agent_error: "the agent or its model provider failed; the message says why, or carries the connected agent's own message",
  agent_http_error: "a connected agent answered a status outside 2xx, or a redirect",
  agent_invalid_response: "a connected agent's answer is not valid JSON, has no output, or its event stream is malformed, unfinished or empty",
  agent_stream_cut: "a connected agent's connection closed before its response completed",
  agent_unreachable: "a connected agent could not be connected to (refused, reset, timed out, an untrusted certificate)",
  egress_refused: "the agent's host resolved to an address outside the public internet, did not resolve, or is not HTTPS",
  agent_not_configured: "the creator has not set the listing's provider key or webhook secret",
  cancelled: "the service stopped the run before the agent's answer completed",
  settlement_refused: "the contract refused the per-query charge; the result is not released",
  internal_error: "a failure on the service's side (including a run whose end was never recorded, finished by the stale-run sweep)",
};

/**
 * Per-query settlement of a run: `none` (nothing to charge: one_time, subscription, or a free failed
 * run), `pending` (consumeQuery not yet confirmed; the output is withheld), `settled` (charged on-chain),
 * `refused` (the contract refused the charge; the output is never released).
 */
export const SETTLEMENT_STATES = ["none", "pending", "settled", "refused"] as const;
export type SettlementState = (typeof SETTLEMENT_STATES)[number];

/** A registration job's status: queued, then completed or failed, once. */
export const JOB_STATUSES = ["queued", "completed", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The review of a creator application or of a registered agent (beta). */
export const REVIEW_STATUSES = ["pending", "approved", "rejected"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The search's sort orders (`relevance` is the default). */
export const SEARCH_SORTS = ["relevance", "rating", "price_asc", "price_desc", "newest"] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/**
 * Why a feedback given to a listing's ERC-8004 agent does not count toward the listing's rating (the
 * reputation's `reason`; the rule: docs/reference/reputation.md): the indexer's verdicts on the feedback
 * and its file, in the order it checks them, then the two that later events bring (the sender revoked
 * it; the agent is no longer the listing's). Each with what it means, for the people who read it.
 */
export const FEEDBACK_REASONS = [
  "file_unavailable",
  "file_too_large",
  "hash_mismatch",
  "file_malformed",
  "file_of_another_feedback",
  "receipt_of_another_wallet",
  "receipt_of_another_listing",
  "run_not_completed",
  "receipt_not_on_chain",
  "not_a_rating",
  "value_out_of_range",
  "run_already_rated",
  "revoked",
  "agent_not_the_listings",
] as const;
export type FeedbackReason = (typeof FEEDBACK_REASONS)[number];

export const FEEDBACK_REASON_MEANINGS: Readonly<Record<FeedbackReason, string>> = {
  file_unavailable: "its feedback file could not be read",
  file_too_large: "its feedback file is too large",
  hash_mismatch: "its file does not match the hash sent on-chain",
  file_malformed: "its file is not a feedback file the service can check",
  file_of_another_feedback: "its file describes another feedback",
  receipt_of_another_wallet: "its run receipt is another wallet's",
  receipt_of_another_listing: "its run receipt is of another listing",
  run_not_completed: "its run did not complete",
  receipt_not_on_chain: "its run receipt is not in the marketplace's run log",
  not_a_rating: "it is not a rating (tag starred)",
  value_out_of_range: "its score is not from 0 to 100",
  run_already_rated: "its run was already rated",
  revoked: "its sender revoked it",
  agent_not_the_listings: "the agent is no longer the listing's",
};

export { ERROR_CODES, ERROR_STATUS, isSpecificationErrorCode, type ErrorCode, type ErrorStatus } from "./error-codes.ts";
