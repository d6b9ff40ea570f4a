// Token listings and x402 payments on the real chain: the TokenMarketplace and the USDC stand-in deployed
// on the shared Hardhat node; a per-task listing priced in USDC indexed with its currency; a payment the
// official client (@x402/core's x402Client with @x402/evm's ExactEvmScheme and a viem account) signs is
// accepted by our checks against the chain, settles in one settlePayments batch (the creator's escrow gets
// the price less the fee), and its replay is refused by the chain's nonce before and at settlement; a
// batch of several groups, packed as the settler packs it, is decided per payment from its receipt and per
// run from the chain's logs.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPublicClient, createWalletClient, getAddress, http, keccak256, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import { localUsdcAbi, localUsdcBytecode, LOCAL_USDC } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi, tokenMarketplaceBytecode } from "@agent-rental/core/token-marketplace";
import { createChainClient, chainFor, type ChainClient } from "../../src/chain/client.ts";
import { readTokenAuthorization } from "../../src/chain/read-token-authorization.ts";
import { getChargeOutcomes } from "../../src/chain/get-charge-outcomes.ts";
import { paymentOutcomesOf, settlePaymentsData, tokenPaymentOf } from "../../src/chain/settle-payments.ts";
import { indexOnce } from "../../src/credentials/indexer.ts";
import { getChainListing } from "../../src/listings/chain-listing.store.ts";
import { currencyOfRecord } from "../../src/listings/catalogue.ts";
import { checkPayment, checkPaymentState, paymentRequired, paymentRequirements, PAYMENT_REFUSALS, readPaymentSignature } from "../../src/x402/index.ts";
import { fundAccount } from "../support/chain-actions.ts";
import { startWorld, type World } from "../support/world.ts";

const CHAIN_ID = 31337;
const PRICE = 250_000n; // 0.25 USDC
let world: World;
let chain: ChainClient;
let usdc: Address;
let tokenMarketplace: Address;
let listingId: Hex;
let deployBlock: bigint;
let authority: Awaited<ReturnType<typeof fundAccount>>;
const payer = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  const rpcUrl = world.rpcUrl;
  const viemChain = chainFor(CHAIN_ID, rpcUrl);
  const client = createPublicClient({ chain: viemChain, transport: http(rpcUrl) });
  authority = await fundAccount(rpcUrl);
  const creator = await fundAccount(rpcUrl);
  const asAuthority = createWalletClient({ account: authority, chain: viemChain, transport: http(rpcUrl) });
  const deploy = async (abi: readonly unknown[], bytecode: Hex, args: unknown[]) => {
    const hash = await asAuthority.deployContract({ abi: abi as never, bytecode, args: args as never });
    const receipt = await client.waitForTransactionReceipt({ hash });
    return { address: getAddress(receipt.contractAddress!), block: receipt.blockNumber };
  };
  const send = async (hash: Hex) => client.waitForTransactionReceipt({ hash });
  const token = await deploy(localUsdcAbi, localUsdcBytecode, []);
  usdc = token.address;
  const market = await deploy(tokenMarketplaceAbi, tokenMarketplaceBytecode, [authority.address, privateKeyToAccount(generatePrivateKey()).address]);
  tokenMarketplace = market.address;
  deployBlock = market.block;
  await send(await asAuthority.writeContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "setTokenAllowed", args: [usdc, true] }));
  await send(await asAuthority.writeContract({ address: usdc, abi: localUsdcAbi, functionName: "mint", args: [payer.address, 10n * PRICE] }));
  const asCreator = createWalletClient({ account: creator, chain: viemChain, transport: http(rpcUrl) });
  const seed = keccak256(toHex("x402-per-task"));
  await send(await asCreator.writeContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "createListing", args: [seed, usdc, 2, PRICE, "ipfs://bafkx402example"] }));
  listingId = await client.readContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "listingIdOf", args: [creator.address, seed] });
  chain = createChainClient({
    rpcUrl,
    chainId: CHAIN_ID,
    marketplace: world.config.MARKETPLACE_ADDRESS as Address,
    tokenMarketplace,
    tokens: [{ address: usdc, symbol: LOCAL_USDC.symbol, name: LOCAL_USDC.name, version: LOCAL_USDC.version, decimals: LOCAL_USDC.decimals, eip3009: true }],
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const requirements = () => paymentRequirements({ chainId: CHAIN_ID, token: { address: usdc, ...LOCAL_USDC }, amount: PRICE, payTo: tokenMarketplace });

async function pay() {
  const client = x402Client.fromConfig({ schemes: [{ network: `eip155:${CHAIN_ID}`, client: new ExactEvmScheme(toClientEvmSigner(payer)) }], spendControls: { allowedAssets: [{ network: `eip155:${CHAIN_ID}`, asset: usdc }] } });
  // The client dates its authorization by its own clock (Date.now). The shared node's clock runs ahead
  // of the wall clock once other suites have moved its time on (subscriptions, expiries), so the payer's
  // clock is set to the chain's for the signature, as a payer on a live network agrees with it.
  const { timestamp } = await chain.client.getBlock({ blockTag: "latest" });
  vi.useFakeTimers({ toFake: ["Date"], now: Math.max(Date.now(), Number(timestamp) * 1000) });
  try {
    const payload = await client.createPaymentPayload(paymentRequired({ url: "http://127.0.0.1/v1/execute" }, [requirements()], "payment required"));
    return readPaymentSignature(encodePaymentSignatureHeader(payload));
  } finally {
    vi.useRealTimers();
  }
}

describe("token listings on the chain", () => {
  it("index a TokenMarketplace listing with its token, symbol and decimals, from the chain's events", async () => {
    await indexOnce({ tables: world.services.tables, chain, logger: world.services.logger, fromBlock: deployBlock, confirmations: 0 });
    const record = await getChainListing(world.services.tables, listingId);
    expect(record).toMatchObject({ rental_model: "per_query", price_wei: PRICE.toString(), token: usdc.toLowerCase(), token_symbol: "USDC", token_decimals: 6, metadata_uri: "ipfs://bafkx402example", status: "active" });
    expect(currencyOfRecord(record!)).toEqual({ symbol: "USDC", address: usdc, decimals: 6 });
  });
});

describe("x402 payments on the chain", () => {
  it("accept the official client's payment, settle it in a settlePayments batch with the fee split, and refuse its replay", async () => {
    const payment = await pay();
    const state = await readTokenAuthorization(chain, { token: usdc, authorizer: payer.address, nonce: payment.authorization.nonce });
    expect(await checkPayment(payment, requirements(), state.chainTime)).toEqual({ ok: true });
    expect(checkPaymentState(payment, state)).toEqual({ ok: true });

    const runRef = toHex(300n, { size: 32 });
    const tokenPayment = tokenPaymentOf(listingId, runRef, payment.authorization, payment.signature);
    const viemChain = chainFor(CHAIN_ID, world.rpcUrl);
    const wallet = createWalletClient({ account: authority, chain: viemChain, transport: http(world.rpcUrl) });
    const settle = async (payments: (typeof tokenPayment)[]) => {
      const hash = await wallet.sendTransaction({ to: tokenMarketplace, data: settlePaymentsData(payments) });
      return chain.client.waitForTransactionReceipt({ hash });
    };
    const receipt = await settle([tokenPayment]);
    expect(paymentOutcomesOf(receipt, [tokenPayment])).toEqual([{ outcome: "settled", amount: PRICE, fee: (PRICE * 250n) / 10_000n, logIndex: expect.any(Number) }]);
    const [, escrow] = await chain.client.readContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "listings", args: [listingId] });
    expect(escrow).toBe(PRICE - (PRICE * 250n) / 10_000n);
    expect(await chain.client.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [payer.address] })).toBe(9n * PRICE);

    // The replay: our check reads the nonce as used; sent anyway, the contract refuses it and moves nothing.
    const after = await readTokenAuthorization(chain, { token: usdc, authorizer: payer.address, nonce: payment.authorization.nonce });
    expect(checkPaymentState(payment, after)).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.nonceUsed });
    const replay = { ...tokenPayment, runRef: toHex(301n, { size: 32 }) };
    const second = await settle([replay]);
    expect(paymentOutcomesOf(second, [replay])).toEqual([{ outcome: "refused", error: "AuthorizationFailed" }]);
    expect(await chain.client.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [payer.address] })).toBe(9n * PRICE);
  });

  it("settle a batch of groups as the settler packs it: each payment's outcome from the receipt, each run's decision found by its reference", async () => {
    const viemChain = chainFor(CHAIN_ID, world.rpcUrl);
    const wallet = createWalletClient({ account: authority, chain: viemChain, transport: http(world.rpcUrl) });
    const ref = (n: bigint) => toHex(n, { size: 32 });
    const [one, two] = [await pay(), await pay()];
    const first = tokenPaymentOf(listingId, ref(400n), one.authorization, one.signature);
    const offPrice = { ...tokenPaymentOf(listingId, ref(401n), two.authorization, two.signature), value: PRICE + 1n }; // its own group
    const again = { ...first, runRef: ref(403n) }; // the same authorization again, for another run, in the first group
    const second = tokenPaymentOf(listingId, ref(402n), two.authorization, two.signature);
    const payments = [first, offPrice, again, second];
    const hash = await wallet.sendTransaction({ to: tokenMarketplace, data: settlePaymentsData(payments) });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    const settled = { outcome: "settled", amount: PRICE, fee: (PRICE * 250n) / 10_000n, logIndex: expect.any(Number) };
    expect(paymentOutcomesOf(receipt, payments)).toEqual([settled, { outcome: "refused", error: "IncorrectPayment" }, { outcome: "refused", error: "AuthorizationFailed" }, settled]);
    // The settlement watcher's read: by reference (the third topic, and every PaymentsSettled of the
    // range, whose runs the transaction's input names), and for more than a hundred references, every
    // charge event of the range.
    const range = { fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber };
    const expected = { charged: { kind: "charged", priceWei: PRICE, txHash: hash }, refused: { kind: "refused", contractError: "IncorrectPayment", txHash: hash } };
    for (const refs of [[ref(400n), ref(401n), ref(402n)], [ref(400n), ref(401n), ref(402n), ...Array.from({ length: 100 }, (_, i) => ref(5_000n + BigInt(i)))]]) {
      const decisions = await getChargeOutcomes(chain, { refs, ...range });
      expect(decisions.size).toBe(3);
      expect(decisions.get(ref(400n))).toMatchObject(expected.charged);
      expect(decisions.get(ref(401n))).toMatchObject(expected.refused);
      expect(decisions.get(ref(402n))).toMatchObject(expected.charged);
    }
  });

  it("refuse a payer without the balance, from the chain", async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    const state = await readTokenAuthorization(chain, { token: usdc, authorizer: poor.address, nonce: `0x${"01".repeat(32)}` });
    expect(state.balance).toBe(0n);
    const payment = await pay();
    expect(checkPaymentState({ ...payment, authorization: { ...payment.authorization, from: poor.address } }, state)).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.balance });
  });
});
