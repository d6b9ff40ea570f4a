// Renting a listing priced in a token, the same way in the dashboard, the CLI and the SDK: read the
// listing and the amount due from the TokenMarketplace, find what the token allows, and pay in the
// fewest wallet confirmations it allows:
//  - EIP-3009 (USDC): sign a ReceiveWithAuthorization to the TokenMarketplace, then one transaction,
//    purchaseWithAuthorization(kind, listingId, arg, auth);
//  - EIP-2612 (Rental Credit): sign a permit for the TokenMarketplace, then one transaction,
//    purchaseWithPermit(kind, listingId, arg, permit);
//  - neither: approve the amount due (skipped when the allowance covers it), then the purchase function
//    named as the Marketplace's (purchaseOneTime, purchaseSubscription, ...).
// The chain is reached through a small port any viem wallet and public client satisfy, so this module
// needs no chain library of its own (it runs in browsers; the SDK bundles it).
import { ACCESS_TYPE, type RentalModel } from "./vocabulary.ts";

type Hex = `0x${string}`;

/** The TokenMarketplace's Purchase enum. */
export const PURCHASE = { one_time: 0, subscription: 1, renewal: 2, per_query: 3, top_up: 4 } as const;
export type PurchaseKind = keyof typeof PURCHASE;

/** How a token purchase is paid: one signature and one transaction, or approve then purchase. */
export type TokenPaymentPath = "authorization" | "permit" | "approve";

/** What the token-purchase code reads and writes through: a viem public client's readContract and
 * getBlock, a viem wallet client's signTypedData and writeContract, and waiting for a receipt. */
export interface TokenPurchasePort {
  account: Hex;
  chainId: number;
  readContract(call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }): Promise<unknown>;
  /** The latest block's timestamp (seconds): an authorization's window is the chain's time. */
  chainTime(): Promise<bigint>;
  signTypedData(data: { domain: Record<string, unknown>; types: Record<string, readonly { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> }): Promise<Hex>;
  /** Sends the transaction (the wallet's confirmation) and answers its hash. */
  writeContract(call: { address: Hex; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }): Promise<Hex>;
  /** Waits for the transaction's receipt; throws when it reverted. */
  waitForTransaction(hash: Hex): Promise<void>;
}

export interface TokenPurchaseRequest {
  tokenMarketplace: Hex;
  /** The on-chain id (0x + 64 hex). */
  listingId: Hex;
  kind: PurchaseKind;
  /** Subscriptions and renewals: the duration in seconds; per_query and top_up: the deposit in the
   * token's smallest unit; one_time: 0. */
  arg: bigint;
}

export interface TokenPurchaseQuote {
  token: Hex;
  symbol: string;
  decimals: number;
  /** What the purchase takes, in the token's smallest unit. */
  due: bigint;
  path: TokenPaymentPath;
  /** The token's EIP-712 domain (name and version), when it has one. */
  domain: { name: string; version: string } | null;
}

export interface TokenPurchaseResult extends TokenPurchaseQuote {
  /** Every transaction sent, in order (the approval first on the approve path). */
  transactions: Hex[];
}

const b32 = (name: string) => ({ name, type: "bytes32" });
const u256 = (name: string) => ({ name, type: "uint256" });
const buy = (name: string, inputs: { name: string; type: string }[]) => ({ type: "function", name, stateMutability: "nonpayable", inputs, outputs: [] });
/** The TokenMarketplace's functions a purchase uses, as the generated ABI has them (a test compares them):
 * this module carries these few rather than the whole ABI (the SDK's browser bundle stays small). */
export const TOKEN_PURCHASE_ABI = [
  {
    type: "function",
    name: "listings",
    stateMutability: "view",
    inputs: [b32("listingId")],
    outputs: [{ name: "price", type: "uint96" }, { name: "escrow", type: "uint128" }, { name: "accessType", type: "uint8" }, { name: "status", type: "uint8" }, { name: "creator", type: "address" }, { name: "createdAt", type: "uint40" }, { name: "token", type: "address" }, { name: "metadataUri", type: "string" }],
  },
  { type: "function", name: "subscriptionPrice", stateMutability: "view", inputs: [b32("listingId"), u256("durationSeconds")], outputs: [u256("cost")] },
  buy("purchaseOneTime", [b32("listingId")]),
  buy("purchaseSubscription", [b32("listingId"), u256("durationSeconds")]),
  buy("renewSubscription", [b32("listingId"), u256("durationSeconds")]),
  buy("purchasePerQuery", [b32("listingId"), u256("deposit")]),
  buy("topUpBalance", [b32("listingId"), u256("amount")]),
  buy("purchaseWithAuthorization", [
    { name: "kind", type: "uint8" },
    b32("listingId"),
    u256("arg"),
    { name: "auth", type: "tuple", components: [u256("value"), u256("validAfter"), u256("validBefore"), b32("nonce"), { name: "v", type: "uint8" }, b32("r"), b32("s")] } as { name: string; type: string },
  ]),
  buy("purchaseWithPermit", [
    { name: "kind", type: "uint8" },
    b32("listingId"),
    u256("arg"),
    { name: "permit", type: "tuple", components: [u256("value"), u256("deadline"), { name: "v", type: "uint8" }, b32("r"), b32("s")] } as { name: string; type: string },
  ]),
] as const;
const tokenMarketplaceAbi = TOKEN_PURCHASE_ABI;

const TOKEN_ABI = [
  { type: "function", name: "symbol", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "string" }] },
  { type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint8" }] },
  { type: "function", name: "allowance", stateMutability: "view", inputs: [{ name: "owner", type: "address" }, { name: "spender", type: "address" }], outputs: [{ name: "", type: "uint256" }] },
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ name: "spender", type: "address" }, { name: "value", type: "uint256" }], outputs: [{ name: "", type: "bool" }] },
  { type: "function", name: "nonces", stateMutability: "view", inputs: [{ name: "owner", type: "address" }], outputs: [{ name: "", type: "uint256" }] },
  { type: "function", name: "authorizationState", stateMutability: "view", inputs: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }], outputs: [{ name: "", type: "bool" }] },
  {
    type: "function",
    name: "eip712Domain",
    stateMutability: "view",
    inputs: [],
    outputs: [
      { name: "fields", type: "bytes1" },
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
      { name: "salt", type: "bytes32" },
      { name: "extensions", type: "uint256[]" },
    ],
  },
] as const;

const ZERO_NONCE = `0x${"00".repeat(32)}` as Hex;
/** How long a signed authorization or permit stays valid. */
export const TOKEN_SIGNATURE_SECONDS = 3600n;

const succeeds = async <T>(read: Promise<unknown>): Promise<T | null> => {
  try {
    return (await read) as T;
  } catch {
    return null;
  }
};

/** The purchase a rental model's first purchase is. */
export function purchaseKindOf(model: RentalModel): PurchaseKind {
  return model === "one_time" ? "one_time" : model === "subscription" ? "subscription" : "per_query";
}

/** What the purchase costs and how it will be paid, read from the chain; signs and sends nothing. */
export async function quoteTokenPurchase(port: TokenPurchasePort, request: TokenPurchaseRequest): Promise<TokenPurchaseQuote> {
  const read = (address: Hex, abi: readonly unknown[], functionName: string, args: readonly unknown[] = []) => port.readContract({ address, abi, functionName, args });
  const listing = (await read(request.tokenMarketplace, tokenMarketplaceAbi, "listings", [request.listingId])) as readonly [bigint, bigint, number, number, Hex, number, Hex, string];
  const [price, , accessType, status, , , token] = listing;
  if (status === 0) throw new Error(`No listing ${request.listingId} on the token marketplace ${request.tokenMarketplace}.`);
  const expected = request.kind === "one_time" ? ACCESS_TYPE.one_time : request.kind === "subscription" || request.kind === "renewal" ? ACCESS_TYPE.subscription : ACCESS_TYPE.per_query;
  if (accessType !== expected) throw new Error(`Listing ${request.listingId} is not rented that way (${request.kind}).`);
  const due =
    request.kind === "one_time"
      ? price
      : request.kind === "subscription" || request.kind === "renewal"
        ? ((await read(request.tokenMarketplace, tokenMarketplaceAbi, "subscriptionPrice", [request.listingId, request.arg])) as bigint)
        : request.arg;
  const [symbol, decimals, domain, eip3009, eip2612] = await Promise.all([
    read(token, TOKEN_ABI, "symbol") as Promise<string>,
    read(token, TOKEN_ABI, "decimals") as Promise<number>,
    succeeds<readonly [Hex, string, string]>(read(token, TOKEN_ABI, "eip712Domain")),
    succeeds<boolean>(read(token, TOKEN_ABI, "authorizationState", [port.account, ZERO_NONCE])),
    succeeds<bigint>(read(token, TOKEN_ABI, "nonces", [port.account])),
  ]);
  const named = domain ? { name: domain[1], version: domain[2] } : null;
  const path: TokenPaymentPath = named && eip3009 !== null ? "authorization" : named && eip2612 !== null ? "permit" : "approve";
  return { token, symbol, decimals: Number(decimals), due, path, domain: named };
}

function splitSignature(signature: Hex): { v: number; r: Hex; s: Hex } {
  const body = signature.slice(2);
  if (body.length !== 130) throw new Error("The wallet returned a signature that is not 65 bytes.");
  let v = Number.parseInt(body.slice(128, 130), 16);
  if (v < 27) v += 27;
  return { r: `0x${body.slice(0, 64)}`, s: `0x${body.slice(64, 128)}`, v };
}

function randomNonce(): Hex {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Buys `request` in the listing's token in as few confirmations as the token allows (see the top of this
 * file). `onQuote` sees the amount and the path before anything is signed (to show or confirm it).
 */
export async function purchaseInToken(port: TokenPurchasePort, request: TokenPurchaseRequest, onQuote?: (quote: TokenPurchaseQuote) => void | Promise<void>): Promise<TokenPurchaseResult> {
  const quote = await quoteTokenPurchase(port, request);
  await onQuote?.(quote);
  const kind = PURCHASE[request.kind];
  const send = async (call: { address: Hex; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }) => {
    const hash = await port.writeContract(call);
    await port.waitForTransaction(hash);
    return hash;
  };
  const domain = quote.domain && { name: quote.domain.name, version: quote.domain.version, chainId: port.chainId, verifyingContract: quote.token };
  if (quote.path === "authorization" && domain) {
    const validBefore = (await port.chainTime()) + TOKEN_SIGNATURE_SECONDS;
    const nonce = randomNonce();
    const message = { from: port.account, to: request.tokenMarketplace, value: quote.due, validAfter: 0n, validBefore, nonce };
    const signature = await port.signTypedData({
      domain,
      types: {
        ReceiveWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "ReceiveWithAuthorization",
      message,
    });
    const auth = { value: quote.due, validAfter: 0n, validBefore, nonce, ...splitSignature(signature) };
    const hash = await send({ address: request.tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "purchaseWithAuthorization", args: [kind, request.listingId, request.arg, auth] });
    return { ...quote, transactions: [hash] };
  }
  if (quote.path === "permit" && domain) {
    const deadline = (await port.chainTime()) + TOKEN_SIGNATURE_SECONDS;
    const nonce = (await port.readContract({ address: quote.token, abi: TOKEN_ABI, functionName: "nonces", args: [port.account] })) as bigint;
    const signature = await port.signTypedData({
      domain,
      types: {
        Permit: [
          { name: "owner", type: "address" },
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "Permit",
      message: { owner: port.account, spender: request.tokenMarketplace, value: quote.due, nonce, deadline },
    });
    const permit = { value: quote.due, deadline, ...splitSignature(signature) };
    const hash = await send({ address: request.tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "purchaseWithPermit", args: [kind, request.listingId, request.arg, permit] });
    return { ...quote, transactions: [hash] };
  }
  const transactions: Hex[] = [];
  const allowance = (await port.readContract({ address: quote.token, abi: TOKEN_ABI, functionName: "allowance", args: [port.account, request.tokenMarketplace] })) as bigint;
  if (allowance < quote.due) transactions.push(await send({ address: quote.token, abi: TOKEN_ABI, functionName: "approve", args: [request.tokenMarketplace, quote.due] }));
  const named = { one_time: "purchaseOneTime", subscription: "purchaseSubscription", renewal: "renewSubscription", per_query: "purchasePerQuery", top_up: "topUpBalance" } as const;
  const args = request.kind === "one_time" ? [request.listingId] : [request.listingId, request.arg];
  transactions.push(await send({ address: request.tokenMarketplace, abi: tokenMarketplaceAbi, functionName: named[request.kind], args }));
  return { ...quote, transactions };
}

/** A viem wallet client and public client as the port (structurally: no viem import here). */
export function viemTokenPurchasePort(wallet: {
  account?: { address: Hex } | undefined;
  chain?: { id: number } | undefined;
  signTypedData(args: never): Promise<Hex>;
  writeContract(args: never): Promise<Hex>;
}, client: {
  readContract(args: never): Promise<unknown>;
  getBlock(args?: never): Promise<{ timestamp: bigint }>;
  waitForTransactionReceipt(args: never): Promise<{ status: string }>;
}): TokenPurchasePort {
  const account = wallet.account;
  if (!account) throw new Error("The wallet client has no account.");
  if (!wallet.chain) throw new Error("The wallet client has no chain.");
  return {
    account: account.address,
    chainId: wallet.chain.id,
    readContract: (call) => client.readContract(call as never),
    chainTime: async () => (await client.getBlock()).timestamp,
    signTypedData: (data) => wallet.signTypedData({ account, ...data } as never),
    writeContract: (call) => wallet.writeContract({ account, chain: wallet.chain, ...call } as never),
    waitForTransaction: async (hash) => {
      const receipt = await client.waitForTransactionReceipt({ hash } as never);
      if (receipt.status !== "success") throw new Error(`Transaction ${hash} reverted.`);
    },
  };
}
