// Generated from the API's OpenAPI document by scripts/generate-sdk-types.ts (openapi-typescript).
// Do not edit: change the routes' schemas, then run `npm run generate:sdk-types`.
/* eslint-disable */
export interface paths {
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the Agent Card signing keys
         * @description The JSON Web Key Set (RFC 7517) of the keys that sign the A2A Agent Cards: verify a card's `signatures` with the key whose `kid` its protected header names. Every key still configured is listed, newest first (the first signs new cards). Needs no token; cached for an hour. Empty when the service signs no cards.
         */
        get: operations["getCardSigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the authorization server's metadata
         * @description RFC 8414 metadata of the service's OAuth 2.1 authorization server: `issuer` (the API's base URL), the authorization, token, registration and revocation endpoints, `response_types_supported` code, `grant_types_supported` authorization_code and refresh_token, `code_challenge_methods_supported` S256 only, `token_endpoint_auth_methods_supported`, `scopes_supported`, `authorization_response_iss_parameter_supported` (RFC 9207) and `client_id_metadata_document_supported`. Needs no token; cacheable for an hour.
         */
        get: operations["getAuthorizationServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the service's protected resource metadata
         * @description RFC 9728 metadata of the service as one protected resource (`resource` is the API's base URL): its authorization server, its scopes, and that access tokens go in the Authorization header. A token issued for this resource opens the remote MCP endpoint, every A2A agent and the REST routes of its scopes. Every 401 of a protected route names this document (`WWW-Authenticate: Bearer resource_metadata=…`). Needs no token; cacheable for an hour.
         */
        get: operations["getProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/a2a/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an A2A agent's protected resource metadata
         * @description RFC 9728 metadata of one published agent's A2A endpoint (`resource` is `{api}/a2a/{agent_id}`, the id as written in the path). A token issued for this resource opens that agent's A2A endpoint only; a token for the service as a whole (GET /.well-known/oauth-protected-resource) opens every agent. Needs no token; cacheable for an hour. An unknown or unpublished agent: 404 listing_not_found.
         */
        get: operations["getA2aProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/v1/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the MCP endpoint's protected resource metadata
         * @description RFC 9728 metadata of the remote MCP endpoint alone (`resource` is `{api}/v1/mcp`), in the path form MCP clients try when a 401 names no metadata. A token issued for this resource opens POST /v1/mcp only. Needs no token; cacheable for an hour.
         */
        get: operations["getMcpProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/a2a/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A2A endpoint of an agent (JSON-RPC)
         * @description The agent's A2A v1.0 endpoint, JSON-RPC 2.0 binding: `SendMessage` (a text part is the task, a data part the input, checked against the agent's input schema; the answer is the task), `SendStreamingMessage` (Server-Sent Events: the task, its status, the output as an artifact, the final status), `GetTask`, `ListTasks` (the caller's own runs of this agent, newest first, paged), `CancelTask` (a run cannot be stopped: -32002), `SubscribeToTask` (a running task's events; Last-Event-ID resumes); v0.3's `message/send`, `message/stream`, `tasks/get`, `tasks/cancel` and `tasks/resubscribe` too. A task is a run: the same authentication, credential check, sandbox, charge and receipt as POST /v1/execute; the task id is the run id, the message's messageId its Idempotency-Key, and the task's metadata carries the run's id, cost (exact wei, a string), settlement and receipt. Every error is a JSON-RPC error object whose data (google.rpc.ErrorInfo) carries the service's error code and the request id: A2A's codes where A2A names the failure, -32000 for the service's refusals (credential_not_found, credential_expired, insufficient_balance, listing_paused, listing_not_found, rate_limit_exceeded, …). Authentication, rate limits and bodies refused before they are read keep their HTTP status (401, 413, 415, 429, 503); the rest are answered with 200. An agent whose listing is per task in an EIP-3009 token (USDC) is also paid per task by the A2A x402 extension (its card declares it), without Authorization: a SendMessage or SendStreamingMessage that activates it (A2A-Extensions, or X-A2A-Extensions, naming its URI) without payment is answered with a task in input-required whose status message's metadata carries x402.payment.status payment-required and x402.payment.required (POST /v1/execute's PaymentRequired); the next message (the same taskId, or none) carries payment-submitted and the PaymentPayload in x402.payment.payload. The run settles only if it completed, and the task is answered once the payment is in a block, with payment-completed and x402.payment.receipts (success, transaction, network, payer). A refused payment is a failed task with payment-failed, x402.payment.error and the reason; nothing runs. A malformed payload is -32602. A task whose settlement is not confirmed when it is answered stays working with payment-verified (output withheld); its payer, without Authorization, reads it later with GetTask (v0.3 tasks/get) and X-Wallet-Signature: <unix_timestamp>:<signature>, the run's wallet's EIP-191 signature of "run-read:<task id>:<unix_timestamp>" within 300 s of the service's clock: the task as the paying message would have answered it (payment-completed and x402.payment.receipts once the payment is in a block). A malformed or stale signature is 401; another wallet's task, one not paid by x402, or a signature of another message is -32001 (task not found). Every other method needs a bearer token.
         */
        post: operations["callA2aAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/a2a/{agent_id}/.well-known/agent-card.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an agent's A2A Agent Card
         * @description The A2A v1.0 Agent Card of a published listing: its name and description, its JSON-RPC interface (`{api}/a2a/{agent_id}`, protocol 1.0, and 0.3), streaming, the bearer credentials it takes (an API key or a wallet JWT), one skill built from the listing and its manifest (the input's shape, an example, the rental, a sample output), the provider and the documentation (the listing's public metadata). `signatures` holds the service's JWS over the RFC 8785 canonical card without `signatures` (ES256; `kid` and `jku` name the key in GET /.well-known/jwks.json). Needs no token. Cached for 5 minutes, with an ETag of its content (If-None-Match: 304). An unknown or unpublished agent: 404 listing_not_found.
         */
        get: operations["getAgentCard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start an app's sign-in (authorization endpoint)
         * @description OAuth 2.1's authorization endpoint: `response_type=code`, `client_id` (a registered client's id, or the https URL of the app's client metadata document), `redirect_uri` (one the client registered), `code_challenge` with `code_challenge_method=S256` (required; no other method), `scope` (tasks:run, credentials:read, listings:read; tasks:run when none), `resource` (RFC 8707: the API's base URL, `{api}/v1/mcp` or `{api}/a2a/{agent_id}`; the base URL when none), `state`. A valid request is redirected (302) to the dashboard's /connect page, where the person signs in with their wallet and approves or denies; the app then gets `code`, `state` and `iss` (RFC 9207), or `error=access_denied`. A request whose client or redirect URI cannot be trusted is answered 400 here, in plain text, never redirected; other errors are redirected to the app with `error`, `state` and `iss`.
         */
        get: operations["authorize"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/authorize/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Finish an app's sign-in after the decision
         * @description The `redirect_to` of POST /v1/oauth/requests/{request_id}/approve and …/deny. Only the browser that started the sign-in at GET /oauth/authorize can finish it (a cookie set there, on the API's origin, binds the two), and after an approval only with the one-time `approval` secret the approval answered that browser in `redirect_to`; an attempt without both is refused and voids the approval (a consent link sent to someone else grants nothing). Redirects to the app's redirect URI with `code`, `state` and `iss` after an approval, or `error=access_denied` after a denial.
         */
        get: operations["resumeAuthorization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an app (dynamic client registration)
         * @description RFC 7591: an app registers its metadata (`redirect_uris` required, each https or http on the loopback interface (127.0.0.1, [::1], localhost), otherwise 400 invalid_redirect_uri; `client_name`, `client_uri`, `logo_uri`, `grant_types` authorization_code and refresh_token, `token_endpoint_auth_method` none, client_secret_basic or client_secret_post) and gets its `client_id` (and a `client_secret` for a confidential client), answered 201. No registration access token: a registration cannot be read back or changed. Apps that can should use a Client ID Metadata Document instead (an https `client_id`; nothing to register). Limited to 20 registrations per minute per address, on top of the default rule. Bounded: the metadata at most 8 KiB, at most 10 redirect URIs, each URL at most 2,048 characters, `client_name` at most 200, any other list at most 10 entries (400 `invalid_client_metadata` or `invalid_redirect_uri`). A registered client lapses 7 days after its registration unless someone approves it (then it lives as long as the approval can, 90 days from the latest); one address holds at most 50 clients no one has approved yet (429 `too_many_clients`). Errors are OAuth's (`invalid_client_metadata`, `invalid_redirect_uri`, `too_many_clients`).
         */
        post: operations["registerOAuthClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a token (an app signing out)
         * @description RFC 7009, form-encoded: `token` (an access or refresh token) and the client's authentication. Revoking a refresh token revokes the whole approval, as removing the app in Connected apps does. Answers 200 with an empty body, also for a token that was not live.
         */
        post: operations["revokeOAuthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a code or a refresh token for tokens
         * @description OAuth 2.1's token endpoint, form-encoded. `grant_type=authorization_code` with `code`, `code_verifier` (PKCE S256), `redirect_uri` and `resource`; `grant_type=refresh_token` with `refresh_token` (and optionally a narrower `scope` or `resource`). Public clients (token_endpoint_auth_method none) send `client_id`; confidential ones authenticate with client_secret_basic or client_secret_post. Answers `access_token` (opaque, one hour), `token_type` Bearer, `expires_in`, `scope` and a new `refresh_token`: every refresh returns a new one and the old one is spent; presenting a spent refresh token, or a code a second time, revokes the whole approval (every token of it). Errors are OAuth's (`invalid_grant` for a wrong verifier, an expired or replayed code or refresh token; `invalid_client`; `invalid_target` for a resource not of this server), never cached.
         */
        post: operations["issueOAuthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an agent
         * @description Queues the manifest for validation and answers at once. A body that is not JSON or is over 64 KB is refused here; every other problem is reported by the job (GET /v1/jobs/{job_id}). With `market=token` the agent is to be listed on the TokenMarketplace, priced in a token: the job's listing_id is that contract's listingIdOf(creator, listing_seed), and the creator calls its createListing(listing_seed, token, …).
         */
        post: operations["registerAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List alerts
         * @description The wallet's alerts, newest first (at most `limit`, default 20, up to 100): each crossing of a spending limit's 80% or 100%, or of the low-balance threshold, with what crossed and how its webhook delivery went.
         */
        get: operations["listAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alerts/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get alert settings
         * @description The wallet's webhook URL and low-balance threshold, never the signing secret. Before any are set: no webhook, no threshold, and null times (limit alerts are still raised and listed).
         */
        get: operations["getAlertSettings"];
        /**
         * Set alert settings
         * @description Sets the wallet's alert webhook (an https URL, or null for dashboard notices only) and the low-balance threshold in runs. The first call, and any with `rotate_secret`, makes the webhook's signing secret (Standard Webhooks, `whsec_…`) and returns it in this answer only. Alerts are raised at 80% and 100% of every spending limit of the wallet's keys and apps, and when a per-task balance falls below the threshold, once per crossing; each is delivered signed, retried with backoff. Called with a wallet sign-in (JWT) only: a key or app cannot redirect its holder's alerts (403 forbidden).
         */
        put: operations["setAlertSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a sign-in challenge
         * @description Returns a challenge valid for 60 seconds and usable once. Sign it with the wallet (EIP-191 personal_sign) and exchange it at POST /v1/auth/token.
         */
        get: operations["getAuthChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange a signed challenge for a JWT
         * @description Verifies the EIP-191 signature of the challenge by the wallet (accounts by recovery; smart-contract wallets by ERC-1271, undeployed ones by ERC-6492) and consumes the challenge. A bad signature, a signature by another wallet, or an unknown, expired or reused challenge gives 401 invalid_signature.
         */
        post: operations["exchangeAuthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/creators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply as a creator
         * @description During the beta only reviewed creators register agents. Applying again after a rejection puts the application back in review; an approved creator stays approved.
         */
        post: operations["applyAsCreator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/creators/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * My creator profile and agents
         * @description The caller's creator application (its status and, after a rejection, the reason) and the agents the caller registered, each with its listing ids and review status. A wallet that never applied gets `profile: null` and no agents: an answer, not a 404.
         */
        get: operations["getCreatorProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/creators/me/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * My analytics, across my listings
         * @description What the caller's listings earned, from whom, and how their runs went, over a range (`from`, `to`) by hour, day or month: revenue by rental model (gross, protocol fee, net), withdrawn; rentals bought and renewed; new and returning renters; runs by status and failure code, latency p50 and p95; the top renters by spend. A wallet without listings gets empty figures. Amounts are exact, from the marketplaces' events (gross and fee as each event states them): the `_wei` fields are the ETH listings' in wei, and `by_currency` gives every currency's (a token listing's in the token's smallest unit), never added across currencies; counts cover every listing. Runs come from their settlement and receipts from the run log. The figures are roll-ups kept per hour, day and month as events happen, never computed by scanning runs. `reconciliation` compares them with the contract at the last block counted (money events and verified feedback are counted once their blocks are final, at the network's finality depth). Renters appear only as wallet addresses; no run's input or output appears. `format=csv` returns one table (`table`: series, top_renters, series_by_currency or top_renters_by_currency) as text/csv.
         */
        get: operations["getCreatorAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/creators/me/listings/{listing_id}/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * My analytics of one listing
         * @description The figures of GET /v1/creators/me/analytics for one of the caller's listings. Another creator's listing answers 404 listing_not_found, as one that does not exist. Amounts are exact, from the marketplaces' events (gross and fee as each event states them): the `_wei` fields are the ETH listings' in wei, and `by_currency` gives every currency's (a token listing's in the token's smallest unit), never added across currencies; counts cover every listing. Runs come from their settlement and receipts from the run log. The figures are roll-ups kept per hour, day and month as events happen, never computed by scanning runs. `reconciliation` compares them with the contract at the last block counted (money events and verified feedback are counted once their blocks are final, at the network's finality depth). Renters appear only as wallet addresses; no run's input or output appears. `format=csv` returns one table (`table`: series, top_renters, series_by_currency or top_renters_by_currency) as text/csv.
         */
        get: operations["getListingAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List rental credentials
         * @description The authenticated wallet's credentials from the service's index of the chain, newest purchase first. A status is judged at the chain's time (the latest block's timestamp, the clock the contract judges a subscription's expiry by), or by the server's clock while the chain cannot be read. `status` filters by active, expired or low_balance (also revoked and listing_closed); omit it for all. `total` counts every credential the filter matches.
         */
        get: operations["listCredentials"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credentials/{listing_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify a rental credential
         * @description Checks the local record and the contract for the authenticated wallet, in parallel: one live read of the listing's contract's credentialOf (the Marketplace's, or the TokenMarketplace's for a listing priced in a token: status, rental model, purchase time, expiry, balance and revocation in one eth_call). The chain's answer is returned; a local record that disagrees in any field is repaired, or removed when the chain has no credential. When the chain cannot be reached the answer is 503 service_unavailable, never the index's. status: active (valid), expired (with expired_at), low_balance (a per_query rental whose balance cannot pay for one run at the listing's current price, or whose withdrawal the renter requested), revoked, listing_closed, or not_found.
         */
        get: operations["verifyCredential"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/currencies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the currencies listings are priced in
         * @description ETH (on the Marketplace) and each token listings may be priced in (on the TokenMarketplace, from the protocol's allowlist), with its address, decimals, EIP-712 domain and whether per-task listings in it are payable by x402. A listing's `currency` is one of these.
         */
        get: operations["listCurrencies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The rendered API reference
         * @description An HTML page that renders this document (Scalar); its script is served by GET /v1/docs/scalar.js.
         */
        get: operations["getApiReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/docs/scalar.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The reference page's script
         * @description Scalar's standalone script, served by the API itself so GET /v1/docs requests nothing from third parties and works offline.
         */
        get: operations["getApiReferenceScript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a task
         * @description Authenticates the caller, verifies the on-chain credential of the caller's wallet for the agent, runs the task in a fresh sandbox and returns the Run. A failed run is still 200 with status failed. Send an Idempotency-Key header to make retries safe: a retry returns the first run's result and is never charged again. A per-task listing priced in an EIP-3009 token (USDC) is also paid per run by x402 v2, without Authorization: the request without it is answered 402 with a PAYMENT-REQUIRED header; the retry with PAYMENT-SIGNATURE runs the task, settles the payment only if the run completed, and answers once the payment is in a block, with a PAYMENT-RESPONSE header (success, transaction, network, payer). A refused payment is 402 with the reason in PAYMENT-REQUIRED; nothing runs.
         */
        post: operations["executeTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/execute/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a task, streamed
         * @description Same request as POST /v1/execute. The response is text/event-stream: `output` events with data {delta} and ids (offsets into the output), then one `done` event with the Run (run_id, status, output, cost_wei, duration_ms). The run id is in the X-Run-Id header. Resume a dropped stream with the same Idempotency-Key and a Last-Event-ID header, or with GET /v1/runs/{run_id}/events. Paid by x402 (as POST /v1/execute), the output is released only once the payment is in a block: the stream opens then, with the whole output in one `output` event and the PAYMENT-RESPONSE header.
         */
        post: operations["streamTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Service health
         * @description Reports whether the API can reach its tables and the chain, this process's run, request and latency figures, and the depths an operator watches (sandbox pool, registration queues, the settlement queue, deferred settlements, the authority's gas balance). Needs no token; names no wallet, key or run.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inputs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a task input
         * @description Stores the content (UTF-8 text, or base64 for other bytes) content-addressed and returns input_uri (ipfs://<CIDv1>) to pass to POST /v1/execute instead of input. Text that is a JSON object reaches the agent as an object; other content as text. The request body limit applies.
         */
        post: operations["uploadInput"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a registration job
         * @description A registration job of the caller: `queued`, then `completed` with the ids createListing needs (agent_id, listing_id, listing_seed, metadata_uri), or `failed` with every problem of the manifest, each with its JSON pointer. Another wallet's job is 404 not_found, as a missing one.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description The wallet's API keys, newest first, revoked ones included: id, label, prefix, when created and last used, and each spending limit with what was spent this period and what remains. Never the key itself, which is shown only when it is created.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description Exchanges the signed message from POST /v1/keys/challenge for a new API key, scoped to the wallet. The key is shown once; only its hash is stored. A key does not expire; revoke it with DELETE /v1/keys/{key_id}. Optional `spend_limits` bound what the key may spend on per-task runs (per day or month, UTC, or in total; change them with PATCH /v1/keys/{key_id}); a run past one is refused with 402 spend_limit_reached. A bad limit is 400 invalid_request and no key is created.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revokes the key at once: its next request gets 401 invalid_api_key. Revoking a revoked key is a no-op. Another wallet's key is not found.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        /**
         * Change an API key's spending limits
         * @description Replaces the key's `spend_limits` (an amount of wei per day or per month, UTC, or in total, per currency; `[]` removes every limit). A limit kept over the same currency and period keeps counting what was spent this period (a limit lowered under it refuses the next run at once); a limit over a period that had none counts from when it is set. Runs already admitted keep what they hold. Called with a wallet sign-in (JWT) only: an API key cannot change limits (403 forbidden), so a key given away cannot lift its own. A bad limit is 400 invalid_request and nothing changes. Another wallet's key is not found.
         */
        patch: operations["updateApiKey"];
        trace?: never;
    };
    "/v1/keys/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start creating an API key
         * @description Returns a server-issued message naming the wallet and the label. Sign it with the wallet (EIP-191) and send the signature with the nonce to POST /v1/keys within 5 minutes.
         */
        post: operations["createApiKeyChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search listings
         * @description Full-text search (q: title, description, category and sample outputs, with prefix and typo matching) over published, active listings; filters combine with AND. sort: relevance (default), rating, price_asc, price_desc, newest. Prices compare within one currency: price_asc and price_desc put ETH listings first (by price_eth, as ever), then each token's listings together by the token's symbol; currency (ETH or a token's symbol, e.g. USDC) keeps that currency's listings only, and min_price and max_price are in it (without currency they are in ETH and keep ETH listings only). Out-of-range parameters give 400 invalid_request naming the parameter; unknown parameters are ignored.
         */
        get: operations["searchListings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a listing
         * @description Every field of a published listing. An unknown or unpublished id gives 404 listing_not_found; a malformed one 400 invalid_listing_id.
         */
        get: operations["getListing"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/erc8004": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prepare a listing's ERC-8004 registration
         * @description For the listing's creator: writes the listing's ERC-8004 agent registration file (content-addressed, ipfs://<cid>, served at GET /v1/metadata/<cid>: type, name, description, image, services A2A (the Agent Card's URL), MCP (/v1/mcp) and web (the dashboard's page), x402Support (true for a per-task listing priced in an EIP-3009 token such as USDC, payable by x402; false otherwise), active (the listing's status is active), registrations, supportedTrust ["reputation"]) and answers the unsigned transaction for the creator's wallet to send to the Identity Registry. Without agent_id: `register(agentURI, [{metadataKey: "marketplaceListing", metadataValue}])`, with a file whose registrations are still empty (the registry assigns the id); the Registered event gives the agent id. With agent_id (an agent the caller owns): the complete file, registrations pointing back ({agentId, agentRegistry}), and `setAgentURI(agentId, agentURI)`; call it again whenever the listing's status changes so active follows it. The listing's erc8004 (GET /v1/listings/{id}) names the agent once the indexer has read it, as long as the creator owns it. Another creator's listing is 404 listing_not_found.
         */
        post: operations["prepareErc8004Registration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/provider-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a listing's model-provider key
         * @description The creator's key for the agent's model provider, used only to run this listing's tasks. It is stored encrypted and never returned by any endpoint; setting it again replaces it.
         */
        put: operations["setProviderKey"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/rating": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Rate a listing
         * @description The caller's rating of a published listing: an integer from 1 to 5 and an optional plain-text comment (at most 1000 characters, trimmed; line breaks kept). Only a wallet with at least one completed run of the listing may rate it, and not the listing's creator (403 rating_not_allowed). One rating per wallet and listing: putting it again replaces the rating and the comment (an absent comment removes the previous one), so repeating a request changes nothing. Unknown fields are refused. These are off-chain ratings, shown apart from the listing's own rating as "before on-chain feedback": a listing's rating and review_count are its verified on-chain feedback (POST /v1/runs/{run_id}/feedback). The response's listing figures are the off-chain ratings' average and count, as GET /v1/listings/{listing_id}/ratings and the reputation's before_on_chain show them.
         */
        put: operations["rateListing"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/ratings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a listing's ratings
         * @description Renter ratings of a published listing, most recently written first, with the listing's rating and review_count. limit: 1 to 100 (default 20); cursor: the next_cursor of the previous page (null on the last page). An unknown or unpublished listing gives 404 listing_not_found.
         */
        get: operations["listRatings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/reputation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a listing's reputation
         * @description A published listing's ERC-8004 reputation: rating and review_count (the listing's own: its verified feedback, score/20 averaged), unverified_count (feedback that does not count), before_on_chain (the renters' off-chain ratings, GET /v1/listings/{listing_id}/ratings, never averaged in), and the feedback of every agent it was ever linked to (registering its file again or moving the agent takes no counted rating away), newest first, each with verified and its reason, a verified one with its run receipt. limit per page (default 20, at most 100), continued with next_cursor. Anyone can recompute the verified rating from the chain and the files (the SDK's verifyReputation).
         */
        get: operations["getListingReputation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/webhook-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create or rotate a connected agent's webhook secret
         * @description Task webhooks to the agent's entrypoint_url are signed per Standard Webhooks with this secret. It is shown once; calling again replaces it.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open an MCP event stream (not offered)
         * @description Always 405 method_not_allowed with `Allow: POST`, as Streamable HTTP permits. The MCP endpoint is stateless and offers no standalone event stream: send JSON-RPC messages with POST /v1/mcp.
         */
        get: operations["openMcpStream"];
        put?: never;
        /**
         * Remote MCP endpoint (Streamable HTTP)
         * @description The Model Context Protocol over Streamable HTTP, stateless (no session id): send one JSON-RPC message or a batch; the answer is JSON, or an event stream while a tool call reports progress. Tools: run_agent (agent_id, task, input) and one per rented agent, with the agent's own input and output schemas. Refusals of a run are tool errors (isError) carrying the API's code and the request id, never HTTP errors; malformed JSON-RPC gets the protocol's own error. A payer with only a wallet calls the listings sold per run by x402 on POST /v1/mcp/x402, without a credential.
         */
        post: operations["callMcp"];
        /**
         * End an MCP session (not offered)
         * @description Always 405 method_not_allowed with `Allow: POST`. The MCP endpoint is stateless and has no session to end: send JSON-RPC messages with POST /v1/mcp.
         */
        delete: operations["endMcpSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp/x402": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open an MCP event stream on the x402 endpoint (not offered)
         * @description Always 405 method_not_allowed with `Allow: POST`, as Streamable HTTP permits. The MCP endpoint is stateless and offers no standalone event stream: send JSON-RPC messages with POST /v1/mcp/x402.
         */
        get: operations["openPaidMcpStream"];
        put?: never;
        /**
         * Remote MCP endpoint paid per call by x402 (Streamable HTTP)
         * @description The Model Context Protocol over Streamable HTTP, stateless, for payers with only a wallet: no Authorization. Tools: run_agent (agent_id, task, input) and one per listing sold per run by x402 (a per-task listing priced in an EIP-3009 token such as USDC), with the agent's own schemas. Payment follows x402 v2's MCP transport: a tools/call without `_meta["x402/payment"]` is answered with a tool result (isError) carrying the PaymentRequired (x402Version 2, accepts) as structuredContent (for a tool without an output schema) and, always, as content[0].text, JSON of {"x402/error": {code: 402, message, data}}; the retry with the PaymentPayload in `_meta["x402/payment"]` is verified as PAYMENT-SIGNATURE is on POST /v1/execute, runs the task, settles the payment only if the run completed, and answers once the payment is in a block with the output and `_meta["x402/payment-response"]` (success, transaction, network, payer) beside `_meta.run`. A refused payment is the PaymentRequired again, its `error` the reason; a malformed one is a tool error invalid_request; nothing runs. Callers with an API key, a JWT or an OAuth token use POST /v1/mcp.
         */
        post: operations["callPaidMcp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/metadata/{cid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a listing's public metadata
         * @description Serves the content-addressed metadata document of a listing (its metadata_uri is ipfs://<cid>). Needs no token.
         */
        get: operations["getListingMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the apps with access (Connected apps)
         * @description Every live approval the wallet gave an app: the app (name, client id, kind, redirect host), its scopes and resources, when it was approved and lapses, the last request made with its tokens, and each spending limit with what was spent this period and what remains. Oldest first. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token.
         */
        get: operations["listConnectedApps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/apps/{app_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an app's access
         * @description Revokes the approval and every code, access token and refresh token issued under it, at once: the app's next request fails 401 invalid_token, and it must ask the person again. Another wallet's app is 404 not_found, as one that does not exist. Answers the revoked app's id and when it was revoked. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token.
         */
        delete: operations["revokeConnectedApp"];
        options?: never;
        head?: never;
        /**
         * Change an app's spending limits
         * @description Replaces the connected app's `spend_limits` (as set on the consent page; `[]` removes every limit). A limit kept over the same currency and period keeps counting what was spent this period; a limit over a period that had none counts from when it is set. Called with a wallet sign-in (JWT) only: never with an OAuth access token (an app cannot change its own limit) nor an API key (403 forbidden). A bad limit is 400 invalid_request and nothing changes. Another wallet's app is 404 not_found.
         */
        patch: operations["updateConnectedApp"];
        trace?: never;
    };
    "/v1/oauth/requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an app's sign-in request
         * @description What the dashboard's consent page shows: which app asks (its name as it gives it, its client id and whether that id is a metadata document URL or a registration, the host the browser returns to) and for what (the scopes in words, the resources). Called with the person's wallet sign-in (a JWT) or an API key; never with an OAuth access token. An unknown or expired request: 404 request_not_found.
         */
        get: operations["getOAuthRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/requests/{request_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an app's sign-in request
         * @description The person (the wallet signed in) approves: a grant of the asked scopes on the asked resources to the app, for 90 days or until revoked in Connected apps. Answers where to send the browser (`redirect_to`, on the API's origin), which then returns to the app with a code. Only the browser that started the sign-in can finish it. The optional `spend_limits` are the app's spending limits as the person set them (the consent page shows what the app proposed, `proposed_spend_limits`); a bad limit is 400 invalid_request and nothing is approved. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token. 404 request_not_found for an unknown or expired request, 409 request_decided for one already approved or denied.
         */
        post: operations["approveOAuthRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/requests/{request_id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny an app's sign-in request
         * @description The person denies: the browser, sent to `redirect_to`, returns to the app with `error=access_denied` (and its `state` and `iss`). Nothing is granted. Called with a wallet sign-in (JWT) or an API key; never with an OAuth access token. 404 request_not_found, 409 request_decided.
         */
        post: operations["denyOAuthRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get this OpenAPI document
         * @description The OpenAPI 3.1 document of every operation, generated from the routes: their schemas, and what each declares beside them (`security`, `x-rate-limit` and its error codes per status). Needs no token.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reviews/creators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Creator applications (authority)
         * @description Creator applications in one review status (pending by default), for the protocol authority: the wallet the contract names, read from the chain at each request. Anyone else gets 403 forbidden.
         */
        get: operations["listCreatorApplications"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reviews/creators/{wallet}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or reject a creator (authority)
         * @description A rejection needs a reason; the creator reads it at GET /v1/creators/me.
         */
        post: operations["reviewCreator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reviews/listings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Listings awaiting review (authority)
         * @description Registered agents whose listing awaits the authority's review, by listing id. For the protocol authority only (403 forbidden for anyone else); the listing's on-chain facts and public metadata are read from the chain and GET /v1/metadata/{cid}.
         */
        get: operations["listListingReviews"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reviews/listings/{listing_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or reject a listing (authority)
         * @description An approved listing appears in search once its on-chain listing exists; a rejected one stays out, with the reason shown to its creator.
         */
        post: operations["reviewListing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your runs of a listing
         * @description The calling wallet's runs of one listing (listing_id, required), newest first, however they were made (execute, its stream, MCP, A2A): each with every field of GET /v1/runs/{run_id} but its output, which that route gives. limit: 1 to 100 (default 20); cursor: the next_cursor of the previous page (null on the last page). Another wallet's runs are never listed; a listing the wallet never ran gives an empty list. A completed run whose receipt is logged can be rated (POST /v1/runs/{run_id}/feedback).
         */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a run
         * @description A run, to the wallet that ran it (another wallet's run is 404 not_found, as a missing one): its status, output, cost, duration and settlement, and its receipt in the on-chain run log once a batch has logged it (every minute in the cloud). `output` is null while the run is in flight and while a per-query charge is unconfirmed (`settlement: pending`); a failed synchronous run's partial output is never shown. cost_wei is an exact JSON integer, in the smallest unit of the run's `currency` (its listing's: ETH, or the token a TokenMarketplace listing is priced in). Without a bearer token (the payer of an x402 run holds none), the run's wallet proves itself with X-Wallet-Signature: <unix_timestamp>:<signature>, its EIP-191 signature of "run-read:<run_id>:<unix_timestamp>", within 300 s of the service's clock, and reads the run exactly as with a token (the output once the payment is in a block). A malformed or stale signature is 401; another wallet's, or a signature of the feedback message, 404 not_found. Such a request is rate limited by client address, as public routes are.
         */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream a run's events
         * @description The run's `output` events after Last-Event-ID (an offset; omit it for all), then its `done` event. Follows the run while it is in flight.
         */
        get: operations["streamRunEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{run_id}/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prepare on-chain feedback for a run
         * @description For the renter who ran it, once the run is completed and its receipt is in the on-chain run log: writes the ERC-8004 feedback file (content-addressed, ipfs://<cid>, served at GET /v1/metadata/<cid>) and answers the unsigned `giveFeedback(agentId, value, valueDecimals, tag1, "", endpoint, feedbackURI, feedbackHash)` for the renter's wallet to send to the Reputation Registry. The file carries the ERC's fields (agentRegistry, agentId, clientAddress, createdAt, value, valueDecimals, tag1, endpoint), the text, proofOfPayment (the run's per-query charge, or the purchase of the renter's access) and runReceipt: the run's receipt fields, batch index, Merkle proof, root, leaf and logRuns transaction. feedback_hash is keccak256 of the file's bytes. Once the wallet has sent it, the feedback counts toward the listing's rating (score/20) if it is a rating (tag1 "starred"), the file's receipt verifies with the marketplace's verifyRunReceipt for the sending wallet and this listing, and no earlier feedback counts for the run; anything else is shown apart as unverified (GET /v1/listings/{id}/reputation). Before the receipt is logged (every few seconds locally, every minute in the cloud) the answer is 409 receipt_pending with Retry-After. Another wallet's run is 404 not_found; a failed run 403 feedback_not_allowed; a run whose feedback already counts 409 feedback_exists. Unknown fields are refused. Without a bearer token (the payer of an x402 run holds none), the run's wallet proves itself with X-Wallet-Signature: <unix_timestamp>:<signature>, its EIP-191 signature of "run-feedback:<run_id>:<unix_timestamp>", within 300 s of the service's clock; a malformed or stale one is 401, another wallet's 404 not_found.
         */
        post: operations["prepareRunFeedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AcceptedCurrency: {
            /** @description The token's contract address; null for ETH */
            address: string | null;
            /** @description The marketplace contract listings in this currency live on: the Marketplace for ETH, the TokenMarketplace for a token */
            contract: string;
            /** @description Decimals of the smallest unit: 18 for ETH (wei), 6 for USDC */
            decimals: number;
            /** @description The token's EIP-712 domain name (its `name()`), which permit and EIP-3009 signatures name; null for ETH */
            name: string | null;
            /** @description ETH, or the token's symbol (USDC) */
            symbol: string;
            /** @description The token's EIP-712 domain version; null for ETH */
            version: string | null;
            /** @description Whether per-task listings in it are payable by x402 (the token implements EIP-3009) */
            x402: boolean;
        };
        /** @description An A2A v1.0 Agent Card (a2a-protocol.org, specification/a2a.proto), in ProtoJSON */
        AgentCard: {
            capabilities: {
                extendedAgentCard: boolean;
                pushNotifications: boolean;
                streaming: boolean;
            };
            defaultInputModes: string[];
            defaultOutputModes: string[];
            description: string;
            documentationUrl: string;
            name: string;
            provider: {
                organization: string;
                url: string;
            };
            securityRequirements: unknown[];
            securitySchemes: {
                [key: string]: unknown;
            };
            signatures?: {
                protected: string;
                signature: string;
            }[];
            skills: ({
                description: string;
                examples: string[];
                id: string;
                name: string;
                tags: string[];
            } & {
                [key: string]: unknown;
            })[];
            supportedInterfaces: {
                protocolBinding: string;
                protocolVersion: string;
                url: string;
            }[];
            version: string;
        };
        /** @description The agent manifest (64 KB at most). The request is queued at once; every rule is checked by the validator on the queue, and a failed job lists each problem with its JSON pointer (GET /v1/jobs/{job_id}). */
        AgentManifest: {
            /**
             * @description The listing's category (case-sensitive); the search filters by it
             * @enum {string}
             */
            category: "finance" | "legal" | "coding" | "research" | "sales" | "content";
            /** @description What the agent does, for renters; not blank */
            description: string;
            /** @description A connected agent: the HTTPS URL the service calls with each task, signed per Standard Webhooks. Exactly one of system_prompt and entrypoint_url. */
            entrypoint_url?: string;
            /** @description A JSON Schema (draft 2020-12) object: at most 32 levels deep and 10000 values, references only within the schema ("#..."), patterns of at most 1000 characters that run on a linear-time engine (RE2: no backreferences or lookaround) and are not catastrophic. */
            input_schema: {
                [key: string]: unknown;
            };
            model: {
                /** @description self_hosted only, and required there: the model's HTTPS endpoint, a public host, port 443, no credentials in the URL */
                endpoint_url?: string;
                /** @description The provider's model identifier: printable ASCII, no spaces. Required for provider_a and provider_b; optional for self_hosted */
                model?: string;
                /**
                 * @description provider_a or provider_b (hosted, called at its own address with the listing's provider key) or self_hosted
                 * @enum {string}
                 */
                provider: "provider_a" | "provider_b" | "self_hosted";
            };
            /** @description Kebab-case: lowercase letters and digits in words joined by single hyphens, starting with a letter; becomes part of the agent_id */
            name: string;
            /** @description A JSON Schema (draft 2020-12) object: at most 32 levels deep and 10000 values, references only within the schema ("#..."), patterns of at most 1000 characters that run on a linear-time engine (RE2: no backreferences or lookaround) and are not catastrophic. Its examples (one to 3, or one generated from it) are the listing's sample outputs. */
            output_schema: {
                [key: string]: unknown;
            };
            /** @description A declarative agent: the prompt the service runs in its sandbox (private; never published). Exactly one of system_prompt and entrypoint_url. */
            system_prompt?: string;
            /** @description Longest run, in seconds (default 60) */
            timeout_seconds?: number;
            /** @description Tools of the catalogue a declarative agent may use, each once, with its scope (none for a connected agent; default none) */
            tools?: {
                /**
                 * @description http_fetch: HTTPS GET/POST to the listed hosts only (port 443, no redirects off the list), through the egress guard. web_search: Search the public web through the service's search provider; returns titles, URLs and snippets. js_eval: Evaluate JavaScript in a fresh isolate (isolated-vm) with no network, file system or host objects. json_transform: Reshape JSON the agent already holds (select, rename, filter, map) with a declarative expression; no I/O. pdf_extract: Extract text and tables from the PDF file attached to the run's input; no other file.
                 * @enum {string}
                 */
                name: "http_fetch" | "web_search" | "js_eval" | "json_transform" | "pdf_extract";
                /** @description http_fetch: host[,host...]: 1 to 20 DNS names, each optionally prefixed with "*." for its subdomains (the name itself excluded) and optionally suffixed with ":443"; no IP addresses, schemes, paths, other ports, spaces or internal names; web_search: public; js_eval: default (memory=64,timeout=1000) | memory=<MB 8..128>,timeout=<ms 1..5000> (both, either order); json_transform: default; pdf_extract: input */
                scope: string;
            }[];
        };
        /** @description One crossing, raised once: shown in the dashboard and delivered to the webhook */
        Alert: {
            alert_id: string;
            attempts: number;
            created_at: string;
            /** @description What crossed: for spend_limit threshold, scope (key or app), id, currency, period, amount, spent, remaining, resets_at; for low_balance listing_id, balance_wei, price_wei, runs_left, threshold_runs; for charge_cap threshold, listing_id, amount, period_seconds, spent (charged in the current period), remaining, resets_at (the period's end, on the chain's clock). All name the run whose charge crossed it (run_id) */
            data: {
                [key: string]: unknown;
            };
            delivered_at?: string;
            /**
             * @description The webhook delivery: pending (being tried, with backoff), delivered, failed (given up after its retries, or the webhook was removed), no_webhook (none was set when it was raised)
             * @enum {string}
             */
            delivery: "pending" | "delivered" | "failed" | "no_webhook";
            /** @description Why the last attempt failed (a status or an unreachable host; never the URL) */
            last_error?: string;
            /**
             * @description spend_limit: a key's or app's limit reached 80% or 100% (no run at the last price fits what is left); low_balance: a per-task balance fell below the chosen number of runs; charge_cap: the renter's on-chain charge cap (setChargeCap) on a listing reached 80% or 100% of its period (no run at the last price fits what is left)
             * @enum {string}
             */
            type: "spend_limit" | "low_balance" | "charge_cap";
        };
        AlertList: {
            alerts: components["schemas"]["Alert"][];
        };
        /** @description The wallet's alert settings; alerts cross at 80% and 100% of every spending limit of its keys and apps and of every on-chain charge cap it set, and below the low-balance threshold */
        AlertSettings: {
            /** @description When the settings were first set; null before */
            created_at: string | null;
            low_balance_runs: number | null;
            updated_at: string | null;
            /** @description The webhook's signing secret (`whsec_…`): only in the answer that made it (the first settings, or rotate_secret) */
            webhook_secret?: string;
            webhook_url: string | null;
        };
        /** @description Where the wallet's alerts go, and when a low balance alerts */
        AlertSettingsInput: {
            /**
             * @description Alert when a per-task balance falls below this many runs at its listing's price; null: never
             * @default null
             * @example 5
             */
            low_balance_runs: number | null;
            /**
             * @description Make a new signing secret (returned in this answer only); the old one stops signing at once
             * @default false
             */
            rotate_secret: boolean;
            /**
             * @description Where alerts are delivered (HTTPS; signed with Standard Webhooks, as connected agents' webhooks are); null: alerts show in the dashboard only
             * @example https://example.com/hooks/agent-rental
             */
            webhook_url: string | null;
        };
        /** @description A currency listings are priced and paid in */
        AnalyticsCurrency: {
            /** @description The token's address; null for ETH */
            address: string | null;
            decimals: number;
            symbol: string;
        };
        /** @description The amounts of one currency's listings; amounts of different currencies are never added */
        AnalyticsCurrencyFigures: {
            currency: components["schemas"]["AnalyticsCurrency"];
            rentals: {
                /**
                 * @description deposits − charges − refunds (x402 payments move no balance) (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                balance_change: string;
                /**
                 * @description per_query deposits and top-ups (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                deposits: string;
                /**
                 * @description Unspent per_query balances withdrawn by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                refunds: string;
            };
            revenue: {
                by_model: {
                    one_time: {
                        /**
                         * @description The protocol fee taken from it (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        fee: string;
                        /**
                         * @description Paid by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        gross: string;
                        /**
                         * @description gross − fee: the creator's (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        net: string;
                    };
                    per_query: {
                        /**
                         * @description The protocol fee taken from it (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        fee: string;
                        /**
                         * @description Paid by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        gross: string;
                        /**
                         * @description gross − fee: the creator's (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        net: string;
                    };
                    subscription: {
                        /**
                         * @description The protocol fee taken from it (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        fee: string;
                        /**
                         * @description Paid by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        gross: string;
                        /**
                         * @description gross − fee: the creator's (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                         * @example 250000
                         */
                        net: string;
                    };
                };
                /**
                 * @description The protocol fee (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                fee: string;
                /**
                 * @description Paid by renters, every model (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                gross: string;
                /**
                 * @description The creator's share (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                net: string;
                /**
                 * @description Of the per_query gross, what x402 payments brought (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                paid_by_x402: string;
                /**
                 * @description Earnings the creator withdrew (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                withdrawn: string;
            };
            runs: {
                /**
                 * @description What the runs were charged (per_query, x402 payments included) (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                charged: string;
            };
        };
        AnalyticsPeriod: {
            /** @description The period's amounts in each currency of the listings read, ETH first (ETH's equal the `_wei` figures) */
            by_currency: components["schemas"]["AnalyticsCurrencyFigures"][];
            latency: {
                /** @description Runs timed */
                count: number;
                mean_ms: number | null;
                /** @description Median duration, to the histogram bucket (its upper bound); null without any */
                p50_ms: number | null;
                /** @description 95th percentile duration, to the histogram bucket; null without any */
                p95_ms: number | null;
            };
            /** @description The hour (YYYY-MM-DDTHH), day (YYYY-MM-DD) or month (YYYY-MM), UTC; for totals, first/last */
            period: string;
            rentals: {
                /** @description What the period added to renters' per_query balances: deposits − charges − refunds (negative when they shrank) (wei, an exact JSON integer; the ETH listings' only) */
                balance_change_wei: number;
                /** @description per_query charges landed on-chain */
                charges: number;
                /** @description per_query deposits and top-ups (wei, an exact JSON integer; the ETH listings' only) */
                deposits_wei: number;
                /** @description Subscriptions whose term ran out in the period without a renewal before it (periods that have ended; 0 otherwise) */
                lapsed: number;
                /** @description Subscriptions whose term ends in the period unless renewed (periods not yet ended; 0 otherwise) */
                lapsing: number;
                purchases: {
                    /** @description one_time rentals bought */
                    one_time: number;
                    /** @description per_query rentals bought */
                    per_query: number;
                    /** @description subscription rentals bought */
                    subscription: number;
                };
                /** @description Unspent per_query balances withdrawn by renters (wei, an exact JSON integer; the ETH listings' only) */
                refunds_wei: number;
                /** @description Subscriptions renewed */
                renewals: number;
            };
            renters: {
                /** @description Rentals bought by a wallet renting the listing for the first time */
                new: number;
                /** @description Rentals bought by a wallet that rented the listing before */
                returning: number;
            };
            reputation: {
                /** @description Their mean score (0-100); null without any */
                mean_score: number | null;
                /** @description Verified ERC-8004 feedback given in the period (a receipt of a completed run confirmed on-chain), revoked feedback taken out */
                verified_feedback: number;
            };
            revenue: components["schemas"]["AnalyticsRevenue"];
            runs: {
                /** @description Failed runs by failure code (invalid_input, invalid_output, output_too_large, timeout, crashed, out_of_memory, agent_error, agent_http_error, agent_invalid_response, agent_stream_cut, agent_unreachable, egress_refused, agent_not_configured, cancelled, settlement_refused, internal_error); codes with none are left out */
                by_failure_code: {
                    [key: string]: number;
                };
                /** @description What the runs were charged (per_query) (wei, an exact JSON integer; the ETH listings' only) */
                charged_wei: number;
                /** @description Runs completed */
                completed: number;
                /** @description Runs failed */
                failed: number;
                /** @description Runs whose receipt is logged on-chain (the run log) */
                logged: number;
            };
            time_to_first_output: {
                /** @description Streams that sent output */
                count: number;
                mean_ms: number | null;
                /** @description Median time from the run's admission to a stream's first output, to the histogram bucket (its upper bound); null without any */
                p50_ms: number | null;
                /** @description 95th percentile time from the run's admission to a stream's first output, to the histogram bucket; null without any */
                p95_ms: number | null;
            };
            /** @description x402 payments settled on-chain (runs paid from the payer's wallet), every currency */
            x402_payments: number;
        };
        AnalyticsRevenue: {
            by_model: {
                one_time: {
                    /** @description The protocol fee taken from it (wei, an exact JSON integer; the ETH listings' only) */
                    fee_wei: number;
                    /** @description Paid by renters (wei, an exact JSON integer; the ETH listings' only) */
                    gross_wei: number;
                    /** @description gross − fee: the creator's (wei, an exact JSON integer; the ETH listings' only) */
                    net_wei: number;
                };
                per_query: {
                    /** @description The protocol fee taken from it (wei, an exact JSON integer; the ETH listings' only) */
                    fee_wei: number;
                    /** @description Paid by renters (wei, an exact JSON integer; the ETH listings' only) */
                    gross_wei: number;
                    /** @description gross − fee: the creator's (wei, an exact JSON integer; the ETH listings' only) */
                    net_wei: number;
                };
                subscription: {
                    /** @description The protocol fee taken from it (wei, an exact JSON integer; the ETH listings' only) */
                    fee_wei: number;
                    /** @description Paid by renters (wei, an exact JSON integer; the ETH listings' only) */
                    gross_wei: number;
                    /** @description gross − fee: the creator's (wei, an exact JSON integer; the ETH listings' only) */
                    net_wei: number;
                };
            };
            /** @description The protocol fee (wei, an exact JSON integer; the ETH listings' only) */
            fee_wei: number;
            /** @description Paid by renters, every model: purchases, renewals and per_query charges (wei, an exact JSON integer; the ETH listings' only) */
            gross_wei: number;
            /** @description The creator's share (wei, an exact JSON integer; the ETH listings' only) */
            net_wei: number;
            /** @description Earnings the creator withdrew (wei, an exact JSON integer; the ETH listings' only) */
            withdrawn_wei: number;
        };
        ApiKey: {
            created_at: string;
            key_id: string;
            label: string;
            /** @description Refreshed at most once a minute */
            last_used_at: string | null;
            /** @description The first characters of the key, to recognise it */
            prefix: string;
            revoked: boolean;
            /** @description What the key may spend on per-task runs, per period, with this period's spending; [] when unlimited */
            spend_limits: components["schemas"]["SpendLimit"][];
        };
        ApiKeyChallenge: {
            expires_at: number;
            label: string;
            message: string;
            nonce: string;
        };
        ApiKeyCreate: {
            nonce: string;
            /** @example 0x5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c1b */
            signature: string;
            /** @description At most one limit per currency and period; [] removes every limit */
            spend_limits?: components["schemas"]["SpendLimitInput"][];
        };
        ApiKeyCreated: components["schemas"]["ApiKey"] & {
            /** @description The API key; shown only here */
            key: string;
        };
        ApiKeyList: {
            keys: components["schemas"]["ApiKey"][];
        };
        ApiKeyRequest: {
            label: string;
        };
        ApiKeyUpdate: {
            /** @description At most one limit per currency and period; [] removes every limit */
            spend_limits: components["schemas"]["SpendLimitInput"][];
        };
        AuthChallenge: {
            /** @description <service>:auth:<unix_timestamp>:<random_hex>; sign it with personal_sign (EIP-191) */
            challenge: string;
            /** @description Unix seconds; 60 s after issue */
            expires_at: number;
        };
        AuthToken: {
            /** @description Unix seconds; one hour after issue */
            expires_at: number;
            /** @description A JWT; send it as Authorization: Bearer <token> */
            token: string;
        };
        AuthTokenRequest: {
            challenge: string;
            /** @example 0x5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c1b */
            signature: string;
            /** @example 0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65 */
            wallet: string;
        };
        ConnectedApp: {
            /** @description The approval's id; DELETE /v1/oauth/apps/{app_id} revokes it */
            app_id: string;
            approved_at: string;
            client_id: string;
            /** @description When the approval lapses and the app must ask again */
            expires_at: string;
            /** @enum {string} */
            kind: "metadata_document" | "registered";
            /** @description The last request made with one of its access tokens */
            last_used_at: string | null;
            name: string | null;
            redirect_host: string | null;
            resources: string[];
            scopes: components["schemas"]["OAuthScope"][];
            /** @description What the app may spend on per-task runs, per period, with this period's spending; [] when unlimited */
            spend_limits: components["schemas"]["SpendLimit"][];
        };
        ConnectedAppUpdate: {
            /** @description At most one limit per currency and period; [] removes every limit */
            spend_limits: components["schemas"]["SpendLimitInput"][];
        };
        CreatorAgent: {
            agent_id: string;
            listing_id: string;
            listing_seed: string;
            metadata_uri: string;
            review_reason: string | null;
            /** @enum {string} */
            review_status: "pending" | "approved" | "rejected";
        };
        CreatorAnalytics: {
            /** @description The same, in each currency of the listings */
            balances_outstanding_by_currency: {
                /**
                 * @description The amount (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                 * @example 250000
                 */
                amount: string;
                currency: components["schemas"]["AnalyticsCurrency"];
            }[];
            /** @description What renters hold in per_query balances of the listings now: deposits − charges − refunds, all time (wei, an exact JSON integer; the ETH listings' only) */
            balances_outstanding_wei: number;
            /**
             * @description The currency of every `_wei` figure: the ETH listings'. Counts (runs, rentals, renters, latency) cover every listing; a token listing's amounts are in `by_currency`
             * @enum {string}
             */
            currency: "ETH";
            listings: {
                currency: components["schemas"]["AnalyticsCurrency"];
                listing_id: string;
                name: string;
                /** @description Verified ERC-8004 rating (0-5); null before any */
                rating: number | null;
                review_count: number;
            }[];
            /** @description The figures' money reconciled with the contract */
            reconciliation: {
                /** @description The last block the figures count (decimal); null before the indexer's first round */
                block: string | null;
                /** @description Each currency's reconciliation */
                by_currency: {
                    /**
                     * @description This currency's listings' escrow on-chain at `block` (the Marketplace's for ETH, the TokenMarketplace's for a token) (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                     * @example 250000
                     */
                    chain_escrow: string | null;
                    currency: components["schemas"]["AnalyticsCurrency"];
                    matches: boolean;
                    /**
                     * @description The same computed from the figures (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                     * @example 250000
                     */
                    rollup_escrow: string;
                    /**
                     * @description Of the escrow, subscription payments still vesting (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                     * @example 250000
                     */
                    vesting: string | null;
                    /**
                     * @description Of the escrow, what the creator may withdraw now (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                     * @example 250000
                     */
                    withdrawable: string | null;
                }[];
                /** @description The listings' escrow on-chain at that block (wei, an exact JSON integer; the ETH listings' only) */
                chain_escrow_wei: number | null;
                /** @description The figures match the chain at `block` to the smallest unit, in every currency */
                matches: boolean;
                /** @description The same computed from the figures: net revenue − withdrawn, all time (wei, an exact JSON integer; the ETH listings' only) */
                rollup_escrow_wei: number;
                /** @description Of the escrow, subscription payments still vesting (wei, an exact JSON integer; the ETH listings' only) */
                vesting_wei: number | null;
                /** @description Of the escrow, what the creator may withdraw now (wei, an exact JSON integer; the ETH listings' only) */
                withdrawable_wei: number | null;
            };
            /** @description Wallets that rented or ran the listings, all time: across listings a wallet renting several counts once */
            renter_count: number;
            series: components["schemas"]["AnalyticsPeriod"][];
            /** @description The ten renters who spent most on the ETH listings, all time (ties by wallet address) */
            top_renters: {
                /** @description Rentals bought */
                purchases: number;
                /** @description Renewals */
                renewals: number;
                /** @description Its runs, all time */
                runs: number;
                /** @description Everything it paid the listings (purchases, renewals, charges), all time (wei, an exact JSON integer; the ETH listings' only) */
                spend_wei: number;
                /** @description The renter's wallet, lower-case: renters appear only as wallet addresses */
                wallet: string;
            }[];
            /** @description For each currency of the listings, the ten renters who spent most on its listings, all time */
            top_renters_by_currency: {
                currency: components["schemas"]["AnalyticsCurrency"];
                renters: {
                    /** @description Rentals bought */
                    purchases: number;
                    /** @description Renewals */
                    renewals: number;
                    /** @description Its runs of these listings, all time */
                    runs: number;
                    /**
                     * @description Everything it paid this currency's listings, all time (the currency's smallest unit, as a decimal string: exact in any JSON reader)
                     * @example 250000
                     */
                    spend: string;
                    wallet: string;
                }[];
            }[];
            totals: components["schemas"]["AnalyticsPeriod"];
        };
        CreatorApplication: {
            display_name: string;
        };
        CreatorOverview: {
            agents: components["schemas"]["CreatorAgent"][];
            profile: components["schemas"]["CreatorProfile"] & (Record<string, never> | null);
        };
        CreatorProfile: {
            applied_at: string;
            display_name: string;
            reason: string | null;
            reviewed_at: string | null;
            /** @enum {string} */
            status: "pending" | "approved" | "rejected";
            wallet: string;
        };
        Credential: {
            /** @description A per_query credential's balance from the index, in the smallest unit of the listing's currency (wei for ETH, 10^-6 USDC for USDC); absent for the other models */
            balance_wei?: string;
            currency: components["schemas"]["Currency"];
            /** @description ISO 8601 for subscriptions; null otherwise */
            expires_at: string | null;
            listing_id: string;
            listing_title: string;
            on_chain_listing_id: string;
            /** @description ISO 8601 */
            purchased_at: string;
            /** @enum {string} */
            rental_model: "one_time" | "subscription" | "per_query";
            /** @enum {string} */
            status: "active" | "expired" | "low_balance" | "revoked" | "listing_closed" | "not_found";
        };
        CredentialList: {
            credentials: components["schemas"]["Credential"][];
            total: number;
        };
        CredentialVerification: {
            /** @description A per_query credential's balance as the contract holds it now, in the smallest unit of the listing's currency (wei for ETH, 10^-6 USDC for USDC); absent for the other models */
            balance_wei?: string;
            currency?: components["schemas"]["Currency"];
            /** @description ISO 8601; present when a subscription has expired */
            expired_at?: string;
            listing_id: string;
            on_chain_listing_id?: string;
            on_chain_verified: boolean;
            /** @enum {string} */
            rental_model?: "one_time" | "subscription" | "per_query";
            /** @enum {string} */
            status: "active" | "expired" | "low_balance" | "revoked" | "listing_closed" | "not_found";
            valid: boolean;
        };
        Currencies: {
            chain_id: number;
            /** @description ETH first, then the tokens of the allowlist as the service is configured */
            currencies: components["schemas"]["AcceptedCurrency"][];
        };
        /** @description The listing's currency: ETH (on the Marketplace) or a token of the allowlist (on the TokenMarketplace). See docs/design/currencies.md. */
        Currency: {
            /** @description The token's contract address; null for ETH */
            address: string | null;
            /** @description Decimals of the currency's smallest unit: 18 for ETH (wei), 6 for USDC */
            decimals: number;
            /** @description ETH, or the token's symbol (USDC) */
            symbol: string;
        };
        /** @description The last event: the Run, as POST /v1/execute answers it (completed or failed). With `settlement: "pending"` the output is null until the per-task charge lands (then GET /v1/runs/{run_id} returns it). */
        DoneEvent: {
            data: components["schemas"]["Run"];
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event: "done";
            /** @enum {string} */
            id: "done";
        };
        Erc8004Registration: {
            /** @description The agent id given, or null before registration */
            agent_id: string | null;
            /** @description `eip155:<chainId>:<identity registry>` */
            agent_registry: string;
            /** @description ipfs://<cid> of the registration file */
            agent_uri: string;
            listing_id: string;
            /** @description The file's content */
            registration_file: {
                [key: string]: unknown;
            };
            transaction: components["schemas"]["UnsignedTransaction"];
        };
        Erc8004RegistrationInput: {
            /** @description The agent's id once registered (decimal string), to point the agent at the complete file */
            agent_id?: string;
        };
        /** @description The envelope of every error answer. Each operation lists, per status, the codes it can return. */
        Error: {
            error: {
                /** @enum {string} */
                code: "unauthorized" | "invalid_api_key" | "jwt_expired" | "invalid_signature" | "credential_not_found" | "credential_expired" | "insufficient_balance" | "listing_paused" | "invalid_request" | "invalid_listing_id" | "listing_not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable" | "not_found" | "forbidden" | "creator_not_approved" | "credential_revoked" | "listing_closed" | "price_not_agreed" | "rating_not_allowed" | "feedback_not_allowed" | "feedback_exists" | "receipt_pending" | "agent_not_registered" | "method_not_allowed" | "idempotency_key_reused" | "request_timeout" | "payload_too_large" | "unsupported_media_type" | "headers_too_large" | "invalid_token" | "insufficient_scope" | "request_not_found" | "request_decided" | "origin_not_allowed" | "spend_limit_reached" | "payment_required";
                message: string;
                /** @description The contract's custom error behind a refusal, decoded from the revert */
                on_chain_error?: {
                    contract: string;
                    error: string;
                };
                request_id: string;
                /** @description With spend_limit_reached: the limit the run would have passed */
                spend_limit?: {
                    /** @description The limit, wei */
                    amount: string;
                    currency: string;
                    /** @description The key_id or the app_id */
                    id: string;
                    /** @enum {string} */
                    period: "day" | "month" | "total";
                    /** @description What may still be spent in the period, wei */
                    remaining: string;
                    /** @description Held by runs in flight, wei */
                    reserved: string;
                    /** @description When the period ends (ISO 8601, UTC); null for a limit in total */
                    resets_at: string | null;
                    /**
                     * @description Whose limit: the API key's or the connected app's
                     * @enum {string}
                     */
                    scope: "key" | "app";
                    /** @description Charged in the current period, wei */
                    spent: string;
                };
                status: number;
            };
        };
        /** @description A task for a rented agent. Unknown fields are refused (400 invalid_request naming them), so a misspelt field never runs silently with a default. */
        ExecuteRequest: {
            /** @description The agent id (<name>-<8 hex>), the listing id (lst_<64 hex>) or the on-chain id (0x<64 hex>) to run against. Malformed: 400 invalid_listing_id; unknown or unpublished: 404 listing_not_found. */
            agent_id: string;
            /** @description Free text or a JSON object, checked against the agent's input schema before the agent runs (a mismatch ends the run failed with invalid_input, and the agent is never called) */
            input?: string | {
                [key: string]: unknown;
            };
            /** @description Instead of input (never both): ipfs://<CIDv1> of content uploaded with POST /v1/inputs, checked against its address when the run reads it. Content that is a JSON object reaches the agent as an object, anything else as text. */
            input_uri?: string;
            /**
             * @description standard (default) or priority; recorded on the run
             * @enum {string}
             */
            priority?: "standard" | "priority";
            /** @description Natural-language description of the work */
            task: string;
            /** @description Maximum run time: the run gets the lower of this and the agent's own timeout_seconds */
            timeout_seconds?: number;
        };
        Feedback: {
            /** @description The agent it was given to (decimal): the listing's current agent or one it was linked to before. With client and feedback_index it names the feedback on-chain; the SDK's verifyReputation reads every agent listed here */
            agent_id: string;
            block_number: string;
            /** @description The wallet that sent giveFeedback, lower-case */
            client: string;
            endpoint: string;
            feedback_hash: string;
            /** @description The client's feedback index for the agent (from 1) */
            feedback_index: string;
            feedback_uri: string;
            /** @description Why it does not count: file_unavailable, file_too_large, hash_mismatch, file_malformed, file_of_another_feedback, receipt_of_another_wallet, receipt_of_another_listing, run_not_completed, receipt_not_on_chain, not_a_rating, value_out_of_range, run_already_rated, revoked, agent_not_the_listings; null when it counts */
            reason: string | null;
            /** @description A verified feedback's run receipt as its file carries it (marketplace, batchIndex, receipt fields, proof, root, leaf, txHash) */
            receipt: {
                [key: string]: unknown;
            } | null;
            revoked: boolean;
            run_id: string | null;
            tag1: string;
            tag2: string;
            text: string | null;
            tx_hash: string;
            /** @description value / 10^value_decimals */
            value: number;
            value_decimals: number;
            /** @description Whether it counts toward the listing's rating */
            verified: boolean;
        };
        FeedbackInput: {
            /** @description 1 to 64 characters; default "starred" (a rating: only ratings count toward the listing's rating) */
            tag1?: string;
            /** @description A comment for the file: plain text, at most 1000 characters after trimming */
            text?: string | null;
            /** @description The score, 0 to 100, at most 2 decimals (sent on-chain as value and valueDecimals: 87.5 is 875 with 1 decimal) */
            value: number;
        };
        Health: {
            /** @description The protocol authority's ETH balance (its gas), in wei */
            authority: {
                balance_wei: string;
            } | null;
            chain_id: number;
            checks: {
                chain: boolean;
                tables: boolean;
            };
            marketplace: string;
            /** @description Counters and latency percentiles since `since` (docs/guides/operator.md) */
            metrics: {
                chain_call_errors: number;
                latency_ms: {
                    chain_call: components["schemas"]["LatencyPercentiles"];
                    request: components["schemas"]["LatencyPercentiles"];
                    run_duration: components["schemas"]["LatencyPercentiles"];
                    settlement_lag: components["schemas"]["LatencyPercentiles"];
                    start_of_execution: components["schemas"]["LatencyPercentiles"];
                };
                requests: {
                    by_status_class: {
                        [key: string]: number;
                    };
                    total: number;
                };
                runs: {
                    charged: number;
                    /** @description Exact sum of charges, in wei */
                    charged_wei: string;
                    completed: number;
                    failed: number;
                    failed_by_reason: {
                        [key: string]: number;
                    };
                    settlements_deferred: number;
                    settlements_refused: number;
                    started: number;
                };
                /** @description When this process started counting: the figures are this process's (one Lambda instance in the cloud) */
                since: string;
            };
            /** @description Messages in each queue, visible and in flight: the registration queue, its dead-letter queue, and the settlement queue (per-task charges the settler has not decided yet) */
            queues: {
                registration: number | null;
                registration_dlq: number | null;
                settlement: number | null;
            };
            sandbox: {
                busy: number;
                idle: number;
                starting: number;
            } | null;
            settlements: {
                /** @description The settler's alarms that are on (docs/guides/operator.md, "What to alarm on at 3 am"): fee_ceiling, settlement_stalled, nonce_gap, deep_reorg; null when they could not be read */
                alarms: {
                    message: string;
                    /** @enum {string} */
                    name: "fee_ceiling" | "settlement_stalled" | "nonce_gap" | "deep_reorg";
                    since: string;
                }[] | null;
                pending: number | null;
            };
            /** @enum {string} */
            status: "ok" | "degraded";
        };
        InputStored: {
            bytes: number;
            input_uri: string;
        };
        InputUpload: {
            content: string;
            /** @enum {string} */
            encoding?: "utf8" | "base64";
        };
        Job: {
            /** @description On failed: every problem of the manifest with its JSON pointer */
            error?: {
                code: string;
                details?: {
                    code: string;
                    message: string;
                    pointer: string;
                }[];
                message: string;
            };
            job_id: string;
            /** @description On completed. Create the listing on-chain with createListing(listing_seed, rental model, price, metadata_uri). */
            result?: {
                agent_id: string;
                listing_id: string;
                listing_seed: string;
                /**
                 * @description Registered with market=token: create the listing on the TokenMarketplace.
                 * @enum {string}
                 */
                market?: "token";
                metadata_uri: string;
            };
            /** @enum {string} */
            status: "queued" | "completed" | "failed";
        };
        JobQueued: {
            job_id: string;
            /** @enum {string} */
            status: "queued";
        };
        /** @description RFC 7517 JSON Web Key Set: the public halves of the Agent Card signing keys, newest first */
        JsonWebKeySet: {
            keys: {
                /** @enum {string} */
                alg: "ES256";
                /** @enum {string} */
                crv: "P-256";
                kid: string;
                /** @enum {string} */
                kty: "EC";
                /** @enum {string} */
                use: "sig";
                x: string;
                y: string;
            }[];
        };
        /** @description Milliseconds; null until something was observed */
        LatencyPercentiles: {
            count: number;
            max: number;
            p50: number;
            p95: number;
            p99: number;
        } | null;
        Listing: components["schemas"]["ListingSummary"] & {
            erc8004: components["schemas"]["ListingErc8004"];
            metadata_uri: string;
            on_chain_id: string;
            published_at: string;
            /** @enum {string} */
            status: "active" | "paused" | "closed";
        };
        /** @description The listing's ERC-8004 agent: the latest its creator registered with a registration file of this listing and still owns. null until registered. Its tokenURI is the registration file (ipfs://<cid>, served at /v1/metadata/<cid>). */
        ListingErc8004: {
            /** @description The agent's id in the Identity Registry (its ERC-721 token id), as a decimal string (uint256) */
            agent_id: string;
            /** @description The Identity Registry, `eip155:<chainId>:<address>` */
            agent_registry: string;
        } | null;
        ListingMetadata: {
            [key: string]: unknown;
        };
        ListingSearch: {
            limit: number;
            listings: components["schemas"]["ListingSummary"][];
            offset: number;
            total: number;
        };
        ListingSummary: {
            category: string[];
            creator: {
                display_name: string;
                id: string;
                listing_count: number;
            };
            currency: components["schemas"]["Currency"];
            description: string;
            id: string;
            last_updated: string;
            /** @description The price in whole units of the listing's currency (`currency`): ETH for an ETH listing, as the specification says; for a token listing, whole tokens (0.25 for 0.25 USDC). Interpreted per rental model. */
            price_eth: number;
            /** @description The price exactly, in the currency's smallest unit (wei for ETH), as a decimal string. */
            price_units: string;
            /** @description Average of the verified on-chain feedback (ERC-8004 Reputation Registry), 0.0 to 5.0: a score of 0-100 counts as score/20. Only feedback carrying the on-chain receipt of a completed run of this listing by the same wallet counts, one per run (GET /v1/listings/{id}/reputation). */
            rating: number;
            /** @enum {string} */
            rental_model: "one_time" | "subscription" | "per_query";
            /** @description How many verified on-chain feedbacks the rating averages. */
            review_count: number;
            run_count: number;
            sample_output: string[];
            success_rate: number;
            title: string;
        };
        OAuthApproval: {
            /** @description At most one limit per currency and period; [] removes every limit */
            spend_limits?: components["schemas"]["SpendLimitInput"][];
        };
        /** @description An app's sign-in request awaiting the person's decision */
        OAuthConsentRequest: {
            client: {
                /** @description The app's client id: an https URL for an app identified by its metadata document, an opaque id for a registered one */
                client_id: string;
                client_uri: string | null;
                /**
                 * @description metadata_document: the client id is the URL of its metadata document, fetched from the app's own host; registered: the app registered itself (RFC 7591), anyone can claim any name
                 * @enum {string}
                 */
                kind: "metadata_document" | "registered";
                logo_uri: string | null;
                /** @description The name the app gives itself (client_name); unverified */
                name: string | null;
                /** @description Where the browser goes back to after the decision: the app's redirect host */
                redirect_host: string;
            };
            /** @description When the request expires (ISO 8601) */
            expires_at: string;
            /** @description The spending limit the app proposes for itself (its authorization parameter `spend_limit=<currency>:<wei>:<period>`); the person sets the limit on approval */
            proposed_spend_limits: {
                amount: string;
                currency: string;
                /** @enum {string} */
                period: "day" | "month" | "total";
            }[];
            request_id: string;
            /** @description The resources its tokens will open (the service's base URL opens the MCP endpoint, the A2A agents and the REST routes of its scopes) */
            resources: string[];
            /** @description What the app asks to do, in words */
            scopes: {
                description: string;
                scope: components["schemas"]["OAuthScope"];
            }[];
        };
        OAuthDecision: {
            /** @description Where to send the browser now: the authorization server, which sends it on to the app */
            redirect_to: string;
        };
        /**
         * @description tasks:run runs tasks on the rented agents (and reads those runs); credentials:read reads the rentals; listings:read reads the catalogue.
         * @enum {string}
         */
        OAuthScope: "tasks:run" | "credentials:read" | "listings:read";
        /** @description A piece of the run's output, sent as it is produced. */
        OutputEvent: {
            data: {
                /** @description The next piece of the agent's output */
                delta: string;
            };
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            event: "output";
            /**
             * @description The offset into the output after this delta (send it as Last-Event-ID to resume)
             * @example 42
             */
            id: string;
        };
        /** @description OAuth 2.0 Protected Resource Metadata (RFC 9728) */
        ProtectedResourceMetadata: {
            /** @description The issuer of the service's authorization server */
            authorization_servers: string[];
            /** @description Access tokens go in the Authorization header only */
            bearer_methods_supported: "header"[];
            /** @description The resource's identifier: the RFC 8707 `resource` an app asks a token for */
            resource: string;
            resource_documentation: string;
            resource_name: string;
            scopes_supported: components["schemas"]["OAuthScope"][];
        };
        ProviderKey: {
            provider_key: string;
        };
        ProviderKeySet: {
            listing_id: string;
            /** @enum {boolean} */
            provider_key_set: true;
            updated_at: string;
        };
        Rating: {
            comment: string | null;
            /** @description ISO 8601, the wallet's first rating of the listing */
            created_at: string;
            rating: number;
            /** @description ISO 8601, the latest change */
            updated_at: string;
            /** @description The renter's wallet, lower-case */
            wallet: string;
        };
        RatingInput: {
            /** @description Plain text, at most 1000 characters after trimming; no control characters other than line breaks and tabs */
            comment?: string | null;
            rating: number;
        };
        RatingList: {
            listing_id: string;
            next_cursor: string | null;
            rating: number;
            ratings: components["schemas"]["Rating"][];
            review_count: number;
        };
        RatingResult: components["schemas"]["Rating"] & {
            listing: {
                rating: number;
                review_count: number;
            };
            listing_id: string;
        };
        Reputation: {
            /** @description Off-chain ratings from before on-chain feedback, shown apart */
            before_on_chain: {
                rating: number;
                review_count: number;
            };
            erc8004: {
                agent_id: string;
                agent_registry: string;
            } | null;
            feedback: components["schemas"]["Feedback"][];
            listing_id: string;
            next_cursor: string | null;
            rating: number;
            review_count: number;
            unverified_count: number;
        };
        ReviewDecision: {
            /** @enum {string} */
            decision: "approve" | "reject";
            reason?: string;
        };
        RevokedApp: {
            app_id: string;
            /** @description ISO 8601 */
            revoked_at: string;
        };
        Run: {
            agent_id: string;
            /** @description Wei deducted from the per-task balance (an exact JSON integer); 0 for one_time and subscription */
            cost_wei: number;
            duration_ms: number;
            error?: components["schemas"]["RunFailure"];
            /** @description Shaped by the agent's output schema; on failure, the partial output (a string) */
            output?: unknown;
            run_id: string;
            /**
             * @description Present when the run's per-task charge is not confirmed on-chain yet: output is null until it is; GET /v1/runs/{run_id} releases it once the charge lands. The run is not run or charged again.
             * @enum {string}
             */
            settlement?: "pending";
            /** @enum {string} */
            status: "completed" | "failed";
        };
        RunDetail: {
            agent_id: string;
            cost_wei: number;
            created_at: string;
            currency: components["schemas"]["Currency"];
            duration_ms: number;
            error?: components["schemas"]["RunFailure"];
            finished_at: string | null;
            listing_id: string;
            /** @description null while running, and while a per-query charge is unconfirmed (settlement pending) or was refused */
            output?: unknown;
            /** @description The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged */
            receipt: {
                batch_index: number;
                leaf: string;
                proof: string[];
                root: string;
                tx_hash: string;
            } | null;
            /** @enum {string} */
            rental_model: "one_time" | "subscription" | "per_query";
            run_id: string;
            /** @enum {string} */
            settlement: "none" | "pending" | "settled" | "refused";
            settlement_tx: string | null;
            /** @enum {string} */
            status: "running" | "completed" | "failed";
        };
        /** @description One event of a run's stream (text/event-stream): each is framed as `event: <event>`, `id: <id>` and `data: <data as one line of JSON>` lines followed by a blank line. Zero or more `output` events, then one `done` event, then the stream ends. */
        RunEvent: components["schemas"]["OutputEvent"] | components["schemas"]["DoneEvent"];
        /** @description Why a failed run failed */
        RunFailure: {
            /**
             * @description Why the run failed; each code's meaning: docs/reference/runs.md (Why a run failed)
             * @enum {string}
             */
            code: "invalid_input" | "invalid_output" | "output_too_large" | "timeout" | "crashed" | "out_of_memory" | "agent_error" | "agent_http_error" | "agent_invalid_response" | "agent_stream_cut" | "agent_unreachable" | "egress_refused" | "agent_not_configured" | "cancelled" | "settlement_refused" | "internal_error";
            /** @description For the renter: never a key, a signature or a connected agent's URL */
            message: string;
        };
        RunFeedback: {
            /** @description The listing's ERC-8004 agent id (decimal string) */
            agent_id: string;
            agent_registry: string;
            /** @description The file's content */
            feedback_file: {
                [key: string]: unknown;
            };
            /** @description keccak256 of the file's bytes */
            feedback_hash: string;
            /** @description ipfs://<cid> of the feedback file */
            feedback_uri: string;
            listing_id: string;
            run_id: string;
            transaction: components["schemas"]["UnsignedTransaction"];
        };
        RunList: {
            listing_id: string;
            next_cursor: string | null;
            runs: components["schemas"]["RunSummary"][];
        };
        /** @description A run as listed: every field of RunDetail but its output (read it with GET /v1/runs/{run_id}) */
        RunSummary: {
            agent_id: string;
            cost_wei: number;
            created_at: string;
            currency: components["schemas"]["Currency"];
            duration_ms: number;
            error?: components["schemas"]["RunFailure"];
            finished_at: string | null;
            listing_id: string;
            /** @description The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged */
            receipt: {
                batch_index: number;
                leaf: string;
                proof: string[];
                root: string;
                tx_hash: string;
            } | null;
            /** @enum {string} */
            rental_model: "one_time" | "subscription" | "per_query";
            run_id: string;
            /** @enum {string} */
            settlement: "none" | "pending" | "settled" | "refused";
            settlement_tx: string | null;
            /** @enum {string} */
            status: "running" | "completed" | "failed";
        };
        /** @description A spending limit with its current period's spending */
        SpendLimit: {
            /** @description The limit, in the currency's smallest unit (wei for ETH) */
            amount: string;
            /** @description ETH, or the symbol of the token the limit counts */
            currency: string;
            /** @enum {string} */
            period: "day" | "month" | "total";
            /** @description What may still be spent in the current period, in the currency's smallest unit: the limit less spent and reserved */
            remaining: string;
            /** @description Held by runs in flight, in the currency's smallest unit (charged if they succeed, given back if not) */
            reserved: string;
            /** @description When the period ends and spending counts from zero again (ISO 8601, UTC); null for a limit in total */
            resets_at: string | null;
            /** @description Charged in the current period, in the currency's smallest unit */
            spent: string;
        };
        /** @description A spending limit: an amount per day, per month or in total, in one currency */
        SpendLimitInput: {
            /**
             * @description The most the key or app may spend per period, in the currency's smallest unit: wei for ETH, 10^-6 USDC for USDC (more than 0, at most 1,000,000 whole units: 10^24 wei)
             * @example 3000000000000000
             */
            amount: string;
            /**
             * @description The currency the limit counts: ETH, or a token listings are priced in, by its symbol (USDC) or address; stored as the symbol. A currency no listing is priced in is refused. A run counts against the limits in its listing's currency only
             * @default ETH
             * @example ETH
             */
            currency: string;
            /**
             * @description day: each calendar day, UTC; month: each calendar month, UTC; total: for the key's or app's whole life, never reset
             * @enum {string}
             */
            period: "day" | "month" | "total";
        };
        /** @description A transaction for the caller's wallet to sign and send (no value, no gas fields: the wallet fills those) */
        UnsignedTransaction: {
            /** @description The call data */
            data: string;
            /** @description The registry to send it to */
            to: string;
        };
        WebhookSecret: {
            created_at: string;
            listing_id: string;
            webhook_secret: string;
        };
    };
    responses: {
        /** @description An unexpected failure; nothing about it is returned but the request id. */
        InternalError: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "internal_error";
                        /** @enum {integer} */
                        status: 500;
                    };
                };
            };
        };
        /** @description The request body is over the size limit. */
        PayloadTooLarge: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "payload_too_large";
                        /** @enum {integer} */
                        status: 413;
                    };
                };
            };
        };
        /** @description A rate limit refused the request; retry after Retry-After seconds. */
        RateLimited: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "rate_limit_exceeded";
                        /** @enum {integer} */
                        status: 429;
                    };
                };
            };
        };
        /** @description A dependency (the chain, the rate limiter's store) could not be reached, or a run could not be admitted yet; retry after Retry-After seconds. */
        ServiceUnavailable: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "service_unavailable";
                        /** @enum {integer} */
                        status: 503;
                    };
                };
            };
        };
        /** @description No valid API key, JWT or OAuth access token: missing, malformed, unknown, revoked, expired, or (an access token) issued for another resource. Carries `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728). */
        Unauthorized: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "unauthorized" | "invalid_api_key" | "jwt_expired" | "invalid_token";
                        /** @enum {integer} */
                        status: 401;
                    };
                };
            };
        };
        /** @description The request body is not JSON. */
        UnsupportedMediaType: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "unsupported_media_type";
                        /** @enum {integer} */
                        status: 415;
                    };
                };
            };
        };
    };
    parameters: {
        /** @description Makes a retry safe: a retry with the same key and body returns the first request's run (and is never charged again); the same key with another body gives 409 idempotency_key_reused. 1 to 255 printable ASCII characters without spaces; kept 24 hours. */
        IdempotencyKey: string;
        /** @description Resume a stream: the id of the last event received (an offset into the output, or `done`). Omit it for the whole stream. */
        LastEventId: string;
        /** @description An x402 v2 payment instead of Authorization, for a per-task listing priced in an EIP-3009 token: base64 of the JSON PaymentPayload, `{x402Version: 2, accepted: <one of PAYMENT-REQUIRED's accepts>, payload: {authorization: {from, to, value, validAfter, validBefore, nonce}, signature}}` (an EIP-3009 transferWithAuthorization to the TokenMarketplace). At most 8,192 characters; one that is not base64 JSON of that shape is 400 invalid_request. The run executes, and the payment settles only if it completed. */
        PaymentSignature: string;
    };
    requestBodies: never;
    headers: {
        /** @description The methods the path answers. */
        Allow: string;
        /** @description x402 v2 (with 402 payment_required only): base64 of the JSON PaymentRequired, `{x402Version: 2, error, resource: {url, description, mimeType}, accepts: [{scheme: "exact", network: "eip155:<chain id>", amount, asset, payTo, maxTimeoutSeconds, extra: {name, version}}]}`. `accepts` is what to pay (the run's price in the token's smallest unit, to the TokenMarketplace); `error` is `payment_required` when no payment came, else the refused payment's reason (`invalid_exact_evm_*`). */
        "PAYMENT-REQUIRED": string;
        /** @description x402 v2 (a run paid by PAYMENT-SIGNATURE only): base64 of the JSON SettleResponse, `{success, transaction, network, payer}`, sent once the payment is in a block. */
        "PAYMENT-RESPONSE": string;
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
        /** @description Requests allowed in the current window of the rule closest to refusing this request. */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current window. */
        "X-RateLimit-Remaining": number;
        /** @description When the current window ends, in Unix seconds. */
        "X-RateLimit-Reset": number;
        /** @description The request's id, also in every error body; quote it to support. */
        "X-Request-Id": string;
        /** @description The run's id, known before the first event: resume with GET /v1/runs/{run_id}/events. */
        "X-Run-Id": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getCardSigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key set */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonWebKeySet"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getAuthorizationServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        authorization_endpoint: string;
                        issuer: string;
                        registration_endpoint?: string;
                        token_endpoint: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getA2aProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The agent id (<name>-<8 hex>), the listing id or the on-chain id */
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            /** @description Bad request: invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getMcpProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    callA2aAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description The protocol version the client speaks: 1.0, or 0.3 (an empty header is 0.3, as A2A says). Anything else: -32009. */
                "A2A-Version"?: string;
                /** @description Resume a stream (SubscribeToTask, or SendStreamingMessage with the same messageId): the id of the last event received. */
                "Last-Event-ID"?: string;
                /** @description GetTask (v0.3 tasks/get) of a task paid by x402, instead of Authorization: <unix_timestamp>:<0x signature> by the task's payer of run-read:<task id>:<unix_timestamp> */
                "X-Wallet-Signature"?: string;
            };
            path: {
                /** @description The agent id (<name>-<8 hex>), the listing id or the on-chain id */
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description A JSON-RPC response (a result, or an error object), or for a streaming method an event stream of JSON-RPC responses; a JSON-RPC error object (with 200) carries one of: invalid_request, invalid_listing_id, spend_limit_reached, payment_required, credential_not_found, credential_expired, insufficient_balance, listing_paused, credential_revoked, listing_closed, price_not_agreed, insufficient_scope, listing_not_found, not_found, idempotency_key_reused */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never> | {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "invalid_request" | "invalid_listing_id" | "spend_limit_reached" | "payment_required" | "credential_not_found" | "credential_expired" | "insufficient_balance" | "listing_paused" | "credential_revoked" | "listing_closed" | "price_not_agreed" | "insufficient_scope" | "listing_not_found" | "not_found" | "idempotency_key_reused";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                    "text/event-stream": string;
                };
            };
            /** @description Unauthorized, as a JSON-RPC error object: unauthorized, invalid_api_key, jwt_expired, invalid_token */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "unauthorized" | "invalid_api_key" | "jwt_expired" | "invalid_token";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                };
            };
            /** @description Payload too large, as a JSON-RPC error object: payload_too_large */
            413: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "payload_too_large";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                };
            };
            /** @description Unsupported media type, as a JSON-RPC error object: unsupported_media_type */
            415: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "unsupported_media_type";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                };
            };
            /** @description Too many requests, as a JSON-RPC error object: rate_limit_exceeded */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "rate_limit_exceeded";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                };
            };
            /** @description Internal error, as a JSON-RPC error object: internal_error */
            500: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "internal_error";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                };
            };
            /** @description Service unavailable, as a JSON-RPC error object: service_unavailable */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A2A's JSON-RPC code, or -32000 for the service's own refusals */
                            code: number;
                            data: {
                                "@type"?: string;
                                domain?: string;
                                metadata?: {
                                    /** @enum {string} */
                                    code?: "service_unavailable";
                                    request_id?: string;
                                };
                                reason?: string;
                            }[];
                            message: string;
                        };
                        /** @description The request's id (null when it could not be read) */
                        id: string | number | null;
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    };
                };
            };
        };
    };
    getAgentCard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The agent id (<name>-<8 hex>), the listing id or the on-chain id */
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed Agent Card */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentCard"];
                };
            };
            /** @description Not modified: the card named by If-None-Match is current */
            304: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request: invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    authorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the dashboard's consent page, or back to the app with an error */
            302: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An unknown client, or a redirect URI it did not register (plain text; nothing is redirected) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    resumeAuthorization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Back to the app: `code`, `state` and `iss`, or an `error` */
            302: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Another browser, an approval secret missing or wrong (the approval is then void), an expired request, or one not decided yet (plain text) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    registerOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The registered client */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        client_id: string;
                        client_secret?: string;
                    };
                };
            };
            /** @description Bad request: invalid_request, invalid_client_metadata, invalid_redirect_uri (OAuth's error object) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client_metadata" | "invalid_redirect_uri";
                        error_description?: string;
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Too many requests: too_many_clients (OAuth's error object); rate_limit_exceeded (the envelope) */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "too_many_clients";
                        error_description?: string;
                    } | (components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "rate_limit_exceeded";
                            /** @enum {integer} */
                            status: 429;
                        };
                    });
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeOAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": Record<string, never>;
            };
        };
        responses: {
            /** @description Revoked (or was not live) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request: invalid_request, unsupported_token_type (OAuth's error object) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "unsupported_token_type";
                        error_description?: string;
                    };
                };
            };
            /** @description Unauthorized: invalid_client (OAuth's error object) */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_client";
                        error_description?: string;
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    issueOAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @description A public client's id (client_secret_basic sends it in the Authorization header instead) */
                    client_id?: string;
                    /** @description client_secret_post only */
                    client_secret?: string;
                    /** @description The code the app received at its redirect URI (one use, one minute) */
                    code: string;
                    /** @description PKCE: the verifier of the S256 challenge sent to /oauth/authorize */
                    code_verifier: string;
                    /** @constant */
                    grant_type: "authorization_code";
                    /** @description The redirect URI the authorization used */
                    redirect_uri: string;
                    /** @description RFC 8707: the resource the token is for (the one approved when none) */
                    resource?: string;
                } | {
                    /** @description A public client's id (client_secret_basic sends it in the Authorization header instead) */
                    client_id?: string;
                    /** @description client_secret_post only */
                    client_secret?: string;
                    /** @constant */
                    grant_type: "refresh_token";
                    /** @description The latest refresh token (each is spent by its use) */
                    refresh_token: string;
                    /** @description RFC 8707: the resource the token is for (the one approved when none) */
                    resource?: string;
                    /** @description A narrower scope than the one approved */
                    scope?: string;
                };
            };
        };
        responses: {
            /** @description The tokens */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_token: string;
                        expires_in: number;
                        refresh_token?: string;
                        scope?: string;
                        /** @enum {string} */
                        token_type: "Bearer";
                    };
                };
            };
            /** @description Bad request: invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, invalid_target (OAuth's error object) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_scope" | "invalid_target";
                        error_description?: string;
                    };
                };
            };
            /** @description Unauthorized: invalid_client (OAuth's error object) */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_client";
                        error_description?: string;
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    registerAgent: {
        parameters: {
            query?: {
                /** @description The marketplace the agent is listed on: eth (default) or token (priced in an allowed ERC-20). */
                market?: "eth" | "token";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentManifest"];
            };
        };
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobQueued"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: creator_not_approved, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "creator_not_approved" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listAlerts: {
        parameters: {
            query?: {
                /** @description How many, newest first (1 to 100) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The alerts, newest first */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertList"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getAlertSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The settings */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    setAlertSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AlertSettingsInput"];
            };
        };
        responses: {
            /** @description The settings (with the secret when one was made) */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertSettings"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAuthChallenge: {
        parameters: {
            query: {
                wallet: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The challenge */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthChallenge"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    exchangeAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthTokenRequest"];
            };
        };
        responses: {
            /** @description The JWT */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthToken"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            /** @description Unauthorized: invalid_signature */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_signature";
                            /** @enum {integer} */
                            status: 401;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    applyAsCreator: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreatorApplication"];
            };
        };
        responses: {
            /** @description The application */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatorProfile"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCreatorProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Profile and agents; `profile` is null (and `agents` empty) when the wallet never applied */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatorOverview"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getCreatorAnalytics: {
        parameters: {
            query?: {
                /** @description csv: one table (`table`) as text/csv */
                format?: "json" | "csv";
                /** @description Start of the range (ISO 8601); default: 30 days before `to` */
                from?: string;
                /** @description hour (at most 744 periods), day (default; at most 400) or month (at most 36) */
                granularity?: "hour" | "day" | "month";
                /** @description The table a CSV holds: series (default) or top_renters (wei: the ETH listings'), or series_by_currency or top_renters_by_currency (a row per currency, in its smallest unit) */
                table?: "series" | "top_renters" | "series_by_currency" | "top_renters_by_currency";
                /** @description End of the range (ISO 8601); default: now */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures (JSON), or one table as CSV */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatorAnalytics"];
                    "text/csv": string;
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getListingAnalytics: {
        parameters: {
            query?: {
                /** @description csv: one table (`table`) as text/csv */
                format?: "json" | "csv";
                /** @description Start of the range (ISO 8601); default: 30 days before `to` */
                from?: string;
                /** @description hour (at most 744 periods), day (default; at most 400) or month (at most 36) */
                granularity?: "hour" | "day" | "month";
                /** @description The table a CSV holds: series (default) or top_renters (wei: the ETH listings'), or series_by_currency or top_renters_by_currency (a row per currency, in its smallest unit) */
                table?: "series" | "top_renters" | "series_by_currency" | "top_renters_by_currency";
                /** @description End of the range (ISO 8601); default: now */
                to?: string;
            };
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures (JSON), or one table as CSV */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatorAnalytics"];
                    "text/csv": string;
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listCredentials: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number | null;
                status?: "active" | "expired" | "low_balance" | "revoked" | "listing_closed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Credentials */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CredentialList"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    verifyCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The verification */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CredentialVerification"];
                };
            };
            /** @description Bad request: invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listCurrencies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The currencies */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Currencies"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getApiReference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reference page */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getApiReferenceScript: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scalar's standalone script */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    executeTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a retry with the same key and body returns the first request's run (and is never charged again); the same key with another body gives 409 idempotency_key_reused. 1 to 255 printable ASCII characters without spaces; kept 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description An x402 v2 payment instead of Authorization, for a per-task listing priced in an EIP-3009 token: base64 of the JSON PaymentPayload, `{x402Version: 2, accepted: <one of PAYMENT-REQUIRED's accepts>, payload: {authorization: {from, to, value, validAfter, validBefore, nonce}, signature}}` (an EIP-3009 transferWithAuthorization to the TokenMarketplace). At most 8,192 characters; one that is not base64 JSON of that shape is 400 invalid_request. The run executes, and the payment settles only if it completed. */
                "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExecuteRequest"];
            };
        };
        responses: {
            /** @description The run (completed or failed) */
            200: {
                headers: {
                    "PAYMENT-RESPONSE": components["headers"]["PAYMENT-RESPONSE"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Payment required: spend_limit_reached, payment_required */
            402: {
                headers: {
                    "PAYMENT-REQUIRED": components["headers"]["PAYMENT-REQUIRED"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "spend_limit_reached" | "payment_required";
                            /** @enum {integer} */
                            status: 402;
                        };
                    };
                };
            };
            /** @description Forbidden: credential_not_found, credential_expired, insufficient_balance, listing_paused, credential_revoked, listing_closed, price_not_agreed, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "credential_not_found" | "credential_expired" | "insufficient_balance" | "listing_paused" | "credential_revoked" | "listing_closed" | "price_not_agreed" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            /** @description Conflict: idempotency_key_reused */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @enum {integer} */
                            status: 409;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    streamTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a retry with the same key and body returns the first request's run (and is never charged again); the same key with another body gives 409 idempotency_key_reused. 1 to 255 printable ASCII characters without spaces; kept 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description Resume a stream: the id of the last event received (an offset into the output, or `done`). Omit it for the whole stream. */
                "Last-Event-ID"?: components["parameters"]["LastEventId"];
                /** @description An x402 v2 payment instead of Authorization, for a per-task listing priced in an EIP-3009 token: base64 of the JSON PaymentPayload, `{x402Version: 2, accepted: <one of PAYMENT-REQUIRED's accepts>, payload: {authorization: {from, to, value, validAfter, validBefore, nonce}, signature}}` (an EIP-3009 transferWithAuthorization to the TokenMarketplace). At most 8,192 characters; one that is not base64 JSON of that shape is 400 invalid_request. The run executes, and the payment settles only if it completed. */
                "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExecuteRequest"];
            };
        };
        responses: {
            /** @description The event stream: `output` events, then one `done` event */
            200: {
                headers: {
                    "PAYMENT-RESPONSE": components["headers"]["PAYMENT-RESPONSE"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Run-Id": components["headers"]["X-Run-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["RunEvent"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Payment required: spend_limit_reached, payment_required */
            402: {
                headers: {
                    "PAYMENT-REQUIRED": components["headers"]["PAYMENT-REQUIRED"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "spend_limit_reached" | "payment_required";
                            /** @enum {integer} */
                            status: 402;
                        };
                    };
                };
            };
            /** @description Forbidden: credential_not_found, credential_expired, insufficient_balance, listing_paused, credential_revoked, listing_closed, price_not_agreed, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "credential_not_found" | "credential_expired" | "insufficient_balance" | "listing_paused" | "credential_revoked" | "listing_closed" | "price_not_agreed" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            /** @description Conflict: idempotency_key_reused */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @enum {integer} */
                            status: 409;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Health */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    uploadInput: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InputUpload"];
            };
        };
        responses: {
            /** @description Stored */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InputStored"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The wallet's keys, newest first */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyCreate"];
            };
        };
        responses: {
            /** @description The new key */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyCreated"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            /** @description Unauthorized: unauthorized, invalid_api_key, jwt_expired, invalid_signature, invalid_token */
            401: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "unauthorized" | "invalid_api_key" | "jwt_expired" | "invalid_signature" | "invalid_token";
                            /** @enum {integer} */
                            status: 401;
                        };
                    };
                };
            };
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked key */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    updateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyUpdate"];
            };
        };
        responses: {
            /** @description The key with its limits */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createApiKeyChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyRequest"];
            };
        };
        responses: {
            /** @description The message to sign */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyChallenge"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    searchListings: {
        parameters: {
            query?: {
                category?: string;
                /** @description ETH or a token's symbol (USDC, RENT): listings priced in it only; min_price and max_price are then in it. */
                currency?: string;
                limit?: string;
                max_price?: string;
                min_price?: string;
                min_rating?: string;
                offset?: string;
                q?: string;
                rental_model?: string;
                sort?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of listings */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListingSearch"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The listing */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Listing"];
                };
            };
            /** @description Bad request: invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    prepareErc8004Registration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Erc8004RegistrationInput"];
            };
        };
        responses: {
            /** @description The registration file as stored and the transaction to send */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Erc8004Registration"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    setProviderKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProviderKey"];
            };
        };
        responses: {
            /** @description Stored */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderKeySet"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rateListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RatingInput"];
            };
        };
        responses: {
            /** @description The rating as stored, with the listing's figures */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RatingResult"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: rating_not_allowed, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "rating_not_allowed" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listRatings: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of ratings */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RatingList"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getListingReputation: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The listing's reputation */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reputation"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    openMcpStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope, origin_not_allowed */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope" | "origin_not_allowed";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Method not allowed: method_not_allowed */
            405: {
                headers: {
                    Allow: components["headers"]["Allow"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "method_not_allowed";
                            /** @enum {integer} */
                            status: 405;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    callMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The JSON-RPC answer, or an event stream of progress notifications ending with it */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                    "text/event-stream": string;
                };
            };
            /** @description A notification or a response was accepted (nothing to answer) */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON-RPC (the protocol's own error object) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope, origin_not_allowed */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope" | "origin_not_allowed";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    endMcpSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope, origin_not_allowed */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope" | "origin_not_allowed";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Method not allowed: method_not_allowed */
            405: {
                headers: {
                    Allow: components["headers"]["Allow"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "method_not_allowed";
                            /** @enum {integer} */
                            status: 405;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    openPaidMcpStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Forbidden: origin_not_allowed */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "origin_not_allowed";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Method not allowed: method_not_allowed */
            405: {
                headers: {
                    Allow: components["headers"]["Allow"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "method_not_allowed";
                            /** @enum {integer} */
                            status: 405;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    callPaidMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The JSON-RPC answer, or an event stream of progress notifications ending with it */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                    "text/event-stream": string;
                };
            };
            /** @description A notification or a response was accepted (nothing to answer) */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON-RPC (the protocol's own error object) */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Forbidden: origin_not_allowed */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "origin_not_allowed";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getListingMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                cid: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata document */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListingMetadata"];
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listConnectedApps: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The apps */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        apps: components["schemas"]["ConnectedApp"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    revokeConnectedApp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The app_id of GET /v1/oauth/apps */
                app_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokedApp"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    updateConnectedApp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The app_id of GET /v1/oauth/apps */
                app_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConnectedAppUpdate"];
            };
        };
        responses: {
            /** @description The app with its limits */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectedApp"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getOAuthRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The sign-in request's id, from the dashboard's /connect?request=… link */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthConsentRequest"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: request_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "request_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    approveOAuthRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The sign-in request's id, from the dashboard's /connect?request=… link */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["OAuthApproval"];
            };
        };
        responses: {
            /** @description Where the browser goes next */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecision"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: request_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "request_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            /** @description Conflict: request_decided */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "request_decided";
                            /** @enum {integer} */
                            status: 409;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    denyOAuthRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The sign-in request's id, from the dashboard's /connect?request=… link */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where the browser goes next */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecision"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: request_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "request_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            /** @description Conflict: request_decided */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "request_decided";
                            /** @enum {integer} */
                            status: 409;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    listCreatorApplications: {
        parameters: {
            query?: {
                status?: "pending" | "approved" | "rejected";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Applications */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        applications: components["schemas"]["CreatorProfile"][];
                    };
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    reviewCreator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                wallet: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReviewDecision"];
            };
        };
        responses: {
            /** @description The reviewed application */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatorProfile"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listListingReviews: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Pending */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        listings: {
                            created_at: string;
                            listing_id: string;
                        }[];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    reviewListing: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReviewDecision"];
            };
        };
        responses: {
            /** @description The decision */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        listing_id: string;
                        review_reason: string | null;
                        /** @enum {string} */
                        review_status: "pending" | "approved" | "rejected";
                    };
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: forbidden, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: listing_not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "listing_not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listRuns: {
        parameters: {
            query: {
                cursor?: string;
                limit?: number;
                /** @description The listing (lst_…, or its 0x on-chain id) */
                listing_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of runs */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunList"];
                };
            };
            /** @description Bad request: invalid_request, invalid_listing_id */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request" | "invalid_listing_id";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description Instead of Authorization: <unix_timestamp>:<0x signature> by the run's wallet of run-read:<run_id>:<unix_timestamp> */
                "x-wallet-signature"?: string;
            };
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunDetail"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    streamRunEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Resume a stream: the id of the last event received (an offset into the output, or `done`). Omit it for the whole stream. */
                "Last-Event-ID"?: components["parameters"]["LastEventId"];
            };
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream: `output` events after Last-Event-ID, then one `done` event */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["RunEvent"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
        };
    };
    prepareRunFeedback: {
        parameters: {
            query?: never;
            header?: {
                /** @description Instead of Authorization: <unix_timestamp>:<0x signature> by the run's wallet of run-feedback:<run_id>:<unix_timestamp> */
                "x-wallet-signature"?: string;
            };
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FeedbackInput"];
            };
        };
        responses: {
            /** @description The feedback file as stored and the transaction to send */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunFeedback"];
                };
            };
            /** @description Bad request: invalid_request */
            400: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @enum {integer} */
                            status: 400;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Forbidden: feedback_not_allowed, insufficient_scope */
            403: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "feedback_not_allowed" | "insufficient_scope";
                            /** @enum {integer} */
                            status: 403;
                        };
                    };
                };
            };
            /** @description Not found: not_found */
            404: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @enum {integer} */
                            status: 404;
                        };
                    };
                };
            };
            /** @description Conflict: feedback_exists, receipt_pending, agent_not_registered */
            409: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        error: {
                            /** @enum {string} */
                            code: "feedback_exists" | "receipt_pending" | "agent_not_registered";
                            /** @enum {integer} */
                            status: 409;
                        };
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
