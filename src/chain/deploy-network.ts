// Deploys the marketplace to a named network (packages/core/src/networks.ts) and names the ERC-8004
// registries the service uses there: the network's canonical deployments, or registries of its own when
// asked (a network without them, a rehearsal node). What `npm run deploy` runs (scripts/deploy.ts).
// Every input is checked before anything is sent, and a bad one fails with a DeployInputError whose
// message says what to change; the deployer's key never appears in one.
import { createPublicClient, getAddress, http, isAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { isNetworkName, NETWORK_NAMES, NETWORKS, type NetworkDeployment, type NetworkProfile } from "@agent-rental/core/networks";

export type { NetworkDeployment } from "@agent-rental/core/networks";
import { chainFor } from "./client.ts";
import { deployErc8004Registries, deployMarketplace } from "./deploy.ts";

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

/**
 * Checks the inputs and the node (its chain id against the profile's, the deployer's balance, the
 * canonical registries' code), then deploys `Marketplace` (and, when asked, ERC-8004's registries) and
 * returns the deployment record.
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
  if (!/^0x[0-9a-fA-F]{64}$/.test(params.deployerPrivateKey)) throw new DeployInputError("DEPLOYER_PRIVATE_KEY is not a private key: it must be 0x followed by 64 hex digits.");
  const deployerKey = params.deployerPrivateKey as Hex;
  const deployer = privateKeyToAccount(deployerKey).address;
  const authority = addressSetting("AUTHORITY_ADDRESS", params.authority, deployer);
  const feeRecipient = addressSetting("FEE_RECIPIENT", params.feeRecipient, deployer);
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
  return {
    network: profile.name,
    chain_id: profile.chainId,
    marketplace: { address: getAddress(marketplace.address), deploy_block: marketplace.blockNumber.toString(), transaction: marketplace.transactionHash },
    authority,
    fee_recipient: feeRecipient,
    erc8004,
    deployed_at: new Date().toISOString(),
  };
}
