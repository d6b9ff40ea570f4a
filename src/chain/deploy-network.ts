// Deploys the marketplace to a named network (packages/core/src/networks.ts) and names the ERC-8004
// registries the service uses there: the network's canonical deployments, or registries of its own when
// asked (a network without them, a rehearsal node); and the token marketplace beside it, taking the
// network's USDC (or a token the operator names). What `npm run deploy` runs (scripts/deploy.ts).
// Every input is checked before anything is sent, and a bad one fails with a DeployInputError whose
// message says what to change; the deployer's key never appears in one.
import { createPublicClient, erc20Abi, getAddress, http, isAddress, parseAbi, zeroAddress, zeroHash, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { isNetworkName, NETWORK_NAMES, NETWORKS, usdcTokenOf, type NetworkDeployment, type NetworkProfile } from "@agent-rental/core/networks";

export type { NetworkDeployment } from "@agent-rental/core/networks";
import { chainFor } from "./client.ts";
import { configSchema } from "../config.ts";
import { allowToken, deployErc8004Registries, deployMarketplace, deployTokenMarketplaceAlone } from "./deploy.ts";

export interface DeployToNetworkParameters {
  network: string | undefined;
  rpcUrl: string | undefined;
  deployerPrivateKey: string | undefined;
  /** The protocol authority (default: the deployer's address). */
  authority?: string | undefined;
  /** The receiver of protocol fees (default: the deployer's address). */
  feeRecipient?: string | undefined;
  /** Deploy ERC-8004 registries of its own instead of naming the network's canonical ones. */
  deployRegistries?: boolean;
  /** The token the token marketplace takes, instead of the network's USDC (a network without one, a
   * rehearsal node). */
  usdc?: string | undefined;
  /** Deploy no token marketplace. */
  withoutTokens?: boolean;
  /** The authority's key, when the authority is not the deployer: used once, to allow the token on the
   * token marketplace (setTokenAllowed is the authority's). Without it the record says the token is not
   * allowed yet and the operator is told the call to send. */
  authorityPrivateKey?: string | undefined;
  /** Progress lines for the operator. */
  progress?: (line: string) => void;
}

/** Bad input to the deploy command: the message says what to change. */
export class DeployInputError extends Error {
  override name = "DeployInputError";
}

/** The network profile a name stands for, or a DeployInputError naming the known ones. */
export function networkNamed(name: string | undefined): NetworkProfile {
  if (!name) throw new DeployInputError(`No network given: pass --network <name>, one of ${NETWORK_NAMES.join(", ")}.`);
  if (!isNetworkName(name)) throw new DeployInputError(`Unknown network "${name}": use one of ${NETWORK_NAMES.join(", ")}.`);
  return NETWORKS[name];
}

function addressSetting(name: string, value: string | undefined, fallback: Address): Address {
  if (value === undefined || value === "") return fallback;
  if (!isAddress(value)) throw new DeployInputError(`${name} "${value}" is not a 0x-prefixed 20-byte hex address.`);
  return getAddress(value);
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;
const domainAbi = parseAbi(["function version() view returns (string)", "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)"]);

type PlannedToken = NonNullable<NetworkDeployment["token_marketplace"]>["tokens"][number];

/**
 * The token the token marketplace will take, read from its contract before anything is sent: its code,
 * name, symbol, decimals and EIP-712 version (what x402 clients sign under), and whether it implements
 * EIP-3009 (`authorizationState` answers). The network's USDC unless `usdc` names another; none (no token
 * marketplace) on a network without a USDC when none is named, or with `withoutTokens`.
 */
async function planToken(client: PublicClient, profile: NetworkProfile, params: DeployToNetworkParameters, where: string): Promise<Omit<PlannedToken, "allowed"> | null> {
  if (params.withoutTokens) {
    if (params.usdc) throw new DeployInputError("--usdc and --without-tokens exclude each other: name a token, or deploy no token marketplace.");
    return null;
  }
  if (params.usdc !== undefined && !isAddress(params.usdc)) throw new DeployInputError(`--usdc "${params.usdc}" is not a 0x-prefixed 20-byte hex address.`);
  const address = params.usdc ? getAddress(params.usdc) : profile.usdc;
  if (!address) return null;
  const code = await client.getCode({ address });
  if (!code || code === "0x") throw new DeployInputError(`The token ${address} has no code on the node at ${where}: check RPC_URL${params.usdc ? " and --usdc" : `, or name the token with --usdc (or deploy none with --without-tokens)`}.`);
  let read: [string, string, number, string];
  try {
    const [symbol, decimals, domain] = await Promise.all([
      client.readContract({ address, abi: erc20Abi, functionName: "symbol" }),
      client.readContract({ address, abi: erc20Abi, functionName: "decimals" }),
      // The EIP-712 domain x402 clients sign under: EIP-5267's eip712Domain() where the token has it,
      // else name() and version(), as Circle's USDC answers.
      client.getEip712Domain({ address }).then(
        ({ domain }) => [domain.name ?? "", domain.version ?? ""] as const,
        () => Promise.all([client.readContract({ address, abi: erc20Abi, functionName: "name" }), client.readContract({ address, abi: domainAbi, functionName: "version" })]),
      ),
    ]);
    read = [domain[0], symbol, decimals, domain[1]];
  } catch {
    throw new DeployInputError(`The token ${address} does not answer symbol(), decimals() and its EIP-712 domain (eip712Domain(), or name() and version() as USDC does): the token marketplace takes such a token only.`);
  }
  const [name, symbol, decimals, version] = read;
  // The service's own rule for a token (TOKENS in src/config.ts), so the record configures it.
  if (!configSchema.shape.TOKENS.safeParse(JSON.stringify([{ address, symbol, name, version, decimals }])).success) {
    throw new DeployInputError(`The token ${address} answers a symbol, name, version or decimals the service cannot show (symbol: 1 to 16 of A-Z a-z 0-9 . $ -; decimals at most 36).`);
  }
  const expected = !params.usdc ? usdcTokenOf(profile) : null;
  if (expected && expected.name !== name) {
    throw new DeployInputError(`${profile.label}'s USDC at ${address} answers name() "${name}", not "${expected.name}": the node at ${where} is not ${profile.label} as the service knows it.`);
  }
  const eip3009 = await client.readContract({ address, abi: domainAbi, functionName: "authorizationState", args: [zeroAddress, zeroHash] }).then(() => true, () => false);
  return { address, symbol, name, version, decimals, eip3009 };
}

/**
 * Checks the inputs and the node (its chain id against the profile's, the deployer's balance, the
 * canonical registries' code, the token's contract), then deploys `Marketplace` (and, when asked,
 * ERC-8004's registries) and `TokenMarketplace` with the network's USDC allowed, and returns the
 * deployment record.
 */
export async function deployToNetwork(params: DeployToNetworkParameters): Promise<NetworkDeployment> {
  const progress = params.progress ?? (() => {});
  const profile = networkNamed(params.network);
  if (!params.rpcUrl) throw new DeployInputError(`RPC_URL is not set: give the URL of a node of ${profile.label} (chain ${profile.chainId}).`);
  let rpcUrl: URL;
  try {
    rpcUrl = new URL(params.rpcUrl);
  } catch {
    throw new DeployInputError("RPC_URL is not a URL.");
  }
  if (!params.deployerPrivateKey) throw new DeployInputError("DEPLOYER_PRIVATE_KEY is not set: give the private key of the account that pays for the deployment (0x and 64 hex digits).");
  // The key's value is never repeated in a message.
  if (!PRIVATE_KEY.test(params.deployerPrivateKey)) throw new DeployInputError("DEPLOYER_PRIVATE_KEY is not a private key: it must be 0x followed by 64 hex digits.");
  const deployerKey = params.deployerPrivateKey as Hex;
  const deployer = privateKeyToAccount(deployerKey).address;
  const authority = addressSetting("AUTHORITY_ADDRESS", params.authority, deployer);
  const feeRecipient = addressSetting("FEE_RECIPIENT", params.feeRecipient, deployer);
  if (params.authorityPrivateKey !== undefined && params.authorityPrivateKey !== "") {
    if (!PRIVATE_KEY.test(params.authorityPrivateKey)) throw new DeployInputError("AUTHORITY_PRIVATE_KEY is not a private key: it must be 0x followed by 64 hex digits.");
    if (privateKeyToAccount(params.authorityPrivateKey as Hex).address !== authority) throw new DeployInputError(`AUTHORITY_PRIVATE_KEY is not the key of the authority ${authority} (AUTHORITY_ADDRESS).`);
  }
  if (!params.deployRegistries && !profile.erc8004) {
    throw new DeployInputError(`${profile.label} has no canonical ERC-8004 registries: pass --deploy-registries to deploy the service's own.`);
  }

  // Only the URL's origin is named in messages: a hosted node's path or query may carry an access token.
  const where = rpcUrl.origin;
  const chain = chainFor(profile.chainId, params.rpcUrl);
  const client = createPublicClient({ chain, transport: http(params.rpcUrl, { timeout: 15_000, retryCount: 1 }) });
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch {
    throw new DeployInputError(`The node at ${where} did not answer eth_chainId: check RPC_URL.`);
  }
  if (chainId !== profile.chainId) {
    throw new DeployInputError(`The node at ${where} serves chain ${chainId}, but ${profile.name} is chain ${profile.chainId}: check RPC_URL and --network.`);
  }
  if ((await client.getBalance({ address: deployer })) === 0n) {
    throw new DeployInputError(`The deployer ${deployer} holds nothing on ${profile.label}: fund it to pay for the deployment's gas.`);
  }
  if (!params.deployRegistries && profile.erc8004) {
    for (const [what, address] of [["identity", profile.erc8004.identityRegistry], ["reputation", profile.erc8004.reputationRegistry]] as const) {
      const code = await client.getCode({ address });
      if (!code || code === "0x") throw new DeployInputError(`ERC-8004's ${what} registry ${address} has no code on the node at ${where}: pass --deploy-registries to deploy the service's own.`);
    }
  }

  const token = await planToken(client, profile, params, where);
  // Who allows the token: the deployer when it is the authority, else the authority's key when given.
  const allowerKey = authority === deployer ? deployerKey : params.authorityPrivateKey ? (params.authorityPrivateKey as Hex) : null;
  if (token && allowerKey && allowerKey !== deployerKey && (await client.getBalance({ address: authority })) === 0n) {
    throw new DeployInputError(`The authority ${authority} holds nothing on ${profile.label}: fund it to pay for allowing the token.`);
  }

  progress(`deploying the marketplace to ${profile.label} (chain ${profile.chainId}) from ${deployer}`);
  const marketplace = await deployMarketplace({ rpcUrl: params.rpcUrl, chain, deployerPrivateKey: deployerKey, authority, feeRecipient });
  progress(`marketplace ${marketplace.address} in block ${marketplace.blockNumber}`);
  let erc8004: NetworkDeployment["erc8004"];
  if (params.deployRegistries) {
    progress("deploying ERC-8004's identity and reputation registries");
    const registries = await deployErc8004Registries({ rpcUrl: params.rpcUrl, chain, deployerPrivateKey: deployerKey });
    erc8004 = { identity_registry: getAddress(registries.identityRegistry), reputation_registry: getAddress(registries.reputationRegistry), deploy_block: registries.blockNumber.toString(), deployed_here: true };
  } else {
    const canonical = profile.erc8004!;
    erc8004 = { identity_registry: getAddress(canonical.identityRegistry), reputation_registry: getAddress(canonical.reputationRegistry), deploy_block: marketplace.blockNumber.toString(), deployed_here: false };
  }
  let tokenMarketplace: NetworkDeployment["token_marketplace"];
  if (token) {
    progress(`deploying the token marketplace for ${token.symbol} (${token.address})`);
    const market = await deployTokenMarketplaceAlone({ rpcUrl: params.rpcUrl, chain, deployerPrivateKey: deployerKey, authority, feeRecipient });
    progress(`token marketplace ${market.address} in block ${market.blockNumber}`);
    if (allowerKey) {
      await allowToken({ rpcUrl: params.rpcUrl, chain, authorityPrivateKey: allowerKey }, market.address, token.address);
      progress(`${token.symbol} allowed on it by the authority`);
    }
    tokenMarketplace = { address: getAddress(market.address), deploy_block: market.blockNumber.toString(), transaction: market.transactionHash, tokens: [{ ...token, allowed: allowerKey !== null }] };
  } else {
    progress(params.withoutTokens ? "no token marketplace (--without-tokens)" : `no token marketplace: ${profile.label} has no USDC the service knows (name one with --usdc)`);
  }
  return {
    network: profile.name,
    chain_id: profile.chainId,
    marketplace: { address: getAddress(marketplace.address), deploy_block: marketplace.blockNumber.toString(), transaction: marketplace.transactionHash },
    authority,
    fee_recipient: feeRecipient,
    erc8004,
    ...(tokenMarketplace ? { token_marketplace: tokenMarketplace } : {}),
    deployed_at: new Date().toISOString(),
  };
}
