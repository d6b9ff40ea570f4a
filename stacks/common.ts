// Constants of the cloud app and the props every application function shares.
// Each stack file declares one concern; this one holds what they have in common.
import type { TableName } from "../src/adapters/tables/schema.ts";

/** Base Sepolia. The whole beta runs on this test network; mainnet comes at general availability. */
export const CHAIN_ID = 84532;
/** Base Sepolia mines a block every 2 s: the settler sends one batch of charges per block, timed by it. */
export const CHAIN_BLOCK_TIME_MS = 2_000;
/** The settler logs finished runs on-chain once a minute in the cloud (a Merkle batch per minute). */
export const RUN_LOG_INTERVAL_MS = 60_000;

/**
 * The marketplace contract per stage. `MARKETPLACE_ADDRESS` in the environment of `sst deploy`
 * wins over this table, so a fresh deployment of the contract needs no code change.
 */
export const MARKETPLACE_ADDRESSES: Readonly<Record<string, string>> = {};

/**
 * ERC-8004's canonical registries on Base Sepolia (erc-8004/erc-8004-contracts' deployments): the
 * cloud registers agents and reads feedback there instead of deploying its own. `IDENTITY_REGISTRY_ADDRESS`
 * and `REPUTATION_REGISTRY_ADDRESS` in the environment of `sst deploy` win (another network's
 * deployments); `ERC8004_DEPLOY_BLOCK` says where the indexer starts (default: the block of the
 * service's first deployment, set once).
 */
export const ERC8004_REGISTRIES = {
  identity: "0x8004A818BFB912233c491871b3d84c89A494BD9e",
  reputation: "0x8004B663056A597Dffe9eCcC1965A193B7388713",
} as const;

/** The `STAGE` the application code reads to pick its cloud adapters (the local stack uses "local"). */
export const APP_STAGE = "cloud";

export const RUNTIME = "nodejs22.x";
export const ARCHITECTURE = "arm64";

/** The longest a task run may take (the spec's run timeout). */
export const RUN_TIMEOUT_SECONDS = 300;
/** The runner gets a margin over the run timeout to tear the run down and report a clean failure. */
export const RUNNER_TIMEOUT_SECONDS = RUN_TIMEOUT_SECONDS + 30;
/**
 * Functions that wait on the runner get another margin, so a run that outlives the caller's
 * connection is still settled and recorded (a retry with the same Idempotency-Key then finds it).
 */
export const CALLER_TIMEOUT_SECONDS = RUNNER_TIMEOUT_SECONDS + 30;

/**
 * API Gateway REST waits this long for a buffered (non-streaming) response. 29 s is the default
 * quota; raising the account's "Maximum integration timeout" quota allows up to 300 000.
 */
export const BUFFERED_INTEGRATION_TIMEOUT_MS = 29_000;
/** Streaming integrations may run up to 15 minutes; this one covers the whole run. */
export const STREAM_INTEGRATION_TIMEOUT_MS = CALLER_TIMEOUT_SECONDS * 1000;

/** Every table's physical name is this prefix plus its logical name; the app gets the prefix only. */
export function tablePrefix() {
  return `${$app.name}-${$app.stage}-`;
}

export function isProduction() {
  return $app.stage === "production";
}

export function marketplaceAddress(): string {
  const address = process.env.MARKETPLACE_ADDRESS ?? MARKETPLACE_ADDRESSES[$app.stage];
  if (address === undefined)
    throw new Error(
      `No marketplace contract for stage "${$app.stage}": set MARKETPLACE_ADDRESS when deploying ` +
        `or add the stage to MARKETPLACE_ADDRESSES in stacks/common.ts.`,
    );
  if (!/^0x[0-9a-fA-F]{40}$/.test(address))
    throw new Error(`MARKETPLACE_ADDRESS "${address}" is not a 20-byte hex address.`);
  return address;
}

/** What the application functions (API, stream, workers, crons) are wired to. */
export interface AppResources {
  tables: Record<TableName, sst.aws.Dynamo>;
  registrationQueue: sst.aws.Queue;
  registrationDlq: sst.aws.Queue;
  /** The settlement queue: every function hands its per-query charges to the settler through it. */
  settlementQueue: sst.aws.Queue;
  blobs: sst.aws.Bucket;
  /** The secrets every application function reads. */
  secrets: sst.Secret[];
  /** The protocol authority's key: linked to the settler alone, the one function that sends with it. */
  authoritySecret: sst.Secret;
  kmsKey: aws.kms.Key;
  runner: sst.aws.Function;
}

/** The environment every application function receives. */
export function appEnvironment(r: AppResources): Record<string, $util.Input<string>> {
  return {
    STAGE: APP_STAGE,
    TABLE_PREFIX: tablePrefix(),
    REGISTRATION_QUEUE_URL: r.registrationQueue.url,
    REGISTRATION_DLQ_URL: r.registrationDlq.url,
    SETTLEMENT_QUEUE_URL: r.settlementQueue.url,
    CHAIN_BLOCK_TIME_MS: String(CHAIN_BLOCK_TIME_MS),
    RUN_LOG_INTERVAL_MS: String(RUN_LOG_INTERVAL_MS),
    BLOB_BUCKET: r.blobs.name,
    CHAIN_ID: String(CHAIN_ID),
    MARKETPLACE_ADDRESS: marketplaceAddress(),
    IDENTITY_REGISTRY_ADDRESS: process.env.IDENTITY_REGISTRY_ADDRESS ?? ERC8004_REGISTRIES.identity,
    REPUTATION_REGISTRY_ADDRESS: process.env.REPUTATION_REGISTRY_ADDRESS ?? ERC8004_REGISTRIES.reputation,
    ...(process.env.ERC8004_DEPLOY_BLOCK ? { ERC8004_DEPLOY_BLOCK: process.env.ERC8004_DEPLOY_BLOCK } : {}),
    RUNNER_FUNCTION_NAME: r.runner.name,
    KMS_KEY_ID: r.kmsKey.keyId,
  };
}

/**
 * Props of an application function: Node 22 on arm64, the shared environment, links to every
 * table, the queues, the blob bucket, the shared secrets and the runner (linking a function grants
 * lambda:InvokeFunction on it), and envelope-encryption rights on the KMS key.
 * `overrides` sets what differs per function (timeout, streaming, ...); `links` adds what only this
 * function may reach (the authority's key, for the settler).
 */
export function appFunction(
  handler: string,
  r: AppResources,
  overrides: Omit<Partial<sst.aws.FunctionArgs>, "handler" | "environment" | "link" | "permissions"> = {},
  links: sst.Secret[] = [],
): sst.aws.FunctionArgs {
  return {
    runtime: RUNTIME,
    architecture: ARCHITECTURE,
    memory: "1024 MB",
    ...overrides,
    handler,
    environment: appEnvironment(r),
    link: [
      ...Object.values(r.tables),
      r.registrationQueue,
      r.registrationDlq,
      r.settlementQueue,
      r.blobs,
      ...r.secrets,
      ...links,
      r.runner,
    ],
    permissions: [
      {
        actions: ["kms:GenerateDataKey", "kms:Encrypt", "kms:Decrypt", "kms:DescribeKey"],
        resources: [r.kmsKey.arn],
      },
    ],
  };
}
