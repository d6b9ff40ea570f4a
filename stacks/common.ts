// Constants of the cloud app and the props every application function shares.
// Each stack file declares one concern; this one holds what they have in common.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deploymentEnvironment, isNetworkName, NETWORK_NAMES, NETWORKS, usdcTokenOf, type NetworkDeployment, type NetworkProfile } from "@agent-rental/core/networks";
import { tokenSetting } from "@agent-rental/core/tokens";
import type { TableName } from "../src/adapters/tables/schema.ts";

/**
 * The network the stage runs on: `NETWORK` in the environment of `sst deploy` (a profile of
 * packages/core/src/networks.ts), Base Sepolia by default: the beta runs on this test network; mainnet
 * comes at general availability. Its chain id, block time (the settler sends one batch of charges per
 * block, timed by it), finality depth and fee ceiling come from the profile.
 */
export function network(): NetworkProfile {
  const name = process.env.NETWORK?.trim() || "base-sepolia";
  if (!isNetworkName(name)) throw new Error(`NETWORK "${name}" is none of ${NETWORK_NAMES.join(", ")}.`);
  return NETWORKS[name];
}
/** The settler logs finished runs on-chain once a minute in the cloud (a Merkle batch per minute). */
export const RUN_LOG_INTERVAL_MS = 60_000;

/**
 * The network's deployment, as `npm run deploy -- --network <name>` wrote it:
 * stacks/deployments/<network>.json (the marketplace, its deploy block, the ERC-8004 registries).
 */
export function deployment(): NetworkDeployment {
  const profile = network();
  const file = join(process.cwd(), "stacks/deployments", `${profile.name}.json`);
  if (!existsSync(file)) {
    throw new Error(`No deployment on ${profile.label}: run \`npm run deploy -- --network ${profile.name}\` (RPC_URL and DEPLOYER_PRIVATE_KEY set), which writes ${file}.`);
  }
  const record = JSON.parse(readFileSync(file, "utf8")) as NetworkDeployment;
  if (record.network !== profile.name || record.chain_id !== profile.chainId) {
    throw new Error(`${file} holds a deployment on ${record.network} (chain ${record.chain_id}), not ${profile.name} (chain ${profile.chainId}).`);
  }
  return record;
}

/**
 * The service's chain settings: the deployment's (deploymentEnvironment), where `MARKETPLACE_ADDRESS`,
 * `IDENTITY_REGISTRY_ADDRESS`, `REPUTATION_REGISTRY_ADDRESS` and `ERC8004_DEPLOY_BLOCK` in the
 * environment of `sst deploy` win (a deployment made elsewhere). With `MARKETPLACE_ADDRESS` set and no
 * deployment file, the profile gives the rest (its canonical ERC-8004 registries).
 */
export function chainEnvironment(): Record<string, string> {
  const profile = network();
  const overridden = process.env.MARKETPLACE_ADDRESS?.trim();
  const fromFile = existsSync(join(process.cwd(), "stacks/deployments", `${profile.name}.json`)) || !overridden;
  const env: Record<string, string> = fromFile
    ? deploymentEnvironment(deployment())
    : {
        NETWORK: profile.name,
        CHAIN_ID: String(profile.chainId),
        CHAIN_BLOCK_TIME_MS: String(profile.blockTimeMs),
        ...(profile.erc8004 ? { IDENTITY_REGISTRY_ADDRESS: profile.erc8004.identityRegistry, REPUTATION_REGISTRY_ADDRESS: profile.erc8004.reputationRegistry } : {}),
      };
  for (const name of ["MARKETPLACE_ADDRESS", "IDENTITY_REGISTRY_ADDRESS", "REPUTATION_REGISTRY_ADDRESS", "ERC8004_DEPLOY_BLOCK"]) {
    const value = process.env[name]?.trim();
    if (value) env[name] = value;
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(env.MARKETPLACE_ADDRESS ?? "")) throw new Error(`MARKETPLACE_ADDRESS "${env.MARKETPLACE_ADDRESS}" is not a 20-byte hex address.`);
  // The token marketplace: the deployment record's (npm run deploy deploys it with the network's USDC,
  // or the token named), or one deployed elsewhere (TOKEN_MARKETPLACE_ADDRESS in the environment of
  // `sst deploy`), taking the network's USDC (Base Sepolia's: EIP-712 name "USDC", version "2"); the
  // utility token has no public deployment yet.
  const tokenMarketplace = process.env.TOKEN_MARKETPLACE_ADDRESS?.trim();
  const usdc = usdcTokenOf(profile);
  if (tokenMarketplace) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(tokenMarketplace)) throw new Error(`TOKEN_MARKETPLACE_ADDRESS "${tokenMarketplace}" is not a 20-byte hex address.`);
    if (!usdc) throw new Error(`${profile.label} has no USDC for the token marketplace to take.`);
    env.TOKEN_MARKETPLACE_ADDRESS = tokenMarketplace;
    env.TOKENS = JSON.stringify(tokenSetting({ usdc, utility: null }));
    const deployBlock = process.env.TOKEN_MARKETPLACE_DEPLOY_BLOCK?.trim();
    if (deployBlock) env.TOKEN_MARKETPLACE_DEPLOY_BLOCK = deployBlock;
  }
  return env;
}

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
  return chainEnvironment().MARKETPLACE_ADDRESS!;
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
    ...chainEnvironment(),
    RUN_LOG_INTERVAL_MS: String(RUN_LOG_INTERVAL_MS),
    BLOB_BUCKET: r.blobs.name,
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
