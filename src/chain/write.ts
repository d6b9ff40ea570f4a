// Sends one marketplace transaction and waits for its receipt: the one way the service's own
// transactions (the local demo, later settlement) and the tests' reach the contract.
import {
  createPublicClient,
  createWalletClient,
  http,
  type Account,
  type Address,
  type Chain,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

export type MarketplaceWriteName = ContractFunctionName<typeof marketplaceAbi, "nonpayable" | "payable">;
export type MarketplaceWriteArgs<name extends MarketplaceWriteName> = ContractFunctionArgs<typeof marketplaceAbi, "nonpayable" | "payable", name>;

export interface MarketplaceTarget {
  rpcUrl: string;
  chain: Chain;
  marketplace: Address;
}

export class MarketplaceWriteError extends Error {
  constructor(readonly functionName: string, readonly receipt: TransactionReceipt) {
    super(`${functionName} reverted in transaction ${receipt.transactionHash}`);
    this.name = "MarketplaceWriteError";
  }
}

/**
 * Sends `functionName(args)` from `signer` (a private key or an account), waits for the receipt and
 * throws MarketplaceWriteError when the transaction reverted.
 *
 * @example
 * await writeMarketplace(target, renterKey, "purchaseOneTime", [listingId], parseEther("0.01"));
 */
export async function writeMarketplace<name extends MarketplaceWriteName>(
  target: MarketplaceTarget,
  signer: Hex | Account,
  functionName: name,
  args: MarketplaceWriteArgs<name>,
  value?: bigint,
): Promise<TransactionReceipt> {
  const transport = http(target.rpcUrl);
  const account = typeof signer === "string" ? privateKeyToAccount(signer) : signer;
  const wallet = createWalletClient({ account, chain: target.chain, transport });
  const client = createPublicClient({ chain: target.chain, transport });
  // viem's generics cannot follow a generic function name through writeContract's overloads.
  const hash = await wallet.writeContract({ address: target.marketplace, abi: marketplaceAbi, functionName, args, ...(value === undefined ? {} : { value }) } as never);
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (receipt.status !== "success") throw new MarketplaceWriteError(functionName, receipt);
  return receipt;
}
