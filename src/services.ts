// Wires the ports to their adapters from the configuration: the one place that decides what the
// outside world is for this process. Routes, jobs and entry points hold `Services`; each area's code
// takes the narrow type its src/<area>/services.ts names.
import type { Address } from "viem";
import type { Ports } from "./ports.ts";
import type { Config } from "./config.ts";
import { createTables } from "./adapters/tables/dynamo.ts";
import { createQueue } from "./adapters/queue/sqs.ts";
import { createBlobs } from "./adapters/blobs/s3.ts";
import { createChainClient } from "./chain/client.ts";
import { createAuthenticator } from "./auth/authenticator.ts";
import { createLogger } from "./logger.ts";
import { createJwtIssuer } from "./auth/jwt.ts";
import { createUpstashRateLimiter } from "./adapters/ratelimit/upstash.ts";
import { createMemoryRateLimiter } from "./adapters/ratelimit/memory.ts";
import { createCatalogue, type Catalogue } from "./listings/catalogue.ts";
import { createKmsKeyWrapper } from "./adapters/keys/kms.ts";
import { createLocalKeyWrapper } from "./adapters/keys/local.ts";
import { createAuthoritySigner } from "./chain/authority.ts";
import { createEgressGuard } from "./adapters/egress/guard.ts";
import type { SandboxPool } from "./adapters/sandbox/port.ts";
import { createThreadedSandboxPool } from "./adapters/sandbox/threaded.ts";
import { createLambdaSandboxPool } from "./adapters/sandbox/lambda.ts";
import { RUNTIME_DIR, RUNTIME_ENTRY } from "./runtime/location.ts";
import { SANDBOX_MEMORY_MB } from "./execution/limits.ts";
import { createMemoryMetrics } from "./adapters/metrics/memory.ts";
import { createEmfMetrics } from "./adapters/metrics/emf.ts";
import { observedFetch } from "./observability/chain-calls.ts";
import { CHARGE_REF_BLOCK, createChargeRefs, type ChargeRefs } from "./execution/money/charge-refs.ts";
import { claimChargeRefBlock } from "./execution/money/charge-refs.store.ts";
import { createSettlementWatcher, type SettlementWatcher } from "./execution/money/settlement-watcher.ts";
import { createCardSigner, type CardSigner } from "./a2a/signing.ts";
import { limitCurrencies } from "./execution/money/spend-limits.ts";
import { createOAuthServer, type OAuthServer } from "./oauth/server.ts";
import { CLIENT_METADATA_MAX_BYTES, CLIENT_METADATA_TIMEOUT_MS } from "./oauth/provider.ts";

/** Every port (src/ports.ts) and the process-wide parts built over them. The wiring's own type: the
 * routes, the jobs and the entry points hold it; an area's code takes its own narrow type, which this
 * satisfies. */
export interface Services extends Ports {
  /** Signs A2A Agent Cards (CARD_SIGNING_KEYS); null when no key is configured (cards go unsigned). */
  cardSigner: CardSigner | null;
  catalogue: Catalogue;
  /** This process's dense charge references for per-query runs (blocks of 256 from one counter). */
  chargeRefs: ChargeRefs;
  /** How this process's requests learn that their runs' charges landed (it follows blocks only while
   * some wait). */
  settlementWatcher: SettlementWatcher;
  /** The OAuth 2.1 authorization server (sign-in of apps that connect by URL; src/oauth/). */
  oauth: OAuthServer;
  /** Stops what the services started (the sandbox pool, when one was started). */
  close(): Promise<void>;
}

export function createServices(config: Config, overrides: Partial<Services> = {}): Services {
  const tables = overrides.tables ?? createTables({ region: config.AWS_REGION, prefix: config.TABLE_PREFIX, ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT } : {}) });
  const jwt = overrides.jwt ?? createJwtIssuer({ keys: config.JWT_SIGNING_KEYS, issuer: config.SERVICE_NAME, audience: `${config.SERVICE_NAME}-api` });
  // Cloud log lines carry Powertools' keys (src/logger.ts); cloud metrics are EMF on stdout.
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, undefined, config.STAGE === "cloud" ? { format: "lambda", service: config.SERVICE_NAME } : {});
  const metrics = overrides.metrics ?? (config.STAGE === "cloud" ? createEmfMetrics({ namespace: config.SERVICE_NAME, serviceName: config.SERVICE_NAME, aggregate: createMemoryMetrics(), logger }) : createMemoryMetrics());
  const chainFetch = observedFetch(metrics);
  const chain = overrides.chain ?? createChainClient({
      rpcUrl: config.RPC_URL,
      chainId: config.CHAIN_ID,
      marketplace: config.MARKETPLACE_ADDRESS as Address,
      ...(config.IDENTITY_REGISTRY_ADDRESS && config.REPUTATION_REGISTRY_ADDRESS
        ? { erc8004: { identityRegistry: config.IDENTITY_REGISTRY_ADDRESS as Address, reputationRegistry: config.REPUTATION_REGISTRY_ADDRESS as Address } }
        : {}),
      ...(config.TOKEN_MARKETPLACE_ADDRESS ? { tokenMarketplace: config.TOKEN_MARKETPLACE_ADDRESS as Address } : {}),
      tokens: config.TOKENS.map((token) => ({ ...token, address: token.address as Address })),
      fetchFn: chainFetch,
    });
  const egressRules = { allowPrivate: config.ALLOW_PRIVATE_AGENT_HOSTS, allowHosts: [] as string[] };
  let pool: SandboxPool | undefined = overrides.sandbox?.();
  const settlementWatcher = overrides.settlementWatcher ?? createSettlementWatcher(chain, { blockTimeMs: config.CHAIN_BLOCK_TIME_MS, logger });
  const clientMetadataEgress = overrides.clientMetadataEgress ?? createEgressGuard({ ...egressRules, timeoutMs: CLIENT_METADATA_TIMEOUT_MS, maxResponseBytes: CLIENT_METADATA_MAX_BYTES });
  const oauth =
    overrides.oauth ??
    createOAuthServer({ tables, keys: config.OAUTH_SIGNING_KEYS ?? config.JWT_SIGNING_KEYS, egress: clientMetadataEgress, dashboardUrl: config.DASHBOARD_URL, limitCurrencies: limitCurrencies(chain.tokens), onServerError: (cause) => logger.error("oauth server error", { cause }) });
  return {
    config,
    egressRules,
    oauth,
    clientMetadataEgress,
    egress: overrides.egress ?? createEgressGuard(egressRules),
    runtimeEntry: overrides.runtimeEntry ?? RUNTIME_ENTRY,
    close: async () => {
      settlementWatcher.close();
      await pool?.close();
      pool = undefined;
    },
    settlementWatcher,
    sandbox: () => (pool ??= config.RUNNER_FUNCTION_NAME ? createLambdaSandboxPool({ functionName: config.RUNNER_FUNCTION_NAME, region: config.AWS_REGION }) : createThreadedSandboxPool({ warm: config.SANDBOX_WARM, maxWarm: Math.max(config.SANDBOX_WARM, 8), allowFsRead: [RUNTIME_DIR], preload: RUNTIME_ENTRY, memoryMb: SANDBOX_MEMORY_MB })),
    jwt,
    logger,
    metrics,
    sandboxStats: () => pool?.stats() ?? null,
    tables,
    queue: overrides.queue ?? createQueue({ region: config.AWS_REGION, ...(config.AWS_ENDPOINT ? { endpoint: config.AWS_ENDPOINT } : {}) }),
    blobs: overrides.blobs ?? createBlobs({ region: config.AWS_REGION, bucket: config.BLOB_BUCKET, ...(config.AWS_ENDPOINT ? { endpoint: config.AWS_ENDPOINT } : {}) }),
    chain,
    authority: overrides.authority !== undefined ? overrides.authority : config.AUTHORITY_PRIVATE_KEY ? createAuthoritySigner(chain, config.RPC_URL, config.AUTHORITY_PRIVATE_KEY as `0x${string}`, { fetchFn: chainFetch }) : null,
    authenticator: overrides.authenticator ?? createAuthenticator({ tables, jwt, keyPrefix: config.keyPrefix, oauth }),
    rateLimiter:
      overrides.rateLimiter ??
      (config.UPSTASH_REDIS_REST_URL
        ? createUpstashRateLimiter({ url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN!, prefix: `${config.SERVICE_NAME}:rl` })
        : createMemoryRateLimiter()),
    catalogue: overrides.catalogue ?? createCatalogue(tables, { refreshMs: config.CATALOGUE_REFRESH_MS }),
    chargeRefs: overrides.chargeRefs ?? createChargeRefs(() => claimChargeRefBlock(tables, CHARGE_REF_BLOCK)),
    cardSigner: overrides.cardSigner !== undefined ? overrides.cardSigner : config.CARD_SIGNING_KEYS ? createCardSigner(config.CARD_SIGNING_KEYS) : null,
    keys:
      overrides.keys ??
      (config.KMS_KEY_ID ? createKmsKeyWrapper({ keyId: config.KMS_KEY_ID, region: config.AWS_REGION }) : createLocalKeyWrapper(config.LOCAL_MASTER_KEY!)),
  };
}
