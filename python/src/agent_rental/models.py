# Generated from the API's OpenAPI document (GET /v1/openapi.json) by scripts/generate-python-models.ts.
# Do not edit: change the routes' schemas, then run `node --import tsx scripts/generate-python-models.ts`.
"""The API's request and response shapes, as TypedDicts (plain dicts at run time)."""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict, Union


class AcceptedCurrency(TypedDict):
    address: Optional[str]
    """The token's contract address; null for ETH"""
    contract: str
    """The marketplace contract listings in this currency live on: the Marketplace for ETH, the TokenMarketplace for a token"""
    decimals: int
    """Decimals of the smallest unit: 18 for ETH (wei), 6 for USDC"""
    name: Optional[str]
    """The token's EIP-712 domain name (its `name()`), which permit and EIP-3009 signatures name; null for ETH"""
    symbol: str
    """ETH, or the token's symbol (USDC)"""
    version: Optional[str]
    """The token's EIP-712 domain version; null for ETH"""
    x402: bool
    """Whether per-task listings in it are payable by x402 (the token implements EIP-3009)"""

class AgentCardCapabilities(TypedDict):
    extendedAgentCard: bool
    pushNotifications: bool
    streaming: bool

class AgentCardProvider(TypedDict):
    organization: str
    url: str

class AgentCardSignaturesItem(TypedDict):
    protected: str
    signature: str

class AgentCardSkillsItem(TypedDict):
    description: str
    examples: list[str]
    id: str
    name: str
    tags: list[str]

class AgentCardSupportedInterfacesItem(TypedDict):
    protocolBinding: str
    protocolVersion: str
    url: str

class AgentCardRequired(TypedDict):
    capabilities: AgentCardCapabilities
    defaultInputModes: list[str]
    defaultOutputModes: list[str]
    description: str
    documentationUrl: str
    name: str
    provider: AgentCardProvider
    securityRequirements: list[Any]
    securitySchemes: dict[str, Any]
    skills: list[AgentCardSkillsItem]
    supportedInterfaces: list[AgentCardSupportedInterfacesItem]
    version: str

class AgentCard(AgentCardRequired, total=False):
    """An A2A v1.0 Agent Card (a2a-protocol.org, specification/a2a.proto), in ProtoJSON"""
    signatures: list[AgentCardSignaturesItem]

class AgentManifestModelRequired(TypedDict):
    provider: Literal["provider_a", "provider_b", "self_hosted"]
    """provider_a or provider_b (hosted, called at its own address with the listing's provider key) or self_hosted"""

class AgentManifestModel(AgentManifestModelRequired, total=False):
    endpoint_url: str
    """self_hosted only, and required there: the model's HTTPS endpoint, a public host, port 443, no credentials in the URL"""
    model: str
    """The provider's model identifier: printable ASCII, no spaces. Required for provider_a and provider_b; optional for self_hosted"""

class AgentManifestToolsItem(TypedDict):
    name: Literal["http_fetch", "web_search", "js_eval", "json_transform", "pdf_extract"]
    """http_fetch: HTTPS GET/POST to the listed hosts only (port 443, no redirects off the list), through the egress guard. web_search: Search the public web through the service's search provider; returns titles, URLs and snippets. js_eval: Evaluate JavaScript in a fresh isolate (isolated-vm) with no network, file system or host objects. json_transform: Reshape JSON the agent already holds (select, rename, filter, map) with a declarative expression; no I/O. pdf_extract: Extract text and tables from the PDF file attached to the run's input; no other file."""
    scope: str
    """http_fetch: host[,host...]: 1 to 20 DNS names, each optionally prefixed with "*." for its subdomains (the name itself excluded) and optionally suffixed with ":443"; no IP addresses, schemes, paths, other ports, spaces or internal names; web_search: public; js_eval: default (memory=64,timeout=1000) | memory=<MB 8..128>,timeout=<ms 1..5000> (both, either order); json_transform: default; pdf_extract: input"""

class AgentManifestRequired(TypedDict):
    category: Literal["finance", "legal", "coding", "research", "sales", "content"]
    """The listing's category (case-sensitive); the search filters by it"""
    description: str
    """What the agent does, for renters; not blank"""
    input_schema: dict[str, Any]
    """A JSON Schema (draft 2020-12) object: at most 32 levels deep and 10000 values, references only within the schema ("#..."), patterns of at most 1000 characters that run on a linear-time engine (RE2: no backreferences or lookaround) and are not catastrophic."""
    model: AgentManifestModel
    name: str
    """Kebab-case: lowercase letters and digits in words joined by single hyphens, starting with a letter; becomes part of the agent_id"""
    output_schema: dict[str, Any]
    """A JSON Schema (draft 2020-12) object: at most 32 levels deep and 10000 values, references only within the schema ("#..."), patterns of at most 1000 characters that run on a linear-time engine (RE2: no backreferences or lookaround) and are not catastrophic. Its examples (one to 3, or one generated from it) are the listing's sample outputs."""

class AgentManifest(AgentManifestRequired, total=False):
    """The agent manifest (64 KB at most). The request is queued at once; every rule is checked by the validator on the queue, and a failed job lists each problem with its JSON pointer (GET /v1/jobs/{job_id})."""
    entrypoint_url: str
    """A connected agent: the HTTPS URL the service calls with each task, signed per Standard Webhooks. Exactly one of system_prompt and entrypoint_url."""
    system_prompt: str
    """A declarative agent: the prompt the service runs in its sandbox (private; never published). Exactly one of system_prompt and entrypoint_url."""
    timeout_seconds: int
    """Longest run, in seconds (default 60)"""
    tools: list[AgentManifestToolsItem]
    """Tools of the catalogue a declarative agent may use, each once, with its scope (none for a connected agent; default none)"""

class AlertRequired(TypedDict):
    alert_id: str
    attempts: int
    created_at: str
    data: dict[str, Any]
    """What crossed: for spend_limit threshold, scope (key or app), id, currency, period, amount, spent, remaining, resets_at; for low_balance listing_id, balance_wei, price_wei, runs_left, threshold_runs; for charge_cap threshold, listing_id, amount, period_seconds, spent (charged in the current period), remaining, resets_at (the period's end, on the chain's clock). All name the run whose charge crossed it (run_id)"""
    delivery: Literal["pending", "delivered", "failed", "no_webhook"]
    """The webhook delivery: pending (being tried, with backoff), delivered, failed (given up after its retries, or the webhook was removed), no_webhook (none was set when it was raised)"""
    type: Literal["spend_limit", "low_balance", "charge_cap"]
    """spend_limit: a key's or app's limit reached 80% or 100% (no run at the last price fits what is left); low_balance: a per-task balance fell below the chosen number of runs; charge_cap: the renter's on-chain charge cap (setChargeCap) on a listing reached 80% or 100% of its period (no run at the last price fits what is left)"""

class Alert(AlertRequired, total=False):
    """One crossing, raised once: shown in the dashboard and delivered to the webhook"""
    delivered_at: str
    last_error: str
    """Why the last attempt failed (a status or an unreachable host; never the URL)"""

class AlertList(TypedDict):
    alerts: list[Alert]

class AlertSettingsRequired(TypedDict):
    created_at: Optional[str]
    """When the settings were first set; null before"""
    low_balance_runs: Optional[int]
    updated_at: Optional[str]
    webhook_url: Optional[str]

class AlertSettings(AlertSettingsRequired, total=False):
    """The wallet's alert settings; alerts cross at 80% and 100% of every spending limit of its keys and apps and of every on-chain charge cap it set, and below the low-balance threshold"""
    webhook_secret: str
    """The webhook's signing secret (`whsec_…`): only in the answer that made it (the first settings, or rotate_secret)"""

class AlertSettingsInputRequired(TypedDict):
    webhook_url: Optional[str]
    """Where alerts are delivered (HTTPS; signed with Standard Webhooks, as connected agents' webhooks are); null: alerts show in the dashboard only"""

class AlertSettingsInput(AlertSettingsInputRequired, total=False):
    """Where the wallet's alerts go, and when a low balance alerts"""
    low_balance_runs: Optional[int]
    """Alert when a per-task balance falls below this many runs at its listing's price; null: never"""
    rotate_secret: bool
    """Make a new signing secret (returned in this answer only); the old one stops signing at once"""

class AnalyticsCurrency(TypedDict):
    """A currency listings are priced and paid in"""
    address: Optional[str]
    """The token's address; null for ETH"""
    decimals: int
    symbol: str

class AnalyticsCurrencyFiguresRentals(TypedDict):
    balance_change: str
    """deposits − charges − refunds (x402 payments move no balance) (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    deposits: str
    """per_query deposits and top-ups (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    refunds: str
    """Unspent per_query balances withdrawn by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class AnalyticsCurrencyFiguresRevenueByModelOneTime(TypedDict):
    fee: str
    """The protocol fee taken from it (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    gross: str
    """Paid by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    net: str
    """gross − fee: the creator's (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class AnalyticsCurrencyFiguresRevenueByModelPerQuery(TypedDict):
    fee: str
    """The protocol fee taken from it (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    gross: str
    """Paid by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    net: str
    """gross − fee: the creator's (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class AnalyticsCurrencyFiguresRevenueByModelSubscription(TypedDict):
    fee: str
    """The protocol fee taken from it (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    gross: str
    """Paid by renters (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    net: str
    """gross − fee: the creator's (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class AnalyticsCurrencyFiguresRevenueByModel(TypedDict):
    one_time: AnalyticsCurrencyFiguresRevenueByModelOneTime
    per_query: AnalyticsCurrencyFiguresRevenueByModelPerQuery
    subscription: AnalyticsCurrencyFiguresRevenueByModelSubscription

class AnalyticsCurrencyFiguresRevenue(TypedDict):
    by_model: AnalyticsCurrencyFiguresRevenueByModel
    fee: str
    """The protocol fee (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    gross: str
    """Paid by renters, every model (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    net: str
    """The creator's share (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    paid_by_x402: str
    """Of the per_query gross, what x402 payments brought (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    withdrawn: str
    """Earnings the creator withdrew (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class AnalyticsCurrencyFiguresRuns(TypedDict):
    charged: str
    """What the runs were charged (per_query, x402 payments included) (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class AnalyticsCurrencyFigures(TypedDict):
    """The amounts of one currency's listings; amounts of different currencies are never added"""
    currency: AnalyticsCurrency
    rentals: AnalyticsCurrencyFiguresRentals
    revenue: AnalyticsCurrencyFiguresRevenue
    runs: AnalyticsCurrencyFiguresRuns

class AnalyticsPeriodLatency(TypedDict):
    count: int
    """Runs timed"""
    mean_ms: Optional[float]
    p50_ms: Optional[float]
    """Median duration, to the histogram bucket (its upper bound); null without any"""
    p95_ms: Optional[float]
    """95th percentile duration, to the histogram bucket; null without any"""

class AnalyticsPeriodRentalsPurchases(TypedDict):
    one_time: int
    """one_time rentals bought"""
    per_query: int
    """per_query rentals bought"""
    subscription: int
    """subscription rentals bought"""

class AnalyticsPeriodRentals(TypedDict):
    balance_change_wei: int
    """What the period added to renters' per_query balances: deposits − charges − refunds (negative when they shrank) (wei, an exact JSON integer; the ETH listings' only)"""
    charges: int
    """per_query charges landed on-chain"""
    deposits_wei: int
    """per_query deposits and top-ups (wei, an exact JSON integer; the ETH listings' only)"""
    lapsed: int
    """Subscriptions whose term ran out in the period without a renewal before it (periods that have ended; 0 otherwise)"""
    lapsing: int
    """Subscriptions whose term ends in the period unless renewed (periods not yet ended; 0 otherwise)"""
    purchases: AnalyticsPeriodRentalsPurchases
    refunds_wei: int
    """Unspent per_query balances withdrawn by renters (wei, an exact JSON integer; the ETH listings' only)"""
    renewals: int
    """Subscriptions renewed"""

class AnalyticsPeriodRenters(TypedDict):
    new: int
    """Rentals bought by a wallet renting the listing for the first time"""
    returning: int
    """Rentals bought by a wallet that rented the listing before"""

class AnalyticsPeriodReputation(TypedDict):
    mean_score: Optional[float]
    """Their mean score (0-100); null without any"""
    verified_feedback: int
    """Verified ERC-8004 feedback given in the period (a receipt of a completed run confirmed on-chain), revoked feedback taken out"""

class AnalyticsPeriodRuns(TypedDict):
    by_failure_code: dict[str, int]
    """Failed runs by failure code (invalid_input, invalid_output, output_too_large, timeout, crashed, out_of_memory, agent_error, agent_http_error, agent_invalid_response, agent_stream_cut, agent_unreachable, egress_refused, agent_not_configured, cancelled, settlement_refused, internal_error); codes with none are left out"""
    charged_wei: int
    """What the runs were charged (per_query) (wei, an exact JSON integer; the ETH listings' only)"""
    completed: int
    """Runs completed"""
    failed: int
    """Runs failed"""
    logged: int
    """Runs whose receipt is logged on-chain (the run log)"""

class AnalyticsPeriodTimeToFirstOutput(TypedDict):
    count: int
    """Streams that sent output"""
    mean_ms: Optional[float]
    p50_ms: Optional[float]
    """Median time from the run's admission to a stream's first output, to the histogram bucket (its upper bound); null without any"""
    p95_ms: Optional[float]
    """95th percentile time from the run's admission to a stream's first output, to the histogram bucket; null without any"""

class AnalyticsPeriod(TypedDict):
    by_currency: list[AnalyticsCurrencyFigures]
    """The period's amounts in each currency of the listings read, ETH first (ETH's equal the `_wei` figures)"""
    latency: AnalyticsPeriodLatency
    period: str
    """The hour (YYYY-MM-DDTHH), day (YYYY-MM-DD) or month (YYYY-MM), UTC; for totals, first/last"""
    rentals: AnalyticsPeriodRentals
    renters: AnalyticsPeriodRenters
    reputation: AnalyticsPeriodReputation
    revenue: AnalyticsRevenue
    runs: AnalyticsPeriodRuns
    time_to_first_output: AnalyticsPeriodTimeToFirstOutput
    x402_payments: int
    """x402 payments settled on-chain (runs paid from the payer's wallet), every currency"""

class AnalyticsRevenueByModelOneTime(TypedDict):
    fee_wei: int
    """The protocol fee taken from it (wei, an exact JSON integer; the ETH listings' only)"""
    gross_wei: int
    """Paid by renters (wei, an exact JSON integer; the ETH listings' only)"""
    net_wei: int
    """gross − fee: the creator's (wei, an exact JSON integer; the ETH listings' only)"""

class AnalyticsRevenueByModelPerQuery(TypedDict):
    fee_wei: int
    """The protocol fee taken from it (wei, an exact JSON integer; the ETH listings' only)"""
    gross_wei: int
    """Paid by renters (wei, an exact JSON integer; the ETH listings' only)"""
    net_wei: int
    """gross − fee: the creator's (wei, an exact JSON integer; the ETH listings' only)"""

class AnalyticsRevenueByModelSubscription(TypedDict):
    fee_wei: int
    """The protocol fee taken from it (wei, an exact JSON integer; the ETH listings' only)"""
    gross_wei: int
    """Paid by renters (wei, an exact JSON integer; the ETH listings' only)"""
    net_wei: int
    """gross − fee: the creator's (wei, an exact JSON integer; the ETH listings' only)"""

class AnalyticsRevenueByModel(TypedDict):
    one_time: AnalyticsRevenueByModelOneTime
    per_query: AnalyticsRevenueByModelPerQuery
    subscription: AnalyticsRevenueByModelSubscription

class AnalyticsRevenue(TypedDict):
    by_model: AnalyticsRevenueByModel
    fee_wei: int
    """The protocol fee (wei, an exact JSON integer; the ETH listings' only)"""
    gross_wei: int
    """Paid by renters, every model: purchases, renewals and per_query charges (wei, an exact JSON integer; the ETH listings' only)"""
    net_wei: int
    """The creator's share (wei, an exact JSON integer; the ETH listings' only)"""
    withdrawn_wei: int
    """Earnings the creator withdrew (wei, an exact JSON integer; the ETH listings' only)"""

class ApiKey(TypedDict):
    created_at: str
    key_id: str
    label: str
    last_used_at: Optional[str]
    """Refreshed at most once a minute"""
    prefix: str
    """The first characters of the key, to recognise it"""
    revoked: bool
    spend_limits: list[SpendLimit]
    """What the key may spend on per-task runs, per period, with this period's spending; [] when unlimited"""

class ApiKeyChallenge(TypedDict):
    expires_at: int
    label: str
    message: str
    nonce: str

class ApiKeyCreateRequired(TypedDict):
    nonce: str
    signature: str

class ApiKeyCreate(ApiKeyCreateRequired, total=False):
    spend_limits: list[SpendLimitInput]
    """At most one limit per currency and period; [] removes every limit"""

class ApiKeyList(TypedDict):
    keys: list[ApiKey]

class ApiKeyRequest(TypedDict):
    label: str

class ApiKeyUpdate(TypedDict):
    spend_limits: list[SpendLimitInput]
    """At most one limit per currency and period; [] removes every limit"""

class AuthChallenge(TypedDict):
    challenge: str
    """<service>:auth:<unix_timestamp>:<random_hex>; sign it with personal_sign (EIP-191)"""
    expires_at: int
    """Unix seconds; 60 s after issue"""

class AuthToken(TypedDict):
    expires_at: int
    """Unix seconds; one hour after issue"""
    token: str
    """A JWT; send it as Authorization: Bearer <token>"""

class AuthTokenRequest(TypedDict):
    challenge: str
    signature: str
    wallet: str

class ConnectedApp(TypedDict):
    app_id: str
    """The approval's id; DELETE /v1/oauth/apps/{app_id} revokes it"""
    approved_at: str
    client_id: str
    expires_at: str
    """When the approval lapses and the app must ask again"""
    kind: Literal["metadata_document", "registered"]
    last_used_at: Optional[str]
    """The last request made with one of its access tokens"""
    name: Optional[str]
    redirect_host: Optional[str]
    resources: list[str]
    scopes: list[OAuthScope]
    spend_limits: list[SpendLimit]
    """What the app may spend on per-task runs, per period, with this period's spending; [] when unlimited"""

class ConnectedAppUpdate(TypedDict):
    spend_limits: list[SpendLimitInput]
    """At most one limit per currency and period; [] removes every limit"""

class CreatorAgent(TypedDict):
    agent_id: str
    listing_id: str
    listing_seed: str
    metadata_uri: str
    review_reason: Optional[str]
    review_status: Literal["pending", "approved", "rejected"]

class CreatorAnalyticsBalancesOutstandingByCurrencyItem(TypedDict):
    amount: str
    """The amount (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    currency: AnalyticsCurrency

class CreatorAnalyticsListingsItem(TypedDict):
    currency: AnalyticsCurrency
    listing_id: str
    name: str
    rating: Optional[float]
    """Verified ERC-8004 rating (0-5); null before any"""
    review_count: int

class CreatorAnalyticsReconciliationByCurrencyItem(TypedDict):
    chain_escrow: Optional[str]
    """This currency's listings' escrow on-chain at `block` (the Marketplace's for ETH, the TokenMarketplace's for a token) (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    currency: AnalyticsCurrency
    matches: bool
    rollup_escrow: str
    """The same computed from the figures (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    vesting: Optional[str]
    """Of the escrow, subscription payments still vesting (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    withdrawable: Optional[str]
    """Of the escrow, what the creator may withdraw now (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""

class CreatorAnalyticsReconciliation(TypedDict):
    """The figures' money reconciled with the contract"""
    block: Optional[str]
    """The last block the figures count (decimal); null before the indexer's first round"""
    by_currency: list[CreatorAnalyticsReconciliationByCurrencyItem]
    """Each currency's reconciliation"""
    chain_escrow_wei: Optional[int]
    """The listings' escrow on-chain at that block (wei, an exact JSON integer; the ETH listings' only)"""
    matches: bool
    """The figures match the chain at `block` to the smallest unit, in every currency"""
    rollup_escrow_wei: int
    """The same computed from the figures: net revenue − withdrawn, all time (wei, an exact JSON integer; the ETH listings' only)"""
    vesting_wei: Optional[int]
    """Of the escrow, subscription payments still vesting (wei, an exact JSON integer; the ETH listings' only)"""
    withdrawable_wei: Optional[int]
    """Of the escrow, what the creator may withdraw now (wei, an exact JSON integer; the ETH listings' only)"""

class CreatorAnalyticsTopRentersItem(TypedDict):
    purchases: int
    """Rentals bought"""
    renewals: int
    """Renewals"""
    runs: int
    """Its runs, all time"""
    spend_wei: int
    """Everything it paid the listings (purchases, renewals, charges), all time (wei, an exact JSON integer; the ETH listings' only)"""
    wallet: str
    """The renter's wallet, lower-case: renters appear only as wallet addresses"""

class CreatorAnalyticsTopRentersByCurrencyItemRentersItem(TypedDict):
    purchases: int
    """Rentals bought"""
    renewals: int
    """Renewals"""
    runs: int
    """Its runs of these listings, all time"""
    spend: str
    """Everything it paid this currency's listings, all time (the currency's smallest unit, as a decimal string: exact in any JSON reader)"""
    wallet: str

class CreatorAnalyticsTopRentersByCurrencyItem(TypedDict):
    currency: AnalyticsCurrency
    renters: list[CreatorAnalyticsTopRentersByCurrencyItemRentersItem]

class CreatorAnalytics(TypedDict):
    balances_outstanding_by_currency: list[CreatorAnalyticsBalancesOutstandingByCurrencyItem]
    """The same, in each currency of the listings"""
    balances_outstanding_wei: int
    """What renters hold in per_query balances of the listings now: deposits − charges − refunds, all time (wei, an exact JSON integer; the ETH listings' only)"""
    currency: Literal["ETH"]
    """The currency of every `_wei` figure: the ETH listings'. Counts (runs, rentals, renters, latency) cover every listing; a token listing's amounts are in `by_currency`"""
    listings: list[CreatorAnalyticsListingsItem]
    reconciliation: CreatorAnalyticsReconciliation
    """The figures' money reconciled with the contract"""
    renter_count: int
    """Wallets that rented or ran the listings, all time: across listings a wallet renting several counts once"""
    series: list[AnalyticsPeriod]
    top_renters: list[CreatorAnalyticsTopRentersItem]
    """The ten renters who spent most on the ETH listings, all time (ties by wallet address)"""
    top_renters_by_currency: list[CreatorAnalyticsTopRentersByCurrencyItem]
    """For each currency of the listings, the ten renters who spent most on its listings, all time"""
    totals: AnalyticsPeriod

class CreatorApplication(TypedDict):
    display_name: str

class CreatorOverview(TypedDict):
    agents: list[CreatorAgent]
    profile: Any

class CreatorProfile(TypedDict):
    applied_at: str
    display_name: str
    reason: Optional[str]
    reviewed_at: Optional[str]
    status: Literal["pending", "approved", "rejected"]
    wallet: str

class CredentialRequired(TypedDict):
    currency: Currency
    expires_at: Optional[str]
    """ISO 8601 for subscriptions; null otherwise"""
    listing_id: str
    listing_title: str
    on_chain_listing_id: str
    purchased_at: str
    """ISO 8601"""
    rental_model: Literal["one_time", "subscription", "per_query"]
    status: Literal["active", "expired", "low_balance", "revoked", "listing_closed", "not_found"]

class Credential(CredentialRequired, total=False):
    balance_wei: str
    """A per_query credential's balance from the index, in the smallest unit of the listing's currency (wei for ETH, 10^-6 USDC for USDC); absent for the other models"""

class CredentialList(TypedDict):
    credentials: list[Credential]
    total: int

class CredentialVerificationRequired(TypedDict):
    listing_id: str
    on_chain_verified: bool
    status: Literal["active", "expired", "low_balance", "revoked", "listing_closed", "not_found"]
    valid: bool

class CredentialVerification(CredentialVerificationRequired, total=False):
    balance_wei: str
    """A per_query credential's balance as the contract holds it now, in the smallest unit of the listing's currency (wei for ETH, 10^-6 USDC for USDC); absent for the other models"""
    currency: Currency
    expired_at: str
    """ISO 8601; present when a subscription has expired"""
    on_chain_listing_id: str
    rental_model: Literal["one_time", "subscription", "per_query"]

class Currencies(TypedDict):
    chain_id: int
    currencies: list[AcceptedCurrency]
    """ETH first, then the tokens of the allowlist as the service is configured"""

class Currency(TypedDict):
    """The listing's currency: ETH (on the Marketplace) or a token of the allowlist (on the TokenMarketplace). See docs/design/currencies.md."""
    address: Optional[str]
    """The token's contract address; null for ETH"""
    decimals: int
    """Decimals of the currency's smallest unit: 18 for ETH (wei), 6 for USDC"""
    symbol: str
    """ETH, or the token's symbol (USDC)"""

class DoneEvent(TypedDict):
    """The last event: the Run, as POST /v1/execute answers it (completed or failed). With `settlement: "pending"` the output is null until the per-task charge lands (then GET /v1/runs/{run_id} returns it)."""
    data: Run
    event: Literal["done"]
    id: Literal["done"]

class Erc8004Registration(TypedDict):
    agent_id: Optional[str]
    """The agent id given, or null before registration"""
    agent_registry: str
    """`eip155:<chainId>:<identity registry>`"""
    agent_uri: str
    """ipfs://<cid> of the registration file"""
    listing_id: str
    registration_file: dict[str, Any]
    """The file's content"""
    transaction: UnsignedTransaction

class Erc8004RegistrationInput(TypedDict, total=False):
    agent_id: str
    """The agent's id once registered (decimal string), to point the agent at the complete file"""

class ErrorErrorOnChainError(TypedDict):
    """The contract's custom error behind a refusal, decoded from the revert"""
    contract: str
    error: str

class ErrorErrorSpendLimit(TypedDict):
    """With spend_limit_reached: the limit the run would have passed"""
    amount: str
    """The limit, wei"""
    currency: str
    id: str
    """The key_id or the app_id"""
    period: Literal["day", "month", "total"]
    remaining: str
    """What may still be spent in the period, wei"""
    reserved: str
    """Held by runs in flight, wei"""
    resets_at: Optional[str]
    """When the period ends (ISO 8601, UTC); null for a limit in total"""
    scope: Literal["key", "app"]
    """Whose limit: the API key's or the connected app's"""
    spent: str
    """Charged in the current period, wei"""

class ErrorErrorRequired(TypedDict):
    code: Literal["unauthorized", "invalid_api_key", "jwt_expired", "invalid_signature", "credential_not_found", "credential_expired", "insufficient_balance", "listing_paused", "invalid_request", "invalid_listing_id", "listing_not_found", "rate_limit_exceeded", "internal_error", "service_unavailable", "not_found", "forbidden", "creator_not_approved", "credential_revoked", "listing_closed", "price_not_agreed", "rating_not_allowed", "feedback_not_allowed", "feedback_exists", "receipt_pending", "agent_not_registered", "method_not_allowed", "idempotency_key_reused", "request_timeout", "payload_too_large", "unsupported_media_type", "headers_too_large", "invalid_token", "insufficient_scope", "request_not_found", "request_decided", "origin_not_allowed", "spend_limit_reached", "payment_required"]
    message: str
    request_id: str
    status: int

class ErrorError(ErrorErrorRequired, total=False):
    on_chain_error: ErrorErrorOnChainError
    """The contract's custom error behind a refusal, decoded from the revert"""
    spend_limit: ErrorErrorSpendLimit
    """With spend_limit_reached: the limit the run would have passed"""

class Error(TypedDict):
    """The envelope of every error answer. Each operation lists, per status, the codes it can return."""
    error: ErrorError

class ExecuteRequestRequired(TypedDict):
    agent_id: str
    """The agent id (<name>-<8 hex>), the listing id (lst_<64 hex>) or the on-chain id (0x<64 hex>) to run against. Malformed: 400 invalid_listing_id; unknown or unpublished: 404 listing_not_found."""
    task: str
    """Natural-language description of the work"""

class ExecuteRequest(ExecuteRequestRequired, total=False):
    """A task for a rented agent. Unknown fields are refused (400 invalid_request naming them), so a misspelt field never runs silently with a default."""
    input: Union[str, dict[str, Any]]
    """Free text or a JSON object, checked against the agent's input schema before the agent runs (a mismatch ends the run failed with invalid_input, and the agent is never called)"""
    input_uri: str
    """Instead of input (never both): ipfs://<CIDv1> of content uploaded with POST /v1/inputs, checked against its address when the run reads it. Content that is a JSON object reaches the agent as an object, anything else as text."""
    priority: Literal["standard", "priority"]
    """standard (default) or priority; recorded on the run"""
    timeout_seconds: int
    """Maximum run time: the run gets the lower of this and the agent's own timeout_seconds"""

class Feedback(TypedDict):
    agent_id: str
    """The agent it was given to (decimal): the listing's current agent or one it was linked to before. With client and feedback_index it names the feedback on-chain; the SDK's verifyReputation reads every agent listed here"""
    block_number: str
    client: str
    """The wallet that sent giveFeedback, lower-case"""
    endpoint: str
    feedback_hash: str
    feedback_index: str
    """The client's feedback index for the agent (from 1)"""
    feedback_uri: str
    reason: Optional[str]
    """Why it does not count: file_unavailable, file_too_large, hash_mismatch, file_malformed, file_of_another_feedback, receipt_of_another_wallet, receipt_of_another_listing, run_not_completed, receipt_not_on_chain, not_a_rating, value_out_of_range, run_already_rated, revoked, agent_not_the_listings; null when it counts"""
    receipt: Optional[dict[str, Any]]
    """A verified feedback's run receipt as its file carries it (marketplace, batchIndex, receipt fields, proof, root, leaf, txHash)"""
    revoked: bool
    run_id: Optional[str]
    tag1: str
    tag2: str
    text: Optional[str]
    tx_hash: str
    value: float
    """value / 10^value_decimals"""
    value_decimals: int
    verified: bool
    """Whether it counts toward the listing's rating"""

class FeedbackInputRequired(TypedDict):
    value: float
    """The score, 0 to 100, at most 2 decimals (sent on-chain as value and valueDecimals: 87.5 is 875 with 1 decimal)"""

class FeedbackInput(FeedbackInputRequired, total=False):
    tag1: str
    """1 to 64 characters; default "starred" (a rating: only ratings count toward the listing's rating)"""
    text: Optional[str]
    """A comment for the file: plain text, at most 1000 characters after trimming"""

class HealthAuthority(TypedDict):
    """The protocol authority's ETH balance (its gas), in wei"""
    balance_wei: str

class HealthChecks(TypedDict):
    chain: bool
    tables: bool

class HealthMetricsLatencyMs(TypedDict):
    chain_call: LatencyPercentiles
    request: LatencyPercentiles
    run_duration: LatencyPercentiles
    settlement_lag: LatencyPercentiles
    start_of_execution: LatencyPercentiles

class HealthMetricsRequests(TypedDict):
    by_status_class: dict[str, int]
    total: int

class HealthMetricsRuns(TypedDict):
    charged: int
    charged_wei: str
    """Exact sum of charges, in wei"""
    completed: int
    failed: int
    failed_by_reason: dict[str, int]
    settlements_deferred: int
    settlements_refused: int
    started: int

class HealthMetrics(TypedDict):
    """Counters and latency percentiles since `since` (docs/guides/operator.md)"""
    chain_call_errors: int
    latency_ms: HealthMetricsLatencyMs
    requests: HealthMetricsRequests
    runs: HealthMetricsRuns
    since: str
    """When this process started counting: the figures are this process's (one Lambda instance in the cloud)"""

class HealthQueues(TypedDict):
    """Messages in each queue, visible and in flight: the registration queue, its dead-letter queue, and the settlement queue (per-task charges the settler has not decided yet)"""
    registration: Optional[int]
    registration_dlq: Optional[int]
    settlement: Optional[int]

class HealthSandbox(TypedDict):
    busy: int
    idle: int
    starting: int

class HealthSettlementsAlarmsItem(TypedDict):
    message: str
    name: Literal["fee_ceiling", "settlement_stalled", "nonce_gap", "deep_reorg"]
    since: str

class HealthSettlements(TypedDict):
    alarms: Optional[list[HealthSettlementsAlarmsItem]]
    """The settler's alarms that are on (docs/guides/operator.md, "What to alarm on at 3 am"): fee_ceiling, settlement_stalled, nonce_gap, deep_reorg; null when they could not be read"""
    pending: Optional[int]

class Health(TypedDict):
    authority: Optional[HealthAuthority]
    """The protocol authority's ETH balance (its gas), in wei"""
    chain_id: int
    checks: HealthChecks
    marketplace: str
    metrics: HealthMetrics
    """Counters and latency percentiles since `since` (docs/guides/operator.md)"""
    queues: HealthQueues
    """Messages in each queue, visible and in flight: the registration queue, its dead-letter queue, and the settlement queue (per-task charges the settler has not decided yet)"""
    sandbox: Optional[HealthSandbox]
    settlements: HealthSettlements
    status: Literal["ok", "degraded"]

class InputStored(TypedDict):
    bytes: int
    input_uri: str

class InputUploadRequired(TypedDict):
    content: str

class InputUpload(InputUploadRequired, total=False):
    encoding: Literal["utf8", "base64"]

class JobErrorDetailsItem(TypedDict):
    code: str
    message: str
    pointer: str

class JobErrorRequired(TypedDict):
    code: str
    message: str

class JobError(JobErrorRequired, total=False):
    """On failed: every problem of the manifest with its JSON pointer"""
    details: list[JobErrorDetailsItem]

class JobResultRequired(TypedDict):
    agent_id: str
    listing_id: str
    listing_seed: str
    metadata_uri: str

class JobResult(JobResultRequired, total=False):
    """On completed. Create the listing on-chain with createListing(listing_seed, rental model, price, metadata_uri)."""
    market: Literal["token"]
    """Registered with market=token: create the listing on the TokenMarketplace."""

class JobRequired(TypedDict):
    job_id: str
    status: Literal["queued", "completed", "failed"]

class Job(JobRequired, total=False):
    error: JobError
    """On failed: every problem of the manifest with its JSON pointer"""
    result: JobResult
    """On completed. Create the listing on-chain with createListing(listing_seed, rental model, price, metadata_uri)."""

class JobQueued(TypedDict):
    job_id: str
    status: Literal["queued"]

class JsonWebKeySetKeysItem(TypedDict):
    alg: Literal["ES256"]
    crv: Literal["P-256"]
    kid: str
    kty: Literal["EC"]
    use: Literal["sig"]
    x: str
    y: str

class JsonWebKeySet(TypedDict):
    """RFC 7517 JSON Web Key Set: the public halves of the Agent Card signing keys, newest first"""
    keys: list[JsonWebKeySetKeysItem]

class LatencyPercentiles(TypedDict):
    """Milliseconds; null until something was observed"""
    count: int
    max: float
    p50: float
    p95: float
    p99: float

class ListingErc8004(TypedDict):
    """The listing's ERC-8004 agent: the latest its creator registered with a registration file of this listing and still owns. null until registered. Its tokenURI is the registration file (ipfs://<cid>, served at /v1/metadata/<cid>)."""
    agent_id: str
    """The agent's id in the Identity Registry (its ERC-721 token id), as a decimal string (uint256)"""
    agent_registry: str
    """The Identity Registry, `eip155:<chainId>:<address>`"""

ListingMetadata = dict[str, Any]

class ListingSearch(TypedDict):
    limit: int
    listings: list[ListingSummary]
    offset: int
    total: int

class ListingSummaryCreator(TypedDict):
    display_name: str
    id: str
    listing_count: int

class ListingSummary(TypedDict):
    category: list[str]
    creator: ListingSummaryCreator
    currency: Currency
    description: str
    id: str
    last_updated: str
    price_eth: float
    """The price in whole units of the listing's currency (`currency`): ETH for an ETH listing, as the specification says; for a token listing, whole tokens (0.25 for 0.25 USDC). Interpreted per rental model."""
    price_units: str
    """The price exactly, in the currency's smallest unit (wei for ETH), as a decimal string."""
    rating: float
    """Average of the verified on-chain feedback (ERC-8004 Reputation Registry), 0.0 to 5.0: a score of 0-100 counts as score/20. Only feedback carrying the on-chain receipt of a completed run of this listing by the same wallet counts, one per run (GET /v1/listings/{id}/reputation)."""
    rental_model: Literal["one_time", "subscription", "per_query"]
    review_count: int
    """How many verified on-chain feedbacks the rating averages."""
    run_count: int
    sample_output: list[str]
    success_rate: float
    title: str

class OAuthApproval(TypedDict, total=False):
    spend_limits: list[SpendLimitInput]
    """At most one limit per currency and period; [] removes every limit"""

class OAuthConsentRequestClient(TypedDict):
    client_id: str
    """The app's client id: an https URL for an app identified by its metadata document, an opaque id for a registered one"""
    client_uri: Optional[str]
    kind: Literal["metadata_document", "registered"]
    """metadata_document: the client id is the URL of its metadata document, fetched from the app's own host; registered: the app registered itself (RFC 7591), anyone can claim any name"""
    logo_uri: Optional[str]
    name: Optional[str]
    """The name the app gives itself (client_name); unverified"""
    redirect_host: str
    """Where the browser goes back to after the decision: the app's redirect host"""

class OAuthConsentRequestProposedSpendLimitsItem(TypedDict):
    amount: str
    currency: str
    period: Literal["day", "month", "total"]

class OAuthConsentRequestScopesItem(TypedDict):
    description: str
    scope: OAuthScope

class OAuthConsentRequest(TypedDict):
    """An app's sign-in request awaiting the person's decision"""
    client: OAuthConsentRequestClient
    expires_at: str
    """When the request expires (ISO 8601)"""
    proposed_spend_limits: list[OAuthConsentRequestProposedSpendLimitsItem]
    """The spending limit the app proposes for itself (its authorization parameter `spend_limit=<currency>:<wei>:<period>`); the person sets the limit on approval"""
    request_id: str
    resources: list[str]
    """The resources its tokens will open (the service's base URL opens the MCP endpoint, the A2A agents and the REST routes of its scopes)"""
    scopes: list[OAuthConsentRequestScopesItem]
    """What the app asks to do, in words"""

class OAuthDecision(TypedDict):
    redirect_to: str
    """Where to send the browser now: the authorization server, which sends it on to the app"""

OAuthScope = Literal["tasks:run", "credentials:read", "listings:read"]

class OutputEventData(TypedDict):
    delta: str
    """The next piece of the agent's output"""

class OutputEvent(TypedDict):
    """A piece of the run's output, sent as it is produced."""
    data: OutputEventData
    event: Literal["output"]
    id: str
    """The offset into the output after this delta (send it as Last-Event-ID to resume)"""

class ProtectedResourceMetadata(TypedDict):
    """OAuth 2.0 Protected Resource Metadata (RFC 9728)"""
    authorization_servers: list[str]
    """The issuer of the service's authorization server"""
    bearer_methods_supported: list[Literal["header"]]
    """Access tokens go in the Authorization header only"""
    resource: str
    """The resource's identifier: the RFC 8707 `resource` an app asks a token for"""
    resource_documentation: str
    resource_name: str
    scopes_supported: list[OAuthScope]

class ProviderKey(TypedDict):
    provider_key: str

class ProviderKeySet(TypedDict):
    listing_id: str
    provider_key_set: bool
    updated_at: str

class Rating(TypedDict):
    comment: Optional[str]
    created_at: str
    """ISO 8601, the wallet's first rating of the listing"""
    rating: int
    updated_at: str
    """ISO 8601, the latest change"""
    wallet: str
    """The renter's wallet, lower-case"""

class RatingInputRequired(TypedDict):
    rating: int

class RatingInput(RatingInputRequired, total=False):
    comment: Optional[str]
    """Plain text, at most 1000 characters after trimming; no control characters other than line breaks and tabs"""

class RatingList(TypedDict):
    listing_id: str
    next_cursor: Optional[str]
    rating: float
    ratings: list[Rating]
    review_count: int

class ReputationBeforeOnChain(TypedDict):
    """Off-chain ratings from before on-chain feedback, shown apart"""
    rating: float
    review_count: int

class ReputationErc8004(TypedDict):
    agent_id: str
    agent_registry: str

class Reputation(TypedDict):
    before_on_chain: ReputationBeforeOnChain
    """Off-chain ratings from before on-chain feedback, shown apart"""
    erc8004: Optional[ReputationErc8004]
    feedback: list[Feedback]
    listing_id: str
    next_cursor: Optional[str]
    rating: float
    review_count: int
    unverified_count: int

class ReviewDecisionRequired(TypedDict):
    decision: Literal["approve", "reject"]

class ReviewDecision(ReviewDecisionRequired, total=False):
    reason: str

class RevokedApp(TypedDict):
    app_id: str
    revoked_at: str
    """ISO 8601"""

class RunRequired(TypedDict):
    agent_id: str
    cost_wei: int
    """Wei deducted from the per-task balance (an exact JSON integer); 0 for one_time and subscription"""
    duration_ms: int
    run_id: str
    status: Literal["completed", "failed"]

class Run(RunRequired, total=False):
    error: RunFailure
    output: Any
    """Shaped by the agent's output schema; on failure, the partial output (a string)"""
    settlement: Literal["pending"]
    """Present when the run's per-task charge is not confirmed on-chain yet: output is null until it is; GET /v1/runs/{run_id} releases it once the charge lands. The run is not run or charged again."""

class RunDetailReceipt(TypedDict):
    """The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged"""
    batch_index: int
    leaf: str
    proof: list[str]
    root: str
    tx_hash: str

class RunDetailRequired(TypedDict):
    agent_id: str
    cost_wei: int
    created_at: str
    currency: Currency
    duration_ms: int
    finished_at: Optional[str]
    listing_id: str
    receipt: Optional[RunDetailReceipt]
    """The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged"""
    rental_model: Literal["one_time", "subscription", "per_query"]
    run_id: str
    settlement: Literal["none", "pending", "settled", "refused"]
    settlement_tx: Optional[str]
    status: Literal["running", "completed", "failed"]

class RunDetail(RunDetailRequired, total=False):
    error: RunFailure
    output: Any
    """null while running, and while a per-query charge is unconfirmed (settlement pending) or was refused"""

RunEvent = Union[OutputEvent, DoneEvent]

class RunFailure(TypedDict):
    """Why a failed run failed"""
    code: Literal["invalid_input", "invalid_output", "output_too_large", "timeout", "crashed", "out_of_memory", "agent_error", "agent_http_error", "agent_invalid_response", "agent_stream_cut", "agent_unreachable", "egress_refused", "agent_not_configured", "cancelled", "settlement_refused", "internal_error"]
    """Why the run failed; each code's meaning: docs/reference/runs.md (Why a run failed)"""
    message: str
    """For the renter: never a key, a signature or a connected agent's URL"""

class RunFeedback(TypedDict):
    agent_id: str
    """The listing's ERC-8004 agent id (decimal string)"""
    agent_registry: str
    feedback_file: dict[str, Any]
    """The file's content"""
    feedback_hash: str
    """keccak256 of the file's bytes"""
    feedback_uri: str
    """ipfs://<cid> of the feedback file"""
    listing_id: str
    run_id: str
    transaction: UnsignedTransaction

class RunList(TypedDict):
    listing_id: str
    next_cursor: Optional[str]
    runs: list[RunSummary]

class RunSummaryReceipt(TypedDict):
    """The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged"""
    batch_index: int
    leaf: str
    proof: list[str]
    root: str
    tx_hash: str

class RunSummaryRequired(TypedDict):
    agent_id: str
    cost_wei: int
    created_at: str
    currency: Currency
    duration_ms: int
    finished_at: Optional[str]
    listing_id: str
    receipt: Optional[RunSummaryReceipt]
    """The run's receipt in the on-chain run log (verify with the contract's verifyRunReceipt(batch_index, receipt fields, proof): it hashes the leaf from the run's fields itself, and leaf is that hash); null until logged"""
    rental_model: Literal["one_time", "subscription", "per_query"]
    run_id: str
    settlement: Literal["none", "pending", "settled", "refused"]
    settlement_tx: Optional[str]
    status: Literal["running", "completed", "failed"]

class RunSummary(RunSummaryRequired, total=False):
    """A run as listed: every field of RunDetail but its output (read it with GET /v1/runs/{run_id})"""
    error: RunFailure

class SpendLimit(TypedDict):
    """A spending limit with its current period's spending"""
    amount: str
    """The limit, in the currency's smallest unit (wei for ETH)"""
    currency: str
    """ETH, or the symbol of the token the limit counts"""
    period: Literal["day", "month", "total"]
    remaining: str
    """What may still be spent in the current period, in the currency's smallest unit: the limit less spent and reserved"""
    reserved: str
    """Held by runs in flight, in the currency's smallest unit (charged if they succeed, given back if not)"""
    resets_at: Optional[str]
    """When the period ends and spending counts from zero again (ISO 8601, UTC); null for a limit in total"""
    spent: str
    """Charged in the current period, in the currency's smallest unit"""

class SpendLimitInputRequired(TypedDict):
    amount: str
    """The most the key or app may spend per period, in the currency's smallest unit: wei for ETH, 10^-6 USDC for USDC (more than 0, at most 1,000,000 whole units: 10^24 wei)"""
    period: Literal["day", "month", "total"]
    """day: each calendar day, UTC; month: each calendar month, UTC; total: for the key's or app's whole life, never reset"""

class SpendLimitInput(SpendLimitInputRequired, total=False):
    """A spending limit: an amount per day, per month or in total, in one currency"""
    currency: str
    """The currency the limit counts: ETH, or a token listings are priced in, by its symbol (USDC) or address; stored as the symbol. A currency no listing is priced in is refused. A run counts against the limits in its listing's currency only"""

class UnsignedTransaction(TypedDict):
    """A transaction for the caller's wallet to sign and send (no value, no gas fields: the wallet fills those)"""
    data: str
    """The call data"""
    to: str
    """The registry to send it to"""

class WebhookSecret(TypedDict):
    created_at: str
    listing_id: str
    webhook_secret: str

class ApiKeyCreated(ApiKey):
    key: str
    """The API key; shown only here"""

class Listing(ListingSummary):
    erc8004: ListingErc8004
    metadata_uri: str
    on_chain_id: str
    published_at: str
    status: Literal["active", "paused", "closed"]

class RatingResultListing(TypedDict):
    rating: float
    review_count: int

class RatingResult(Rating):
    listing: RatingResultListing
    listing_id: str
