// Deploys the marketplace contract. Used by the local stack, the tests and the benchmarks; a cloud
// deployment runs the same function against the test network's RPC URL.
import { createPublicClient, createWalletClient, http, type Address, type Hex, type Chain } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { marketplaceAbi, marketplaceBytecode } from "@agent-rental/core/marketplace";

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
  const account = privateKeyToAccount(params.deployerPrivateKey);
  const transport = http(params.rpcUrl);
  const wallet = createWalletClient({ account, chain: params.chain, transport });
  const client = createPublicClient({ chain: params.chain, transport });
  const hash = await wallet.deployContract({
    abi: marketplaceAbi,
    bytecode: marketplaceBytecode,
    args: [params.authority, params.feeRecipient],
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`marketplace deployment failed in transaction ${hash}`);
  }
  return { address: receipt.contractAddress, transactionHash: hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
}
