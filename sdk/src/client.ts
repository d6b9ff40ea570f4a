// The client: authentication (API key, JWT, or wallet sign-in with refresh), retries, typed errors,
// exact wei amounts, and resumable streams.
import { AgentRentalError, AuthError, errorFromResponse, parseRetryAfter } from "./errors.ts";
import { parseJson } from "./json.ts";
import { resolveSigner, type ResolvedSigner, type Signer, type SignerOptions } from "./signer.ts";
import { runWalletSignature, WALLET_SIGNATURE_HEADER, type RunProofPurpose } from "./run-proof.ts";
import { readSse } from "./sse.ts";
import { rentInToken, type RentInTokenOptions } from "./rent.ts";
import type { TokenPurchaseResult } from "@agent-rental/core/token-purchase";
import type {
  AnalyticsCsvOptions,
  AnalyticsRange,
  CreatorAnalytics,
  AgentManifest,
  ApiKey,
  CreatorOverview,
  CreatorProfile,
  Job,
  ListingReview,
  ProviderKeySet,
  QueuedJob,
  RatingList,
  RunFeedback,
  RunList,
  FeedbackInput,
  Reputation,
  Erc8004Registration,
  RatingResult,
  ReviewDecision,
  ReviewStatus,
  WebhookSecret,
  AuthToken,
  CreatedApiKey,
  ConnectedApp,
  AlertSettings,
  Alert,
  ConsentDecision,
  ConsentRequest,
  SpendLimitInput,
  CredentialList,
  CredentialListParams,
  CredentialVerification,
  ExecuteRequest,
  Listing,
  ListingSearchParams,
  ListingMetadata,
  ListingSearchResult,
  Currencies,
  Run,
  RunDetail,
  StoredInput,
  StreamEvent,
} from "./types.ts";

export interface AgentRentalClientOptions {
  /** The API host, for example `https://api.example.com` (a trailing `/v1` is accepted). */
  baseUrl: string;
  /** An API key (`svc_test_…` / `svc_live_…`). Keep keys server side. */
  apiKey?: string;
  /** A JWT obtained elsewhere. `signIn` replaces it with one the client can refresh. */
  token?: string;
  /** The fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Retries after a 500 or 503 (and after a 429 with `retryOn429`), with exponential backoff and jitter. Default 2. */
  retries?: number;
  /** Retry 429 answers after their Retry-After. Default false: a RateLimitError is thrown at once. */
  retryOn429?: boolean;
  /** The first backoff step in milliseconds (doubled on each retry, with jitter). Default 250. */
  retryBaseDelayMs?: number;
  /** How long before its expiry a signed-in JWT is renewed, in seconds. Default 60. */
  tokenRefreshMarginSeconds?: number;
}

export interface ExecuteOptions {
  /** Makes retries safe: the same key with the same request returns the first run and is never charged twice. Default: a random UUID per call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Streams only: called with the run id (the X-Run-Id header) as soon as the service has started the run. */
  onRunId?: (runId: string) => void;
  /** Streams only: how many times in a row a dropped stream is resumed from its last event before the
   * iteration throws `stream_interrupted` (default 5). 0 gives up at the first drop, for a caller that
   * resumes on its own terms (with `runs.events` and the last event id it saw). */
  resumes?: number;
}

export interface RunEventsOptions {
  /** Resume after this event id (an output offset). Omit for every event. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** As ExecuteOptions.resumes: resumes in a row before `stream_interrupted` (default 5). */
  resumes?: number;
}

/** A request about one run, proven by the run's wallet instead of the client's credential. */
export interface RunWalletOptions {
  signal?: AbortSignal;
  /** The run's wallet (a viem account, or an EIP-1193 provider): it signs `run-read:` (or `run-feedback:`)
   * `<run_id>:<unix_timestamp>`, sent as X-Wallet-Signature, and the client's API key or JWT is not sent. */
  wallet?: Signer;
  /** For a provider: the account to sign with (default: the first of `eth_requestAccounts`). */
  address?: string;
}

export interface UploadOptions {
  /** How a string is sent: as text (default) or as base64 of its bytes. Bytes are always sent as base64. */
  encoding?: "utf8" | "base64";
}

type Query = Record<string, string | number | undefined>;

/** The query of an analytics request. */
function analyticsQuery(range: AnalyticsRange): Query {
  const iso = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);
  return { from: iso(range.from), to: iso(range.to), granularity: range.granularity };
}

/** A request's proof by the run's wallet instead of the bearer credential, when `options.wallet` is given. */
async function walletProof(runId: string, purpose: RunProofPurpose, options: RunWalletOptions): Promise<{ auth?: false; headers?: Record<string, string> }> {
  if (options.wallet === undefined) return {};
  return { auth: false, headers: { [WALLET_SIGNATURE_HEADER]: await runWalletSignature(options.wallet, runId, purpose, options.address === undefined ? {} : { address: options.address }) } };
}

/** A request to any route of the API, with the client's authentication, retries and typed errors. */
export interface ApiRequestOptions {
  query?: Query;
  /** Sent as JSON; a string is sent as it is (already JSON). */
  body?: unknown;
  /** Whether the request may be repeated after a 500/503 (default: every method but POST). */
  idempotent?: boolean;
  signal?: AbortSignal;
}

export interface WaitForJobOptions {
  /** Between two reads of the job. Default 500 ms. */
  intervalMs?: number;
  /** Give up after this long (an AgentRentalError with code `timeout`). Default 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sends the bearer credential (default true). */
  auth?: boolean;
  /** Whether the request may be repeated; by default GET, DELETE and any request with an Idempotency-Key. */
  idempotent?: boolean;
  signal?: AbortSignal | undefined;
}

interface Session {
  token: string;
  /** Unix seconds; Infinity for a token given without its expiry. */
  expiresAt: number;
  signer?: ResolvedSigner;
}

const MAX_DELAY_MS = 30_000;
/** Consecutive stream interruptions without a new event before a stream gives up (by default). */
const MAX_STREAM_RESUMES = 5;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export class AgentRentalClient {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retries: number;
  private readonly retryOn429: boolean;
  private readonly baseDelayMs: number;
  private readonly refreshMarginSeconds: number;
  private apiKey: string | undefined;
  private session: Session | undefined;
  private refreshing: Promise<void> | undefined;

  /** Runs: list yours of a listing, read one, or follow its event stream. */
  readonly runs: {
    /** The caller's runs of a listing, newest first, without their outputs (`runs.get` reads one whole). */
    list(listingId: string, params?: { limit?: number; cursor?: string }, options?: { signal?: AbortSignal }): Promise<RunList>;
    /** One run, whole. With `wallet` (the run's wallet: the payer of an x402 run, which holds no key), the
     * wallet signs for it instead of the client's credential (`X-Wallet-Signature`). */
    get(runId: string, options?: RunWalletOptions): Promise<RunDetail>;
    events(runId: string, options?: RunEventsOptions): AsyncGenerator<StreamEvent, void, undefined>;
    /** On-chain feedback for a completed run of the caller's: the feedback file (with the run's receipt as
     * proof) and the unsigned giveFeedback transaction for the caller's wallet to send. With `wallet`, the
     * run's wallet signs for it instead of the client's credential. */
    feedback(runId: string, input: FeedbackInput, options?: RunWalletOptions): Promise<RunFeedback>;
  };
  /** The public catalogue; ratings; and the settings a listing's creator makes. */
  readonly listings: {
    search(params?: ListingSearchParams, options?: { signal?: AbortSignal }): Promise<ListingSearchResult>;
    get(id: string, options?: { signal?: AbortSignal }): Promise<Listing>;
    /** What listings may be priced and paid in here: ETH, then each token of the allowlist, with its
     * address, decimals, contract and whether per-task listings in it are payable by x402. Public. */
    currencies(options?: { signal?: AbortSignal }): Promise<Currencies>;
    /** Rents a listing priced in a token (its `currency.address`) with the renter's viem clients: one
     * signature and one transaction where the token implements EIP-3009 (USDC) or EIP-2612 (permit),
     * approve then purchase otherwise. No sign-in needed: the purchase is the wallet's own. */
    rentInToken(listingId: string, options: RentInTokenOptions): Promise<TokenPurchaseResult>;
    /** Rates a listing (1 to 5; a wallet with a completed run of it); rating again replaces. */
    rate(listingId: string, rating: number, comment?: string | null): Promise<RatingResult>;
    ratings(listingId: string, params?: { limit?: number; cursor?: string }, options?: { signal?: AbortSignal }): Promise<RatingList>;
    /** The listing's ERC-8004 reputation: its verified rating and every feedback with its verdict. */
    reputation(listingId: string, params?: { limit?: number; cursor?: string }, options?: { signal?: AbortSignal }): Promise<Reputation>;
    /** For its creator: the listing's ERC-8004 registration file and the transaction to send (register
     * without agentId, setAgentURI with it). */
    prepareErc8004(listingId: string, agentId?: string | bigint): Promise<Erc8004Registration>;
    /** A listing's public metadata (its `metadata_uri`, ipfs://<cid>): name, description, input and output schemas. */
    metadata(metadataUri: string, options?: { signal?: AbortSignal }): Promise<ListingMetadata>;
    /** Creator: sets (or replaces) a declarative agent's model-provider key; it is never returned afterwards. */
    setProviderKey(listingId: string, providerKey: string): Promise<ProviderKeySet>;
    /** Creator: creates (or rotates) a connected agent's webhook signing secret, returned this once. */
    rotateWebhookSecret(listingId: string): Promise<WebhookSecret>;
  };
  /** The signed-in wallet's rental credentials. */
  readonly credentials: {
    list(params?: CredentialListParams, options?: { signal?: AbortSignal }): Promise<CredentialList>;
    verify(listingId: string, options?: { signal?: AbortSignal }): Promise<CredentialVerification>;
  };
  /** API keys of the authenticated wallet. */
  readonly keys: {
    /** Creates a key; `options.spendLimits` bound what it may spend on per-task runs. */
    create(label: string, signer: Signer, options?: SignerOptions & { spendLimits?: SpendLimitInput[] }): Promise<CreatedApiKey>;
    list(): Promise<ApiKey[]>;
    revoke(keyId: string): Promise<ApiKey>;
    /** Replaces a key's spending limits (`[]` removes them). Needs a wallet sign-in, not an API key. */
    setSpendLimits(keyId: string, spendLimits: SpendLimitInput[]): Promise<ApiKey>;
  };
  /** Apps the wallet approved (Connected apps). */
  readonly apps: {
    list(): Promise<ConnectedApp[]>;
    revoke(appId: string): Promise<{ app_id: string; revoked_at: string }>;
    /** Replaces an app's spending limits (`[]` removes them). Needs a wallet sign-in, not an API key. */
    setSpendLimits(appId: string, spendLimits: SpendLimitInput[]): Promise<ConnectedApp>;
  };
  /** Alerts on spending: the wallet's webhook and low-balance threshold, and what crossed. */
  readonly alerts: {
    /** The settings (before any are set: no webhook, no threshold, null times). */
    getSettings(): Promise<AlertSettings>;
    /** Sets the webhook (https, or null for dashboard notices only) and the low-balance threshold in runs.
     * The first call and `rotateSecret` return the webhook's signing secret, once. Needs a wallet sign-in. */
    setSettings(settings: { webhookUrl: string | null; lowBalanceRuns?: number | null; rotateSecret?: boolean }): Promise<AlertSettings>;
    /** The newest alerts (`limit`, default 20, up to 100), newest first. */
    list(params?: { limit?: number }): Promise<Alert[]>;
  };
  /** Sign-in requests of apps that connect by URL, as the person approving sees them (the dashboard's
   * consent page). Only the browser that started a request can finish it: send it to `redirect_to`. */
  readonly consentRequests: {
    get(requestId: string, options?: { signal?: AbortSignal }): Promise<ConsentRequest>;
    /** Approves the request; `spendLimits` are the app's spending limits as the person set them. */
    approve(requestId: string, options?: { spendLimits?: SpendLimitInput[] }): Promise<ConsentDecision>;
    deny(requestId: string): Promise<ConsentDecision>;
  };
  /** Content-addressed task inputs, for `ExecuteRequest.input_uri`. */
  readonly inputs: {
    upload(content: string | Uint8Array, options?: UploadOptions): Promise<StoredInput>;
  };
  /** Registering agents (creators): the manifest is validated and queued; follow the job. */
  readonly agents: {
    /** Submits a manifest (an object, or its JSON text as written). Never retried: a retry could queue it twice. */
    /** `market: "token"`: the agent is to be listed on the TokenMarketplace, priced in a token (the job's
     * listing_id is that contract's; the creator then calls its createListing(seed, token, …)). */
    register(manifest: AgentManifest | string, options?: { signal?: AbortSignal; market?: "eth" | "token" }): Promise<QueuedJob>;
  };
  /** Registration jobs of the signed-in creator. */
  readonly jobs: {
    get(jobId: string, options?: { signal?: AbortSignal }): Promise<Job>;
    /** Reads the job until it is no longer queued. */
    wait(jobId: string, options?: WaitForJobOptions): Promise<Job>;
  };
  /** The signed-in wallet as a creator (beta: applications are reviewed before registering). */
  readonly creators: {
    apply(displayName: string): Promise<CreatorProfile>;
    /** The application and the agents, with their review decisions and reasons. */
    me(): Promise<CreatorOverview>;
    /** What the creator's listings earned, from whom, and how their runs went, over a range: counts across
     * every listing, the ETH listings' amounts as exact bigint `_wei` fields, and every currency's in the
     * `by_currency` fields (decimal strings in its smallest unit; `analyticsByCurrency` gathers them). */
    analytics(range?: AnalyticsRange): Promise<CreatorAnalytics>;
    /** The same for one of the creator's listings (another creator's: not_found). */
    listingAnalytics(listingId: string, range?: AnalyticsRange): Promise<CreatorAnalytics>;
    /** One analytics table as CSV text (`table`: series, top_renters, or per currency series_by_currency, top_renters_by_currency). */
    analyticsCsv(options?: AnalyticsCsvOptions): Promise<string>;
  };
  /** Reviews during the beta: the protocol authority's wallet only. */
  readonly reviews: {
    creators(status?: ReviewStatus): Promise<CreatorProfile[]>;
    reviewCreator(wallet: string, decision: ReviewDecision): Promise<CreatorProfile>;
    listings(): Promise<{ listing_id: string; created_at: string }[]>;
    reviewListing(listingId: string, decision: ReviewDecision): Promise<ListingReview>;
  };

  constructor(options: AgentRentalClientOptions) {
    if (typeof options.baseUrl !== "string" || options.baseUrl === "") throw new TypeError("baseUrl is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") throw new TypeError("no fetch implementation: pass options.fetch");
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.retries = Math.max(0, Math.floor(options.retries ?? 2));
    this.retryOn429 = options.retryOn429 ?? false;
    this.baseDelayMs = Math.max(0, options.retryBaseDelayMs ?? 250);
    this.refreshMarginSeconds = Math.max(0, options.tokenRefreshMarginSeconds ?? 60);
    this.apiKey = options.apiKey;
    if (options.token !== undefined) this.session = { token: options.token, expiresAt: Number.POSITIVE_INFINITY };

    this.runs = {
      list: (listingId, params = {}, opts = {}) => this.json<RunList>({ method: "GET", path: "/v1/runs", query: { listing_id: listingId, ...params }, signal: opts.signal }),
      get: async (runId, opts = {}) => this.json<RunDetail>({ method: "GET", path: `/v1/runs/${encodeURIComponent(runId)}`, signal: opts.signal, ...(await walletProof(runId, "read", opts)) }),
      events: (runId, opts = {}) => this.streamRun({ runId, lastEventId: opts.lastEventId, signal: opts.signal, resumes: opts.resumes }),
      feedback: async (runId, input, opts = {}) => this.json<RunFeedback>({ method: "POST", path: `/v1/runs/${encodeURIComponent(runId)}/feedback`, body: input, signal: opts.signal, ...(await walletProof(runId, "feedback", opts)) }),
    };
    this.listings = {
      search: (params = {}, opts = {}) => this.json<ListingSearchResult>({ method: "GET", path: "/v1/listings", query: { ...params }, signal: opts.signal }),
      get: (id, opts = {}) => this.json<Listing>({ method: "GET", path: `/v1/listings/${encodeURIComponent(id)}`, signal: opts.signal }),
      currencies: (opts = {}) => this.json<Currencies>({ method: "GET", path: "/v1/currencies", auth: false, signal: opts.signal }),
      rentInToken: async (listingId, options) => rentInToken(await this.listings.get(listingId), options),
      metadata: (metadataUri, opts = {}) => {
        const cid = metadataUri.startsWith("ipfs://") ? metadataUri.slice("ipfs://".length) : metadataUri;
        if (!/^[a-z2-7]{8,}$/.test(cid)) throw new TypeError("metadataUri must be ipfs://<CIDv1>");
        return this.json<ListingMetadata>({ method: "GET", path: `/v1/metadata/${cid}`, auth: false, signal: opts.signal });
      },
      rate: (listingId, rating, comment) =>
        this.json<RatingResult>({ method: "PUT", path: `/v1/listings/${encodeURIComponent(listingId)}/rating`, body: { rating, ...(comment === undefined ? {} : { comment }) } }),
      ratings: (listingId, params = {}, opts = {}) => this.json<RatingList>({ method: "GET", path: `/v1/listings/${encodeURIComponent(listingId)}/ratings`, query: { ...params }, signal: opts.signal }),
      reputation: (listingId, params = {}, opts = {}) => this.json<Reputation>({ method: "GET", path: `/v1/listings/${encodeURIComponent(listingId)}/reputation`, query: { ...params }, signal: opts.signal }),
      prepareErc8004: (listingId, agentId) =>
        this.json<Erc8004Registration>({ method: "POST", path: `/v1/listings/${encodeURIComponent(listingId)}/erc8004`, body: agentId === undefined ? {} : { agent_id: agentId.toString() } }),
      setProviderKey: (listingId, providerKey) => this.json<ProviderKeySet>({ method: "PUT", path: `/v1/listings/${encodeURIComponent(listingId)}/provider-key`, body: { provider_key: providerKey } }),
      rotateWebhookSecret: (listingId) => this.json<WebhookSecret>({ method: "POST", path: `/v1/listings/${encodeURIComponent(listingId)}/webhook-secret` }),
    };
    this.credentials = {
      list: (params = {}, opts = {}) => this.json<CredentialList>({ method: "GET", path: "/v1/credentials", query: { ...params }, signal: opts.signal }),
      verify: (listingId, opts = {}) => this.json<CredentialVerification>({ method: "GET", path: `/v1/credentials/${encodeURIComponent(listingId)}`, signal: opts.signal }),
    };
    this.keys = {
      create: async (label, signer, signerOptions) => {
        const resolved = await resolveSigner(signer, signerOptions);
        const request = await this.json<{ nonce: string; message: string }>({ method: "POST", path: "/v1/keys/challenge", body: { label } });
        const signature = await resolved.sign(request.message);
        const spendLimits = signerOptions?.spendLimits;
        return this.json<CreatedApiKey>({ method: "POST", path: "/v1/keys", body: { nonce: request.nonce, signature, ...(spendLimits ? { spend_limits: spendLimits } : {}) } });
      },
      list: async () => (await this.json<{ keys: ApiKey[] }>({ method: "GET", path: "/v1/keys" })).keys,
      revoke: (keyId) => this.json<ApiKey>({ method: "DELETE", path: `/v1/keys/${encodeURIComponent(keyId)}` }),
      setSpendLimits: (keyId, spendLimits) => this.json<ApiKey>({ method: "PATCH", path: `/v1/keys/${encodeURIComponent(keyId)}`, body: { spend_limits: spendLimits } }),
    };
    this.apps = {
      list: async () => (await this.json<{ apps: ConnectedApp[] }>({ method: "GET", path: "/v1/oauth/apps" })).apps,
      revoke: (appId) => this.json<{ app_id: string; revoked_at: string }>({ method: "DELETE", path: `/v1/oauth/apps/${encodeURIComponent(appId)}` }),
      setSpendLimits: (appId, spendLimits) => this.json<ConnectedApp>({ method: "PATCH", path: `/v1/oauth/apps/${encodeURIComponent(appId)}`, body: { spend_limits: spendLimits } }),
    };
    this.alerts = {
      getSettings: () => this.json<AlertSettings>({ method: "GET", path: "/v1/alerts/settings" }),
      setSettings: (settings) =>
        this.json<AlertSettings>({
          method: "PUT",
          path: "/v1/alerts/settings",
          body: { webhook_url: settings.webhookUrl, low_balance_runs: settings.lowBalanceRuns ?? null, ...(settings.rotateSecret ? { rotate_secret: true } : {}) },
        }),
      list: async (params = {}) => (await this.json<{ alerts: Alert[] }>({ method: "GET", path: "/v1/alerts", query: { ...params } })).alerts,
    };
    this.consentRequests = {
      get: (requestId, opts = {}) => this.json<ConsentRequest>({ method: "GET", path: `/v1/oauth/requests/${encodeURIComponent(requestId)}`, signal: opts.signal }),
      approve: (requestId, opts = {}) =>
        this.json<ConsentDecision>({ method: "POST", path: `/v1/oauth/requests/${encodeURIComponent(requestId)}/approve`, body: opts.spendLimits ? { spend_limits: opts.spendLimits } : {} }),
      deny: (requestId) => this.json<ConsentDecision>({ method: "POST", path: `/v1/oauth/requests/${encodeURIComponent(requestId)}/deny` }),
    };
    this.inputs = {
      // Content-addressed: storing the same content twice stores it once, so the upload may be retried.
      upload: (content, opts = {}) =>
        this.json<StoredInput>({
          method: "POST",
          path: "/v1/inputs",
          idempotent: true,
          body: typeof content === "string" ? { content, ...(opts.encoding ? { encoding: opts.encoding } : {}) } : { content: toBase64(content), encoding: "base64" },
        }),
    };
    const id = encodeURIComponent;
    this.agents = {
      register: (manifest, opts = {}) => this.json<QueuedJob>({ method: "POST", path: "/v1/agents", body: manifest, signal: opts.signal, ...(opts.market ? { query: { market: opts.market } } : {}) }),
    };
    this.jobs = {
      get: (jobId, opts = {}) => this.json<Job>({ method: "GET", path: `/v1/jobs/${id(jobId)}`, signal: opts.signal }),
      wait: async (jobId, opts = {}) => {
        const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
        for (;;) {
          const job = await this.jobs.get(jobId, opts.signal ? { signal: opts.signal } : {});
          if (job.status !== "queued") return job;
          if (Date.now() >= deadline) throw new AgentRentalError({ code: "timeout", status: 0, message: `Job ${jobId} is still queued after ${opts.timeoutMs ?? 120_000} ms.` });
          await sleep(Math.min(opts.intervalMs ?? 500, Math.max(0, deadline - Date.now())), opts.signal);
        }
      },
    };
    this.creators = {
      apply: (displayName) => this.json<CreatorProfile>({ method: "POST", path: "/v1/creators", body: { display_name: displayName } }),
      me: () => this.json<CreatorOverview>({ method: "GET", path: "/v1/creators/me" }),
      analytics: (range = {}) => this.json<CreatorAnalytics>({ method: "GET", path: "/v1/creators/me/analytics", query: analyticsQuery(range), signal: range.signal }),
      listingAnalytics: (listingId, range = {}) => this.json<CreatorAnalytics>({ method: "GET", path: `/v1/creators/me/listings/${id(listingId)}/analytics`, query: analyticsQuery(range), signal: range.signal }),
      analyticsCsv: async (options = {}) => {
        const path = options.listingId === undefined ? "/v1/creators/me/analytics" : `/v1/creators/me/listings/${id(options.listingId)}/analytics`;
        const response = await this.send({ method: "GET", path, query: { ...analyticsQuery(options), format: "csv", table: options.table }, headers: { accept: "text/csv" }, signal: options.signal });
        return response.text();
      },
    };
    this.reviews = {
      creators: async (status = "pending") => (await this.json<{ applications: CreatorProfile[] }>({ method: "GET", path: "/v1/reviews/creators", query: { status } })).applications,
      reviewCreator: (wallet, decision) => this.json<CreatorProfile>({ method: "POST", path: `/v1/reviews/creators/${id(wallet)}`, body: decision }),
      listings: async () => (await this.json<{ listings: { listing_id: string; created_at: string }[] }>({ method: "GET", path: "/v1/reviews/listings" })).listings,
      reviewListing: (listingId, decision) => this.json<ListingReview>({ method: "POST", path: `/v1/reviews/listings/${id(listingId)}`, body: decision }),
    };
  }

  /**
   * Calls any route of the API with this client's authentication, retry rules and typed errors, for
   * routes without a method of their own. `path` starts with `/v1/`.
   *
   * @example
   * const { listings } = await client.request<{ listings: unknown[] }>("GET", "/v1/listings", { query: { q: "tax" } });
   */
  request<T>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, options: ApiRequestOptions = {}): Promise<T> {
    if (!path.startsWith("/v1/")) throw new TypeError('path must start with "/v1/"');
    return this.json<T>({ method, path, ...(options.query ? { query: options.query } : {}), ...(options.body === undefined ? {} : { body: options.body }), ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }), signal: options.signal });
  }

  /** Sets (or clears) the API key. A signed-in JWT, when present, is used instead. */
  setApiKey(apiKey: string | undefined): void {
    this.apiKey = apiKey;
  }

  /** Forgets the JWT (from `signIn` or the constructor); the API key, if any, is used again. */
  signOut(): void {
    this.session = undefined;
  }

  /**
   * Signs in with a wallet: fetches a challenge, has the wallet sign it (EIP-191), and exchanges it for
   * a JWT. The client then authenticates with that JWT and renews it (signing again) before it expires.
   */
  async signIn(signer: Signer, options: SignerOptions = {}): Promise<AuthToken & { wallet: string }> {
    const resolved = await resolveSigner(signer, options);
    const token = await this.exchange(resolved);
    return { ...token, wallet: resolved.address };
  }

  /** Runs a task and returns the Run. Retried safely on 500/503 under one Idempotency-Key. */
  async execute(request: ExecuteRequest, options: ExecuteOptions = {}): Promise<Run> {
    return this.json<Run>({
      method: "POST",
      path: "/v1/execute",
      body: request,
      headers: { "idempotency-key": options.idempotencyKey ?? randomKey() },
      signal: options.signal,
    });
  }

  /**
   * Runs a task and yields its events: `output` deltas, then one `done` with the Run. A dropped
   * connection is resumed from the last event received, so every delta is yielded exactly once.
   * Aborting the signal stops the iteration (it throws the abort reason); the run itself goes on
   * server side and stays readable with `runs.get`.
   */
  executeStream(request: ExecuteRequest, options: ExecuteOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    return this.streamRun({ request, idempotencyKey: options.idempotencyKey ?? randomKey(), signal: options.signal, onRunId: options.onRunId, resumes: options.resumes });
  }

  private async *streamRun(start: {
    request?: ExecuteRequest;
    idempotencyKey?: string;
    runId?: string;
    lastEventId?: string | undefined;
    signal?: AbortSignal | undefined;
    onRunId?: ((runId: string) => void) | undefined;
    resumes?: number | undefined;
  }): AsyncGenerator<StreamEvent, void, undefined> {
    const { signal } = start;
    const maxResumes = Math.max(0, Math.floor(start.resumes ?? MAX_STREAM_RESUMES));
    let runId = start.runId;
    let lastId = start.lastEventId;
    let interruptions = 0;
    for (;;) {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (lastId !== undefined) headers["last-event-id"] = lastId;
      let response: Response;
      if (runId === undefined) {
        if (start.request === undefined || start.idempotencyKey === undefined) throw new TypeError("a stream needs a request or a run id");
        headers["idempotency-key"] = start.idempotencyKey;
        response = await this.send({ method: "POST", path: "/v1/execute/stream", body: start.request, headers, signal });
        runId = response.headers.get("x-run-id") ?? undefined;
        if (runId !== undefined) start.onRunId?.(runId);
      } else {
        response = await this.send({ method: "GET", path: `/v1/runs/${encodeURIComponent(runId)}/events`, headers, signal });
      }
      let cause: unknown;
      try {
        if (response.body === null) throw new TypeError("the stream response has no body");
        for await (const message of readSse(response.body)) {
          if (message.event === "output") {
            const { delta } = parseJson<{ delta: string }>(message.data);
            if (message.id !== undefined) lastId = message.id;
            interruptions = 0;
            yield { type: "output", delta, id: message.id ?? "" };
          } else if (message.event === "done") {
            yield { type: "done", run: parseJson<Run>(message.data) };
            return;
          }
        }
        cause = new TypeError("the stream ended before its done event");
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        cause = error;
      }
      interruptions += 1;
      if (interruptions > maxResumes) {
        throw new AgentRentalError({ code: "stream_interrupted", status: 0, message: `The event stream${runId ? ` of run ${runId}` : ""} was interrupted ${interruptions} times without progress.`, cause });
      }
      await sleep(this.backoff(interruptions - 1), signal);
    }
  }

  private async json<T>(spec: RequestSpec): Promise<T> {
    const response = await this.send(spec);
    return parseJson<T>(await response.text());
  }

  private url(path: string, query: Query | undefined): string {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(MAX_DELAY_MS, this.baseDelayMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /** The delay before retrying a failed answer, or undefined when it must not be retried. */
  private retryDelay(status: number, headers: Headers, attempt: number, retriable: boolean): number | undefined {
    if (!retriable || attempt >= this.retries) return undefined;
    const retryAfter = parseRetryAfter(headers.get("retry-after"));
    if (status === 500 || status === 503) return Math.min(MAX_DELAY_MS, Math.max(this.backoff(attempt), (retryAfter ?? 0) * 1000));
    if (status === 429 && this.retryOn429) return Math.min(MAX_DELAY_MS, (retryAfter ?? 1) * 1000);
    return undefined;
  }

  private async bearer(): Promise<string | undefined> {
    const session = this.session;
    if (session?.signer !== undefined && session.expiresAt - this.refreshMarginSeconds <= Date.now() / 1000) await this.refresh(session.signer);
    return this.session?.token ?? this.apiKey;
  }

  /** Renews the JWT with the wallet that signed in; concurrent callers share one renewal. */
  private refresh(signer: ResolvedSigner): Promise<void> {
    this.refreshing ??= this.exchange(signer)
      .then(() => undefined)
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private async exchange(signer: ResolvedSigner): Promise<AuthToken> {
    const { challenge } = await this.json<{ challenge: string; expires_at: number }>({ method: "GET", path: "/v1/auth/challenge", query: { wallet: signer.address }, auth: false });
    const signature = await signer.sign(challenge);
    const token = await this.json<AuthToken>({ method: "POST", path: "/v1/auth/token", body: { wallet: signer.address, challenge, signature }, auth: false });
    this.session = { token: token.token, expiresAt: token.expires_at, signer };
    return token;
  }

  /** Sends a request with the retry rules; answers a 2xx response or throws the typed error. */
  private async send(spec: RequestSpec): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json", ...spec.headers };
    const retriable = spec.idempotent ?? (spec.method !== "POST" || Object.keys(headers).some((name) => name.toLowerCase() === "idempotency-key"));
    const body = spec.body === undefined ? undefined : typeof spec.body === "string" ? spec.body : JSON.stringify(spec.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const url = this.url(spec.path, spec.query);
    let reauthenticated = false;
    for (let attempt = 0; ; attempt++) {
      spec.signal?.throwIfAborted();
      const sent = { ...headers };
      if (spec.auth !== false) {
        const bearer = await this.bearer();
        if (bearer !== undefined) sent.authorization = `Bearer ${bearer}`;
      }
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method: spec.method, headers: sent, ...(body === undefined ? {} : { body }), ...(spec.signal ? { signal: spec.signal } : {}) });
      } catch (error) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (retriable && attempt < this.retries) {
          await sleep(this.backoff(attempt), spec.signal);
          continue;
        }
        throw new AgentRentalError({ code: "connection_failed", status: 0, message: `${spec.method} ${spec.path} failed: ${error instanceof Error ? error.message : String(error)}`, cause: error });
      }
      if (response.ok) return response;
      const error = errorFromResponse(response.status, response.headers, await response.text().catch(() => ""));
      // A JWT that expired early (clock skew) was refused before anything ran: renew it once and resend.
      if (error instanceof AuthError && error.code === "jwt_expired" && this.session?.signer !== undefined && !reauthenticated) {
        reauthenticated = true;
        await this.refresh(this.session.signer);
        attempt -= 1;
        continue;
      }
      const delay = this.retryDelay(response.status, response.headers, attempt, retriable);
      if (delay === undefined) throw error;
      await sleep(delay, spec.signal);
    }
  }
}
