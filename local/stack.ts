// The embedded local stack: DynamoDB and SQS/S3 emulators, a Hardhat node with the marketplace
// deployed, the API and its background workers, all on 127.0.0.1. `startStack` brings it up in that
// order and returns a handle whose `stop()` takes all of it down again.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { getAddress, type Hex } from "viem";
import { tokenSetting, type MarketplaceTokens } from "@agent-rental/core/tokens";
import { closeApiServer } from "../src/api/server.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { createServices, type Services } from "../src/services.ts";
import { clearTable, ensureTables } from "../src/adapters/tables/dynamo.ts";
import { clearJournals } from "../src/adapters/tables/undo-journal.ts";
import { CHAIN_DERIVED_TABLES } from "../src/adapters/tables/schema.ts";
import { ensureRegistrationQueues, ensureSettlementQueue } from "../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../src/adapters/blobs/s3.ts";
import { chainFor } from "../src/chain/client.ts";
import { deployErc8004Registries, deployMarketplace, deployTokenMarketplace, mintLocalTokens } from "../src/chain/deploy.ts";
import { registerListingAgent } from "./erc8004.ts";
import { createLogger, type Logger } from "../src/logger.ts";
import { runJob, startJobs } from "../src/jobs.ts";
import { finishInterruptedRuns } from "../src/execution/runs/stale-runs.ts";
import { DEV_ACCOUNTS, LOCAL_CHAIN_ID, startChain, type ChainNode } from "./chain.ts";
import { startDynamo, startQueues, type Emulator } from "./emulators.ts";
import { portInUse } from "./ports.ts";
import { ensureLocalSecrets } from "./secrets.ts";
import { DEMO_PROVIDER_KEY, ensureDemoData } from "./demo.ts";
import { startModelServer } from "./model-server.ts";
import { listenSite } from "./dashboard.ts";

const REPOSITORY_ROOT = resolve(import.meta.dirname, "..");

export interface StackOptions {
  dataDir: string;
  apiPort: number;
  chainPort: number;
  dynamoPort: number;
  awsPort: number;
  /** The local model server's port (default: a free one). */
  modelPort?: number;
  /** The chain mines a block every this many milliseconds once the stack is ready (0, the default:
   * a block per transaction, at once). The deployment and the demo are mined at once either way. */
  blockTimeMs?: number;
  logLevel?: Config["LOG_LEVEL"];
  /** DYNAMODB_PROCESS: the DynamoDB emulator in a process of its own, not in the stack's (default:
   * true; false embeds it). */
  dynamoProcess?: boolean;
  /** TRUSTED_PROXIES: the proxies in front of the stack whose X-Forwarded-For names the client (default
   * none: rate limits key public callers by the socket's address). */
  trustedProxies?: string;
  /** Progress lines for the person who started the stack. */
  progress?: (line: string) => void;
  /** Lines for the person who started the stack when the running stack's chain restarts (the banner's
   * notice): that it is down and being rebuilt, then that it is back. */
  notice?: (lines: string[]) => void;
}

export type AccountRole = "authority" | "treasury" | "creator" | "renter";

export interface StackInfo {
  /** The dashboard, on the API's own origin. */
  dashboard_url: string;
  api_url: string;
  rpc_url: string;
  /** The deterministic model server the demo agents run on. */
  model_server_url: string;
  chain_id: number;
  /** Milliseconds between blocks (0: a block per transaction, automine). */
  block_time_ms: number;
  /** `token_marketplace`: listings priced in a token; `tokens`: the two tokens it allows (both deployed
   * at every start; the demo renters hold both). */
  contracts: { marketplace: string; identity_registry: string; reputation_registry: string; token_marketplace: string; tokens: MarketplaceTokens };
  authority: string;
  accounts: { address: string; private_key: string; role: AccountRole }[];
  demo: Record<string, unknown>;
  data_dir: string;
  pid: number;
  /** True when this start found a chain that did not match the tables and rebuilt what derives from it. */
  chain_rebuilt: boolean;
  /** The Hardhat node's process id (a new one after each restart). */
  chain_pid: number;
  /** How many times the node died and was restarted while the stack ran. */
  chain_restarts: number;
  /** When the node was last restarted, if it was. */
  chain_restarted_at: string | null;
  /** Runs left in flight by a stack that was killed, finished (failed, free) by this start. */
  interrupted_runs: number;
  started_at: string;
}

export interface RunningStack {
  info: StackInfo;
  services: Services;
  stop(): Promise<void>;
}

/** Account roles on the local chain: index into Hardhat's development accounts. */
const ROLES: AccountRole[] = ["authority", "treasury", "creator", "creator", "renter", "renter"];
/** What each demo renter holds of the local tokens at every start: 10,000 USDC and 10,000 RENT. */
const DEMO_TOKEN_HOLDINGS = { usdc: 10_000n * 10n ** 6n, utility: 10_000n * 10n ** 18n } as const;

export class StackStartError extends Error {
  override name = "StackStartError";
}

/** Port settings by the environment variable that changes each, for the messages. */
const PORT_SETTINGS = [
  ["apiPort", "PORT"],
  ["chainPort", "CHAIN_PORT"],
  ["dynamoPort", "DYNAMODB_PORT"],
  ["awsPort", "AWS_EMULATOR_PORT"],
] as const;

export async function startStack(options: StackOptions): Promise<RunningStack> {
  const dataDir = resolve(options.dataDir);
  const progress = options.progress ?? (() => {});
  mkdirSync(dataDir, { recursive: true });
  const releaseLock = acquireLock(dataDir);
  const cleanups: (() => Promise<void> | void)[] = [releaseLock];
  let stopped = false;
  const stopAll = async () => {
    stopped = true;
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch {
        // Keep stopping the rest.
      }
    }
  };

  try {
    const busy = (await Promise.all(PORT_SETTINGS.map(async ([key, env]) => ({ port: options[key], env, busy: await portInUse(options[key]) })))).filter((p) => p.busy);
    if (busy.length > 0) {
      throw new StackStartError(
        busy.map((p) => `Port ${p.port} on 127.0.0.1 is already in use (set ${p.env} to use another port, or stop what is listening: \`ss -ltnp 'sport = :${p.port}'\` shows it).`).join("\n"),
      );
    }
    const secrets = ensureLocalSecrets(dataDir);

    progress("starting DynamoDB emulator, SQS/S3 emulator and Hardhat node");
    let dynamo: Emulator | undefined;
    let queues: Emulator | undefined;
    let chain: ChainNode | undefined;
    const started = await Promise.allSettled([
      startDynamo({ port: options.dynamoPort, path: join(dataDir, "dynamodb"), process: options.dynamoProcess !== false }).then((e) => (dynamo = e)),
      startQueues({ port: options.awsPort, dataDir: join(dataDir, "sqs"), s3Dir: join(dataDir, "blobs") }).then((e) => (queues = e)),
      startChain({ port: options.chainPort }).then((c) => (chain = c)),
    ]);
    if (dynamo) cleanups.push(() => dynamo!.stop());
    if (queues) cleanups.push(() => queues!.stop());
    // The current node: a restart replaces it (see the supervision below).
    if (chain) cleanups.push(() => chain!.stop());
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;

    const authority = DEV_ACCOUNTS[0];
    const treasury = DEV_ACCOUNTS[1];
    // The deterministic model server the demo agents run on (OpenAI and Anthropic wire protocols).
    const models = await startModelServer({ port: options.modelPort ?? 0, apiKey: DEMO_PROVIDER_KEY });
    cleanups.push(() => models.stop());
    // The deployment: at every start, and again on a node restarted while the stack runs (the deployer's
    // nonces start at 0 on a fresh chain, so the contracts land at the same addresses).
    const deployContracts = async (node: ChainNode) => {
      progress("deploying the marketplace contract");
      const marketplace = await deployMarketplace({
        rpcUrl: node.rpcUrl,
        chain: chainFor(LOCAL_CHAIN_ID, node.rpcUrl),
        deployerPrivateKey: authority.privateKey,
        authority: authority.address,
        feeRecipient: treasury.address,
      });
      progress("deploying the ERC-8004 identity and reputation registries");
      const erc8004 = await deployErc8004Registries({ rpcUrl: node.rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, node.rpcUrl), deployerPrivateKey: authority.privateKey });
      // Deployed after the others, so their addresses stay what they were before tokens existed.
      progress("deploying the token marketplace, the USDC stand-in and Rental Credit; minting both to the renters");
      const tokenDeployment = { rpcUrl: node.rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, node.rpcUrl), deployerPrivateKey: authority.privateKey };
      const tokenMarket = await deployTokenMarketplace({ ...tokenDeployment, authority: authority.address, feeRecipient: treasury.address });
      const renters = ROLES.flatMap((role, i) => (role === "renter" ? [DEV_ACCOUNTS[i]!.address] : []));
      await mintLocalTokens(tokenDeployment, { usdc: tokenMarket.tokens.usdc.address, utility: tokenMarket.tokens.utility.address }, renters, DEMO_TOKEN_HOLDINGS);
      return { marketplace, erc8004, tokenMarket };
    };
    const { marketplace: deployed, erc8004: registries, tokenMarket } = await deployContracts(chain!);

    const env: Record<string, string> = {
      STAGE: "local",
      AWS_REGION: "us-east-1",
      TABLE_PREFIX: "local-",
      DYNAMODB_ENDPOINT: dynamo!.endpoint,
      AWS_ENDPOINT: queues!.endpoint,
      // Placeholders until the queues exist; replaced below with the emulator's URLs.
      REGISTRATION_QUEUE_URL: `${queues!.endpoint}/000000000000/registration`,
      REGISTRATION_DLQ_URL: `${queues!.endpoint}/000000000000/registration-dlq`,
      SETTLEMENT_QUEUE_URL: `${queues!.endpoint}/000000000000/settlement`,
      BLOB_BUCKET: "local-blobs",
      RPC_URL: chain!.rpcUrl,
      CHAIN_ID: String(LOCAL_CHAIN_ID),
      MARKETPLACE_ADDRESS: getAddress(deployed.address),
      TOKEN_MARKETPLACE_ADDRESS: getAddress(tokenMarket.address),
      TOKEN_MARKETPLACE_DEPLOY_BLOCK: tokenMarket.blockNumber.toString(),
      TOKENS: JSON.stringify(tokenSetting(tokenMarket.tokens)),
      PORT: String(options.apiPort),
      // Where the API names itself (the OAuth issuer, the signed Agent Cards): its own address, never a
      // request's Host header.
      API_URL: `http://127.0.0.1:${options.apiPort}`,
      LOG_LEVEL: options.logLevel ?? "info",
      TRUSTED_PROXIES: options.trustedProxies ?? "",
      JWT_SIGNING_KEYS: JSON.stringify(secrets.jwtSigningKeys),
      CARD_SIGNING_KEYS: JSON.stringify(secrets.cardSigningKeys),
      OAUTH_SIGNING_KEYS: JSON.stringify(secrets.oauthSigningKeys),
      LOCAL_MASTER_KEY: secrets.masterKey,
      ALLOW_PRIVATE_AGENT_HOSTS: "true",
      AUTHORITY_PRIVATE_KEY: authority.privateKey,
      PROVIDER_A_BASE_URL: models.openaiBaseUrl,
      PROVIDER_B_BASE_URL: models.anthropicBaseUrl,
      MARKETPLACE_DEPLOY_BLOCK: deployed.blockNumber.toString(),
      IDENTITY_REGISTRY_ADDRESS: getAddress(registries.identityRegistry),
      REPUTATION_REGISTRY_ADDRESS: getAddress(registries.reputationRegistry),
      ERC8004_DEPLOY_BLOCK: registries.blockNumber.toString(),
      // The local chain never reorganizes.
      INDEXER_CONFIRMATIONS: "0",
      // The pace the chain keeps once the stack is ready: the settler times its batches by it.
      CHAIN_BLOCK_TIME_MS: String(options.blockTimeMs ?? 0),
    };
    const baseConfig = loadConfig(env);
    const logger = createLogger(baseConfig.LOG_LEVEL);

    progress("creating tables, queues and the blob bucket");
    const provisional = createServices(baseConfig, { logger });
    const [, registration, settlementQueueUrl] = await Promise.all([
      ensureTables(provisional.tables, baseConfig.TABLE_PREFIX),
      ensureRegistrationQueues(provisional.queue, { queue: "registration", dlq: "registration-dlq" }),
      ensureSettlementQueue(provisional.queue, "settlement"),
      ensureBucket(createBlobs({ region: baseConfig.AWS_REGION, bucket: baseConfig.BLOB_BUCKET, endpoint: queues!.endpoint }).client, baseConfig.BLOB_BUCKET),
    ]);
    const config = loadConfig({ ...env, REGISTRATION_QUEUE_URL: registration.queueUrl, REGISTRATION_DLQ_URL: registration.dlqUrl, SETTLEMENT_QUEUE_URL: settlementQueueUrl });
    const services = createServices(config, { logger, tables: provisional.tables });

    const chainRebuilt = await reconcileChain(services, { chainId: LOCAL_CHAIN_ID, marketplace: deployed.address, blockHash: deployed.blockHash }, logger);
    // One stack per data folder (the lock): a run still `running` was in flight when the stack before
    // this one was killed. It ends now, failed and free, and gives its listing slot and its per-task
    // reservation back, rather than holding them until the stale-run sweep, minutes later.
    const interrupted = await finishInterruptedRuns(services);
    if (interrupted.charged + interrupted.failed > 0) logger.warn("runs interrupted by the previous stop finished", { ...interrupted });

    progress("starting the background jobs and the API");
    cleanups.push(() => services.close());
    // Every background job of src/jobs.ts (the indexer, the registration queue's consumers and
    // sweeper, the run logger), as the cloud runs them; stopped before the services close. Started
    // again after a restart of the chain.
    let jobs = startJobs(services);
    cleanups.push(() => jobs.stop());
    // While the chain is down or being rebuilt, the API answers 503 service_unavailable.
    let unavailable: string | null = null;
    // The dashboard on the API's origin: /v1/* is the API, every other path the built web app.
    const apiUrl = `http://127.0.0.1:${options.apiPort}`;
    const server = await listenSite(services, {
      port: options.apiPort,
      distDir: join(REPOSITORY_ROOT, "web/dist"),
      config: { api_url: apiUrl, chain_id: LOCAL_CHAIN_ID, chain_name: "Local chain", rpc_url: chain!.rpcUrl, marketplace_address: getAddress(deployed.address), token_marketplace_address: getAddress(tokenMarket.address), explorer_url: null, allow_private_agent_hosts: true },
      unavailable: () => unavailable,
    }).catch((error: unknown) => {
      // Free when the start checked it, taken since (by another program, or an outgoing connection's port).
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new StackStartError(`Port ${options.apiPort} on 127.0.0.1 was taken while the stack started (set PORT to use another port, or stop what is listening: \`ss -ltnp 'sport = :${options.apiPort}'\` shows it).`);
      throw error;
    });
    cleanups.push(() => closeApiServer(server));

    // The demo on the chain, and the chain's pace: at every start, and again after a restart of the node.
    const blockTimeMs = options.blockTimeMs ?? 0;
    const seedChain = async (node: ChainNode) => {
      progress("seeding the demo: creators, reviewed agents, rentals and an API key");
      const renter = DEV_ACCOUNTS[ROLES.indexOf("renter")]!;
      const seeded = await ensureDemoData(services, dataDir, { renter: renter.privateKey, creators: [DEV_ACCOUNTS[2].privateKey, DEV_ACCOUNTS[3].privateKey] });
      // The demo's creators register their listings as ERC-8004 agents (the listings must be indexed first).
      await runJob(services, "indexer");
      const creatorKeys = new Map([DEV_ACCOUNTS[2], DEV_ACCOUNTS[3]].map((a) => [a.address.toLowerCase(), a.privateKey]));
      for (const listing of seeded.listings) {
        listing.erc8004_agent_id = await registerListingAgent(services, creatorKeys.get(listing.creator.toLowerCase())!, listing.listing_id, apiUrl);
      }
      // Ready means consistent: the index holds everything the chain holds, demo included.
      await runJob(services, "indexer");
      // The deployment and the demo were mined a block per transaction; from here on the chain keeps the
      // pace it was given, as a real network would.
      if (blockTimeMs > 0) {
        progress(`mining a block every ${blockTimeMs} ms from now on`);
        await node.setBlockTime(blockTimeMs);
      }
      return seeded;
    };
    const demo = await seedChain(chain!);

    const info: StackInfo = {
      dashboard_url: `${apiUrl}/`,
      api_url: apiUrl,
      rpc_url: chain!.rpcUrl,
      model_server_url: models.url,
      chain_id: LOCAL_CHAIN_ID,
      block_time_ms: blockTimeMs,
      contracts: {
        marketplace: getAddress(deployed.address),
        identity_registry: getAddress(registries.identityRegistry),
        reputation_registry: getAddress(registries.reputationRegistry),
        token_marketplace: getAddress(tokenMarket.address),
        tokens: tokenMarket.tokens,
      },
      authority: authority.address,
      accounts: ROLES.map((role, i) => ({ address: DEV_ACCOUNTS[i]!.address, private_key: DEV_ACCOUNTS[i]!.privateKey, role })),
      demo: { ...demo },
      data_dir: dataDir,
      pid: process.pid,
      chain_rebuilt: chainRebuilt,
      chain_pid: chain!.pid,
      chain_restarts: 0,
      chain_restarted_at: null,
      interrupted_runs: interrupted.charged + interrupted.failed,
      started_at: new Date().toISOString(),
    };
    const stackFile = join(dataDir, "stack.json");
    // Written whole or not at all (a temporary file renamed over it): a reader never sees half of it.
    const writeInfo = () => {
      writeFileSync(`${stackFile}.tmp`, JSON.stringify(info, null, 2) + "\n", { mode: 0o600 });
      renameSync(`${stackFile}.tmp`, stackFile);
    };
    writeInfo();
    cleanups.splice(1, 0, () => rmSync(stackFile, { force: true }));

    // The node is supervised: one that dies (killed, crashed) is started again on its port and rebuilt as a
    // start rebuilds it, since a Hardhat node keeps no state: the contracts deployed again, the tables
    // derived from the chain reconciled, the jobs started again, the demo seeded again. Meanwhile the API
    // answers 503 service_unavailable.
    const notice = options.notice ?? (() => {});
    const supervise = (node: ChainNode) => {
      void node.exited.then(async ({ code, signal }) => {
        if (node.stopping || stopped) return;
        const how = signal ? `was killed (${signal})` : `exited (code ${code})`;
        unavailable = `The local chain's node ${how} and is being restarted; retry in a few seconds.`;
        logger.error("local chain node stopped: restarting it and rebuilding what derives from the chain", { code, signal, rpc_url: node.rpcUrl });
        notice([`✗ The local chain's node ${how}: restarting it on ${node.rpcUrl}, deploying the contracts again, rebuilding the chain-derived data and the demo. The API answers 503 meanwhile.`]);
        await jobs.stop();
        for (let attempt = 1; !stopped; attempt++) {
          let fresh: ChainNode | undefined;
          try {
            fresh = await startChain({ port: options.chainPort });
            if (stopped) break;
            chain = fresh;
            const again = await deployContracts(fresh);
            if (getAddress(again.marketplace.address) !== getAddress(deployed.address) || getAddress(again.erc8004.identityRegistry) !== getAddress(registries.identityRegistry) || getAddress(again.tokenMarket.address) !== getAddress(tokenMarket.address)) {
              throw new Error(`the contracts landed at other addresses (${again.marketplace.address}); restart the stack`);
            }
            await reconcileChain(services, { chainId: LOCAL_CHAIN_ID, marketplace: again.marketplace.address, blockHash: again.marketplace.blockHash }, logger);
            jobs = startJobs(services);
            const seeded = await seedChain(fresh);
            if (stopped) break;
            Object.assign(info, { demo: { ...seeded }, chain_rebuilt: true, chain_pid: fresh.pid, chain_restarts: info.chain_restarts + 1, chain_restarted_at: new Date().toISOString() });
            writeInfo();
            unavailable = null;
            supervise(fresh);
            logger.warn("local chain restarted: contracts deployed again, chain-derived data rebuilt, demo seeded again", { restarts: info.chain_restarts, chain_pid: fresh.pid });
            notice([`✓ The local chain is back on ${fresh.rpcUrl} (restart ${info.chain_restarts}): marketplace ${info.contracts.marketplace}, chain-derived data rebuilt, demo seeded again. Rentals and balances made on the chain before are gone.`]);
            return;
          } catch (error) {
            logger.error("local chain restart failed: trying again", { attempt, message: (error as Error).message });
            await jobs.stop();
            await fresh?.stop();
            await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5))));
          }
        }
      });
    };
    supervise(chain!);
    return { info, services, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The local chain starts fresh on every start (a Hardhat node keeps no state on disk), while the
 * tables persist. Whatever the tables derive from the chain (credentials, the indexer cursor) is
 * therefore checked against the chain's identity, the block that holds the marketplace deployment,
 * and rebuilt when it differs. Everything created off-chain (keys, agents, jobs) is kept.
 */
async function reconcileChain(services: Services, current: { chainId: number; marketplace: string; blockHash: Hex }, logger: Logger): Promise<boolean> {
  const key = { pk: "chain", sk: "deployment" };
  const stored = await services.tables.doc.send(new GetCommand({ TableName: services.tables.name("meta"), Key: key }));
  const same =
    stored.Item?.chain_id === current.chainId && stored.Item?.marketplace === current.marketplace && stored.Item?.block_hash === current.blockHash;
  if (same) return false;
  const rebuilt = stored.Item !== undefined;
  if (rebuilt) {
    for (const table of CHAIN_DERIVED_TABLES) await clearTable(services.tables, table);
    // The indexer's cursors: a fresh chain is read again from its deployment block.
    const cursors = await services.tables.doc.send(new QueryCommand({ TableName: services.tables.name("meta"), KeyConditionExpression: "pk = :c", ExpressionAttributeValues: { ":c": "cursor" } }));
    for (const item of cursors.Items ?? []) await services.tables.doc.send(new DeleteCommand({ TableName: services.tables.name("meta"), Key: { pk: item.pk, sk: item.sk } }));
    // And their undo journals: the old chain's ranges are nothing to undo on the new one.
    await clearJournals(services.tables);
    logger.info("fresh chain detected: chain-derived tables cleared for rebuild", { tables: CHAIN_DERIVED_TABLES });
  }
  await services.tables.doc.send(
    new PutCommand({
      TableName: services.tables.name("meta"),
      Item: { ...key, chain_id: current.chainId, marketplace: current.marketplace, block_hash: current.blockHash, recorded_at: new Date().toISOString() },
    }),
  );
  return rebuilt;
}

/** One stack per data folder: a lock file with the owner's pid, taken atomically. A stale lock (its
 * process is gone) is taken over. */
function acquireLock(dataDir: string): () => void {
  const lockFile = join(dataDir, "stack.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSync(lockFile, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new StackStartError(
          `The local stack is already running (pid ${owner}) with data in ${dataDir}. Stop it with Ctrl-C in its terminal or \`kill ${owner}\`, or start another with LOCAL_DATA_DIR set to another folder and other ports.`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new StackStartError(`Could not take the lock ${lockFile}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function readStackInfo(dataDir: string): StackInfo | null {
  const file = join(resolve(dataDir), "stack.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as StackInfo) : null;
}
