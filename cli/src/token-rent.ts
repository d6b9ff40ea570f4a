// Renting a listing priced in a token (on the TokenMarketplace): the shared core's purchase, in one
// signature and one transaction where the token implements EIP-3009 or EIP-2612, approve then purchase
// otherwise. The amount and how it is paid are shown (and confirmed) before anything is signed.
import { createWalletClient, formatUnits, getAddress, http, parseUnits, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { purchaseInToken, viemTokenPurchasePort, type PurchaseKind, type TokenPurchaseQuote, type TokenPurchaseResult } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import type { ChainTarget } from "./chain.ts";
import { CliError, EXIT, usageError } from "./errors.ts";

/** The token listing at `onChainId`, or null when the TokenMarketplace has none (or none is configured). */
export async function readTokenListing(target: ChainTarget, tokenMarketplace: Hex | undefined, onChainId: Hex): Promise<{ price: bigint; token: Hex; accessType: number; status: number } | null> {
  if (!tokenMarketplace) return null;
  const [price, , accessType, status, , , token] = await target.client.readContract({ address: getAddress(tokenMarketplace), abi: tokenMarketplaceAbi, functionName: "listings", args: [onChainId] });
  return status === 0 ? null : { price, token, accessType, status };
}

const ERC20_READS = [
  { type: "function", name: "symbol", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint8" }] },
] as const;

/** A listing's currency as the creator names it (`--currency`) when the service does not name it: a
 * token's address, or the symbol of one of the local stack's tokens (stack.json's `contracts.tokens`);
 * its symbol and decimals read from the token. */
export async function resolveToken(target: ChainTarget, stackFile: string | undefined, value: string): Promise<{ address: Hex; symbol: string; decimals: number }> {
  let address: string | undefined = /^0x[0-9a-fA-F]{40}$/.test(value) ? value : undefined;
  if (!address && stackFile) {
    const { readFileSync } = await import("node:fs");
    const tokens = (JSON.parse(readFileSync(stackFile, "utf8")) as { contracts?: { tokens?: Record<string, { address: string; symbol: string } | null> } }).contracts?.tokens ?? {};
    address = Object.values(tokens).find((t) => t?.symbol.toLowerCase() === value.toLowerCase())?.address;
  }
  if (!address) throw usageError(`--currency ${JSON.stringify(value)} is neither ETH nor a token's address (0x + 40 hex)${stackFile ? " nor a token of the local stack" : ""}.`);
  const token = getAddress(address);
  try {
    const [symbol, decimals] = await Promise.all([target.client.readContract({ address: token, abi: ERC20_READS, functionName: "symbol" }), target.client.readContract({ address: token, abi: ERC20_READS, functionName: "decimals" })]);
    return { address: token, symbol, decimals: Number(decimals) };
  } catch {
    throw new CliError(`${token} is not an ERC-20 token on this chain (its symbol and decimals cannot be read).`, EXIT.invalid, "invalid_request");
  }
}

/** The currency the service takes under `value` (a symbol, any case, or an address), from its public
 * GET /v1/currencies: its token, decimals and the TokenMarketplace it lives on. Null when the service
 * names none such (or cannot be asked: the caller falls back to the local stack's file and the chain). */
export async function acceptedCurrency(apiUrl: string, value: string): Promise<{ address: Hex; symbol: string; decimals: number; contract: Hex } | null> {
  let body: { currencies?: { symbol: string; address: string | null; decimals: number; contract: string }[] };
  try {
    const res = await fetch(`${apiUrl.replace(/\/+$/, "")}/v1/currencies`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return null;
    body = (await res.json()) as typeof body;
  } catch {
    return null;
  }
  const wanted = value.toLowerCase();
  const found = body.currencies?.find((c) => c.address !== null && (c.symbol.toLowerCase() === wanted || c.address.toLowerCase() === wanted));
  return found && found.address ? { address: getAddress(found.address), symbol: found.symbol, decimals: found.decimals, contract: getAddress(found.contract) } : null;
}

/** A price in whole tokens → the token's smallest unit (at least one unit). */
export function tokenPrice(value: string, decimals: number, flag = "--price"): bigint {
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) throw usageError(`${flag} must be an amount of the token, like 0.25, not ${JSON.stringify(value)}.`);
  const [, fraction = ""] = value.split(".");
  if (fraction.length > decimals) throw usageError(`${flag} has more than the token's ${decimals} decimals.`);
  const units = parseUnits(value, decimals);
  if (units === 0n) throw usageError(`${flag} must be more than 0.`);
  return units;
}

/** `amount` of the quote's token, as a person reads it: "0.25 USDC". */
export const tokenAmount = (amount: bigint, quote: Pick<TokenPurchaseQuote, "decimals" | "symbol">): string => `${formatUnits(amount, quote.decimals)} ${quote.symbol}`;

/** A --deposit in whole tokens → the token's smallest unit. */
export function tokenDeposit(value: string, decimals: number): bigint {
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) throw usageError(`--deposit must be an amount of the listing's token, like 1.5, not ${JSON.stringify(value)}.`);
  const [, fraction = ""] = value.split(".");
  if (fraction.length > decimals) throw usageError(`--deposit has more than the token's ${decimals} decimals.`);
  return parseUnits(value, decimals);
}

export const PAYMENT_WORDS: Record<TokenPurchaseQuote["path"], string> = {
  authorization: "one signature (EIP-3009 ReceiveWithAuthorization) and one transaction",
  permit: "one signature (EIP-2612 permit) and one transaction",
  approve: "an approval, then the purchase",
};

/** Signs and sends the purchase; `confirm` sees the quote first (it throws to cancel). */
export async function buyInToken(
  target: ChainTarget,
  account: PrivateKeyAccount,
  request: { tokenMarketplace: Hex; listingId: Hex; kind: PurchaseKind; arg: bigint },
  confirm: (quote: TokenPurchaseQuote) => Promise<void>,
  onSent: (hash: Hex) => void,
): Promise<TokenPurchaseResult> {
  const wallet = createWalletClient({ account, chain: target.chain, transport: http(target.rpcUrl, { timeout: 30_000, retryCount: 1 }) });
  const port = viemTokenPurchasePort(wallet as never, target.client as never);
  const sending = { ...port, writeContract: async (call: Parameters<typeof port.writeContract>[0]) => {
    const hash = await port.writeContract(call);
    onSent(hash);
    return hash;
  } };
  try {
    return await purchaseInToken(sending, { ...request, tokenMarketplace: getAddress(request.tokenMarketplace) }, confirm);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = error instanceof Error ? (error as { shortMessage?: string }).shortMessage ?? error.message : String(error);
    throw new CliError(`The token purchase failed: ${message}`, EXIT.failure, "transaction_failed");
  }
}
