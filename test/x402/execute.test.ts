// x402 v2 on the execute routes, end to end through the served API with the real app, settler and chain:
// a per-task listing priced in the USDC stand-in (EIP-3009) on the TokenMarketplace is paid by the
// official client (@x402/fetch's wrapFetchWithPayment, @x402/core's x402Client with @x402/evm's
// ExactEvmScheme and a viem account); the payer's USDC goes down by the price, the listing's escrow up by
// the price less the fee, in the settler's settlePayments batch; a failed run moves nothing; identical
// payments at once give one run, a replay none; every bad payment is a 402 with its reason or a 400, never
// a run, never a 5xx; an ETH listing without a credential stays 401.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, getAddress, http, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { tokenSetting } from "@agent-rental/core/tokens";
import { chainFor } from "../../src/chain/client.ts";
import { deployTokenMarketplace, mintLocalTokens } from "../../src/chain/deploy.ts";
import { getChainListing } from "../../src/listings/chain-listing.store.ts";
import { toListingId } from "../../src/listings/ids.ts";
import { getAgent, putAgent } from "../../src/listings/listing.store.ts";
import { rotateWebhookSecret } from "../../src/listings/secrets.ts";
import { runJob } from "../../src/jobs.ts";
import { createTokenListing } from "../../local/token-listings.ts";
import { registerAgent } from "../../local/publish.ts";
import { fundAccount } from "../support/chain-actions.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { CONNECTED_MANIFEST, startWorld, type World } from "../support/world.ts";

const CHAIN_ID = 31337;
const NETWORK = `eip155:${CHAIN_ID}` as const;
const PRICE = 250_000n; // 0.25 USDC
const FEE = (PRICE * 250n) / 10_000n;
const FUNDED_PAYERS = 16;
let world: World;
let usdc: Address;
let tokenMarketplace: Address;
let tokenListing: Hex;
let agentId: string;
let ethAgentId: string;
let client: ReturnType<typeof createPublicClient>;
let mint: (to: Address, amount: bigint) => Promise<void>; // before the world starts only

beforeAll(async () => {
  const rpcUrl = sharedInfrastructure().rpcUrl;
  const chain = chainFor(CHAIN_ID, rpcUrl);
  client = createPublicClient({ chain, transport: http(rpcUrl) });
  // The TokenMarketplace's authority is the service's (the settler sends settlePayments with its key).
  const authority = await fundAccount(rpcUrl);
  const deployment = { rpcUrl, chain, deployerPrivateKey: authority.privateKey };
  const market = await deployTokenMarketplace({ ...deployment, authority: authority.address, feeRecipient: privateKeyToAccount(generatePrivateKey()).address });
  usdc = getAddress(market.tokens.usdc.address);
  tokenMarketplace = getAddress(market.address);
  mint = (to, amount) => mintLocalTokens(deployment, { usdc, utility: market.tokens.utility.address }, [to], { usdc: amount, utility: 0n });
  for (let i = 0; i < FUNDED_PAYERS; i++) {
    const account = privateKeyToAccount(generatePrivateKey());
    await mint(account.address, 10n * PRICE);
    funded.push(account);
  }
  world = await startWorld({
    agent: { handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "the agent gave up") : call.output({ findings: [`done: ${call.task}`] })) },
    env: {
      AUTHORITY_PRIVATE_KEY: authority.privateKey,
      TOKEN_MARKETPLACE_ADDRESS: tokenMarketplace,
      TOKEN_MARKETPLACE_DEPLOY_BLOCK: market.blockNumber.toString(),
      TOKENS: JSON.stringify(tokenSetting(market.tokens)),
    },
  });
  const { services } = world;
  // A connected agent registered by an approved creator, listed per task on the TokenMarketplace in USDC.
  const creator = await world.creator();
  const name = "x402-writer";
  const registered = await registerAgent(services, creator.account.address, { ...CONNECTED_MANIFEST, name, entrypoint_url: world.agent.entrypoint(name) });
  const creatorKey = (creator.account as PrivateKeyAccount & { privateKey?: Hex }).privateKey!;
  ({ listingId: tokenListing } = await createTokenListing({ rpcUrl, chain, tokenMarketplace, creatorPrivateKey: creatorKey, token: usdc, seed: registered.listing_seed, rentalModel: "per_query", price: PRICE, metadataUri: registered.metadata_uri }));
  // The registered agent, published on the token listing: its record under the token listing's id (its
  // sealed logic and webhook secret stay bound to the listing id registration gave it).
  world.agent.setSecret(name, (await rotateWebhookSecret(services, creator.account.address, registered.listing_id)).webhook_secret);
  const stored = (await getAgent(services.tables, `0x${registered.listing_id.slice(4)}`))!;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...record } = stored as unknown as Record<string, unknown>;
  await putAgent(services.tables, tokenListing, { ...(record as { creator: string; listing_id: string }), review_status: "approved" });
  await runJob(services, "indexer");
  expect((await getChainListing(services.tables, tokenListing))?.token).toBe(usdc.toLowerCase());
  agentId = toListingId(tokenListing);
  ethAgentId = (await world.publishConnected("eth-writer", { rental: "per_query" })).listing_id;
}, 240_000);

afterAll(async () => {
  await world?.close();
});

/** Payers funded with ten runs' USDC before the settler sends anything: the authority mints the stand-in
 * and settles, so no mint may race the settler's nonces. */
const funded: PrivateKeyAccount[] = [];

async function payer(funds = 10n * PRICE) {
  if (funds === 0n) return privateKeyToAccount(generatePrivateKey());
  const account = funded.shift();
  if (!account) throw new Error("no funded payer left: raise FUNDED_PAYERS");
  return account;
}

/** The official client, allowing our token on our chain (its default policy knows only built-in tokens). */
function payingFetch(account: PrivateKeyAccount) {
  const x402 = x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmScheme(toClientEvmSigner(account)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] } });
  return wrapFetchWithPayment(fetch, x402);
}

const usdcOf = (address: Address) => client.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [address] }) as Promise<bigint>;
const escrow = async () => (await client.readContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "listings", args: [tokenListing] }))[1] as bigint;
const body = (task: string, id = agentId) => JSON.stringify({ agent_id: id, task, input: {} });
const post = (path: string, init: RequestInit = {}) => fetch(`${world.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...init.headers }, body: init.body ?? body("review") });

/** A payment the official client signs for `account` against the route's 402 offer. */
async function signedPayment(account: PrivateKeyAccount): Promise<{ payload: PaymentPayload; offer: PaymentRequired }> {
  const answer = await post("/v1/execute");
  const offer = decodePaymentRequiredHeader(answer.headers.get("payment-required")!);
  const x402 = x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmScheme(toClientEvmSigner(account)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] } });
  return { payload: await x402.createPaymentPayload(offer), offer };
}

const codeOf = async (answer: Response) => ((await answer.json()) as { error: { code: string } }).error.code;

const withPayment = (payload: unknown) => post("/v1/execute", { headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(payload)).toString("base64") } });

describe("x402 on POST /v1/execute", () => {
  it("answers a request without a credential 402 with PAYMENT-REQUIRED for the USDC listing, and 401 for an ETH listing", async () => {
    const answer = await post("/v1/execute");
    expect(answer.status).toBe(402);
    expect(answer.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect((await codeOf(answer))).toBe("payment_required");
    const offer = decodePaymentRequiredHeader(answer.headers.get("payment-required")!);
    expect(offer.x402Version).toBe(2);
    expect(offer.accepts).toEqual([{ scheme: "exact", network: NETWORK, amount: PRICE.toString(), asset: getAddress(usdc), payTo: tokenMarketplace, maxTimeoutSeconds: 600, extra: { name: "USD Coin", version: "2" } }]);
    const eth = await post("/v1/execute", { body: body("review", ethAgentId) });
    expect(eth.status).toBe(401);
    expect((await codeOf(eth))).toBe("unauthorized");
  }, 120_000);

  it("runs a task paid by the official client: the payer pays the price, the escrow gets it less the fee, PAYMENT-RESPONSE names the settlement", async () => {
    const account = await payer();
    const [before, escrowBefore] = [await usdcOf(account.address), await escrow()];
    const answer = await payingFetch(account)(`${world.url}/v1/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: body("review the contract") });
    const run = (await answer.json()) as { status: string; output: unknown };
    expect(answer.status, JSON.stringify(run)).toBe(200);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ findings: ["done: review the contract"] });
    const settled = decodePaymentResponseHeader(answer.headers.get("payment-response")!);
    expect(settled).toMatchObject({ success: true, network: NETWORK, payer: account.address.toLowerCase() });
    const receipt = await client.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(getAddress(receipt.to!)).toBe(tokenMarketplace);
    expect(await usdcOf(account.address)).toBe(before - PRICE);
    expect(await escrow()).toBe(escrowBefore + PRICE - FEE);
  }, 120_000);

  it("never settles a failed run: the payer keeps its money", async () => {
    const account = await payer();
    const before = await usdcOf(account.address);
    const answer = await payingFetch(account)(`${world.url}/v1/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: body("fail now") });
    const run = (await answer.json()) as { status: string; output: unknown };
    expect(run.status).toBe("failed");
    expect(answer.headers.get("payment-response")).toBeNull();
    expect(await usdcOf(account.address)).toBe(before);
  }, 120_000);

  it("gives identical payments arriving at once one run, and a replay none", async () => {
    const account = await payer();
    const { payload } = await signedPayment(account);
    const answers = await Promise.all([withPayment(payload), withPayment(payload)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 402]);
    const refused = answers.find((a) => a.status === 402)!;
    expect(decodePaymentRequiredHeader(refused.headers.get("payment-required")!).error).toBe("invalid_exact_evm_nonce_already_used");
    const replay = await withPayment(payload);
    expect(replay.status).toBe(402);
    expect(await usdcOf(account.address)).toBe(10n * PRICE - PRICE);
  }, 120_000);

  it("streams a paid run on POST /v1/execute/stream once its payment is in a block", async () => {
    const account = await payer();
    const answer = await payingFetch(account)(`${world.url}/v1/execute/stream`, { method: "POST", headers: { "content-type": "application/json" }, body: body("stream it") });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("payment-response")).not.toBeNull();
    const text = await answer.text();
    expect(text).toContain("event: done");
    expect(text).toContain("done: stream it");
    expect(await usdcOf(account.address)).toBe(10n * PRICE - PRICE);
  }, 120_000);
});

describe("bad payments on POST /v1/execute: a 402 with the reason or a 400, never a run, never a 5xx", () => {
  /** A payment signed by the official client, then changed as `change` says (the signature no longer
   * covers a changed authorization, which is itself a refusal; the checks before it name the field). */
  async function tampered(change: (payload: PaymentPayload & { payload: { authorization: Record<string, string>; signature: string } }) => void, account?: PrivateKeyAccount) {
    const { payload } = await signedPayment(account ?? (await payer()));
    const copy = structuredClone(payload) as PaymentPayload & { payload: { authorization: Record<string, string>; signature: string } };
    change(copy);
    return withPayment(copy);
  }
  const reasonOf = async (answer: Response) => {
    expect(answer.status).toBe(402);
    expect((await codeOf(answer))).toBe("payment_required");
    return decodePaymentRequiredHeader(answer.headers.get("payment-required")!).error;
  };
  const now = () => Math.floor(Date.now() / 1000);

  it("refuses each wrong field with its reason", async () => {
    expect(await reasonOf(await tampered((p) => (p.payload.authorization.validBefore = String(now() - 3_600))))).toBe("invalid_exact_evm_payload_authorization_valid_before");
    expect(await reasonOf(await tampered((p) => (p.payload.authorization.validAfter = String(now() + 3_600))))).toBe("invalid_exact_evm_payload_authorization_valid_after");
    expect(await reasonOf(await tampered((p) => ((p.payload.authorization.value = "1"), (p.accepted.amount = "1"))))).toBe("invalid_exact_evm_payload_authorization_value_mismatch");
    expect(await reasonOf(await tampered((p) => (p.accepted.asset = tokenMarketplace)))).toBe("invalid_exact_evm_asset_mismatch");
    expect(await reasonOf(await tampered((p) => (p.accepted.network = "eip155:8453")))).toBe("invalid_exact_evm_network_mismatch");
    expect(await reasonOf(await tampered((p) => ((p.payload.authorization.to = usdc), (p.accepted.payTo = usdc))))).toBe("invalid_exact_evm_recipient_mismatch");
    const other = privateKeyToAccount(generatePrivateKey());
    expect(await reasonOf(await tampered((p) => (p.payload.authorization.from = other.address)))).toBe("invalid_exact_evm_signature");
  }, 120_000);

  it("refuses a payer without the balance and a nonce the token already used", async () => {
    expect(await reasonOf(await withPayment((await signedPayment(await payer(0n))).payload))).toBe("invalid_exact_evm_insufficient_balance");
    const account = await payer();
    const { payload } = await signedPayment(account);
    expect((await withPayment(payload)).status).toBe(200);
    expect(await reasonOf(await withPayment(payload))).toBe("invalid_exact_evm_nonce_already_used");
  }, 120_000);

  it("answers a malformed, non-base64 or oversized header 400 invalid_request, and a 1 MiB header is refused before any route", async () => {
    const send = (value: string) => post("/v1/execute", { headers: { "PAYMENT-SIGNATURE": value } });
    for (const value of [Buffer.from("{\"x402Version\":2}").toString("base64"), "not base64!", Buffer.from("not json").toString("base64"), "A".repeat(9_000)]) {
      const answer = await send(value);
      expect(answer.status, value.slice(0, 40)).toBe(400);
      expect((await codeOf(answer))).toBe("invalid_request");
    }
    const huge = await send("A".repeat(1 << 20)).catch((error: unknown) => error);
    // Refused before any route (431 headers_too_large), or the connection closed on it: never a run.
    if (huge instanceof Error) expect(huge.message).toMatch(/fetch failed|other side closed|socket/i);
    else expect((huge as Response).status).toBe(431);
  }, 120_000);
});
