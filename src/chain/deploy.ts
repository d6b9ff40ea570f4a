// Deploys the marketplace contract (and, beside it, ERC-8004's registries where no canonical deployment is used). Used by the local stack, the tests and the benchmarks; a cloud
// deployment runs the same function against the test network's RPC URL.
import { createPublicClient, createWalletClient, http, type Abi, type Address, type Hex, type Chain } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { marketplaceAbi, marketplaceBytecode } from "@agent-rental/core/marketplace";
import { identityRegistryAbi, identityRegistryBytecode } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi, reputationRegistryBytecode } from "@agent-rental/core/reputation-registry";
import { tokenMarketplaceAbi, tokenMarketplaceBytecode } from "@agent-rental/core/token-marketplace";
import { LOCAL_USDC, localUsdcAbi, localUsdcBytecode, UTILITY_TOKEN, utilityTokenAbi, utilityTokenBytecode, type MarketplaceTokens } from "@agent-rental/core/tokens";

export interface DeployMarketplaceParameters {
  rpcUrl: string;
  chain: Chain;
  /** Private key of the account that pays for the deployment. */
  deployerPrivateKey: Hex;
  /** The protocol authority: settles per-query runs and logs run receipts. */
  authority: Address;
  /** Receiver of protocol fees. */
  feeRecipient: Address;
}

export interface DeployMarketplaceReturnType {
  address: Address;
  transactionHash: Hex;
  blockNumber: bigint;
  /** Hash of the block that holds the deployment; a fresh chain gives a different one. */
  blockHash: Hex;
}

/** Deploys `Marketplace` and waits for its receipt. */
export async function deployMarketplace(params: DeployMarketplaceParameters): Promise<DeployMarketplaceReturnType> {
  const deploy = deployerOf(params);
  const receipt = await deploy("marketplace", { abi: marketplaceAbi, bytecode: marketplaceBytecode, args: [params.authority, params.feeRecipient] });
  return { address: receipt.contractAddress, transactionHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
}

/** Deployments from one deployer account: each sent, then its receipt awaited (one sender, one nonce at a
 * time); a failed one throws, naming the contract. */
function deployerOf(params: { rpcUrl: string; chain: Chain; deployerPrivateKey: Hex }) {
  const account = privateKeyToAccount(params.deployerPrivateKey);
  const transport = http(params.rpcUrl);
  const wallet = createWalletClient({ account, chain: params.chain, transport });
  const client = createPublicClient({ chain: params.chain, transport });
  return async (what: string, contract: { abi: Abi; bytecode: Hex; args: readonly unknown[] }) => {
    const hash = await wallet.deployContract(contract as Parameters<typeof wallet.deployContract>[0]);
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`${what} deployment failed in transaction ${hash}`);
    return { ...receipt, contractAddress: receipt.contractAddress };
  };
}

export interface DeployErc8004Parameters {
  rpcUrl: string;
  chain: Chain;
  /** Private key of the account that pays for the deployments. */
  deployerPrivateKey: Hex;
}

export interface DeployErc8004ReturnType {
  identityRegistry: Address;
  reputationRegistry: Address;
  /** The block of the Identity Registry's deployment: where the indexer follows the registries from. */
  blockNumber: bigint;
}

/**
 * Deploys ERC-8004's Identity Registry, then the Reputation Registry bound to it, one after the other
 * (one sender, one nonce). For the local chain and the tests: a real network has canonical
 * deployments, which the service is configured with instead.
 */
export async function deployErc8004Registries(params: DeployErc8004Parameters): Promise<DeployErc8004ReturnType> {
  const deploy = deployerOf(params);
  const identity = await deploy("identity registry", { abi: identityRegistryAbi, bytecode: identityRegistryBytecode, args: [] });
  const reputation = await deploy("reputation registry", { abi: reputationRegistryAbi, bytecode: reputationRegistryBytecode, args: [identity.contractAddress] });
  return { identityRegistry: identity.contractAddress, reputationRegistry: reputation.contractAddress, blockNumber: identity.blockNumber };
}

export interface DeployTokenMarketplaceReturnType {
  address: Address;
  blockNumber: bigint;
  /** The two tokens deployed beside it and allowed on it. */
  tokens: MarketplaceTokens & { utility: NonNullable<MarketplaceTokens["utility"]> };
}

/**
 * Deploys the token marketplace (TokenMarketplace, listings priced in an allowed ERC-20), the local
 * USDC stand-in and the utility token (Rental Credit), then allows both tokens on it. For the local chain
 * and the tests: the deployer must be the authority (it sends setTokenAllowed) and is the tokens' minter.
 */
export async function deployTokenMarketplace(params: DeployMarketplaceParameters): Promise<DeployTokenMarketplaceReturnType> {
  const deploy = deployerOf(params);
  const market = await deploy("token marketplace", tokenMarketplaceContract(params));
  const usdc = await deploy("USDC stand-in", { abi: localUsdcAbi as Abi, bytecode: localUsdcBytecode, args: [] });
  const utility = await deploy("utility token", { abi: utilityTokenAbi as Abi, bytecode: utilityTokenBytecode, args: [] });
  for (const token of [usdc.contractAddress, utility.contractAddress]) await allowToken({ ...params, authorityPrivateKey: params.deployerPrivateKey }, market.contractAddress, token);
  return {
    address: market.contractAddress,
    blockNumber: market.blockNumber,
    tokens: { usdc: { address: usdc.contractAddress, ...LOCAL_USDC }, utility: { address: utility.contractAddress, ...UTILITY_TOKEN } },
  };
}

const tokenMarketplaceContract = (params: Pick<DeployMarketplaceParameters, "authority" | "feeRecipient">) => ({ abi: tokenMarketplaceAbi as Abi, bytecode: tokenMarketplaceBytecode, args: [params.authority, params.feeRecipient] });

/** Deploys `TokenMarketplace` alone (a network's own tokens are allowed on it by its authority). */
export async function deployTokenMarketplaceAlone(params: DeployMarketplaceParameters): Promise<DeployMarketplaceReturnType> {
  const receipt = await deployerOf(params)("token marketplace", tokenMarketplaceContract(params));
  return { address: receipt.contractAddress, transactionHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
}

/** Allows `token` on the token marketplace at `market`: the authority's transaction (`authorityPrivateKey`). */
export async function allowToken(params: { rpcUrl: string; chain: Chain; authorityPrivateKey: Hex }, market: Address, token: Address): Promise<Hex> {
  const { wallet, client } = walletOf({ ...params, deployerPrivateKey: params.authorityPrivateKey });
  const hash = await wallet.writeContract({ address: market, abi: tokenMarketplaceAbi, functionName: "setTokenAllowed", args: [token, true], chain: params.chain, account: wallet.account! });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`allowing token ${token} failed in transaction ${hash}`);
  return hash;
}

/** Mints the local tokens to wallets (the deployer is their minter): `amounts` in each token's units. */
export async function mintLocalTokens(
  params: { rpcUrl: string; chain: Chain; deployerPrivateKey: Hex },
  tokens: { usdc: Address; utility: Address },
  to: readonly Address[],
  amounts: { usdc: bigint; utility: bigint },
): Promise<void> {
  const { wallet, client } = walletOf(params);
  for (const holder of to) {
    for (const [token, amount] of [[tokens.usdc, amounts.usdc], [tokens.utility, amounts.utility]] as const) {
      const hash = await wallet.writeContract({ address: token, abi: localUsdcAbi, functionName: "mint", args: [holder, amount], chain: params.chain, account: wallet.account! });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== "success") throw new Error(`minting ${token} to ${holder} failed in transaction ${hash}`);
    }
  }
}

function walletOf(params: { rpcUrl: string; chain: Chain; deployerPrivateKey: Hex }) {
  const account = privateKeyToAccount(params.deployerPrivateKey);
  const transport = http(params.rpcUrl);
  return { wallet: createWalletClient({ account, chain: params.chain, transport }), client: createPublicClient({ chain: params.chain, transport }) };
}
