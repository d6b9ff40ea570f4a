// Configuration, parsed once at start from the environment with zod. A missing or malformed setting
// stops the start with a message naming it. The same schema serves the local stack and the cloud.
import { isIP } from "node:net";
import { isNetworkName, NETWORK_NAMES, NETWORKS, networkOfChainId, type NetworkProfile } from "@agent-rental/core/networks";
import { z } from "zod";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");
const url = z.string().url("must be a URL");
/** A token listings may be priced in (TOKENS): the shared core's TokenInfo, and whether it implements
 * EIP-3009 (then its per-task listings are payable by x402). */
const tokenListSchema = z.array(
  z.object({
    address,
    symbol: z.string().regex(/^[A-Za-z0-9.$-]{1,16}$/),
    /** The EIP-712 domain name and version (the token's name(); USDC: "USD Coin", "2"). */
    name: z.string().min(1).max(100),
    version: z.string().min(1).max(20),
    decimals: z.number().int().min(0).max(36),
    eip3009: z.boolean().default(false),
  }),
);
const port = z.coerce.number().int().min(1).max(65_535);

/** An IP address, or a CIDR range whose prefix fits its family. */
function isAddressOrRange(entry: string): boolean {
  const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry);
  const version = match ? isIP(match[1]!) : 0;
  if (!match || version === 0) return false;
  return match[2] === undefined || Number(match[2]) <= (version === 4 ? 32 : 128);
}

/** Signing keys, newest first: a JSON array of {kid, privateJwk} (EC P-256). */
const signingKeys = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON array of {kid, privateJwk}" });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(z.object({ kid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), privateJwk: z.object({ kty: z.literal("EC"), crv: z.literal("P-256"), x: z.string(), y: z.string(), d: z.string() }) }))
      .min(1, "must hold at least one key"),
  );

/** Chains the beta may run on; the key prefix follows the network (svc_test_ or svc_live_). */
export const TEST_NETWORK_CHAIN_IDS = new Set([31337, 84532, 11155111]);

export const configSchema = z
  .object({
    STAGE: z.enum(["local", "cloud"]).default("local"),
    SERVICE_NAME: z.string().regex(/^[a-z][a-z0-9-]{1,30}$/, "must be a short lowercase word").default("agents"),
    AWS_REGION: z.string().min(1).default("us-east-1"),
    TABLE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]*$/, "may hold only letters, digits, '_', '.', '-'").default("local-"),
    DYNAMODB_ENDPOINT: url.optional(),
    AWS_ENDPOINT: url.optional(),
    REGISTRATION_QUEUE_URL: url,
    REGISTRATION_DLQ_URL: url,
    /** The settlement queue: every process hands its per-query charges to the settler through it. */
    SETTLEMENT_QUEUE_URL: url,
    BLOB_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be an S3 bucket name"),
    RPC_URL: url,
    CHAIN_ID: z.coerce.number().int().positive(),
    /** The network profile (packages/core/src/networks.ts): its finality depth and fee ceiling. Default:
     * the profile whose chain id is CHAIN_ID; a chain id of none of them needs it named. */
    NETWORK: z.string().refine(isNetworkName, `must be one of ${NETWORK_NAMES.join(", ")}`).optional(),
    /** Blocks on top of a block before what it holds counts as final. Default: the network's. */
    FINALITY_DEPTH: z.coerce.number().int().min(0).max(1_000).optional(),
    /** The most the settler offers per gas, in wei. Default: the network's. */
    MAX_FEE_PER_GAS_WEI: z.coerce.bigint().positive().optional(),
    /** The most one batch may spend on gas, in basis points of the charges it carries. Default: the network's. */
    MAX_GAS_SHARE_BPS: z.coerce.number().int().min(1).max(1_000_000).optional(),
    MARKETPLACE_ADDRESS: address,
    /** The block the marketplace was deployed in: where the chain indexer starts. */
    MARKETPLACE_DEPLOY_BLOCK: z.coerce.bigint().nonnegative().default(0n),
    /** The TokenMarketplace: listings priced in an ERC-20 token of the allowlist, and x402 settlement
     * (docs/design/currencies.md). Without it the service knows ETH listings only. */
    TOKEN_MARKETPLACE_ADDRESS: address.optional(),
    /** The block the token marketplace was deployed in. */
    TOKEN_MARKETPLACE_DEPLOY_BLOCK: z.coerce.bigint().nonnegative().default(0n),
    /** The tokens listings may be priced in: a JSON array of {address, symbol, name, version, decimals,
     * eip3009?} (`name` and `version`: its EIP-712 domain). A token with `eip3009: true` implements
     * EIP-3009, so its per-task listings are payable by x402. */
    TOKENS: z
      .string()
      .default("[]")
      .transform((text, ctx) => {
        try {
          return tokenListSchema.parse(JSON.parse(text));
        } catch (error) {
          ctx.addIssue({ code: "custom", message: `must be a JSON array of {address, symbol, name, version, decimals, eip3009?} (${error instanceof Error ? error.message.slice(0, 200) : String(error)})` });
          return z.NEVER;
        }
      }),
    /** ERC-8004's Identity and Reputation registries (both or neither): locally the stack's own
     * deployments; on a real network the canonical deployments' addresses. Without them the service
     * registers no agents and reads no feedback (listings' erc8004 is null, their rating 0). */
    IDENTITY_REGISTRY_ADDRESS: address.optional(),
    REPUTATION_REGISTRY_ADDRESS: address.optional(),
    /** The block from which the indexer follows the registries' events (their deployment, or any
     * block before the service's first registration). */
    ERC8004_DEPLOY_BLOCK: z.coerce.bigint().nonnegative().default(0n),
    /** Blocks on top of a block before the indexer reads it: how soon a purchase shows in the index, not
     * what keeps it right (a block is final at FINALITY_DEPTH). Default: 3, or the finality depth when
     * that is less (0 on the local chain). */
    INDEXER_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).optional(),
    /** Largest request body accepted, in bytes. */
    MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(6 * 1024 * 1024).default(1024 * 1024),
    /** JWT signing keys, newest first: a JSON array of {kid, privateJwk} (EC P-256). A secret. */
    JWT_SIGNING_KEYS: signingKeys,
    /** Agent Card signing keys, newest first: a JSON array of {kid, privateJwk} (EC P-256), apart from the
     * JWT keys. The first signs every A2A Agent Card; all are published at /.well-known/jwks.json. A
     * secret. Without it (local tools, benchmarks) cards are served unsigned; required in the cloud. */
    CARD_SIGNING_KEYS: signingKeys.optional(),
    /** The OAuth authorization server's keys, newest first: a JSON array of {kid, privateJwk} (EC P-256),
     * apart from the JWT and card keys. They key its cookies (HMAC keys derived from them) and are its
     * published key set. A secret. Without it (local tools, tests) keys are derived from the JWT keys
     * under another label; required in the cloud. */
    OAUTH_SIGNING_KEYS: signingKeys.optional(),
    /** The API's public base URL (the cloud's API Gateway stage URL; the local stack's own address), used
     * where the API names itself: the OAuth issuer and resources, an Agent Card's interface and key set.
     * Default: http://127.0.0.1:PORT. Never a request's Host header. */
    API_URL: url.optional(),
    /** The KMS key that wraps data keys (cloud). */
    KMS_KEY_ID: z.string().min(1).optional(),
    /** The local master key that wraps data keys (base64, 32 bytes; local stack only). A secret. */
    LOCAL_MASTER_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "must be 32 bytes in base64").optional(),
    /** Lets agents registered locally call private addresses (a development model server). Never in the cloud. */
    ALLOW_PRIVATE_AGENT_HOSTS: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
    /** How stale the in-memory search index may get before a search rebuilds it, in milliseconds. */
    CATALOGUE_REFRESH_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
    /** Upstash Redis (REST) for rate limits; without it the process limits in memory (local stack). */
    UPSTASH_REDIS_REST_URL: url.optional(),
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
    /** The protocol authority's private key: the settler's, the one process that sends with it (the
     * batched per-query charges and the run log's batches). A secret; the settler refuses to start
     * without it, and no other process needs it. */
    AUTHORITY_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key").optional(),
    /** Milliseconds between the chain's blocks: 2000 on Base and OP chains, 12000 on Ethereum's test
     * network, 0 for a node that mines a block per transaction at once (the local chain's automine).
     * The settler times its batches by it (docs/design/settlement.md). */
    CHAIN_BLOCK_TIME_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** How long a request waits for its run's charge to land in a block before it answers with the
     * result withheld (`settlement: "pending"`), in milliseconds. */
    SETTLEMENT_WAIT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** The settler's lease on the authority's nonces: a settler that stops renewing it (it died) is
     * replaced this long after its last renewal, in milliseconds. */
    SETTLER_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
    /** The least time before the chain's next block the settler sends its batch, in milliseconds: time for
     * the transaction to reach the node (the settler takes more when its recent sends took longer).
     * Charges that arrive later wait for the block after. */
    SETTLER_LEAD_MS: z.coerce.number().int().min(0).max(10_000).default(150),
    /** The most charges one batch transaction carries. */
    SETTLER_MAX_BATCH: z.coerce.number().int().min(1).max(2_000).default(1_000),
    /** Base URL of provider_a's OpenAI-compatible chat-completions API. */
    PROVIDER_A_BASE_URL: url.default("https://api.openai.com/v1"),
    /** Base URL of provider_b's Anthropic-messages API. */
    PROVIDER_B_BASE_URL: url.default("https://api.anthropic.com/v1"),
    /** The web search provider of the web_search tool (Brave Search API or a SearXNG instance); without
     * it, agents with web_search fail their runs with a clear reason. SEARCH_API_KEY is a secret. */
    SEARCH_API_KIND: z.enum(["brave", "searxng"]).default("brave"),
    SEARCH_API_URL: url.optional(),
    SEARCH_API_KEY: z.string().min(1).optional(),
    /** The runner function (name or ARN) that runs each task in a fresh microVM (cloud sandbox). Without
     * it, runs execute in local sandbox processes. */
    RUNNER_FUNCTION_NAME: z
      .string()
      .regex(/^(arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:)?[A-Za-z0-9_-]{1,140}(:[A-Za-z0-9$_-]{1,128})?$/, "must be a Lambda function name or ARN")
      .optional(),
    /** Idle pre-started sandboxes kept ready for runs (local sandbox). */
    SANDBOX_WARM: z.coerce.number().int().min(0).max(64).default(2),
    /** How often pending run receipts are logged on-chain as one Merkle batch, in milliseconds. */
    RUN_LOG_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    PORT: port.default(8787),
    /** The Node HTTP server's bounds against slow clients (local stack and standalone API; API Gateway
     * has its own in the cloud): the headers, and the whole request (headers and body), must arrive
     * within these; an idle kept-alive connection is closed after the last. Responses are not bounded. */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    /** Proxies whose X-Forwarded-For names the client (addresses or CIDR ranges, comma-separated). By
     * default none: the Node server keys rate limits by the socket's address. */
    TRUSTED_PROXIES: z
      .string()
      .default("")
      .transform((text) => text.split(",").map((entry) => entry.trim()).filter(Boolean))
      .pipe(z.array(z.string().refine(isAddressOrRange, "must list IP addresses or CIDR ranges (a.b.c.d/0-32, IPv6/0-128), comma-separated"))),
    /** Browser origins allowed to call the API (CORS) besides the dashboard's: a comma-separated list
     * of origins, or `*` for any. Default: any origin locally; in the cloud none but the dashboard's. */
    CORS_ORIGINS: z
      .string()
      .transform((text) => text.split(",").map((o) => o.trim()).filter(Boolean))
      .pipe(z.array(z.union([z.literal("*"), z.string().regex(/^https?:\/\/[^/\s]+$/, "must list origins (scheme://host[:port], no path) or *")])))
      .optional(),
    /** How often the remote MCP endpoint tells a client that asked for progress that a silent run is still
     * working (a progress notification), in milliseconds. */
    MCP_PROGRESS_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** The first wait before an alert's delivery is tried again, in milliseconds; each later wait is four
     * times the one before, up to 6 hours (src/alerts/deliver.ts). */
    ALERT_RETRY_BASE_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
    /** Browser origins allowed to send requests to the remote MCP endpoint besides the API's own and the
     * dashboard's (Streamable HTTP's Origin check against DNS rebinding): a comma-separated list of
     * origins. Requests without an Origin (not from a browser) are not concerned. Default: none. */
    MCP_ALLOWED_ORIGINS: z
      .string()
      .default("")
      .transform((text) => text.split(",").map((o) => o.trim()).filter(Boolean))
      .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, "must list origins (scheme://host[:port], no path), comma-separated"))),
    /** Where the dashboard is served when it is not on the API's own origin (the cloud's static site,
     * given by stacks/api.ts): its origin is always allowed (CORS). */
    DASHBOARD_URL: url.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.TOKENS.length > 0 && !value.TOKEN_MARKETPLACE_ADDRESS) {
      ctx.addIssue({ code: "custom", path: ["TOKEN_MARKETPLACE_ADDRESS"], message: "is required with TOKENS (the tokens are those the token marketplace takes)" });
    }
    if (value.STAGE === "local" && !value.DYNAMODB_ENDPOINT) {
      ctx.addIssue({ code: "custom", path: ["DYNAMODB_ENDPOINT"], message: "is required when STAGE=local" });
    }
    if (value.STAGE === "cloud" && !value.UPSTASH_REDIS_REST_URL) {
      ctx.addIssue({ code: "custom", path: ["UPSTASH_REDIS_REST_URL"], message: "is required when STAGE=cloud (rate limits are shared by every instance)" });
    }
    if (value.UPSTASH_REDIS_REST_URL && !value.UPSTASH_REDIS_REST_TOKEN) {
      ctx.addIssue({ code: "custom", path: ["UPSTASH_REDIS_REST_TOKEN"], message: "is required with UPSTASH_REDIS_REST_URL" });
    }
    if (!value.KMS_KEY_ID && !value.LOCAL_MASTER_KEY) {
      ctx.addIssue({ code: "custom", path: [value.STAGE === "cloud" ? "KMS_KEY_ID" : "LOCAL_MASTER_KEY"], message: "is required (the master key that wraps data keys)" });
    }
    if (value.STAGE === "cloud" && value.ALLOW_PRIVATE_AGENT_HOSTS) {
      ctx.addIssue({ code: "custom", path: ["ALLOW_PRIVATE_AGENT_HOSTS"], message: "must be false when STAGE=cloud" });
    }
    if (value.STAGE === "cloud" && !value.CARD_SIGNING_KEYS) {
      ctx.addIssue({ code: "custom", path: ["CARD_SIGNING_KEYS"], message: "is required when STAGE=cloud (A2A Agent Cards are signed)" });
    }
    if (value.STAGE === "cloud" && !value.OAUTH_SIGNING_KEYS) {
      ctx.addIssue({ code: "custom", path: ["OAUTH_SIGNING_KEYS"], message: "is required when STAGE=cloud (the OAuth authorization server's keys)" });
    }
    if (value.STAGE === "cloud" && !value.RUNNER_FUNCTION_NAME) {
      ctx.addIssue({ code: "custom", path: ["RUNNER_FUNCTION_NAME"], message: "is required when STAGE=cloud (each run executes in the runner function)" });
    }
    if (Boolean(value.IDENTITY_REGISTRY_ADDRESS) !== Boolean(value.REPUTATION_REGISTRY_ADDRESS)) {
      ctx.addIssue({ code: "custom", path: [value.IDENTITY_REGISTRY_ADDRESS ? "REPUTATION_REGISTRY_ADDRESS" : "IDENTITY_REGISTRY_ADDRESS"], message: "is required with the other ERC-8004 registry's address (both or neither)" });
    }
    if (value.HTTP_HEADERS_TIMEOUT_MS > value.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: "custom", path: ["HTTP_HEADERS_TIMEOUT_MS"], message: "must not exceed HTTP_REQUEST_TIMEOUT_MS" });
    }
    const profile = value.NETWORK ? NETWORKS[value.NETWORK as keyof typeof NETWORKS] : networkOfChainId(value.CHAIN_ID);
    if (!profile) {
      ctx.addIssue({ code: "custom", path: ["NETWORK"], message: `is required for chain ${value.CHAIN_ID}, which is none of ${NETWORK_NAMES.join(", ")}` });
    } else if (profile.chainId !== value.CHAIN_ID && profile.name !== "local") {
      ctx.addIssue({ code: "custom", path: ["NETWORK"], message: `${profile.name} is chain ${profile.chainId}, not CHAIN_ID ${value.CHAIN_ID}` });
    }
    if (value.STAGE === "local" && !value.AWS_ENDPOINT) {
      ctx.addIssue({ code: "custom", path: ["AWS_ENDPOINT"], message: "is required when STAGE=local" });
    }
  });

export type Config = Omit<z.infer<typeof configSchema>, "INDEXER_CONFIRMATIONS"> & {
  /** INDEXER_CONFIRMATIONS, its default resolved from the network's finality depth. */
  INDEXER_CONFIRMATIONS: number;
  /** API key prefix for the configured chain. */
  keyPrefix: "svc_test_" | "svc_live_";
  /** The browser origins CORS allows (`*` for any), defaults resolved. */
  corsOrigins: string[];
  /** The network's profile, with FINALITY_DEPTH, MAX_FEE_PER_GAS_WEI and MAX_GAS_SHARE_BPS applied. */
  network: NetworkProfile;
};

/** CORS_ORIGINS (else any origin locally, none in the cloud), plus the dashboard's origin: an operator
 * who lets a third-party app in does not lock the dashboard out by not listing it. */
function corsOriginsOf(data: z.infer<typeof configSchema>): string[] {
  const listed = data.CORS_ORIGINS ?? (data.STAGE === "local" ? ["*"] : []);
  const dashboard = data.DASHBOARD_URL ? new URL(data.DASHBOARD_URL).origin : null;
  return dashboard && !listed.includes(dashboard) ? [...listed, dashboard] : listed;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Parses the environment. Throws a ConfigError that names every missing or malformed setting. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = issue.path.join(".") || "(environment)";
        const missing = issue.code === "invalid_type" && env[name] === undefined;
        return missing ? `${name} is missing` : `${name} ${issue.message}`;
      }),
    );
  }
  const network = networkOf(parsed.data);
  return {
    ...parsed.data,
    INDEXER_CONFIRMATIONS: parsed.data.INDEXER_CONFIRMATIONS ?? Math.min(3, network.finalityDepth),
    keyPrefix: TEST_NETWORK_CHAIN_IDS.has(parsed.data.CHAIN_ID) ? "svc_test_" : "svc_live_",
    corsOrigins: corsOriginsOf(parsed.data),
    network,
  };
}

/** The network's profile (named, or by chain id) with the settings that override it. */
function networkOf(data: z.infer<typeof configSchema>): NetworkProfile {
  const profile = data.NETWORK ? NETWORKS[data.NETWORK as keyof typeof NETWORKS] : networkOfChainId(data.CHAIN_ID)!;
  return {
    ...profile,
    chainId: data.CHAIN_ID,
    finalityDepth: data.FINALITY_DEPTH ?? profile.finalityDepth,
    maxFeePerGasWei: data.MAX_FEE_PER_GAS_WEI ?? profile.maxFeePerGasWei,
    maxGasShareBps: data.MAX_GAS_SHARE_BPS ?? profile.maxGasShareBps,
  };
}
