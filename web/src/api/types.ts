// The API's resources as the dashboard reads them (the fields of the OpenAPI document it uses), in the
// service's own words (src/vocabulary.ts).
import type { Category, CredentialStatus, FinishedRunStatus, JobStatus, ListingStatus, RentalModel, ReviewStatus } from "@agent-rental/core/vocabulary";

export { CATEGORIES } from "@agent-rental/core/vocabulary";
export type { Category, RentalModel };

export interface ListingSummary {
  id: string;
  title: string;
  description: string;
  category: Category[];
  rental_model: RentalModel;
  price_eth: number;
  run_count: number;
  success_rate: number;
  creator: { id: string; display_name: string; listing_count: number };
  rating: number;
  review_count: number;
  last_updated: string;
  sample_output: string[];
}
export interface Listing extends ListingSummary {
  published_at: string;
  status: ListingStatus;
  on_chain_id: `0x${string}`;
  metadata_uri: string;
}
export interface ListingSearch {
  listings: ListingSummary[];
  total: number;
  limit: number;
  offset: number;
}
export interface Credential {
  listing_id: string;
  listing_title: string;
  rental_model: RentalModel;
  status: CredentialStatus;
  purchased_at: string;
  expires_at: string | null;
  on_chain_listing_id: `0x${string}`;
}
export interface CredentialVerification {
  listing_id: string;
  rental_model?: RentalModel;
  status: string;
  valid: boolean;
  expired_at?: string;
  on_chain_listing_id?: string;
  on_chain_verified: boolean;
}
export interface ApiKey {
  key_id: string;
  label: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
}
export interface Rating {
  wallet: string;
  rating: number;
  comment: string | null;
  created_at: string;
}
export interface RatingList {
  listing_id: string;
  rating: number;
  review_count: number;
  ratings: Rating[];
  next_cursor: string | null;
}
export interface ListingMetadata {
  name: string;
  category: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  tools?: string[] | { name: string }[];
  timeout_seconds?: number;
}
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  examples?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
}
export interface Run {
  run_id: string;
  agent_id: string;
  status: FinishedRunStatus;
  output: unknown;
  cost_wei: number | string;
  duration_ms: number;
  error?: { code?: string; message?: string };
  settlement?: string;
}
export interface RunDetail extends Run {
  listing_id: string;
  settlement_tx: string | null;
  created_at: string;
  finished_at: string | null;
  receipt: Record<string, unknown> | null;
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
  /** How the agent runs, when the API says it (the console then offers only that kind's secret). */
  kind?: "declarative" | "connected";
}
export interface Job {
  job_id: string;
  status: JobStatus;
  result?: { agent_id: string; listing_id: string; listing_seed: `0x${string}`; metadata_uri: string };
  error?: { code: string; message: string; details?: { pointer: string; code: string; message: string }[] };
}
