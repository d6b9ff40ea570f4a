// Typed marketplace actions for tests and benchmarks: each sends one transaction from the given
// account, waits for its receipt, fails loudly on a revert and returns what the caller needs (the
// receipt, the block time, the position of the marketplace event). Also `createServicesOn`, the
// service bundle on the emulators and the chain of the caller's choosing (the shared ones, through
// test/support/services.ts, or a node of its own for tests that move chain time). Free of vitest
// imports, so the benchmarks use it too.
import { randomBytes } from "node:crypto";
import {
  createPublicClient,
  createTestClient,
  getAddress,
  http,
  parseEther,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { writeMarketplace, type MarketplaceWriteName } from "../../src/chain/write.ts";
import { chainFor } from "../../src/chain/client.ts";
import { deployErc8004Registries, deployMarketplace } from "../../src/chain/deploy.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { createServices, type Services } from "../../src/services.ts";
import { ensureTables } from "../../src/adapters/tables/dynamo.ts";
import { createQueue, ensureRegistrationQueues, ensureSettlementQueue } from "../../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../../src/adapters/blobs/s3.ts";
import { createLogger } from "../../src/logger.ts";
import { generateSigningKey } from "../../src/auth/jwt.ts";
import { logPosition } from "../../src/credentials/events.ts";
import { ACCESS_TYPE, type RentalModel } from "@agent-rental/core/vocabulary";

export type Account = PrivateKeyAccount & { privateKey: Hex };

export const DAYS_30 = 2_592_000n;
export const DAYS_90 = 7_776_000n;
export const DAYS_365 = 31_536_000n;

/** A fresh account funded by `hardhat_setBalance` (no transaction from a development account). */
export async function fundAccount(rpcUrl: string, ether = "1000"): Promise<Account> {
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  await createTestClient({ mode: "hardhat", transport: http(rpcUrl) }).setBalance({ address: account.address, value: parseEther(ether) });
  return Object.assign(account, { privateKey });
}

export interface TxResult {
  receipt: TransactionReceipt;
  blockNumber: bigint;
  /** Unix seconds of the block that holds the transaction. */
  blockTime: number;
  /** `logPosition` of the first marketplace event of the transaction (undefined when none). */
  position: string | undefined;
  /** `logPosition` of the last marketplace event of the transaction. */
  lastPosition: string | undefined;
}

export interface CreatedListing extends TxResult {
  listingId: Hex;
  seed: Hex;
}

export interface Market {
  rpcUrl: string;
  marketplace: Address;
  client: PublicClient;
  createListing(creator: Account, options: { accessType: RentalModel; price: bigint; uri?: string; seed?: Hex }): Promise<CreatedListing>;
  purchaseOneTime(renter: Account, listingId: Hex, value?: bigint): Promise<TxResult>;
  purchaseSubscription(renter: Account, listingId: Hex, duration?: bigint, value?: bigint): Promise<TxResult>;
  renewSubscription(renter: Account, listingId: Hex, duration?: bigint, value?: bigint): Promise<TxResult>;
  purchasePerQuery(renter: Account, listingId: Hex, deposit: bigint): Promise<TxResult>;
  topUpBalance(renter: Account, listingId: Hex, amount: bigint): Promise<TxResult>;
  /** Charges one run admitted at `admittedPrice` (default: the listing's current price). */
  consumeQuery(authority: Account, listingId: Hex, buyer: Address, runRef?: Hex, admittedPrice?: bigint): Promise<TxResult>;
  /** revokeAccess or revokePerQueryAccess, by the listing's model. */
  revoke(creator: Account, listingId: Hex, buyer: Address): Promise<TxResult>;
  setListingActive(creator: Account, listingId: Hex, active: boolean): Promise<TxResult>;
  withdrawEarnings(creator: Account, listingId: Hex, amount?: bigint): Promise<TxResult>;
  /** Closes the listing and withdraws its whole escrow, in one transaction (closeListingAndWithdraw). */
  closeListing(creator: Account, listingId: Hex): Promise<TxResult>;
  /** Asks to withdraw the unspent per-task balance (withdrawable an hour later, or at once once closed or revoked). */
  requestBalanceWithdrawal(renter: Account, listingId: Hex): Promise<TxResult>;
  withdrawUnspentBalance(renter: Account, listingId: Hex): Promise<TxResult>;
  credentialStatus(listingId: Hex, buyer: Address): Promise<number>;
  listingIdOf(creator: Address, seed: Hex): Promise<Hex>;
}

export function market(options: { rpcUrl: string; marketplace: Address }): Market {
  const chain = chainFor(LOCAL_CHAIN_ID, options.rpcUrl);
  const transport = http(options.rpcUrl);
  const client = createPublicClient({ chain, transport, pollingInterval: 20 }) as PublicClient;
  const address = getAddress(options.marketplace);

  async function send(from: Account, functionName: MarketplaceWriteName, args: readonly unknown[], value?: bigint): Promise<TxResult> {
    const receipt = await writeMarketplace({ rpcUrl: options.rpcUrl, chain, marketplace: address }, from, functionName, args as never, value);
    const block = await client.getBlock({ blockNumber: receipt.blockNumber });
    const ours = receipt.logs.filter((log) => log.address.toLowerCase() === address.toLowerCase());
    return {
      receipt,
      blockNumber: receipt.blockNumber,
      blockTime: Number(block.timestamp),
      position: ours.length ? logPosition(ours[0]!.blockNumber, ours[0]!.logIndex) : undefined,
      lastPosition: ours.length ? logPosition(ours.at(-1)!.blockNumber, ours.at(-1)!.logIndex) : undefined,
    };
  }

  const read = <T>(functionName: string, args: readonly unknown[]) => client.readContract({ address, abi: marketplaceAbi, functionName, args } as never) as Promise<T>;
  const subscriptionCost = (listingId: Hex, duration: bigint) => read<bigint>("subscriptionPrice", [listingId, duration]);
  const listing = (listingId: Hex) => read<readonly [bigint, bigint, number, number, Address, number, string]>("listings", [listingId]);

  return {
    rpcUrl: options.rpcUrl,
    marketplace: address,
    client,
    async createListing(creator, { accessType, price, uri = "ipfs://manifest", seed = toHex(randomBytes(32)) }) {
      const result = await send(creator, "createListing", [seed, ACCESS_TYPE[accessType], price, uri]);
      const listingId = await read<Hex>("listingIdOf", [creator.address, seed]);
      return { ...result, listingId, seed };
    },
    async purchaseOneTime(renter, listingId, value) {
      return send(renter, "purchaseOneTime", [listingId], value ?? (await listing(listingId))[0]);
    },
    async purchaseSubscription(renter, listingId, duration = DAYS_30, value) {
      return send(renter, "purchaseSubscription", [listingId, duration], value ?? (await subscriptionCost(listingId, duration)));
    },
    async renewSubscription(renter, listingId, duration = DAYS_30, value) {
      return send(renter, "renewSubscription", [listingId, duration], value ?? (await subscriptionCost(listingId, duration)));
    },
    purchasePerQuery: (renter, listingId, deposit) => send(renter, "purchasePerQuery", [listingId], deposit),
    topUpBalance: (renter, listingId, amount) => send(renter, "topUpBalance", [listingId], amount),
    async consumeQuery(authority, listingId, buyer, runRef = toHex(randomBytes(32)), admittedPrice) {
      return send(authority, "consumeQuery", [listingId, buyer, runRef, admittedPrice ?? (await listing(listingId))[0]]);
    },
    async revoke(creator, listingId, buyer) {
      const model = (await listing(listingId))[2];
      return send(creator, model === ACCESS_TYPE.per_query ? "revokePerQueryAccess" : "revokeAccess", [listingId, buyer]);
    },
    setListingActive: (creator, listingId, active) => send(creator, "setListingActive", [listingId, active]),
    async withdrawEarnings(creator, listingId, amount) {
      return send(creator, "withdrawEarnings", [listingId, amount ?? (await listing(listingId))[1]]);
    },
    closeListing: (creator, listingId) => send(creator, "closeListingAndWithdraw", [listingId]),
    requestBalanceWithdrawal: (renter, listingId) => send(renter, "requestBalanceWithdrawal", [listingId]),
    withdrawUnspentBalance: (renter, listingId) => send(renter, "withdrawUnspentBalance", [listingId]),
    credentialStatus: (listingId, buyer) => read<number>("credentialStatus", [listingId, buyer]),
    listingIdOf: (creator, seed) => read<Hex>("listingIdOf", [creator, seed]),
  };
}

/** Deploys a marketplace on `rpcUrl` with a fresh funded authority. */
export async function deployOn(
  rpcUrl: string,
): Promise<{ address: Address; blockNumber: bigint; authority: Account; treasury: PrivateKeyAccount; registries: { identityRegistry: Address; reputationRegistry: Address; blockNumber: bigint } }> {
  const authority = await fundAccount(rpcUrl);
  const treasury = privateKeyToAccount(generatePrivateKey());
  const deployed = await deployMarketplace({
    rpcUrl,
    chain: chainFor(LOCAL_CHAIN_ID, rpcUrl),
    deployerPrivateKey: authority.privateKey,
    authority: authority.address,
    feeRecipient: treasury.address,
  });
  // ERC-8004's registries beside it, as the local stack deploys them.
  const registries = await deployErc8004Registries({ rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), deployerPrivateKey: authority.privateKey });
  return { address: getAddress(deployed.address), blockNumber: deployed.blockNumber, authority, treasury, registries };
}

export interface ServicesOn {
  config: Config;
  services: Services;
  /** The configuration's environment, as passed to loadConfig. */
  env: Record<string, string>;
  /** The protocol authority of this marketplace: a fresh, funded account (its key is the service's). */
  authority: Account;
  /** The fee recipient of this marketplace. */
  treasury: PrivateKeyAccount;
  /** The block of the marketplace deployment. */
  deployBlock: bigint;
  market: Market;
}

export interface ServicesOnOptions {
  rpcUrl: string;
  dynamoEndpoint: string;
  /** The SQS/S3 emulator: when given, the registration queues and the blob bucket are created there. */
  awsEndpoint?: string;
  /** Configuration on top of the defaults. */
  env?: Record<string, string>;
  /** Adapters handed to createServices in place of the configured ones. */
  adapters?: Partial<Services>;
}

/**
 * The service's real dependencies against the given emulators and chain, isolated from everything else
 * on them: a fresh marketplace deployment (with a fresh authority, whose key the service holds), tables
 * of its own prefix and, with `awsEndpoint`, queues and a bucket of its own. Without it the queue and
 * bucket settings point nowhere (suites that neither register nor read blobs).
 */
export async function createServicesOn(options: ServicesOnOptions): Promise<ServicesOn> {
  const suffix = randomBytes(4).toString("hex");
  const aws = options.awsEndpoint;
  const awsQueue = aws ? createQueue({ region: "us-east-1", endpoint: aws }) : undefined;
  const [deployed, queues, settlementQueue] = await Promise.all([
    deployOn(options.rpcUrl),
    awsQueue ? ensureRegistrationQueues(awsQueue, { queue: `registration-${suffix}`, dlq: `registration-dlq-${suffix}` }) : undefined,
    awsQueue ? ensureSettlementQueue(awsQueue, `settlement-${suffix}`) : undefined,
  ]);
  const env: Record<string, string> = {
    STAGE: "local",
    TABLE_PREFIX: `t${suffix}-`,
    DYNAMODB_ENDPOINT: options.dynamoEndpoint,
    AWS_ENDPOINT: aws ?? "http://127.0.0.1:1",
    REGISTRATION_QUEUE_URL: queues?.queueUrl ?? "http://127.0.0.1:1/000000000000/unused",
    REGISTRATION_DLQ_URL: queues?.dlqUrl ?? "http://127.0.0.1:1/000000000000/unused-dlq",
    SETTLEMENT_QUEUE_URL: settlementQueue ?? "http://127.0.0.1:1/000000000000/unused-settlement",
    BLOB_BUCKET: `blobs-${suffix}`,
    RPC_URL: options.rpcUrl,
    CHAIN_ID: String(LOCAL_CHAIN_ID),
    MARKETPLACE_ADDRESS: deployed.address,
    // As on the local stack: the chain's events start at the deployment, and the Hardhat node mines a
    // block per transaction and never reorganizes, so the indexer job needs no confirmations.
    MARKETPLACE_DEPLOY_BLOCK: deployed.blockNumber.toString(),
    IDENTITY_REGISTRY_ADDRESS: getAddress(deployed.registries.identityRegistry),
    REPUTATION_REGISTRY_ADDRESS: getAddress(deployed.registries.reputationRegistry),
    ERC8004_DEPLOY_BLOCK: deployed.registries.blockNumber.toString(),
    INDEXER_CONFIRMATIONS: "0",
    LOG_LEVEL: "silent",
    JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
    CARD_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
    OAUTH_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
    LOCAL_MASTER_KEY: randomBytes(32).toString("base64"),
    AUTHORITY_PRIVATE_KEY: deployed.authority.privateKey,
    ...options.env,
  };
  const config = loadConfig(env);
  const services = createServices(config, { logger: createLogger(config.LOG_LEVEL), ...options.adapters });
  await Promise.all([
    ensureTables(services.tables, config.TABLE_PREFIX),
    aws ? ensureBucket(createBlobs({ region: config.AWS_REGION, bucket: config.BLOB_BUCKET, endpoint: aws }).client, config.BLOB_BUCKET) : undefined,
  ]);
  return {
    config,
    services,
    env,
    authority: deployed.authority,
    treasury: deployed.treasury,
    deployBlock: deployed.blockNumber,
    market: market({ rpcUrl: options.rpcUrl, marketplace: deployed.address }),
  };
}

/**
 * An analytics query range (`granularity=hour&from=…&to=…`) from `days` before now to an hour past the
 * chain's head. The analytics bucket money events by their block's time, and a local chain mining more
 * than a block a second runs ahead of the wall clock (each block's time is at least its parent's + 1 s),
 * so the API's default end (now) can stop short of the latest events.
 */
export async function hourRangeToChainHead(client: Pick<PublicClient, "getBlock">, days = 2): Promise<string> {
  const head = Number((await client.getBlock({ blockTag: "latest" })).timestamp) * 1000;
  const from = new Date(Date.now() - days * 86_400_000);
  const to = new Date(Math.max(Date.now(), head) + 3_600_000);
  return `granularity=hour&from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
}
