// Renting token listings with the SDK on the local stack (the demo's USDC per-task listing and RENT
// subscription, the renters holding both tokens): the price shown in its currency; USDC (EIP-3009) bought
// with one signature and one transaction (purchaseWithAuthorization), RENT (EIP-2612) with one signature
// and one transaction (purchaseWithPermit); a token read as a plain ERC-20 (its EIP-3009, EIP-2612 and
// EIP-712 reads refused) takes approve then the purchase. Each checked on the TokenMarketplace and in the
// renter's token balance. Then the execute routes' two 402s as the SDK gives them: x402's
// (PaymentRequiredError with the decoded PAYMENT-REQUIRED offer and reason) and a spending limit's
// (SpendLimitError), on the same USDC listing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, parseEventLogs, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import { AgentRentalClient, formatListingPrice, PaymentRequiredError, rentInToken, SpendLimitError, type Listing } from "../../sdk/src/index.ts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi, TOKEN_PURCHASE_ABI } from "@agent-rental/core/tokens";
import { startStack, type RunningStack } from "../../local/stack.ts";
import { freePort } from "../../local/ports.ts";
import { chainFor } from "../../src/chain/client.ts";

let stack: RunningStack;
let dataDir: string;
let sdk: AgentRentalClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "sdk-rent-token-"));
  stack = await startStack({ dataDir, apiPort: await freePort(), chainPort: await freePort(), dynamoPort: await freePort(), awsPort: await freePort(), logLevel: "silent" });
  sdk = new AgentRentalClient({ baseUrl: stack.info.api_url, apiKey: (stack.info.demo as { api_key: string }).api_key });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function renter(index: number) {
  const account = stack.info.accounts.filter((a) => a.role === "renter")[index]!;
  const chain = chainFor(stack.info.chain_id, stack.info.rpc_url);
  const transport = http(stack.info.rpc_url);
  return { wallet: createWalletClient({ account: privateKeyToAccount(account.private_key as Hex), chain, transport }), client: createPublicClient({ chain, transport }) };
}

const market = () => stack.info.contracts.token_marketplace as Hex;
const status = (who: ReturnType<typeof renter>, listing: Listing) =>
  who.client.readContract({ address: market(), abi: tokenMarketplaceAbi, functionName: "credentialStatus", args: [listing.on_chain_id as Hex, who.wallet.account.address] });
const balanceOf = (who: ReturnType<typeof renter>, token: string) => who.client.readContract({ address: token as Hex, abi: localUsdcAbi, functionName: "balanceOf", args: [who.wallet.account.address] });

async function listingIn(currency: string): Promise<Listing> {
  const found = await sdk.listings.search({ currency, sort: "price_asc" } as never);
  expect(found.total).toBe(1);
  return sdk.listings.get(found.listings[0]!.id);
}

describe("SDK: renting listings priced in tokens", () => {
  it("carries the purchase functions exactly as the TokenMarketplace's ABI has them", () => {
    const strip = (p: { name: string; type: string; components?: unknown[] }): unknown => ({ name: p.name, type: p.type, ...(p.components ? { components: (p.components as never[]).map(strip) } : {}) });
    for (const item of TOKEN_PURCHASE_ABI) {
      const generated = tokenMarketplaceAbi.find((g) => g.type === "function" && g.name === item.name) as unknown as { stateMutability: string; inputs: never[]; outputs: never[] };
      expect({ name: item.name, stateMutability: generated.stateMutability, inputs: generated.inputs.map(strip), outputs: generated.outputs.map(strip) }).toEqual({ name: item.name, stateMutability: item.stateMutability, inputs: item.inputs, outputs: item.outputs });
    }
  });

  it("rents the USDC per-task listing with one EIP-3009 signature and one transaction", async () => {
    const listing = await listingIn("USDC");
    expect(formatListingPrice(listing)).toBe("0.25 USDC");
    expect(listing.currency.address?.toLowerCase()).toBe(stack.info.contracts.tokens.usdc.address.toLowerCase());
    const who = renter(1);
    const before = await balanceOf(who, listing.currency.address!);
    const signed: string[] = [];
    const wallet = { ...who.wallet, signTypedData: (args: never) => (signed.push((args as { primaryType: string }).primaryType), who.wallet.signTypedData(args)) };
    const result = await sdk.listings.rentInToken(listing.id, { wallet: wallet as never, client: who.client as never, tokenMarketplace: market(), runs: 4 });
    expect(result).toMatchObject({ path: "authorization", symbol: "USDC", due: 1_000_000n });
    expect(result.transactions).toHaveLength(1);
    expect(signed).toEqual(["ReceiveWithAuthorization"]);
    const receipt = await who.client.getTransactionReceipt({ hash: result.transactions[0]! });
    expect(receipt.to?.toLowerCase()).toBe(market().toLowerCase());
    expect(parseEventLogs({ abi: tokenMarketplaceAbi, logs: receipt.logs, eventName: "PerQueryPurchased" })).toHaveLength(1);
    expect(await status(who, listing)).toBe(1);
    expect(before - (await balanceOf(who, listing.currency.address!))).toBe(1_000_000n);
  });

  it("rents the RENT subscription with one EIP-2612 permit and one transaction", async () => {
    const listing = await listingIn("RENT");
    expect(formatListingPrice(listing)).toBe("20 RENT");
    const who = renter(1);
    const before = await balanceOf(who, listing.currency.address!);
    const result = await rentInToken(listing, { wallet: who.wallet as never, client: who.client as never, tokenMarketplace: market(), days: 30 });
    expect(result).toMatchObject({ path: "permit", symbol: "RENT" });
    expect(result.transactions).toHaveLength(1);
    expect(await status(who, listing)).toBe(1);
    expect(before - (await balanceOf(who, listing.currency.address!))).toBe(result.due);
    expect(result.due).toBe(20n * 10n ** 18n);
  });

  it("approves then tops up when the token offers neither EIP-3009 nor EIP-2612", async () => {
    const listing = await listingIn("USDC");
    const who = renter(1);
    const plain = new Set(["eip712Domain", "authorizationState", "nonces"]);
    const client = { ...who.client, readContract: (call: { functionName: string }) => (plain.has(call.functionName) ? Promise.reject(new Error("execution reverted")) : who.client.readContract(call as never)) };
    const before = await balanceOf(who, listing.currency.address!);
    const result = await rentInToken(listing, { wallet: who.wallet as never, client: client as never, tokenMarketplace: market(), kind: "top_up", runs: 2 });
    expect(result).toMatchObject({ path: "approve", due: 500_000n });
    expect(result.transactions).toHaveLength(2);
    expect(before - (await balanceOf(who, listing.currency.address!))).toBe(500_000n);
  });

  it("refuses an ETH listing", async () => {
    const eth = (await sdk.listings.search({ currency: "ETH" } as never)).listings[0]!;
    await expect(rentInToken(await sdk.listings.get(eth.id), { wallet: renter(1).wallet as never, client: renter(1).client as never, tokenMarketplace: market() })).rejects.toThrow(/not a token/);
  });
});

describe("SDK: the execute routes' two 402s", () => {
  const task = (listing: Listing) => ({ agent_id: listing.id, task: "write to Dana", input: { prospect: "Dana, head of finance at Acme" } });

  it("gives x402's 402 as PaymentRequiredError: the offer decoded from PAYMENT-REQUIRED, on execute and on the stream", async () => {
    const listing = await listingIn("USDC");
    const anonymous = new AgentRentalClient({ baseUrl: stack.info.api_url });
    const offer = { scheme: "exact", network: `eip155:${stack.info.chain_id}`, amount: "250000", asset: listing.currency.address, payTo: market(), maxTimeoutSeconds: 600, extra: { name: "USD Coin", version: "2" } };
    const error = await anonymous.execute(task(listing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect(error).not.toBeInstanceOf(SpendLimitError);
    const paid = error as PaymentRequiredError;
    expect(paid).toMatchObject({ code: "payment_required", status: 402, reason: "payment_required", amount: "250000", asset: listing.currency.address, payTo: market(), network: offer.network });
    expect(paid.paymentRequired).toMatchObject({ x402Version: 2, accepts: [offer] });
    expect(paid.paymentRequired?.resource?.url).toMatch(/\/v1\/execute$/);
    const streamed = await (async () => {
      for await (const event of anonymous.executeStream(task(listing))) void event;
    })().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(PaymentRequiredError);
    expect((streamed as PaymentRequiredError).paymentRequired?.resource?.url).toMatch(/\/v1\/execute\/stream$/);
  });

  it("gives a refused x402 payment as PaymentRequiredError with the refusal's reason", async () => {
    const listing = await listingIn("USDC");
    const anonymous = new AgentRentalClient({ baseUrl: stack.info.api_url });
    const offer = ((await anonymous.execute(task(listing)).catch((e: unknown) => e)) as PaymentRequiredError).paymentRequired!;
    // The official client, told to allow anything, signs an authorization for 1 unit instead of the price.
    const account = privateKeyToAccount(stack.info.accounts.filter((a) => a.role === "renter")[0]!.private_key as Hex);
    const client = x402Client.fromConfig({ schemes: [{ network: "eip155:*", client: new ExactEvmScheme(toClientEvmSigner(account)) }], spendControls: false });
    const payment = encodePaymentSignatureHeader(await client.createPaymentPayload({ ...offer, accepts: [{ ...offer.accepts[0]!, amount: "1" }] } as never));
    const paying = new AgentRentalClient({ baseUrl: stack.info.api_url, fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), "PAYMENT-SIGNATURE": payment } }) });
    const error = await paying.execute(task(listing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect((error as PaymentRequiredError).reason).toMatch(/^invalid_exact_evm_/);
    expect((error as PaymentRequiredError).amount).toBe("250000");
  });

  it("keeps a spending limit's 402 a SpendLimitError (a USDC limit of one run, on a key of a renter of the listing)", async () => {
    const listing = await listingIn("USDC");
    const account = privateKeyToAccount(stack.info.accounts.filter((a) => a.role === "renter")[1]!.private_key as Hex);
    const owner = new AgentRentalClient({ baseUrl: stack.info.api_url });
    await owner.signIn(account);
    const created = await owner.keys.create("one USDC run", account, { spendLimits: [{ currency: "USDC", period: "total", amount: "250000" }] });
    const script = new AgentRentalClient({ baseUrl: stack.info.api_url, apiKey: created.key, retries: 0 });
    const run = await script.execute(task(listing));
    expect(run.status, JSON.stringify((run as { error?: unknown }).error)).toBe("completed");
    const error = await script.execute(task(listing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).not.toBeInstanceOf(PaymentRequiredError);
    expect((error as SpendLimitError).limit).toMatchObject({ scope: "key", currency: "USDC", period: "total", amount: "250000", remaining: "0" });
  }, 120_000);
});
