// The API's request and response shapes, derived from the types generated from the service's own
// OpenAPI document (./generated/api.ts, by scripts/generate-sdk-types.ts), so they follow the service.
// Adjusted where the SDK gives more than JSON can: wei amounts are exact `bigint`s (the document types
// them as JSON integers, which JavaScript's number would round above 2^53).
import type { components, operations } from "./generated/api.ts";

type Schemas = components["schemas"];
type JsonBody<O extends keyof operations, S extends number> = operations[O]["responses"] extends Record<S, { content: { "application/json": infer B } }> ? B : never;
/** `T` with its wei fields as bigint. */
type Wei<T, K extends keyof T> = Omit<T, K> & { [P in K]: bigint };
type Hex = `0x${string}`;

export type RentalModel = Schemas["ListingSummary"]["rental_model"];
export type Category = Schemas["AgentManifest"]["category"];

/** The execute request: the tool-calling shape (agent_id, task, input) plus run options. */
export type ExecuteRequest = Schemas["ExecuteRequest"];

/** Why a failed run failed: its code (one of the vocabulary's run failure codes) and a message. */
export type RunError = Schemas["RunFailure"];

/** A failed run's `error.code`: docs/reference/runs.md says what each means. */
export type RunFailureCode = RunError["code"];

/** The result of a run (POST /v1/execute, and the `done` event of a stream); `cost_wei` exact. On a
 * stream's `done` with `settlement: "pending"`, `output` is null; `runs.get(run_id)` returns it once paid. */
export type Run = Wei<Schemas["Run"], "cost_wei">;

export type RunReceipt = NonNullable<Schemas["RunDetail"]["receipt"]>;

/** A run as its renter reads it later (GET /v1/runs/{run_id}); `cost_wei` exact. */
export type RunDetail = Wei<Schemas["RunDetail"], "cost_wei">;

/** An event of a streamed run. `id` is the offset into the output after this delta. */
export type StreamEvent = { type: "output"; delta: Schemas["OutputEvent"]["data"]["delta"]; id: string } | { type: "done"; run: Run };

export type Creator = Schemas["ListingSummary"]["creator"];

/** A listing as search returns it. */
export type ListingSummary = Schemas["ListingSummary"];

/** A listing with every field. */
export type Listing = Schemas["Listing"];

/** A listing's public metadata (GET /v1/metadata/{cid}, the listing's metadata_uri). The document types
 * it as an open object (it is the creator's document); the fields every registered manifest has are named. */
export type ListingMetadata = Schemas["ListingMetadata"] & {
  name: string;
  description: string;
  category: string;
  /** What the agent takes: a JSON Schema (draft 2020-12). */
  input_schema: Record<string, unknown>;
  /** What the agent answers: a JSON Schema (draft 2020-12). */
  output_schema: Record<string, unknown>;
  tools: string[];
  timeout_seconds: number;
};

/** Search filters, typed (the query string carries them as text). */
export interface ListingSearchParams {
  q?: string;
  category?: Category;
  rental_model?: RentalModel;
  min_price?: number;
  max_price?: number;
  /** ETH or a token's symbol (USDC, RENT): listings priced in it only; min_price and max_price are then
   * in it. Without it, price bounds are in ETH and keep ETH listings only, and the price sorts put ETH
   * listings first, then each token's together. */
  currency?: string;
  min_rating?: number;
  sort?: "relevance" | "rating" | "price_asc" | "price_desc" | "newest";
  limit?: number;
  offset?: number;
}
// The filters are exactly the operation's query parameters: one added or removed there fails the build here.
type SearchQueryKeys = keyof NonNullable<operations["searchListings"]["parameters"]["query"]>;
const searchKeysMatch: [Exclude<SearchQueryKeys, keyof ListingSearchParams>, Exclude<keyof ListingSearchParams, SearchQueryKeys>] extends [never, never] ? true : false = true;
void searchKeysMatch;

export type ListingSearchResult = Schemas["ListingSearch"];
/** What listings may be priced and paid in here: ETH, then each token of the allowlist (GET /v1/currencies). */
export type Currencies = Schemas["Currencies"];
export type AcceptedCurrency = Schemas["AcceptedCurrency"];

export type CredentialStatus = Schemas["CredentialVerification"]["status"];

export type Credential = Schemas["Credential"];

type CredentialQuery = NonNullable<operations["listCredentials"]["parameters"]["query"]>;
export type CredentialListParams = { [K in keyof CredentialQuery]?: NonNullable<CredentialQuery[K]> };

export type CredentialList = Schemas["CredentialList"];

/** The caller's credential for one listing, checked against the contract. */
export type CredentialVerification = Schemas["CredentialVerification"];

export type ApiKey = Schemas["ApiKey"];

/** A newly created key: `key` is shown only here. */
export type CreatedApiKey = Schemas["ApiKeyCreated"];
/** A spending limit as it is set: an amount in the currency's smallest unit (wei for ETH) per day or
 * month (UTC) or in total, per currency: ETH (the default) or a token listings are priced in, by its
 * symbol (USDC) or address. */
export type SpendLimitInput = { currency?: "ETH" | (string & {}); period: "day" | "month" | "total"; amount: string };
/** A spending limit with its current period's spending. */
export type SpendLimit = Schemas["SpendLimit"];
/** An app the wallet approved (Connected apps). */
export type ConnectedApp = Schemas["ConnectedApp"];
/** The wallet's alert settings (the signing secret only in the answer that made it). */
export type AlertSettings = Schemas["AlertSettings"];
/** One crossing of a spending limit's 80% or 100%, or of the low-balance threshold. */
export type Alert = Schemas["Alert"];
/** An app's sign-in request awaiting the person's decision (the consent page): the app, what it asks
 * for, the spending limit it proposes. */
export type ConsentRequest = Schemas["OAuthConsentRequest"];
/** Where the browser goes after a decision: the authorization server, which sends it on to the app. */
export type ConsentDecision = Schemas["OAuthDecision"];

export type StoredInput = Schemas["InputStored"];

export type AuthToken = Schemas["AuthToken"];

// ---------------------------------------------------------------------------------------------------
// Creators: registration, listing secrets, reviews (beta), ratings.

export type ReviewStatus = Schemas["CreatorProfile"]["status"];

/** The agent manifest (POST /v1/agents): see the manifest rules in the API documentation. */
export type AgentManifest = Schemas["AgentManifest"];

export type QueuedJob = Schemas["JobQueued"];

/** One problem of a rejected manifest. */
export type ManifestProblem = NonNullable<NonNullable<Schemas["Job"]["error"]>["details"]>[number];

/** A registration job (GET /v1/jobs/{job_id}). On completed: create the listing on-chain with
 * createListing(listing_seed, model, price, metadata_uri). */
export type Job = Omit<Schemas["Job"], "result"> & { result?: Omit<NonNullable<Schemas["Job"]["result"]>, "listing_seed"> & { listing_seed: Hex } };

export type CreatorProfile = Schemas["CreatorProfile"];

export type CreatorAgent = Omit<Schemas["CreatorAgent"], "listing_seed"> & { listing_seed: Hex };

export type CreatorOverview = Omit<Schemas["CreatorOverview"], "agents"> & { agents: CreatorAgent[] };

/** `T` with every field named `*_wei`, at any depth, an exact bigint (null where the field may be null). */
type WeiDeep<T> = T extends (infer U)[]
  ? WeiDeep<U>[]
  : T extends object
    ? { [K in keyof T]: K extends `${string}_wei` ? (null extends T[K] ? bigint | null : bigint) : WeiDeep<T[K]> }
    : T;

/** A creator's analytics (GET /v1/creators/me/analytics, and per listing); every wei amount exact. */
export type CreatorAnalytics = WeiDeep<Schemas["CreatorAnalytics"]>;

/** One period of the analytics' series (an hour, a day or a month), or the range's totals. */
export type AnalyticsPeriod = CreatorAnalytics["totals"];

/** A currency listings are priced and paid in: ETH (`address` null, 18 decimals) or a token. */
export type AnalyticsCurrency = Schemas["AnalyticsCurrency"];

/** A period's (or the totals') amounts in one currency, in its smallest unit as decimal strings (exact):
 * revenue by rental model, gross, fee, net, withdrawn, paid by x402; per_query deposits, refunds and
 * balance change; what runs were charged. Amounts of different currencies are never added. */
export type AnalyticsCurrencyFigures = Schemas["AnalyticsCurrencyFigures"];

/** An amount in one currency (its smallest unit, a decimal string): each currency's balances outstanding. */
export type AnalyticsCurrencyAmount = CreatorAnalytics["balances_outstanding_by_currency"][number];

/** One currency's top renters: `spend` in its smallest unit (a decimal string). */
export type AnalyticsTopRentersInCurrency = CreatorAnalytics["top_renters_by_currency"][number];

/** One currency's reconciliation with its contract (the Marketplace for ETH, the TokenMarketplace for a
 * token): escrow on-chain and from the figures, withdrawable and vesting (null when the chain did not answer). */
export type AnalyticsCurrencyReconciliation = CreatorAnalytics["reconciliation"]["by_currency"][number];

/** The range of an analytics request: ISO times or Dates (default: the 30 days up to now), by day unless told. */
export interface AnalyticsRange {
  from?: string | Date;
  to?: string | Date;
  granularity?: "hour" | "day" | "month";
  signal?: AbortSignal;
}

/** The tables a CSV holds: `series` (default) and `top_renters` in wei (the ETH listings'), or
 * `series_by_currency` and `top_renters_by_currency`, a row per currency in its smallest unit. */
export type AnalyticsCsvTable = NonNullable<NonNullable<operations["getCreatorAnalytics"]["parameters"]["query"]>["table"]>;

/** An analytics table as CSV: all listings, or one (`listingId`); `series` (default), `top_renters`,
 * `series_by_currency` or `top_renters_by_currency`. */
export interface AnalyticsCsvOptions extends AnalyticsRange {
  listingId?: string;
  table?: AnalyticsCsvTable;
}

export type ProviderKeySet = Schemas["ProviderKeySet"];

/** A connected agent's webhook signing secret (`whsec_…`): shown only here. */
export type WebhookSecret = Schemas["WebhookSecret"];

export type ListingReview = JsonBody<"reviewListing", 200>;

export type ReviewDecision = Schemas["ReviewDecision"];

export type Rating = Schemas["Rating"];

export type RatingResult = Schemas["RatingResult"];

export type RatingList = Schemas["RatingList"];

/** A run as listed (GET /v1/runs): a RunDetail without its output; `cost_wei` an exact bigint. */
export type RunSummary = Omit<RunDetail, "output">;

/** A page of the caller's runs of a listing, newest first. */
export type RunList = Omit<Schemas["RunList"], "runs"> & { runs: RunSummary[] };

/** A run's on-chain feedback, prepared: the feedback file and the giveFeedback transaction to send. */
export type RunFeedback = Schemas["RunFeedback"];

/** What POST /v1/runs/{run_id}/feedback takes: a score 0-100 (at most 2 decimals), a tag, a comment. */
export type FeedbackInput = Schemas["FeedbackInput"];

/** A listing's ERC-8004 reputation: verified rating, unverified count, feedback with verdicts. */
export type Reputation = Schemas["Reputation"];

/** A listing's ERC-8004 registration file and the register or setAgentURI transaction to send. */
export type Erc8004Registration = Schemas["Erc8004Registration"];
