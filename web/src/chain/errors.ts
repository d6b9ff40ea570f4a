// Contract and wallet failures in plain words. A revert is walked down viem's cause chain to the
// contract's custom error (decoded from the ABI); a wallet's refusal (EIP-1193 code 4001) is named
// as such, so the page can say nothing happened.
import { BaseError, ContractFunctionRevertedError, UserRejectedRequestError, formatEther } from "viem";

const PLAIN: Record<string, (args: readonly unknown[]) => string> = {
  ListingNotActive: () => "This listing is paused: it takes no new rentals right now. Nothing was charged.",
  ListingNotFound: () => "No listing exists at this id on the chain.",
  ListingAlreadyExists: () => "A listing with this creator and seed already exists on the chain.",
  CredentialNotFound: () => "You hold no rental of this listing.",
  CredentialAlreadyExists: () => "You already hold a rental of this listing: renew or top it up instead.",
  InsufficientBalance: () => "The per-task balance cannot cover one run.",
  Unauthorized: () => "This wallet is not allowed to do that.",
  InvalidAccessType: () => "That action does not match this listing's rental model.",
  CredentialRevoked: () => "The creator revoked your access to this listing.",
  WithdrawalExceedsBalance: (a) => `The withdrawal exceeds the available earnings (${eth(a[1])} available).`,
  FeeTooHigh: () => "The fee exceeds the 10% maximum.",
  PriceTooLow: (a) => `The price is below the minimum of ${eth(a[1])}.`,
  MetadataUriTooLong: () => "The metadata URI is longer than 200 bytes.",
  MetadataUriEmpty: () => "The metadata URI is empty.",
  InvalidDuration: () => "Subscriptions last 30, 90 or 365 days.",
  DepositTooLow: (a) => `The deposit must cover at least one task (${eth(a[1])}).`,
  ProtocolPaused: () => "The marketplace is paused for maintenance. Try again later.",
  EscrowNotEmpty: () => "A listing closes only once its escrow is empty. Withdraw the earnings and close in one step; a subscription listing's escrow empties only once every period its renters paid for has vested.",
  NothingToWithdraw: () => "There is nothing to withdraw.",
  IncorrectPayment: (a) => `The payment must be exactly ${eth(a[0])}.`,
  TransferFailed: () => "The ETH transfer out of the contract failed.",
  ZeroAddress: () => "An address was zero where a real one is needed.",
  Reentrancy: () => "The call was blocked as reentrant.",
  ExpiryTooLate: (a) => `A renewal may pay at most 395 days ahead${typeof a[1] === "bigint" ? ` (this one would run past ${new Date(Number(a[1]) * 1000).toLocaleDateString()})` : ""}: renew again when less of the current period is left.`,
  BalanceTooLarge: () => "The per-task balance would pass the largest the contract holds.",
  WithdrawalNotReady: (a) =>
    typeof a[0] === "bigint" && a[0] > 0n
      ? `The balance can be withdrawn from ${new Date(Number(a[0]) * 1000).toLocaleString()}: runs admitted before your request may still be charged until then.`
      : "Ask to withdraw the balance first: it can be taken back an hour after you ask.",
  // ERC-8004's Identity Registry.
  NotAuthorized: () => "This wallet does not own that ERC-8004 agent (nor is it approved for it), so it cannot change it.",
  ERC721NonexistentToken: (a) => `No ERC-8004 agent has the id ${String(a[0])} in this registry.`,
  ReservedMetadataKey: () => "The agent's wallet is set only with that wallet's signature, not as plain metadata.",
  ZeroWallet: () => "The agent's wallet cannot be the zero address.",
  SignatureExpired: () => "The wallet's signature expired before the transaction was sent: sign again.",
  DeadlineTooFar: () => "The signature's deadline is too far ahead: the registry takes at most a few minutes.",
  InvalidWalletSignature: () => "The signature is not the new wallet's own for this agent: sign with the wallet being set.",
  // ERC-8004's Reputation Registry.
  SelfFeedbackNotAllowed: () => "The agent's owner cannot give it feedback.",
  ValueOutOfRange: () => "The score is out of the range the registry takes.",
  TooManyDecimals: () => "The score has more decimals than the registry takes.",
};

function eth(value: unknown): string {
  return typeof value === "bigint" ? `${formatEther(value)} ETH` : "the required amount";
}

export interface ExplainedError {
  message: string;
  /** The wallet refused the request (EIP-1193 4001): nothing was signed or sent. */
  rejected: boolean;
  /** The contract's custom error name, when the failure is a revert. */
  contractError: string | null;
}

function code(error: unknown): number | undefined {
  const c = (error as { code?: unknown })?.code;
  return typeof c === "number" ? c : undefined;
}

export function explainError(error: unknown): ExplainedError {
  if (error instanceof BaseError) {
    const rejected = error.walk((e) => e instanceof UserRejectedRequestError || code(e) === 4001);
    if (rejected) return { message: "You rejected the request in your wallet. Nothing was signed or sent, and nothing changed.", rejected: true, contractError: null };
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      const name = revert.data?.errorName ?? null;
      const plain = name ? PLAIN[name]?.(revert.data?.args ?? []) : undefined;
      return { message: plain ?? revert.reason ?? revert.shortMessage, rejected: false, contractError: name };
    }
    if (/insufficient funds/i.test(error.message)) return { message: "The wallet holds too little ETH for the price plus gas.", rejected: false, contractError: null };
    return { message: error.shortMessage, rejected: false, contractError: null };
  }
  if (code(error) === 4001) return { message: "You rejected the request in your wallet. Nothing was signed or sent, and nothing changed.", rejected: true, contractError: null };
  return { message: error instanceof Error ? error.message : String(error), rejected: false, contractError: null };
}
