// The API's request and response shapes.

export type RentalModel = "one_time" | "subscription" | "per_query";
export type Category = "finance" | "legal" | "coding" | "research" | "sales" | "content";

/** The execute request: the tool-calling shape (agent_id, task, input) plus run options. */
export interface ExecuteRequest {
  /** The agent id (`<name>-<8 hex>`), the listing id (`lst_<64 hex>`) or the on-chain id (`0x<64 hex>`). */
  agent_id: string;
  /** What to do, in natural language (1 to 32,768 characters). */
  task: string;
  /** Input matching the agent's input schema: a string or a JSON object. */
  input?: string | Record<string, unknown>;
  /** `ipfs://<CIDv1>` of content uploaded with `inputs.upload`, instead of `input`. */
  input_uri?: string;
  priority?: "standard" | "priority";
  /** 1 to 300; the run's time limit is the lower of this and the agent's. */
  timeout_seconds?: number;
}

export interface RunError {
  code: string;
  message: string;
}

/** The result of a run (POST /v1/execute, and the `done` event of a stream). */
export interface Run {
  run_id: string;
  agent_id: string;
  status: "completed" | "failed";
  /** Shaped by the agent's output schema; on a failed stream, the partial output (a string). */
  output: unknown;
  /** Wei charged for this run: the listing's price for per_query rentals, 0 otherwise. Exact. */
  cost_wei: bigint;
  duration_ms: number;
  /** Present when the run failed. */
  error?: RunError;
  /** Only on a stream's `done` (and a resumed one): `"pending"` when the run completed but its per-query
   * charge is not confirmed on-chain yet. `output` is then null; `runs.get(run_id)` returns it once paid. */
  settlement?: "pending";
}

export interface RunReceipt {
  batch_index: number;
  root: string;
  leaf: string;
  proof: string[];
  tx_hash: string;
}

/** A run as its renter reads it later (GET /v1/runs/{run_id}). */
export interface RunDetail extends Omit<Run, "status" | "settlement"> {
  listing_id: string;
  status: "running" | "completed" | "failed";
  rental_model: RentalModel;
  settlement: "none" | "pending" | "settled" | "refused";
  settlement_tx: string | null;
  created_at: string;
  finished_at: string | null;
  receipt: RunReceipt | null;
}

/** An event of a streamed run. `id` is the offset into the output after this delta. */
export type StreamEvent = { type: "output"; delta: string; id: string } | { type: "done"; run: Run };

export interface Creator {
  id: string;
  display_name: string;
  listing_count: number;
}

/** A listing as search returns it. */
export interface ListingSummary {
  id: string;
  title: string;
  description: string;
  category: string[];
  rental_model: RentalModel;
  price_eth: number;
  run_count: number;
  success_rate: number;
  creator: Creator;
  rating: number;
  review_count: number;
  last_updated: string;
  sample_output: string[];
}

/** A listing with every field. */
export interface Listing extends ListingSummary {
  published_at: string;
  status: "active" | "paused" | "closed";
  on_chain_id: string;
  metadata_uri: string;
}

/** A listing's public metadata (GET /v1/metadata/{cid}, the listing's metadata_uri). */
export interface ListingMetadata {
  name: string;
  description: string;
  category: string;
  /** What the agent takes: a JSON Schema (draft 2020-12). */
  input_schema: Record<string, unknown>;
  /** What the agent answers: a JSON Schema (draft 2020-12). */
  output_schema: Record<string, unknown>;
  tools: string[];
  timeout_seconds: number;
  [extra: string]: unknown;
}

export interface ListingSearchParams {
  q?: string;
  category?: Category;
  rental_model?: RentalModel;
  min_price?: number;
  max_price?: number;
  min_rating?: number;
  sort?: "relevance" | "rating" | "price_asc" | "price_desc" | "newest";
  limit?: number;
  offset?: number;
}

export interface ListingSearchResult {
  listings: ListingSummary[];
  total: number;
  limit: number;
  offset: number;
}

export type CredentialStatus = "active" | "expired" | "low_balance" | "revoked" | "listing_closed" | "not_found";

export interface Credential {
  listing_id: string;
  listing_title: string;
  rental_model: RentalModel;
  status: Exclude<CredentialStatus, "not_found">;
  purchased_at: string;
  expires_at: string | null;
  on_chain_listing_id: string;
}

export interface CredentialListParams {
  status?: Exclude<CredentialStatus, "not_found">;
  limit?: number;
  offset?: number;
}

export interface CredentialList {
  credentials: Credential[];
  total: number;
}

/** The caller's credential for one listing, checked against the contract. */
export interface CredentialVerification {
  listing_id: string;
  rental_model?: RentalModel;
  status: CredentialStatus;
  valid: boolean;
  expired_at?: string;
  on_chain_listing_id?: string;
  on_chain_verified: boolean;
}

export interface ApiKey {
  key_id: string;
  label: string;
  /** The first characters of the key, to recognise it. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
}

/** A newly created key: `key` is shown only here. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface StoredInput {
  /** `ipfs://<CIDv1>`, for `ExecuteRequest.input_uri`. */
  input_uri: string;
  bytes: number;
}

export interface AuthToken {
  token: string;
  /** Unix seconds. */
  expires_at: number;
}

// ---------------------------------------------------------------------------------------------------
// Creators: registration, listing secrets, reviews (beta), ratings.

export type ReviewStatus = "pending" | "approved" | "rejected";

/** The agent manifest (POST /v1/agents): see the manifest rules in the API documentation. */
export interface AgentManifest {
  name: string;
  category: Category;
  description: string;
  model: { provider: "provider_a" | "provider_b" | "self_hosted"; model?: string; endpoint_url?: string };
  system_prompt?: string;
  entrypoint_url?: string;
  tools?: { name: string; scope: string }[];
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  timeout_seconds?: number;
  [extra: string]: unknown;
}

export interface QueuedJob {
  job_id: string;
  status: "queued";
}

/** One problem of a rejected manifest. */
export interface ManifestProblem {
  /** JSON pointer into the manifest ("" for the whole document). */
  pointer: string;
  code: string;
  message: string;
}

/** A registration job (GET /v1/jobs/{job_id}). */
export interface Job {
  job_id: string;
  status: "queued" | "completed" | "failed";
  /** On completed: create the listing on-chain with createListing(listing_seed, model, price, metadata_uri). */
  result?: { agent_id: string; listing_id: string; listing_seed: `0x${string}`; metadata_uri: string };
  /** On failed: every problem of the manifest. */
  error?: { code: string; message: string; details?: ManifestProblem[] };
}

export interface CreatorProfile {
  wallet: string;
  display_name: string;
  status: ReviewStatus;
  reason: string | null;
  applied_at: string;
  reviewed_at: string | null;
}

export interface CreatorAgent {
  listing_id: string;
  agent_id: string;
  metadata_uri: string;
  listing_seed: `0x${string}`;
  review_status: ReviewStatus;
  review_reason: string | null;
}

export interface CreatorOverview {
  profile: CreatorProfile;
  agents: CreatorAgent[];
}

export interface ProviderKeySet {
  listing_id: string;
  provider_key_set: true;
  updated_at: string;
}

/** A connected agent's webhook signing secret (`whsec_…`): shown only here. */
export interface WebhookSecret {
  listing_id: string;
  webhook_secret: string;
  created_at: string;
}

export interface ListingReview {
  listing_id: string;
  review_status: ReviewStatus;
  review_reason: string | null;
}

export interface ReviewDecision {
  decision: "approve" | "reject";
  /** Required to reject; the creator reads it. */
  reason?: string;
}

export interface Rating {
  wallet: string;
  rating: number;
  comment: string | null;
  created_at: string;
  updated_at: string;
}

export interface RatingResult extends Rating {
  listing_id: string;
  listing: { rating: number; review_count: number };
}

export interface RatingList {
  listing_id: string;
  rating: number;
  review_count: number;
  ratings: Rating[];
  next_cursor: string | null;
}
