// `npm run deploy -- --network <name>` (scripts/deploy.ts), run as an operator runs it, against a second
// Hardhat node started as Base Sepolia (chain id 84532, a block every 2 s, finality depth 10):
// - bad input fails with a plain message and sends nothing: an unknown network, a node of another chain
//   than the profile's, a missing or malformed deployer key (never repeated), canonical registries
//   missing from the node;
// - bad token input fails the same way: a --usdc that is no address, has no code or answers no EIP-712
//   domain, --usdc beside --without-tokens, an AUTHORITY_PRIVATE_KEY that is not the authority's;
// - the rehearsal: the command deploys the marketplace, its own ERC-8004 registries and the token
//   marketplace (taking a USDC stand-in named with --usdc, allowed with the authority's key), and writes
//   the deployment record; the API is configured from that record exactly as the cloud app configures it
//   (deploymentEnvironment, which stacks/common.ts uses), with API_URL set and no development switch
//   (ALLOW_PRIVATE_AGENT_HOSTS off); a creator's per-task agent is published, rented, run over HTTP,
//   charged on the chain, and its run receipt verifies against the contract.
// The storage is the emulators (the cloud's tables and queues are AWS's), and the run log batches every
// 2 s instead of every minute, so the receipt comes within the test's time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, createWalletClient, getAddress, http, keccak256, parseEther, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deploymentEnvironment, NETWORKS, type NetworkDeployment } from "@agent-rental/core/networks";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi, localUsdcBytecode } from "@agent-rental/core/tokens";
import { DEV_ACCOUNTS, startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import { startModelServer, type ModelServer } from "../../local/model-server.ts";
import { approveCreator, publishAgent } from "../../local/publish.ts";
import { buildApp } from "../../src/api/app.ts";
import { apiUrl, closeApiServer, listenApi, type ApiFetch } from "../../src/api/server.ts";
import { chainFor } from "../../src/chain/client.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { loadConfig } from "../../src/config.ts";
import { createServices, type Services } from "../../src/services.ts";
import { ensureTables } from "../../src/adapters/tables/dynamo.ts";
import { createQueue, ensureRegistrationQueues, ensureSettlementQueue } from "../../src/adapters/queue/sqs.ts";
import { createBlobs, ensureBucket } from "../../src/adapters/blobs/s3.ts";
import { createLogger } from "../../src/logger.ts";
import { generateSigningKey } from "../../src/auth/jwt.ts";
import { runJob, startJobs, type JobScheduler } from "../../src/jobs.ts";
import type { SandboxPool } from "../../src/adapters/sandbox/port.ts";
import { createThreadedSandboxPool } from "../../src/adapters/sandbox/threaded.ts";
import { RUNTIME_DIR, RUNTIME_ENTRY } from "../../src/runtime/location.ts";
import type { AgentRunPayload } from "../../src/runtime/payload.ts";
import { SANDBOX_MEMORY_MB } from "../../src/execution/limits.ts";
import { createKey, signIn } from "../support/auth.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const outDir = mkdtempSync(join(tmpdir(), "deploy-command-"));
const BASE_SEPOLIA = NETWORKS["base-sepolia"];
let node: ChainNode;

/** Runs the deploy command with `args` and exactly the environment variables it reads from `env`. */
function deployCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { RPC_URL: _r, DEPLOYER_PRIVATE_KEY: _d, AUTHORITY_ADDRESS: _a, FEE_RECIPIENT: _f, AUTHORITY_PRIVATE_KEY: _k, ...inherited } = process.env;
  const child = spawn("npm", ["run", "--silent", "deploy", "--", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...inherited, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

const deployer = DEV_ACCOUNTS[0];

/** stacks/common.ts's chainEnvironment() with `cwd` as the checkout and NETWORK set, in a process of its own. */
function cloudChainEnvironment(cwd: string, network: string): Promise<Record<string, string>> {
  const script = `import(${JSON.stringify(join(root, "stacks/common.ts"))}).then((m) => process.stdout.write(JSON.stringify(m.chainEnvironment())))`;
  const { MARKETPLACE_ADDRESS: _m, IDENTITY_REGISTRY_ADDRESS: _i, REPUTATION_REGISTRY_ADDRESS: _r, ERC8004_DEPLOY_BLOCK: _e, TOKEN_MARKETPLACE_ADDRESS: _t, TOKEN_MARKETPLACE_DEPLOY_BLOCK: _tb, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), "--input-type=module", "-e", script], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...inherited, NETWORK: network } });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(stdout) as Record<string, string>) : reject(new Error(`stacks/common.ts failed: ${stderr}`)))));
}

/** A USDC stand-in on the node (Base Sepolia's own USDC is not there): what --usdc names. */
let usdc: Address;
const rpc = (method: string, params: unknown[]) => fetch(node.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });

beforeAll(async () => {
  node = await startChain({ port: await freePort(), chainId: BASE_SEPOLIA.chainId, blockTimeMs: BASE_SEPOLIA.blockTimeMs });
  const minter = DEV_ACCOUNTS[1];
  const chain = chainFor(BASE_SEPOLIA.chainId, node.rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(minter.privateKey), chain, transport: http(node.rpcUrl) });
  const hash = await wallet.deployContract({ abi: localUsdcAbi, bytecode: localUsdcBytecode, args: [] });
  usdc = getAddress((await createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 200 }).waitForTransactionReceipt({ hash })).contractAddress!);
}, 120_000);

afterAll(async () => {
  await node?.stop();
  rmSync(outDir, { recursive: true, force: true });
});

describe("npm run deploy, bad input", () => {
  const nonce = () => createPublicClient({ transport: http(node.rpcUrl) }).getTransactionCount({ address: deployer.address });

  it("refuses an unknown network, naming the known ones", async () => {
    const result = await deployCommand(["--network", "base-goerli"], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: deployer.privateKey });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown network "base-goerli": use one of local, base-sepolia, base, ethereum-sepolia, ethereum.');
  }, 60_000);

  it("refuses a node whose chain id is not the profile's, before sending anything", async () => {
    const before = await nonce();
    const result = await deployCommand(["--network", "base", "--deploy-registries"], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: deployer.privateKey });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`serves chain 84532, but base is chain 8453: check RPC_URL and --network.`);
    expect(await nonce()).toBe(before);
  }, 60_000);

  it("refuses a missing deployer key, and a malformed one without repeating it", async () => {
    const missing = await deployCommand(["--network", "base-sepolia"], { RPC_URL: node.rpcUrl });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("DEPLOYER_PRIVATE_KEY is not set");
    const secretish = `0x${"ab".repeat(31)}`;
    const malformed = await deployCommand(["--network", "base-sepolia"], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: secretish });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain("DEPLOYER_PRIVATE_KEY is not a private key: it must be 0x followed by 64 hex digits.");
    expect(malformed.stderr + malformed.stdout).not.toContain(secretish.slice(2));
    const noRpc = await deployCommand(["--network", "base-sepolia"], { DEPLOYER_PRIVATE_KEY: deployer.privateKey });
    expect(noRpc.code).toBe(1);
    expect(noRpc.stderr).toContain("RPC_URL is not set");
  }, 60_000);

  it("refuses to name canonical ERC-8004 registries the node does not hold, before sending anything", async () => {
    const before = await nonce();
    const result = await deployCommand(["--network", "base-sepolia"], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: deployer.privateKey });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`ERC-8004's identity registry ${BASE_SEPOLIA.erc8004!.identityRegistry} has no code`);
    expect(result.stderr).toContain("pass --deploy-registries");
    expect(result.stderr + result.stdout).not.toContain(deployer.privateKey.slice(2));
    expect(await nonce()).toBe(before);
  }, 60_000);
});

describe("npm run deploy, bad token input", () => {
  const nonce = () => createPublicClient({ transport: http(node.rpcUrl) }).getTransactionCount({ address: deployer.address });
  const run = (args: string[], env: Record<string, string> = {}) => deployCommand(["--network", "base-sepolia", "--deploy-registries", ...args], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: deployer.privateKey, ...env });

  it("refuses each before sending anything, naming what to change, never repeating a key", async () => {
    const before = await nonce();
    // Base Sepolia's USDC is not on this node: the command says so, and how to go on.
    const missing = await run([]);
    expect(missing.stderr).toContain(`The token ${BASE_SEPOLIA.usdc} has no code on the node at ${new URL(node.rpcUrl).origin}: check RPC_URL, or name the token with --usdc (or deploy none with --without-tokens).`);
    const notAddress = await run(["--usdc", "usdc"]);
    expect(notAddress.stderr).toContain('--usdc "usdc" is not a 0x-prefixed 20-byte hex address.');
    const noCode = await run(["--usdc", `0x${"de".repeat(20)}`]);
    expect(noCode.stderr).toContain(`The token ${getAddress(`0x${"de".repeat(20)}`)} has no code`);
    expect(noCode.stderr).toContain("check RPC_URL and --usdc.");
    const both = await run(["--usdc", usdc, "--without-tokens"]);
    expect(both.stderr).toContain("--usdc and --without-tokens exclude each other");
    // Code that is no token: it answers nothing a token does.
    const notToken = getAddress(`0x${"ad".repeat(20)}`);
    await rpc("hardhat_setCode", [notToken, "0x00"]);
    const noDomain = await run(["--usdc", notToken]);
    expect(noDomain.stderr).toContain(`The token ${notToken} does not answer symbol(), decimals() and its EIP-712 domain`);
    const otherKey = generatePrivateKey();
    const wrongKey = await run(["--usdc", usdc], { AUTHORITY_ADDRESS: privateKeyToAccount(generatePrivateKey()).address, AUTHORITY_PRIVATE_KEY: otherKey });
    expect(wrongKey.stderr).toContain("AUTHORITY_PRIVATE_KEY is not the key of the authority");
    const malformedKey = await run(["--usdc", usdc], { AUTHORITY_PRIVATE_KEY: `0x${"cd".repeat(31)}` });
    expect(malformedKey.stderr).toContain("AUTHORITY_PRIVATE_KEY is not a private key: it must be 0x followed by 64 hex digits.");
    for (const result of [missing, notAddress, noCode, both, noDomain, wrongKey, malformedKey]) {
      expect(result.code).toBe(1);
      expect(result.stderr + result.stdout).not.toContain(otherKey.slice(2));
      expect(result.stderr + result.stdout).not.toContain(deployer.privateKey.slice(2));
      expect(result.stderr + result.stdout).not.toContain("cd".repeat(31));
    }
    expect(await nonce()).toBe(before);
  }, 120_000);
});

describe("npm run deploy, the rehearsal on a node started as Base Sepolia", () => {
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("deploys, writes the record the cloud app reads, and the API configured from it charges a per-task run whose receipt verifies", async () => {
    // The protocol authority: a key of its own (the settler's), funded; the deployer pays for the deployment.
    const authorityKey = generatePrivateKey();
    const authority = privateKeyToAccount(authorityKey);
    const testClient = { request: (method: string, params: unknown[]) => fetch(node.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }) };
    const fund = (address: string) => testClient.request("hardhat_setBalance", [address, toHex(parseEther("100"))]);
    await fund(authority.address);

    // Written where a checkout's stacks/common.ts reads it: <cwd>/stacks/deployments/<network>.json.
    const out = join(outDir, "stacks/deployments/base-sepolia.json");
    const result = await deployCommand(["--network", "base-sepolia", "--deploy-registries", "--usdc", usdc, "--out", out], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: deployer.privateKey, AUTHORITY_ADDRESS: authority.address, AUTHORITY_PRIVATE_KEY: authorityKey });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(deployer.privateKey.slice(2));
    expect(result.stdout + result.stderr).not.toContain(authorityKey.slice(2));
    expect(result.stdout).toContain(`Written to   ${out}`);
    const deployment = JSON.parse(readFileSync(out, "utf8")) as NetworkDeployment;
    expect(deployment).toMatchObject({ network: "base-sepolia", chain_id: 84532, authority: authority.address, fee_recipient: deployer.address, erc8004: { deployed_here: true } });
    const client = createPublicClient({ chain: chainFor(84532, node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 200 });
    expect((await client.getCode({ address: deployment.marketplace.address }))?.length).toBeGreaterThan(2);
    expect(await client.readContract({ address: deployment.marketplace.address, abi: marketplaceAbi, functionName: "authority" })).toBe(authority.address);
    // The token marketplace, its authority the service's, taking the named USDC as read from its contract,
    // allowed by the authority's key.
    expect(deployment.token_marketplace).toMatchObject({ tokens: [{ address: usdc, symbol: "USDC", name: "USD Coin", version: "2", decimals: 6, eip3009: true, allowed: true }] });
    const tokenMarket = deployment.token_marketplace!.address;
    expect(await client.readContract({ address: tokenMarket, abi: tokenMarketplaceAbi, functionName: "authority" })).toBe(authority.address);
    expect((await client.readContract({ address: tokenMarket, abi: tokenMarketplaceAbi, functionName: "tokenTerms", args: [usdc] }))[0]).toBe(true);
    expect(result.stdout).toContain(`Tokens       ${tokenMarket}  (block ${deployment.token_marketplace!.deploy_block}), taking USDC ${usdc} (EIP-3009: x402)`);
    expect(result.stdout).not.toContain("Then ");

    // The chain settings the cloud app gives its functions: stacks/common.ts's chainEnvironment(), run as
    // `sst deploy` runs it (NETWORK set, from the checkout that holds the record).
    const chainEnv = await cloudChainEnvironment(outDir, "base-sepolia");
    expect(chainEnv).toEqual(deploymentEnvironment(deployment));
    expect(chainEnv).toMatchObject({ NETWORK: "base-sepolia", CHAIN_ID: "84532", CHAIN_BLOCK_TIME_MS: "2000", MARKETPLACE_ADDRESS: deployment.marketplace.address, TOKEN_MARKETPLACE_ADDRESS: tokenMarket });

    // The API as the cloud configures it: those chain settings, API_URL, no development switch.
    const apiPort = await freePort();
    const models: ModelServer = await startModelServer({ apiKey: "sk-rehearsal" });
    cleanups.push(() => models.stop());
    const infra = sharedInfrastructure();
    const suffix = randomBytes(4).toString("hex");
    const queue = createQueue({ region: "us-east-1", endpoint: infra.awsEndpoint });
    const [registration, settlementQueue] = await Promise.all([ensureRegistrationQueues(queue, { queue: `registration-${suffix}`, dlq: `registration-dlq-${suffix}` }), ensureSettlementQueue(queue, `settlement-${suffix}`)]);
    const env: Record<string, string> = {
      STAGE: "local",
      TABLE_PREFIX: `r${suffix}-`,
      DYNAMODB_ENDPOINT: infra.dynamoEndpoint,
      AWS_ENDPOINT: infra.awsEndpoint,
      REGISTRATION_QUEUE_URL: registration.queueUrl,
      REGISTRATION_DLQ_URL: registration.dlqUrl,
      SETTLEMENT_QUEUE_URL: settlementQueue,
      BLOB_BUCKET: `rehearsal-${suffix}`,
      RPC_URL: node.rpcUrl,
      ...chainEnv,
      API_URL: `http://127.0.0.1:${apiPort}`,
      RUN_LOG_INTERVAL_MS: "2000",
      JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
      CARD_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
      OAUTH_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
      LOCAL_MASTER_KEY: randomBytes(32).toString("base64"),
      AUTHORITY_PRIVATE_KEY: authorityKey,
      PROVIDER_A_BASE_URL: models.openaiBaseUrl,
      LOG_LEVEL: "silent",
    };
    const config = loadConfig(env);
    expect(config).toMatchObject({ CHAIN_ID: 84532, CHAIN_BLOCK_TIME_MS: 2000, ALLOW_PRIVATE_AGENT_HOSTS: false, keyPrefix: "svc_test_" });
    expect(config.network).toMatchObject({ name: "base-sepolia", finalityDepth: 10 });
    expect(config.network.finalityDepth).toBeGreaterThan(0);
    expect(config.TOKENS).toEqual([{ address: usdc, symbol: "USDC", name: "USD Coin", version: "2", decimals: 6, eip3009: true }]);
    // The model provider stands in for a public one (api.openai.com in the cloud): the test's network lets
    // the sandbox reach exactly its host, as the harness lets its connected agent be reached
    // (test/support/connected-agent.ts, guardOptions), while the service's own rules stay the cloud's.
    const modelHost = new URL(models.url).hostname;
    const sandbox = (): SandboxPool => {
      const pool = createThreadedSandboxPool({ warm: 1, maxWarm: 2, allowFsRead: [RUNTIME_DIR], preload: RUNTIME_ENTRY, memoryMb: SANDBOX_MEMORY_MB });
      return {
        run: (spec, onEvent) => {
          const payload = spec.payload as AgentRunPayload;
          return pool.run({ ...spec, payload: { ...payload, egress: { ...payload.egress, allowHosts: [modelHost] } } }, onEvent);
        },
        stats: () => pool.stats(),
        close: () => pool.close(),
      };
    };
    const services: Services = createServices(config, { logger: createLogger(config.LOG_LEVEL), sandbox });
    expect(services.egressRules).toEqual({ allowPrivate: false, allowHosts: [] });
    cleanups.push(() => services.close());
    await Promise.all([ensureTables(services.tables, config.TABLE_PREFIX), ensureBucket(createBlobs({ region: config.AWS_REGION, bucket: config.BLOB_BUCKET, endpoint: infra.awsEndpoint }).client, config.BLOB_BUCKET)]);
    const app = buildApp(services);
    const server = await listenApi(app.fetch as ApiFetch, apiPort);
    cleanups.push(() => closeApiServer(server));
    const jobs: JobScheduler = startJobs(services);
    cleanups.push(() => jobs.stop());
    const base = apiUrl(server);
    // The currencies the API offers: ETH on the Marketplace, the deployed USDC on the token marketplace.
    const currencies = (await (await fetch(`${base}/v1/currencies`)).json()) as { currencies: { symbol: string; address: string | null; contract: string; x402: boolean }[] };
    expect(currencies.currencies.map(({ symbol, address, contract, x402 }) => ({ symbol, address, contract, x402 }))).toEqual([
      { symbol: "ETH", address: null, contract: deployment.marketplace.address, x402: false },
      { symbol: "USDC", address: usdc, contract: tokenMarket, x402: true },
    ]);

    // A creator publishes a per-task agent; a renter deposits for five runs and gets an API key.
    const creatorKey = generatePrivateKey();
    const creator = privateKeyToAccount(creatorKey);
    const renterKey = generatePrivateKey();
    const renter = privateKeyToAccount(renterKey);
    await Promise.all([fund(creator.address), fund(renter.address)]);
    await approveCreator(services, creator.address, "Rehearsal Creator");
    const price = parseEther("0.001");
    const agent = await publishAgent(services, creatorKey, {
      name: "rehearsal-writer",
      category: "coding",
      description: "Writes a unit test.",
      model: { provider: "provider_a", model: "demo-model" },
      system_prompt: "Write one unit test.",
      input_schema: { type: "object", properties: { source: { type: "string" } }, required: ["source"] },
      output_schema: { type: "string" },
    }, { rental: "per_query", priceWei: price, providerKey: "sk-rehearsal" });
    const target = { rpcUrl: node.rpcUrl, chain: services.chain.chain, marketplace: deployment.marketplace.address };
    await writeMarketplace(target, renterKey, "purchasePerQuery", [agent.onChainId], price * 5n);
    const key = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
    expect(key).toMatch(/^svc_test_/);
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    // The index follows the chain INDEXER_CONFIRMATIONS blocks behind the head, as in the cloud.
    await until("the rental to be indexed", async () => {
      await runJob(services, "indexer");
      const listed = (await (await fetch(`${base}/v1/credentials`, { headers: auth })).json()) as { total: number };
      return listed.total === 1;
    }, 60_000, 500);

    // The run: charged on the chain before its output is released.
    const res = await fetch(`${base}/v1/execute`, { method: "POST", headers: auth, body: JSON.stringify({ agent_id: agent.agent_id, task: "Write a test", input: { source: "export const one = () => 1;" } }) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const run = JSON.parse(text) as { run_id: string; status: string; settlement?: string; duration_ms: number };
    expect(run, text).toMatchObject({ status: "completed" });
    const [balance] = await client.readContract({ address: deployment.marketplace.address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [agent.onChainId, renter.address] });
    // Charged once (or, with the answer pending, charged within the settlement pass).
    await until("the charge", async () => (await client.readContract({ address: deployment.marketplace.address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [agent.onChainId, renter.address] }))[0] === price * 4n, 60_000, 500);
    expect(balance === price * 4n || run.settlement === "pending").toBe(true);

    // Its receipt, once the run log has batched it, verifies against the contract.
    type Detail = { settlement: string; settlement_tx: Hex | null; cost_wei: number; duration_ms: number; receipt: null | { batch_index: number; proof: Hex[] } };
    let detail: Detail | undefined;
    await until("the run's receipt", async () => {
      detail = (await (await fetch(`${base}/v1/runs/${run.run_id}`, { headers: auth })).json()) as Detail;
      return detail.receipt !== null;
    }, 90_000, 500);
    expect(detail!.settlement).toBe("settled");
    expect((await client.getTransactionReceipt({ hash: detail!.settlement_tx! })).status).toBe("success");
    const fields = { runId: keccak256(toHex(run.run_id)), listingId: agent.onChainId, renter: renter.address, status: 0, costWei: price, durationMs: BigInt(detail!.duration_ms) };
    expect(await client.readContract({ address: deployment.marketplace.address, abi: marketplaceAbi, functionName: "verifyRunReceipt", args: [BigInt(detail!.receipt!.batch_index), fields, detail!.receipt!.proof] })).toBe(true);
  }, 240_000);

  it("without the authority's key, records the token as not allowed yet and prints the call that allows it", async () => {
    const authorityKey = generatePrivateKey();
    const authority = privateKeyToAccount(authorityKey);
    await rpc("hardhat_setBalance", [authority.address, toHex(parseEther("1"))]);
    const out = join(outDir, "waiting/base-sepolia.json");
    const result = await deployCommand(["--network", "base-sepolia", "--deploy-registries", "--usdc", usdc, "--out", out], { RPC_URL: node.rpcUrl, DEPLOYER_PRIVATE_KEY: deployer.privateKey, AUTHORITY_ADDRESS: authority.address });
    expect(result.code, result.stderr).toBe(0);
    const deployment = JSON.parse(readFileSync(out, "utf8")) as NetworkDeployment;
    const tokenMarket = deployment.token_marketplace!.address;
    expect(deployment.token_marketplace!.tokens).toMatchObject([{ address: usdc, allowed: false }]);
    expect(result.stdout).toContain(`(not allowed yet)`);
    const then = new RegExp(`Then {9}the authority ${authority.address} sends to ${tokenMarket} setTokenAllowed\\(${usdc}, true\\): data (0x[0-9a-f]+)`).exec(result.stdout);
    expect(then, result.stdout).not.toBeNull();
    const chain = chainFor(BASE_SEPOLIA.chainId, node.rpcUrl);
    const client = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 200 });
    expect((await client.readContract({ address: tokenMarket, abi: tokenMarketplaceAbi, functionName: "tokenTerms", args: [usdc] }))[0]).toBe(false);
    // The authority sends exactly the printed data: the token is allowed.
    const wallet = createWalletClient({ account: authority, chain, transport: http(node.rpcUrl) });
    const hash = await wallet.sendTransaction({ to: tokenMarket, data: then![1] as Hex });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect((await client.readContract({ address: tokenMarket, abi: tokenMarketplaceAbi, functionName: "tokenTerms", args: [usdc] }))[0]).toBe(true);
  }, 120_000);
});
