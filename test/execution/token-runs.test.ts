// Listings priced in a token, run through POST /v1/execute with an API key, on the real chain: the
// TokenMarketplace and its two tokens (USDC, 6 decimals; Rental Credit, 18) deployed beside the
// Marketplace and the service configured with both. A per-task balance bought in USDC and one in Rental
// Credit admit runs read from the TokenMarketplace, reserved on that contract's ledger and recorded with
// market "token" and their currency, and their charge handed to the settler names the TokenMarketplace; a
// subscription and a one-time rental in a token run; a balance below the price is 403 insufficient_balance
// naming the TokenMarketplace; credentials and runs carry their currency; a key's limit in a token bounds
// that token's runs and no ETH run; limits in currencies no listing uses are 400.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { findPurchaseTransaction } from "../../src/chain/find-purchase.ts";
import { leaseMapAt } from "../../src/execution/leases/lease-map.store.ts";
import { ledgerKey } from "../../src/execution/money/ledger.store.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, rentInToken, type TokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type Renter, type World } from "../support/world.ts";

let world: World;
let tokens: TokenDeployment;
let base: string;
const USDC_PRICE = 250_000n; // 0.25 USDC
const RENT_PRICE = 3n * 10n ** 17n; // 0.3 RENT

function api(bearer: string, path: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${base}${path}`, { method: init.method ?? "GET", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
}
const execute = (key: string, agentId: string, task: string) => api(key, "/v1/execute", { method: "POST", body: { agent_id: agentId, task } });

interface RunAnswer { run_id: string; status: string; output: unknown; cost_wei: number; settlement?: string; error?: { code: string; on_chain_error?: { contract: string; error: string } } }

async function createLimitedKey(renter: Renter, spendLimits: unknown): Promise<Response> {
  const request = (await (await api(renter.token, "/v1/keys/challenge", { method: "POST", body: { label: "token-limited" } })).json()) as { nonce: string; message: string };
  const signature = await renter.account.signMessage({ message: request.message });
  return api(renter.token, "/v1/keys", { method: "POST", body: { nonce: request.nonce, signature, spend_limits: spendLimits } });
}

/** The charge messages on the settlement queue (the settler is not running in this world). */
async function chargeMessages(): Promise<Record<string, unknown>[]> {
  const messages = await world.services.queue.receive(world.config.SETTLEMENT_QUEUE_URL, { max: 10, waitSeconds: 1, visibilitySeconds: 60 });
  return messages.map((m) => JSON.parse(m.body) as Record<string, unknown>);
}

beforeAll(async () => {
  tokens = await deployTokens(sharedInfrastructure().rpcUrl);
  // No settler: a per-task run's charge stays on the queue, where its message is read; the run ends
  // with its settlement pending (its output kept, withheld) and its reservation held.
  world = await startWorld({ agent: true, settler: false, env: { ...tokens.env, SETTLEMENT_WAIT_MS: "300" } });
  await handAuthority(world, tokens);
  base = world.url;
}, 240_000);

afterAll(() => world?.close());

describe("a per-task balance in a token", () => {
  const perTask = async (name: string, token: "usdc" | "utility", price: bigint) => {
    const agent = await publishTokenAgent(world, tokens, name, { rental: "per_query", token: tokens.tokens[token], price });
    const renter = await world.renter();
    await rentInToken(world, tokens, renter.account, agent, { deposit: price * 3n });
    return { agent, renter };
  };

  it.each([
    ["USDC", "usdc", USDC_PRICE, 6],
    ["RENT", "utility", RENT_PRICE, 18],
  ] as const)("in %s: admitted from the TokenMarketplace's balance, reserved on its ledger, recorded with market token and the currency; recorded for the charge", async (symbol, token, price, decimals) => {
    const { agent, renter } = await perTask(`per-task-${token}`, token, price);
    const answer = await execute(renter.key, agent.agent_id, "summarize");
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as RunAnswer;
    // The settler is not running: the charge is handed over, and the output waits for it.
    expect(body).toMatchObject({ status: "completed", settlement: "pending", output: null });

    const record = await getRun(world.services.tables, body.run_id);
    expect(record).toMatchObject({ market: "token", rental_model: "per_query", price_wei: price.toString(), currency: { symbol, address: getAddress(tokens.tokens[token].address), decimals }, settlement: "pending" });
    expect(record?.output).toEqual({ findings: expect.any(Array) });
    // The run's reservation is held on the TokenMarketplace's ledger, none on the Marketplace's.
    const wallet = renter.account.address;
    expect(Object.keys((await leaseMapAt(world.services.tables, ledgerKey(agent.onChainId, wallet, "token")).read())?.leases ?? {})).toEqual([body.run_id]);
    expect((await leaseMapAt(world.services.tables, ledgerKey(agent.onChainId, wallet, "eth")).read())?.leases ?? {}).toEqual({});

    // Handed to the settler at the price it was admitted at (its market: the test below).
    const charge = (await chargeMessages()).find((m) => m.run_id === body.run_id);
    expect(charge).toMatchObject({ listing: agent.onChainId.toLowerCase(), max_price: price.toString() });

    const detail = (await (await api(renter.key, `/v1/runs/${body.run_id}`)).json()) as { currency: unknown; cost_wei: number };
    expect(detail.currency).toEqual({ symbol, address: getAddress(tokens.tokens[token].address), decimals });
  });

  // The charge message is built from the run (perform.ts, money/settlement.ts requestCharge): the settler
  // sends it to the TokenMarketplace's consumeQueries.
  it("hands the settler a charge naming the TokenMarketplace (market token)", async () => {
    const { agent, renter } = await perTask("per-task-charge", "usdc", USDC_PRICE);
    const body = (await (await execute(renter.key, agent.agent_id, "summarize")).json()) as RunAnswer;
    expect((await getRun(world.services.tables, body.run_id))?.market).toBe("token");
    const charge = (await chargeMessages()).find((m) => m.run_id === body.run_id);
    expect(charge).toMatchObject({ listing: agent.onChainId.toLowerCase(), max_price: USDC_PRICE.toString(), market: "token" });
  });

  it("answers 403 insufficient_balance naming the TokenMarketplace when the balance is below the price", async () => {
    const { agent, renter } = await perTask("per-task-low", "usdc", USDC_PRICE);
    const creator = await world.creator();
    const { createWalletClient, http } = await import("viem");
    const { chainFor } = await import("../../src/chain/client.ts");
    const wallet = createWalletClient({ account: creator.account, chain: chainFor(31337, world.rpcUrl), transport: http(world.rpcUrl) });
    const hash = await wallet.writeContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "updateListing", args: [agent.onChainId, USDC_PRICE * 4n, (await world.services.chain.client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "listings", args: [agent.onChainId] }))[7]] });
    await world.services.chain.client.waitForTransactionReceipt({ hash });
    const answer = await execute(renter.key, agent.agent_id, "summarize");
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: RunAnswer["error"] }).error).toMatchObject({ code: "insufficient_balance", on_chain_error: { contract: "TokenMarketplace", error: "InsufficientBalance" } });
  });
});

describe("a subscription and a one-time rental in a token", () => {
  it.each([
    ["subscription", "utility", RENT_PRICE, "RENT"],
    ["one_time", "usdc", USDC_PRICE, "USDC"],
  ] as const)("a %s bought in the token runs: output, cost 0, market token and the currency on the run", async (rental, token, price, symbol) => {
    const agent: TokenAgent = await publishTokenAgent(world, tokens, `${rental.replace("_", "-")}-${token}`, { rental, token: tokens.tokens[token], price });
    const renter = await world.renter();
    await rentInToken(world, tokens, renter.account, agent);
    const answer = await execute(renter.key, agent.agent_id, "summarize");
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as RunAnswer;
    expect(body).toMatchObject({ status: "completed", cost_wei: 0, output: { findings: expect.any(Array) } });
    expect(await getRun(world.services.tables, body.run_id)).toMatchObject({ market: "token", rental_model: rental, currency: { symbol } });
    const { runs } = (await (await api(renter.key, `/v1/runs?listing_id=${agent.listing_id}`)).json()) as { runs: { run_id: string; currency: { symbol: string } }[] };
    expect(runs.find((r) => r.run_id === body.run_id)?.currency.symbol).toBe(symbol);
    // The proof of payment a feedback file names: the purchase on the TokenMarketplace, found there.
    const purchase = await world.services.chain.client.getContractEvents({ address: tokens.address, abi: tokenMarketplaceAbi, eventName: rental === "one_time" ? "OneTimePurchased" : "SubscriptionPurchased", args: { listingId: agent.onChainId }, fromBlock: tokens.blockNumber, toBlock: "latest" });
    expect(purchase).toHaveLength(1);
    const buyer = renter.account.address;
    expect(await findPurchaseTransaction(world.services.chain, { listingId: agent.onChainId, buyer, market: "token", fromBlock: tokens.blockNumber })).toBe(purchase[0]!.transactionHash);
    // The Marketplace holds no purchase of that listing id.
    expect(await findPurchaseTransaction(world.services.chain, { listingId: agent.onChainId, buyer, fromBlock: 0n })).toBeNull();
  });
});

describe("GET /v1/currencies", () => {
  it("lists ETH on the Marketplace, then each configured token on the TokenMarketplace, without a credential", async () => {
    const res = await fetch(`${base}/v1/currencies`);
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-limit") ?? res.headers.get("x-ratelimit-limit")).not.toBeNull();
    const body = (await res.json()) as { chain_id: number; currencies: Record<string, unknown>[] };
    const { usdc, utility } = tokens.tokens;
    expect(body).toEqual({
      chain_id: world.config.CHAIN_ID,
      currencies: [
        { symbol: "ETH", address: null, decimals: 18, contract: getAddress(world.services.chain.marketplace), name: null, version: null, x402: false },
        { symbol: usdc.symbol, address: getAddress(usdc.address), decimals: 6, contract: getAddress(tokens.address), name: usdc.name, version: usdc.version, x402: true },
        { symbol: utility.symbol, address: getAddress(utility.address), decimals: 18, contract: getAddress(tokens.address), name: utility.name, version: utility.version, x402: false },
      ],
    });
    // The SDK reads the same.
    const { AgentRentalClient } = await import("@agent-rental/sdk");
    expect(await new AgentRentalClient({ baseUrl: base }).listings.currencies()).toEqual(body);
  });
});

describe("credentials of token listings", () => {
  it("list and verify with the listing's currency and a per-task balance in its smallest unit", async () => {
    const agent = await publishTokenAgent(world, tokens, "credential-usdc", { rental: "per_query", token: tokens.tokens.usdc, price: USDC_PRICE });
    const renter = await world.renter();
    await rentInToken(world, tokens, renter.account, agent, { deposit: USDC_PRICE * 5n });
    const usdc = { symbol: "USDC", address: getAddress(tokens.tokens.usdc.address), decimals: 6 };
    const listed = (await (await api(renter.key, "/v1/credentials")).json()) as { credentials: Record<string, unknown>[] };
    expect(listed.credentials).toEqual([expect.objectContaining({ listing_id: agent.listing_id, rental_model: "per_query", status: "active", currency: usdc, balance_wei: (USDC_PRICE * 5n).toString() })]);
    const verified = (await (await api(renter.key, `/v1/credentials/${agent.listing_id}`)).json()) as Record<string, unknown>;
    expect(verified).toMatchObject({ listing_id: agent.listing_id, status: "active", valid: true, on_chain_verified: true, currency: usdc, balance_wei: (USDC_PRICE * 5n).toString() });
    const stranger = await world.renter();
    expect(await (await api(stranger.key, `/v1/credentials/${agent.listing_id}`)).json()).toEqual({ listing_id: agent.listing_id, valid: false, status: "not_found", on_chain_verified: false });
  });
});

describe("spending limits in a token", () => {
  it("a key's USDC limit stops USDC runs past it (402) and no ETH run", async () => {
    const agent = await publishTokenAgent(world, tokens, "limit-usdc", { rental: "per_query", token: tokens.tokens.usdc, price: USDC_PRICE });
    const eth = await world.publishConnected("limit-eth", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await rentInToken(world, tokens, renter.account, agent, { deposit: USDC_PRICE * 4n });
    await world.rent(renter.account, eth, { deposit: eth.priceWei * 4n });
    // By address: stored as the symbol.
    const created = await createLimitedKey(renter, [{ currency: tokens.tokens.usdc.address.toLowerCase(), period: "day", amount: (USDC_PRICE + USDC_PRICE / 2n).toString() }]);
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key: string; spend_limits: { currency: string; amount: string }[] };
    expect(key.spend_limits).toEqual([expect.objectContaining({ currency: "USDC", remaining: (USDC_PRICE + USDC_PRICE / 2n).toString() })]);

    expect((await execute(key.key, agent.agent_id, "first")).status).toBe(200);
    const refused = await execute(key.key, agent.agent_id, "second");
    expect(refused.status).toBe(402);
    const error = ((await refused.json()) as { error: { code: string; message: string; spend_limit: { currency: string } } }).error;
    expect(error).toMatchObject({ code: "spend_limit_reached", spend_limit: { currency: "USDC" } });
    expect(error.message).toMatch(/USDC units/);
    // ETH runs count against ETH limits only: this key has none.
    const ethRun = await execute(key.key, eth.agent_id, "eth run");
    expect(ethRun.status).toBe(200);
    expect(((await ethRun.json()) as RunAnswer).status).toBe("completed");
  });

  it.each([
    [[{ currency: "DOGE", period: "day", amount: "1" }], /not a currency any listing is priced in/],
    [[{ currency: `0x${"ab".repeat(20)}`, period: "day", amount: "1" }], /not a currency any listing is priced in/],
    [[{ currency: "USDC", period: "day", amount: (10n ** 12n + 1n).toString() }], /largest limit, 1000000000000 USDC units/],
    [[{ currency: "usdc", period: "day", amount: "1" }, { currency: "USDC", period: "day", amount: "2" }], /two limits for USDC/],
  ])("refuses %j with 400 invalid_request, storing nothing", async (limits, message) => {
    const renter = await world.renter();
    const answer = await createLimitedKey(renter, limits);
    expect(answer.status).toBe(400);
    const error = ((await answer.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(message);
    const { keys } = (await (await api(renter.token, "/v1/keys")).json()) as { keys: unknown[] };
    expect(keys).toHaveLength(1);
  });
});
