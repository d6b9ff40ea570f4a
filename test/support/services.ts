// Builds the service's real dependencies for a test file against the shared emulators and chain:
// its own table prefix, its own queues and bucket, its own marketplace deployment.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { createTestClient, getAddress, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { loadConfig, type Config } from "../../src/config.ts";
import { createServices, type Services } from "../../src/services.ts";
import { ensureTables } from "../../src/adapters/tables/dynamo.ts";
import { ensureRegistrationQueues, createQueue } from "../../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../../src/adapters/blobs/s3.ts";
import { chainFor } from "../../src/chain/client.ts";
import { deployMarketplace } from "../../src/chain/deploy.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { createLogger } from "../../src/logger.ts";
import { generateSigningKey } from "../../src/auth/jwt.ts";

export interface TestContext {
  config: Config;
  services: Services;
  env: Record<string, string>;
  /** The protocol authority of this file's marketplace: a fresh, funded account. */
  authority: PrivateKeyAccount & { privateKey: Hex };
  /** The fee recipient of this file's marketplace. */
  treasury: PrivateKeyAccount;
}

/**
 * A fresh account funded on the shared chain. Test files run in parallel against one node: accounts
 * of their own keep their transactions' nonces from colliding.
 */
export async function fundedAccount(rpcUrl: string, ether = "1000"): Promise<PrivateKeyAccount & { privateKey: Hex }> {
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  await createTestClient({ mode: "hardhat", transport: http(rpcUrl) }).setBalance({ address: account.address, value: parseEther(ether) });
  return Object.assign(account, { privateKey });
}

export async function createTestServices(overrides: Record<string, string> = {}): Promise<TestContext> {
  const rpcUrl = inject("rpcUrl");
  const dynamoEndpoint = inject("dynamoEndpoint");
  const awsEndpoint = inject("awsEndpoint");
  const suffix = randomBytes(4).toString("hex");
  const queue = createQueue({ region: "us-east-1", endpoint: awsEndpoint });
  const authority = await fundedAccount(rpcUrl);
  const treasury = privateKeyToAccount(generatePrivateKey());
  const [deployed, queues] = await Promise.all([
    deployMarketplace({
      rpcUrl,
      chain: chainFor(LOCAL_CHAIN_ID, rpcUrl),
      deployerPrivateKey: authority.privateKey,
      authority: authority.address,
      feeRecipient: treasury.address,
    }),
    ensureRegistrationQueues(queue, { queue: `registration-${suffix}`, dlq: `registration-dlq-${suffix}` }),
  ]);
  const env: Record<string, string> = {
    STAGE: "local",
    TABLE_PREFIX: `t${suffix}-`,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    AWS_ENDPOINT: awsEndpoint,
    REGISTRATION_QUEUE_URL: queues.queueUrl,
    REGISTRATION_DLQ_URL: queues.dlqUrl,
    BLOB_BUCKET: `blobs-${suffix}`,
    RPC_URL: rpcUrl,
    CHAIN_ID: String(LOCAL_CHAIN_ID),
    MARKETPLACE_ADDRESS: getAddress(deployed.address),
    // As on the local stack: the chain's events start at the deployment, and the Hardhat node mines a
    // block per transaction and never reorganizes, so the indexer job needs no confirmations.
    MARKETPLACE_DEPLOY_BLOCK: deployed.blockNumber.toString(),
    INDEXER_CONFIRMATIONS: "0",
    LOG_LEVEL: "silent",
    JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
    LOCAL_MASTER_KEY: randomBytes(32).toString("base64"),
    AUTHORITY_PRIVATE_KEY: authority.privateKey,
    ...overrides,
  };
  const config = loadConfig(env);
  const services = createServices(config, { logger: createLogger(config.LOG_LEVEL) });
  await Promise.all([
    ensureTables(services.tables, config.TABLE_PREFIX),
    ensureBucket(createBlobs({ region: config.AWS_REGION, bucket: config.BLOB_BUCKET, endpoint: awsEndpoint }).client, config.BLOB_BUCKET),
  ]);
  return { config, services, env, authority, treasury };
}
