// The networks the service runs on, each with what money on it depends on: its chain id, how often it
// mines a block, how deep a block must be before what it holds counts as final, and the most the
// settler may pay for gas there. The server, the deploy command, the cloud app and the dashboard read
// them from here, so a network is described once.
//
// Finality depth: a block `depth` blocks under the head is treated as final. A reorganisation deeper
// than that is outside what the service defends against; one within it is noticed and repaired
// (charges sent again, run-log batches logged again, indexes replayed).
// - local: 0. The Hardhat node reorganises only when told to (evm_revert), and the tests that do so
//   set a depth of their own.
// - Base and Base Sepolia (OP Stack, 2 s blocks): the sequencer's blocks reorganise only when the
//   sequencer itself fails or the batch posted to L1 differs; the node's "safe" head (the L2 block
//   derived from L1 data) trails the head by about a minute. 10 blocks (20 s) covers every reorganisation
//   Base has had in practice; output is not held to it (see docs/design/settlement.md, "Finality").
// - Ethereum and Sepolia (12 s slots): the finalized checkpoint trails the head by two epochs, 64 slots
//   (about 12.8 minutes); 64 blocks is the depth that matches it.
//
// Fee ceiling: the most the settler offers per gas (maxFeePerGas), and the most one batch may spend on
// gas as a share of the charges it carries (basis points). Past either, the settler waits and alarms.
// Locally the share is 100%: the Hardhat node asks a fixed 1 gwei tip, so a batch of one cheap charge
// costs a large share of it in play money; its fee per gas is still bounded.

import type { TokenInfo } from "./tokens.ts";

export type NetworkName = "local" | "base-sepolia" | "base" | "ethereum-sepolia" | "ethereum";

export interface NetworkProfile {
  readonly name: NetworkName;
  /** How people call it ("Base Sepolia"). */
  readonly label: string;
  readonly chainId: number;
  /** A test network: API keys are svc_test_, money is play money. */
  readonly testnet: boolean;
  /** Milliseconds between blocks; 0 for a node that mines a block per transaction. */
  readonly blockTimeMs: number;
  /** Blocks on top of a block before what it holds counts as final. */
  readonly finalityDepth: number;
  /** The node's block tag that names the same point, where the network has one. */
  readonly finalityTag: "safe" | "finalized" | null;
  /** The most the settler offers per gas, in wei. */
  readonly maxFeePerGasWei: bigint;
  /** The most one batch may spend on gas, as basis points of the charges it carries. */
  readonly maxGasShareBps: number;
  /** A public RPC endpoint browsers may use (the service's own RPC URL is a secret). */
  readonly publicRpcUrl: string | null;
  readonly explorerUrl: string | null;
  /** Circle's USDC on the network, where there is one. */
  readonly usdc: `0x${string}` | null;
  /** ERC-8004's canonical Identity and Reputation registries on the network (erc-8004/erc-8004-contracts'
   * deployments, the same addresses on every test network and on every main network); null where there
   * are none (the local chain, where the stack deploys its own). */
  readonly erc8004: { readonly identityRegistry: `0x${string}`; readonly reputationRegistry: `0x${string}` } | null;
}

/** ERC-8004's registries as deployed on test networks. */
const ERC8004_TESTNET = { identityRegistry: "0x8004A818BFB912233c491871b3d84c89A494BD9e", reputationRegistry: "0x8004B663056A597Dffe9eCcC1965A193B7388713" } as const;
/** ERC-8004's registries as deployed on main networks. */
const ERC8004_MAINNET = { identityRegistry: "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432", reputationRegistry: "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63" } as const;

const GWEI = 1_000_000_000n;

export const NETWORKS: Readonly<Record<NetworkName, NetworkProfile>> = {
  local: {
    name: "local",
    label: "Local chain",
    chainId: 31337,
    testnet: true,
    blockTimeMs: 0,
    finalityDepth: 0,
    finalityTag: null,
    maxFeePerGasWei: 100n * GWEI,
    maxGasShareBps: 10_000,
    publicRpcUrl: null,
    explorerUrl: null,
    usdc: null,
    erc8004: null,
  },
  "base-sepolia": {
    name: "base-sepolia",
    label: "Base Sepolia",
    chainId: 84532,
    testnet: true,
    blockTimeMs: 2_000,
    finalityDepth: 10,
    finalityTag: "safe",
    maxFeePerGasWei: 2n * GWEI,
    maxGasShareBps: 2_000,
    publicRpcUrl: "https://sepolia.base.org",
    explorerUrl: "https://sepolia.basescan.org",
    usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    erc8004: ERC8004_TESTNET,
  },
  base: {
    name: "base",
    label: "Base",
    chainId: 8453,
    testnet: false,
    blockTimeMs: 2_000,
    finalityDepth: 10,
    finalityTag: "safe",
    maxFeePerGasWei: 2n * GWEI,
    maxGasShareBps: 1_000,
    publicRpcUrl: "https://mainnet.base.org",
    explorerUrl: "https://basescan.org",
    usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    erc8004: ERC8004_MAINNET,
  },
  "ethereum-sepolia": {
    name: "ethereum-sepolia",
    label: "Sepolia",
    chainId: 11155111,
    testnet: true,
    blockTimeMs: 12_000,
    finalityDepth: 64,
    finalityTag: "finalized",
    maxFeePerGasWei: 200n * GWEI,
    maxGasShareBps: 2_000,
    publicRpcUrl: "https://rpc.sepolia.org",
    explorerUrl: "https://sepolia.etherscan.io",
    usdc: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238",
    erc8004: ERC8004_TESTNET,
  },
  ethereum: {
    name: "ethereum",
    label: "Ethereum",
    chainId: 1,
    testnet: false,
    blockTimeMs: 12_000,
    finalityDepth: 64,
    finalityTag: "finalized",
    maxFeePerGasWei: 200n * GWEI,
    maxGasShareBps: 1_000,
    publicRpcUrl: "https://ethereum-rpc.publicnode.com",
    explorerUrl: "https://etherscan.io",
    usdc: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    erc8004: ERC8004_MAINNET,
  },
};

export const NETWORK_NAMES = Object.keys(NETWORKS) as NetworkName[];

export function isNetworkName(value: string): value is NetworkName {
  return Object.hasOwn(NETWORKS, value);
}

/** The profile of a chain id, if it is one of ours. */
export function networkOfChainId(chainId: number): NetworkProfile | undefined {
  return NETWORK_NAMES.map((name) => NETWORKS[name]).find((profile) => profile.chainId === chainId);
}

/** A deployment of the marketplace on a network, as `npm run deploy` writes it
 * (stacks/deployments/<network>.json) and the cloud app reads it. Block numbers are decimal strings. */
export interface NetworkDeployment {
  network: NetworkName;
  chain_id: number;
  marketplace: { address: `0x${string}`; deploy_block: string; transaction: `0x${string}` };
  authority: `0x${string}`;
  fee_recipient: `0x${string}`;
  erc8004: {
    identity_registry: `0x${string}`;
    reputation_registry: `0x${string}`;
    /** Where the indexer follows the registries from: their deployment, or (canonical registries) the
     * marketplace's, before which the service registered nothing. */
    deploy_block: string;
    /** True when the deploy command deployed them; false for the network's canonical registries. */
    deployed_here: boolean;
  };
  /** The token marketplace (listings priced in an allowed ERC-20) and the tokens it takes, when one was
   * deployed: the network's USDC (or the one the operator named). Absent on a network without a USDC. */
  token_marketplace?: {
    address: `0x${string}`;
    deploy_block: string;
    transaction: `0x${string}`;
    /** Each token as read from its contract (its EIP-712 domain name and version, which x402 clients
     * sign under), whether it implements EIP-3009 (payable by x402), and whether the contract allows it
     * yet: the authority's setTokenAllowed, sent by the deploy command when it holds the authority's key. */
    tokens: (TokenInfo & { eip3009: boolean; allowed: boolean })[];
  };
  deployed_at: string;
}

/** The service's chain settings for a deployment (src/config.ts reads them): the network, its chain
 * and block time, the marketplace and the ERC-8004 registries with the blocks the indexer starts from,
 * and the token marketplace with its tokens where one was deployed. */
export function deploymentEnvironment(deployment: NetworkDeployment): Record<string, string> {
  const profile = NETWORKS[deployment.network];
  return {
    NETWORK: profile.name,
    CHAIN_ID: String(profile.chainId),
    CHAIN_BLOCK_TIME_MS: String(profile.blockTimeMs),
    MARKETPLACE_ADDRESS: deployment.marketplace.address,
    MARKETPLACE_DEPLOY_BLOCK: deployment.marketplace.deploy_block,
    IDENTITY_REGISTRY_ADDRESS: deployment.erc8004.identity_registry,
    REPUTATION_REGISTRY_ADDRESS: deployment.erc8004.reputation_registry,
    ERC8004_DEPLOY_BLOCK: deployment.erc8004.deploy_block,
    ...(deployment.token_marketplace
      ? {
          TOKEN_MARKETPLACE_ADDRESS: deployment.token_marketplace.address,
          TOKEN_MARKETPLACE_DEPLOY_BLOCK: deployment.token_marketplace.deploy_block,
          // What src/config.ts reads as TOKENS: each token with its domain and EIP-3009 flag.
          TOKENS: JSON.stringify(deployment.token_marketplace.tokens.map(({ address, symbol, name, version, decimals, eip3009 }) => ({ address, symbol, name, version, decimals, eip3009 }))),
        }
      : {}),
  };
}

/** The EIP-712 domain name of Circle's USDC per network (its `name()`, what an EIP-3009 or permit
 * signature binds to and x402's `extra.name` carries); version "2" everywhere. Base Sepolia's and
 * Sepolia's say "USDC", the main networks' "USD Coin". */
const USDC_EIP712_NAME: Partial<Record<NetworkName, string>> = {
  "base-sepolia": "USDC",
  base: "USD Coin",
  "ethereum-sepolia": "USDC",
  ethereum: "USD Coin",
};

/** Circle's USDC on a network as the token marketplace describes its tokens; null where there is none
 * (the local chain deploys its own stand-in). */
export function usdcTokenOf(profile: NetworkProfile): TokenInfo | null {
  const name = USDC_EIP712_NAME[profile.name];
  if (!profile.usdc || !name) return null;
  return { address: profile.usdc, symbol: "USDC", name, version: "2", decimals: 6 };
}
