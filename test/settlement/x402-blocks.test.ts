// x402 payments beyond what one transaction carries, on a Hardhat node of the test's own mining a block
// every 2 s, through the settler as the local stack runs it: 900 payments (EIP-3009 authorizations of 30
// payers, signed as the official client signs them) handed to the settlement queue at once. A payment's
// transfer costs some 45,000 gas, so one transaction under EIP-7825's cap (16,777,216 gas) carries fewer
// than 400; the settler sends a second settlePayments batch in the same block when the first is full, the
// two within half the block's gas. Every payment settles exactly once: each payer's USDC is down one price
// per payment, the TokenMarketplace holds them all, and every run reference is decided charged by the
// settlement watcher's read (the PaymentsSettled events and their transactions' inputs).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFunctionData, getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { authorizationTypes } from "@x402/evm";
import { localUsdcAbi, tokenSetting } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { createTokenListing } from "../../local/token-listings.ts";
import { chainFor } from "../../src/chain/client.ts";
import { getChargeOutcomes } from "../../src/chain/get-charge-outcomes.ts";
import { deployTokenMarketplace, mintLocalTokens } from "../../src/chain/deploy.ts";
import { loadConfig } from "../../src/config.ts";
import { chargeMessageBody } from "../../src/execution/money/charge-message.ts";
import { chargeRefHex } from "../../src/execution/money/charge-refs.ts";
import { TX_GAS_CAP } from "../../src/execution/settler/batch.ts";
import { createSettler, type BatchEvent } from "../../src/execution/settler/settler.ts";
import { createLogger } from "../../src/logger.ts";
import { createServices, type Services } from "../../src/services.ts";
import { createServicesOn, fundAccount, type Account } from "../support/chain-actions.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";
import { startSuiteChain } from "./support.ts";

const PAYMENTS = 900;
const PAYERS = 30;
const PRICE = 10_000n; // 0.01 USDC

let node: Awaited<ReturnType<typeof startSuiteChain>>;
let services: Services;
let authority: Account;
let tokenMarketplace: Address;
let usdc: Address;
let listingId: Hex;
let payers: PrivateKeyAccount[];

beforeAll(async () => {
  node = await startSuiteChain();
  const { dynamoEndpoint, awsEndpoint } = sharedInfrastructure();
  const rpcUrl = node.rpcUrl;
  const chain = chainFor(LOCAL_CHAIN_ID, rpcUrl);
  const on = await createServicesOn({ rpcUrl, dynamoEndpoint, awsEndpoint, env: { CHAIN_BLOCK_TIME_MS: "2000", LOG_LEVEL: "silent" } });
  authority = on.authority as Account;
  const deployment = { rpcUrl, chain, deployerPrivateKey: authority.privateKey };
  const market = await deployTokenMarketplace({ ...deployment, authority: authority.address, feeRecipient: on.treasury.address });
  usdc = getAddress(market.tokens.usdc.address);
  tokenMarketplace = getAddress(market.address);
  const config = loadConfig({ ...on.env, TOKEN_MARKETPLACE_ADDRESS: tokenMarketplace, TOKEN_MARKETPLACE_DEPLOY_BLOCK: market.blockNumber.toString(), TOKENS: JSON.stringify(tokenSetting(market.tokens)) });
  await on.services.close();
  services = createServices(config, { logger: createLogger("silent") });
  const creator = await fundAccount(rpcUrl);
  ({ listingId } = await createTokenListing({ rpcUrl, chain, tokenMarketplace, creatorPrivateKey: creator.privateKey, token: usdc, seed: `0x${randomBytes(32).toString("hex")}`, rentalModel: "per_query", price: PRICE, metadataUri: "ipfs://bafkx402blocks" }));
  payers = Array.from({ length: PAYERS }, () => privateKeyToAccount(generatePrivateKey()));
  await mintLocalTokens(deployment, { usdc, utility: market.tokens.utility.address }, payers.map((p) => p.address), { usdc: PRICE * 1_000n, utility: 0n });
}, 120_000);

afterAll(async () => {
  await services?.close();
  await node?.stop();
});

describe("x402 payments past one transaction's gas", () => {
  it("settles 900 payments handed over at once in at most two settlePayments transactions a block, each once, within half the block's gas", async () => {
    const { client } = services.chain;
    const balanceOf = (address: Address) => client.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [address] }) as Promise<bigint>;
    const before = await Promise.all(payers.map((p) => balanceOf(p.address)));
    const heldBefore = await balanceOf(tokenMarketplace);
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600);
    const refs: Hex[] = [];
    const bodies = await Promise.all(
      Array.from({ length: PAYMENTS }, async (_, i) => {
        const payer = payers[i % PAYERS]!;
        const nonce = `0x${randomBytes(32).toString("hex")}` as Hex;
        const signature = await payer.signTypedData({ domain: { name: "USD Coin", version: "2", chainId: LOCAL_CHAIN_ID, verifyingContract: usdc }, types: authorizationTypes, primaryType: "TransferWithAuthorization", message: { from: payer.address, to: tokenMarketplace, value: PRICE, validAfter: 0n, validBefore, nonce } });
        const ref = chargeRefHex((1 << 20) + i);
        refs.push(ref);
        return chargeMessageBody({ v: 1, run_id: `run_${randomBytes(16).toString("hex")}`, listing: listingId, buyer: payer.address.toLowerCase() as Address, ref, max_price: PRICE.toString(), market: "token", payment: { valid_after: "0", valid_before: validBefore.toString(), nonce, signature } });
      }),
    );
    const firstBlock = await client.getBlockNumber({ cacheTime: 0 });
    await node.paced();
    const events: BatchEvent[] = [];
    const settler = createSettler(services, { onBatch: (event) => events.push(event) });
    const stop = new AbortController();
    const running = settler.run({ deadline: Number.POSITIVE_INFINITY, signal: stop.signal });
    try {
      await services.queue.sendMany(services.config.SETTLEMENT_QUEUE_URL, bodies);
      const settled = () => events.filter((e) => e.kind === "mined").reduce((n, e) => n + (e.outcomes?.filter((o) => o.outcome === "charged").length ?? 0), 0);
      await until(`${PAYMENTS} payments settled`, () => settled() >= PAYMENTS, 90_000, 250);
    } finally {
      stop.abort();
      await running;
    }

    // Each payment once: the payers' USDC down one price per payment each, the contract holding them all,
    // every reference charged, and no batch refused or reverted.
    const after = await Promise.all(payers.map((p) => balanceOf(p.address)));
    for (const [i] of payers.entries()) expect(before[i]! - after[i]!).toBe(PRICE * BigInt(PAYMENTS / PAYERS));
    expect((await balanceOf(tokenMarketplace)) - heldBefore).toBe(PRICE * BigInt(PAYMENTS));
    expect(events.filter((e) => e.kind === "reverted" || e.kind === "out_of_gas")).toEqual([]);
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const decisions = await getChargeOutcomes(services.chain, { refs, fromBlock: firstBlock + 1n, toBlock: head });
    expect(refs.filter((ref) => decisions.get(ref.toLowerCase() as Hex)?.kind !== "charged")).toEqual([]);

    // The authority's settlePayments transactions, block by block.
    const perBlock: { payments: number; gas: bigint; txs: number; gasLimit: bigint }[] = [];
    for (let n = firstBlock + 1n; n <= head; n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      const ours = block.transactions.filter((tx) => tx.from.toLowerCase() === authority.address.toLowerCase() && tx.to?.toLowerCase() === tokenMarketplace.toLowerCase());
      if (ours.length === 0) continue;
      let payments = 0;
      for (const tx of ours) {
        expect(decodeFunctionData({ abi: tokenMarketplaceAbi, data: tx.input }).functionName).toBe("settlePayments");
        expect(tx.gas).toBeLessThanOrEqual(TX_GAS_CAP);
        payments += events.find((e) => e.kind === "mined" && e.hash === tx.hash)?.charges ?? 0;
      }
      perBlock.push({ payments, txs: ours.length, gas: ours.reduce((sum, tx) => sum + tx.gas, 0n), gasLimit: block.gasLimit });
    }
    expect(perBlock.reduce((n, b) => n + b.payments, 0)).toBe(PAYMENTS);
    expect(Math.max(...perBlock.map((b) => b.txs))).toBe(2);
    for (const b of perBlock) expect(b.gas).toBeLessThanOrEqual(b.gasLimit / 2n);
    // The settler sent more payments under one head than one transaction carried: a second batch for the
    // same block. (Whether the node mines the two in that block is its timing: a second batch sent late in
    // the interval goes into the next one, as on any network.)
    const mined = events.filter((e) => e.kind === "mined");
    const largestBatch = Math.max(...mined.map((e) => e.charges));
    const underOneHead = new Map<bigint, number>();
    for (const e of mined) underOneHead.set(e.sentAtHead!, (underOneHead.get(e.sentAtHead!) ?? 0) + e.charges);
    expect(Math.max(...underOneHead.values())).toBeGreaterThan(largestBatch);
  }, 180_000);
});
