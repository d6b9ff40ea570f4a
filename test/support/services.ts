// Builds the service's real dependencies for a test file against the shared emulators and chain:
// its own table prefix, its own queues and bucket, its own marketplace deployment.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { getAddress } from "viem";
import { loadConfig, type Config } from "../../src/config.ts";
import { createServices, type Services } from "../../src/services.ts";
import { ensureTables } from "../../src/adapters/tables/dynamo.ts";
import { ensureRegistrationQueues, createQueue } from "../../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../../src/adapters/blobs/s3.ts";
import { chainFor } from "../../src/chain/client.ts";
import { deployMarketplace } from "../../src/chain/deploy.ts";
import { DEV_ACCOUNTS, LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { createLogger } from "../../src/logger.ts";
import { generateSigningKey } from "../../src/auth/jwt.ts";

export interface TestContext {
  config: Config;
  services: Services;
  env: Record<string, string>;
}

export async function createTestServices(overrides: Record<string, string> = {}): Promise<TestContext> {
  const rpcUrl = inject("rpcUrl");
  const dynamoEndpoint = inject("dynamoEndpoint");
  const awsEndpoint = inject("awsEndpoint");
  const suffix = randomBytes(4).toString("hex");
  const queue = createQueue({ region: "us-east-1", endpoint: awsEndpoint });
  const [deployed, queues] = await Promise.all([
    deployMarketplace({
      rpcUrl,
      chain: chainFor(LOCAL_CHAIN_ID, rpcUrl),
      deployerPrivateKey: DEV_ACCOUNTS[0].privateKey,
      authority: DEV_ACCOUNTS[0].address,
      feeRecipient: DEV_ACCOUNTS[1].address,
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
    LOG_LEVEL: "silent",
    JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
    ...overrides,
  };
  const config = loadConfig(env);
  const services = createServices(config, { logger: createLogger(config.LOG_LEVEL) });
  await Promise.all([
    ensureTables(services.tables, config.TABLE_PREFIX),
    ensureBucket(createBlobs({ region: config.AWS_REGION, bucket: config.BLOB_BUCKET, endpoint: awsEndpoint }).client, config.BLOB_BUCKET),
  ]);
  return { config, services, env };
}
