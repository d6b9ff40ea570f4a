// Token charges through a reorganisation, on a real Hardhat node of the test's own mining a block every
// second, with the world's settler running as the local stack runs it and a finality depth of 4 blocks:
// a per-task run on a listing priced in USDC on the TokenMarketplace (market "token", charged by the
// settler's consumeQueries there) and a run paid by x402 (the payer's EIP-3009 authorization, settled by
// the settler's settlePayments) are both mined; the blocks holding their charges are taken off the chain
// (evm_revert to a snapshot before them, then a longer chain mined), their transactions gone for good or
// sent again by another node. Each charge lands again exactly once: the renter's balance on the
// TokenMarketplace is down one price per run, the payer's USDC one price per payment, each run's record
// is settled and names the transaction that holds its charge on the final chain, and later runs settle.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, serializeTransaction, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { chainFor } from "../../src/chain/client.ts";
import { settledPaymentsOfTransaction } from "../../src/chain/settle-payments.ts";
import { mintLocalTokens } from "../../src/chain/deploy.ts";
import { chargeRefOf } from "../../src/execution/runs/run.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, rentInToken, type TokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { until } from "../support/until.ts";
import { startWorldOn, type Renter, type World } from "../support/world.ts";
import { startSuiteChain } from "./support.ts";

const BLOCK_MS = 1_000;
const DEPTH = 4;
const PRICE = 250_000n; // 0.25 USDC
const DEPOSIT = PRICE * 20n;
const PAYER_FUNDS = PRICE * 10n;
const NETWORK = `eip155:${LOCAL_CHAIN_ID}` as const;
let node: Awaited<ReturnType<typeof startSuiteChain>>;
let tokens: TokenDeployment;
let world: World;
let agent: TokenAgent;
let renter: Renter;
let payer: PrivateKeyAccount;
/** The per-task token runs and the x402 runs, each to be charged once. */
const tokenRuns: string[] = [];
const paidRuns: string[] = [];

async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return (await world.services.chain.client.request({ method: method as never, params: params as never })) as T;
}
const head = () => world.services.chain.client.getBlockNumber({ cacheTime: 0 });
const market = () => tokens.address as Address;
const usdc = () => getAddress(tokens.tokens.usdc.address);

/** A per-task run on the token listing with the renter's API key. */
async function runWithKey(task: string): Promise<Record<string, unknown>> {
  const res = await world.app.request("/v1/execute", { method: "POST", headers: { authorization: `Bearer ${renter.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agent.agent_id, task }) });
  const run = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(run)).toBe(200);
  tokenRuns.push(run.run_id as string);
  return run;
}

/** A run paid by x402 through the official client: released once its payment is in a block. */
async function runPaid(task: string): Promise<Record<string, unknown>> {
  const x402 = x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmScheme(toClientEvmSigner(payer)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc() }] } });
  const res = await wrapFetchWithPayment(fetch, x402)(`${world.url}/v1/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: agent.agent_id, task, input: {} }) });
  const run = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(run)).toBe(200);
  expect(decodePaymentResponseHeader(res.headers.get("payment-response")!)).toMatchObject({ success: true });
  paidRuns.push(run.run_id as string);
  return run;
}

/** The x402 payments settled on the chain as it stands: each payment of every PaymentsSettled, named by
 * its transaction's input. */
async function paymentsSettled() {
  const { client } = world.services.chain;
  const events = await client.getContractEvents({ address: market(), abi: tokenMarketplaceAbi, eventName: "PaymentsSettled", fromBlock: 0n, toBlock: "latest" });
  const settled = [];
  for (const e of events) {
    for (const p of await settledPaymentsOfTransaction(client, e.transactionHash!, e.blockHash!)) if (p.logIndex === e.logIndex) settled.push({ ...p, block: e.blockNumber!, blockHash: e.blockHash!, tx: e.transactionHash! });
  }
  return settled;
}

/** The events that charged a run on the chain as it stands: a per-task charge's QueryConsumed, an x402
 * payment's entry in a PaymentsSettled. */
async function chargesOf(runId: string) {
  const runRef = chargeRefOf((await getRun(world.services.tables, runId))!);
  const { client } = world.services.chain;
  const [consumed, settled] = await Promise.all([
    client.getContractEvents({ address: market(), abi: tokenMarketplaceAbi, eventName: "QueryConsumed", args: { runRef }, fromBlock: 0n, toBlock: "latest" }),
    paymentsSettled(),
  ]);
  return [
    ...consumed.map((e) => ({ block: e.blockNumber!, blockHash: e.blockHash!, tx: e.transactionHash! })),
    ...settled.filter((p) => p.runRef.toLowerCase() === runRef.toLowerCase()).map(({ block, blockHash, tx }) => ({ block, blockHash, tx })),
  ];
}

/** The signed bytes of a mined transaction (the node keeps no raw copy): what a node re-broadcasts. */
async function rawOf(hash: Hex): Promise<Hex> {
  const tx = await world.services.chain.client.getTransaction({ hash });
  return serializeTransaction(
    { type: "eip1559", chainId: tx.chainId!, nonce: tx.nonce, to: tx.to!, value: tx.value, data: tx.input, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! },
    { r: tx.r, s: tx.s, yParity: tx.yParity! },
  );
}

/** Every run charged exactly once on the chain as it stands, the balances say so, and each run's record
 * is settled and names the transaction that holds its charge. */
async function expectChargedOnce() {
  for (const id of [...tokenRuns, ...paidRuns]) expect((await chargesOf(id)).length, id).toBe(1);
  const { client } = world.services.chain;
  const consumed = await client.getContractEvents({ address: market(), abi: tokenMarketplaceAbi, eventName: "QueryConsumed", args: { listingId: agent.onChainId, buyer: renter.account.address }, fromBlock: 0n, toBlock: "latest" });
  expect(consumed.length).toBe(tokenRuns.length);
  const [balance] = await client.readContract({ address: market(), abi: tokenMarketplaceAbi, functionName: "perQueryBalances", args: [agent.onChainId, renter.account.address] });
  expect(balance).toBe(DEPOSIT - PRICE * BigInt(tokenRuns.length));
  const paid = (await paymentsSettled()).filter((p) => p.payer.toLowerCase() === payer.address.toLowerCase());
  expect(paid.length).toBe(paidRuns.length);
  expect(await client.readContract({ address: usdc(), abi: localUsdcAbi, functionName: "balanceOf", args: [payer.address] })).toBe(PAYER_FUNDS - PRICE * BigInt(paidRuns.length));
  for (const id of [...tokenRuns, ...paidRuns]) {
    const [charge] = await chargesOf(id);
    await until(`run ${id}'s record to name its charge's transaction`, async () => {
      const record = await getRun(world.services.tables, id);
      return record?.settlement === "settled" && record.status === "completed" && record.settlement_tx === charge!.tx;
    }, 60_000, 250).catch(async (error: unknown) => {
      const record = await getRun(world.services.tables, id);
      throw new Error(`${(error as Error).message}: ${paidRuns.includes(id) ? "x402" : "token"} run, settlement ${record?.settlement}, settlement_tx ${record?.settlement_tx}, on the chain ${charge!.tx}`);
    });
  }
}

beforeAll(async () => {
  node = await startSuiteChain();
  tokens = await deployTokens(node.rpcUrl);
  world = await startWorldOn(
    { ...sharedInfrastructure(), rpcUrl: node.rpcUrl },
    {
      agent: { handler: async (call) => call.output({ findings: [call.task] }) },
      env: { ...tokens.env, CHAIN_BLOCK_TIME_MS: String(BLOCK_MS), FINALITY_DEPTH: String(DEPTH), SETTLEMENT_WAIT_MS: "8000", RUN_LOG_INTERVAL_MS: "1000" },
    },
  );
  await handAuthority(world, tokens);
  agent = await publishTokenAgent(world, tokens, `reorg-token-${randomBytes(3).toString("hex")}`, { rental: "per_query", token: tokens.tokens.usdc, price: PRICE });
  renter = await world.renter();
  await rentInToken(world, tokens, renter.account, agent, { deposit: DEPOSIT });
  // The payer's USDC, minted by the tokens' deployer (not the authority, whose nonces the settler owns).
  payer = privateKeyToAccount(generatePrivateKey());
  await mintLocalTokens({ rpcUrl: node.rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, node.rpcUrl), deployerPrivateKey: tokens.deployer.privateKey }, { usdc: tokens.tokens.usdc.address, utility: tokens.tokens.utility.address }, [payer.address], { usdc: PAYER_FUNDS, utility: 0n });
  await node.setBlockTime(BLOCK_MS);
}, 240_000);

afterAll(async () => {
  await world?.close();
  await node?.stop();
});

describe("token charges whose blocks are reorganised away", () => {
  for (const [deeper, rebroadcast] of [
    [0, false],
    [2, true],
  ] as const) {
    it(`${deeper + 1}+ blocks deep, their transactions ${rebroadcast ? "sent again by another node" : "gone for good"}: a per-task token charge and an x402 payment each land again exactly once`, async () => {
      const snapshot = await rpc<Hex>("evm_snapshot");
      const from = await head();
      const perTask = await runWithKey(`token ${deeper}`);
      expect(perTask).toMatchObject({ status: "completed", output: { findings: [`token ${deeper}`] } });
      expect(perTask.settlement).toBeUndefined();
      const paid = await runPaid(`x402 ${deeper}`);
      expect(paid).toMatchObject({ status: "completed", output: { findings: [`x402 ${deeper}`] } });
      const mined = [...(await chargesOf(perTask.run_id as string)), ...(await chargesOf(paid.run_id as string))];
      expect(mined).toHaveLength(2);
      const raws = await Promise.all([...new Set(mined.map((m) => m.tx))].map(rawOf));
      const top = mined.reduce((max, m) => (m.block > max ? m.block : max), 0n);
      await until(`${deeper} blocks over the charges`, async () => (await head()) >= top + BigInt(deeper), 30_000, 50);
      const before = await head();
      expect(await rpc("evm_revert", [snapshot])).toBe(true);
      await rpc("hardhat_mine", [`0x${(before - from + 1n).toString(16)}`]);
      // The charges' blocks are off the chain (the settler may already have sent them again).
      for (const m of mined) expect((await world.services.chain.client.getBlock({ blockNumber: m.block })).hash).not.toBe(m.blockHash);
      if (rebroadcast) for (const raw of raws) await rpc("eth_sendRawTransaction", [raw]).catch(() => undefined);
      await until("both charges to land again", async () => (await chargesOf(perTask.run_id as string)).length === 1 && (await chargesOf(paid.run_id as string)).length === 1, 60_000, 200);
      // No stall behind them: later runs of both kinds settle at once.
      expect(await runWithKey(`after token ${deeper}`)).toMatchObject({ status: "completed", output: { findings: [`after token ${deeper}`] } });
      expect(await runPaid(`after x402 ${deeper}`)).toMatchObject({ status: "completed", output: { findings: [`after x402 ${deeper}`] } });
      await expectChargedOnce();
    }, 180_000);
  }
});
