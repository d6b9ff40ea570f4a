// The marketplace contract through viem: reads, and writes that are simulated first (a refusal is
// decoded from the revert data and costs nothing), then sent and awaited. Writes to another contract
// (ERC-8004's registries) go the same way, through sendContractTransaction.
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  getAddress,
  HttpRequestError,
  InsufficientFundsError,
  http,
  type Abi,
  parseEventLogs,
  type Address,
  type Chain,
  type Hex,
  type Log,
  type PublicClient,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { CliError, EXIT, usageError } from "./errors.ts";
import type { Settings } from "./settings.ts";
import { CHAIN_CREDENTIAL_STATUSES, CHAIN_LISTING_STATUSES, rentalModelOf, type ChainListingStatus, type RentalModel } from "@agent-rental/core/vocabulary";

/** What each contract error means, for the person reading it. */
const CONTRACT_ERRORS: Record<string, string> = {
  ListingNotActive: "the listing is paused or closed for this operation",
  ListingNotFound: "there is no listing with this id on-chain",
  ListingAlreadyExists: "this creator already used this seed (the listing exists)",
  CredentialNotFound: "this wallet holds no rental of the listing",
  CredentialAlreadyExists: "this wallet already rents the listing: use `agentrent renew` (subscription) or `agentrent topup` (per-query)",
  InsufficientBalance: "the per-task balance cannot cover one run",
  Unauthorized: "this wallet is not permitted to do this (only the listing's creator manages it)",
  InvalidAccessType: "the operation does not match the listing's rental model",
  CredentialRevoked: "the creator revoked this wallet's access",
  WithdrawalExceedsBalance: "the amount exceeds the listing's earnings",
  PriceTooLow: "the price is below the minimum of 0.000001 ETH",
  MetadataUriTooLong: "the metadata URI is longer than 200 bytes",
  MetadataUriEmpty: "the metadata URI is empty",
  InvalidDuration: "the duration must be 30d, 90d or 365d",
  DepositTooLow: "the deposit must cover at least one run",
  ProtocolPaused: "the protocol is paused",
  EscrowNotEmpty: "the listing's escrow holds funds: a listing closes once its escrow is empty (withdraw the earnings first, or close with --withdraw), and a subscription listing's escrow empties only once every period its renters paid for has vested",
  ExpiryTooLate: "a renewal may pay at most 395 days ahead: renew again when less of the current period is left",
  BalanceTooLarge: "the per-task balance would pass the largest the contract holds (2^96 - 1 wei)",
  WithdrawalNotReady: "the unspent balance is withdrawable only an hour after the withdrawal was requested (runs admitted before may still be charged)",
  NothingToWithdraw: "there is nothing to withdraw",
  IncorrectPayment: "the ETH sent differs from the amount due",
  TransferFailed: "the ETH transfer failed",
  ZeroAddress: "an address is zero",
  Reentrancy: "reentrant call blocked",
  // ERC-8004's Identity Registry.
  NotAuthorized: "this wallet neither owns the ERC-8004 agent nor is approved for it",
  ERC721NonexistentToken: "no ERC-8004 agent has this id in the registry",
  ReservedMetadataKey: "the agent's wallet is set only with that wallet's signature",
  ZeroWallet: "the agent's wallet cannot be the zero address",
  SignatureExpired: "the wallet's signature expired: sign again",
  DeadlineTooFar: "the signature's deadline is more than 5 minutes ahead",
  InvalidWalletSignature: "the signature is not the new wallet's own for this agent",
  // ERC-8004's Reputation Registry.
  SelfFeedbackNotAllowed: "the agent's owner cannot give it feedback",
  ValueOutOfRange: "the score is out of the range the registry takes",
  TooManyDecimals: "the score has more decimals than the registry takes",
};

export interface ChainTarget {
  rpcUrl: string;
  chain: Chain;
  marketplace: Address;
  client: PublicClient;
}

export function chainTarget(settings: Settings): ChainTarget {
  const missing = [
    settings.rpcUrl ? undefined : "an RPC URL (--rpc-url or AGENTRENT_RPC_URL)",
    settings.chainId ? undefined : "a chain id (--chain-id or AGENTRENT_CHAIN_ID)",
    settings.marketplace ? undefined : "the marketplace address (--marketplace or AGENTRENT_MARKETPLACE)",
  ].filter((m): m is string => m !== undefined);
  if (missing.length > 0) throw usageError(`This command talks to the chain and needs ${missing.join(", ")}; \`agentrent config set\` stores them, and the local stack's .local/stack.json provides all three.`);
  const rpcUrl = settings.rpcUrl!;
  const chain = defineChain({ id: settings.chainId!, name: `chain-${settings.chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  const client = createPublicClient({ chain, transport: http(rpcUrl, { timeout: 30_000, retryCount: 1 }), pollingInterval: 100 }) as PublicClient;
  return { rpcUrl, chain, marketplace: getAddress(settings.marketplace!), client };
}

export interface OnChainListing {
  price: bigint;
  escrow: bigint;
  rentalModel: RentalModel;
  status: ChainListingStatus;
  creator: Address;
  createdAt: number;
  metadataUri: string;
}

export async function readListing(target: ChainTarget, onChainId: Hex): Promise<OnChainListing> {
  const [price, escrow, accessType, status, creator, createdAt, metadataUri] = await guard(() =>
    target.client.readContract({ address: target.marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId] }),
  );
  if (status === 0) throw new CliError(`No listing ${onChainId} on-chain (at the marketplace ${target.marketplace}).`, EXIT.notFound, "listing_not_found");
  return { price, escrow, rentalModel: rentalModelOf(accessType), status: CHAIN_LISTING_STATUSES[status] ?? "none", creator, createdAt, metadataUri };
}

/** The contract a listing lives on and the currency of its amounts: the Marketplace (ETH), or the
 * TokenMarketplace for a listing priced in a token (its symbol and decimals read from the token). */
export interface ListingMarket {
  address: Address;
  abi: Abi;
  contract: "Marketplace" | "TokenMarketplace";
  currency: { symbol: string; address: Address | null; decimals: number };
}

/** A listing on whichever contract holds it: the Marketplace first, then the TokenMarketplace (when one
 * is known); not found on either is exit 5. */
export async function readAnyListing(target: ChainTarget, tokenMarketplaceOf: () => Promise<Address | undefined>, onChainId: Hex): Promise<OnChainListing & { market: ListingMarket }> {
  const [price, escrow, accessType, status, creator, createdAt, metadataUri] = await guard(() =>
    target.client.readContract({ address: target.marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId] }),
  );
  if (status !== 0) {
    const market: ListingMarket = { address: target.marketplace, abi: marketplaceAbi as Abi, contract: "Marketplace", currency: { symbol: "ETH", address: null, decimals: 18 } };
    return { price, escrow, rentalModel: rentalModelOf(accessType), status: CHAIN_LISTING_STATUSES[status] ?? "none", creator, createdAt, metadataUri, market };
  }
  const tokenMarketplace = await tokenMarketplaceOf();
  if (tokenMarketplace) {
    const { tokenMarketplaceAbi } = await import("@agent-rental/core/token-marketplace");
    const t = await guard(() => target.client.readContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "listings", args: [onChainId] }), "TokenMarketplace");
    if (t[3] !== 0) {
      const token = getAddress(t[6]);
      const [symbol, decimals] = await guard(() => Promise.all([target.client.readContract({ address: token, abi: erc20Abi, functionName: "symbol" }), target.client.readContract({ address: token, abi: erc20Abi, functionName: "decimals" })]), "TokenMarketplace");
      const market: ListingMarket = { address: tokenMarketplace, abi: tokenMarketplaceAbi as Abi, contract: "TokenMarketplace", currency: { symbol, address: token, decimals } };
      return { price: t[0], escrow: t[1], rentalModel: rentalModelOf(t[2]), status: CHAIN_LISTING_STATUSES[t[3]] ?? "none", creator: t[4], createdAt: Number(t[5]), metadataUri: t[7], market };
    }
  }
  throw new CliError(`No listing ${onChainId} on-chain (at the marketplace ${target.marketplace}${tokenMarketplace ? ` or the token marketplace ${tokenMarketplace}` : ""}).`, EXIT.notFound, "listing_not_found");
}

/** withdrawableEarnings on the listing's own contract. */
export async function withdrawableOn(target: ChainTarget, market: ListingMarket, onChainId: Hex): Promise<bigint> {
  return guard(() => target.client.readContract({ address: market.address, abi: market.abi, functionName: "withdrawableEarnings", args: [onChainId] }) as Promise<bigint>, market.contract);
}

/** What the creator may withdraw now: the escrow less a subscription listing's earnings not vested yet. */
export async function withdrawableEarnings(target: ChainTarget, onChainId: Hex): Promise<bigint> {
  return guard(() => target.client.readContract({ address: target.marketplace, abi: marketplaceAbi, functionName: "withdrawableEarnings", args: [onChainId] }));
}

export async function subscriptionPrice(target: ChainTarget, onChainId: Hex, seconds: bigint): Promise<bigint> {
  return guard(() => target.client.readContract({ address: target.marketplace, abi: marketplaceAbi, functionName: "subscriptionPrice", args: [onChainId, seconds] }));
}

export async function credentialOf(target: ChainTarget, onChainId: Hex, wallet: Address) {
  const [status, accessType, purchasedAt, expiresAt, balance, isRevoked] = await guard(() =>
    target.client.readContract({ address: target.marketplace, abi: marketplaceAbi, functionName: "credentialOf", args: [onChainId, wallet] }),
  );
  return { status: CHAIN_CREDENTIAL_STATUSES[status] ?? "not_found", rentalModel: rentalModelOf(accessType), purchasedAt, expiresAt, balance, isRevoked };
}

export interface SentTransaction {
  hash: Hex;
  blockNumber: bigint;
  gasUsed: bigint;
  /** The function's return value, from the simulation (createListing returns the listing id). */
  result: unknown;
  /** The receipt's logs: what the transaction did, exactly (the simulation ran on an earlier state). */
  logs: Log[];
}

/** A write to a contract: where, its ABI, the function, its arguments, and the contract's name for errors. */
export interface ContractCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
  value?: bigint;
  /** The contract's name in errors (`on_chain_error.contract`). */
  contract: string;
}

/** Simulates, sends and awaits `functionName(args)` from `account`; refusals become CliErrors naming the contract error. */
export async function sendTransaction(target: ChainTarget, account: PrivateKeyAccount, functionName: string, args: readonly unknown[], value?: bigint, onSent?: (hash: Hex) => void): Promise<SentTransaction> {
  return sendContractTransaction(target, account, { address: target.marketplace, abi: marketplaceAbi as Abi, functionName, args, contract: "Marketplace", ...(value === undefined ? {} : { value }) }, onSent);
}

/** The same for any contract's call. */
export async function sendContractTransaction(target: ChainTarget, account: PrivateKeyAccount, call: ContractCall, onSent?: (hash: Hex) => void): Promise<SentTransaction & { logs: Log[] }> {
  const wallet = createWalletClient({ account, chain: target.chain, transport: http(target.rpcUrl, { timeout: 30_000 }) });
  return guard(async () => {
    // viem's generics cannot follow a function name chosen at run time through its overloads.
    const { request, result } = await target.client.simulateContract({ address: call.address, abi: call.abi, functionName: call.functionName, args: call.args, account, ...(call.value === undefined ? {} : { value: call.value }) } as never);
    const hash = await wallet.writeContract(request as never);
    onSent?.(hash);
    const receipt = await target.client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 120_000 });
    if (receipt.status !== "success") throw new CliError(`${call.functionName} reverted in transaction ${hash}.`, EXIT.access, "transaction_reverted");
    return { hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, result: result as unknown, logs: receipt.logs };
  }, call.contract);
}

/** The earnings a transaction paid to the creator, from its EarningsWithdrawn events (0 when none). */
export function earningsWithdrawn(logs: Log[]): bigint {
  return parseEventLogs({ abi: marketplaceAbi, eventName: "EarningsWithdrawn", logs }).reduce((sum, log) => sum + log.args.amount, 0n);
}

/** Maps viem failures: a contract refusal (exit 4, named), not enough ETH (4), an unreachable RPC (8). */
export async function guard<T>(action: () => Promise<T>, contract = "Marketplace"): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw chainError(error, contract);
  }
}

export function chainError(error: unknown, contract = "Marketplace"): unknown {
  if (error instanceof CliError || !(error instanceof BaseError)) return error;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) {
    const name = reverted.data?.errorName ?? reverted.reason ?? "unknown";
    const args = reverted.data?.args?.length ? ` (${reverted.data.args.map((a) => (typeof a === "bigint" ? a.toString() : String(a))).join(", ")})` : "";
    return new CliError(`The contract refused: ${name}${args}: ${CONTRACT_ERRORS[name] ?? "see docs/reference/contract.md"}.`, EXIT.access, "contract_error", { on_chain_error: { contract, error: name } });
  }
  if (error.walk((e) => e instanceof InsufficientFundsError)) {
    return new CliError("The wallet does not hold enough ETH for the amount plus gas.", EXIT.access, "insufficient_funds");
  }
  if (error.walk((e) => e instanceof HttpRequestError)) {
    return new CliError(`The chain RPC could not be reached (${error.shortMessage}). Check the RPC URL (\`agentrent config show\`).`, EXIT.unavailable, "rpc_unreachable");
  }
  return new CliError(error.shortMessage || error.message, EXIT.failure, "chain_error");
}
