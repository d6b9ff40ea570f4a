// x402 over A2A (the a2a-x402 extension, standalone flow) on POST /a2a/{agent_id}, end to end through the
// served API with the real app, settler and chain: the official @a2a-js/sdk client, with no bearer token
// and the extension activated, is asked to pay (input-required, x402.payment.required: the PaymentRequired
// of POST /v1/execute's 402), pays with @x402/evm's ExactEvmScheme and a viem account, and gets the
// completed task with its output and x402.payment.receipts. The payer's USDC goes down by the price once,
// the escrow up by the price less the fee; a failed run moves nothing; a replay runs nothing; every bad
// payment is a failed task with payment-failed and its reason, or -32602 for a malformed payload, never a
// run, never a 5xx. Without the extension, or for an ETH listing, a call without a token stays 401.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, getAddress, http, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { TaskState, type Part, type StreamResponse, type Task } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk/client";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "@x402/core/types";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { chainFor } from "../../src/chain/client.ts";
import { mintLocalTokens } from "../../src/chain/deploy.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { X402_EXTENSION_URI } from "../../src/a2a/x402.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type World } from "../support/world.ts";

const NETWORK = "eip155:31337" as const;
const PRICE = 250_000n; // 0.25 USDC
const FEE = (PRICE * 250n) / 10_000n;
let world: World;
let tokens: TokenDeployment;
let usdc: Address;
let tokenMarketplace: Address;
let tokenListing: Hex;
let agentId: string;
let ethAgentId: string;
let chainClient: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  const rpcUrl = sharedInfrastructure().rpcUrl;
  chainClient = createPublicClient({ chain: chainFor(31337, rpcUrl), transport: http(rpcUrl) });
  tokens = await deployTokens(rpcUrl);
  usdc = getAddress(tokens.tokens.usdc.address);
  tokenMarketplace = getAddress(tokens.address);
  world = await startWorld({
    env: { ...tokens.env, CATALOGUE_REFRESH_MS: "0" },
    agent: { handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "the agent gave up") : call.output({ findings: [`done: ${call.task}`] })) },
  });
  // The settler's key settles the TokenMarketplace's payments; the deployer keeps minting the tokens.
  await handAuthority(world, tokens);
  const agent = await publishTokenAgent(world, tokens, "a2a-x402-writer", { rental: "per_query", token: tokens.tokens.usdc, price: PRICE });
  agentId = agent.agent_id;
  tokenListing = agent.onChainId;
  ethAgentId = (await world.publishConnected("a2a-eth-writer", { rental: "per_query" })).agent_id;
}, 240_000);

afterAll(async () => {
  await world?.close();
});

const endpoint = (id = agentId) => `${world.url}/a2a/${id}`;
const activated = { serviceParameters: ServiceParameters.create(withA2AExtensions(X402_EXTENSION_URI)) };

/** A wallet holding ten runs' USDC and nothing else: no key, no rental. */
async function payer(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  const rpcUrl = sharedInfrastructure().rpcUrl;
  await mintLocalTokens({ rpcUrl, chain: chainFor(31337, rpcUrl), deployerPrivateKey: tokens.deployer.privateKey }, { usdc, utility: tokens.tokens.utility.address }, [account.address], { usdc: 10n * PRICE, utility: 0n });
  return account;
}

/** The official client, with no bearer token (it reads the public card). */
async function a2aClient(): Promise<Client> {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: fetch })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch }) }));
  return factory.createFromUrl(`${endpoint()}/.well-known/agent-card.json`, "");
}

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
let counter = 0;
const send = (task: string, metadata?: Record<string, unknown>, taskId = "") => ({
  tenant: "",
  message: { messageId: `x402-${Date.now()}-${counter++}`, contextId: "", taskId, role: 1, parts: [text(task), { content: { $case: "data" as const, value: {} }, metadata: undefined, filename: "", mediaType: "application/json" }], metadata, extensions: [X402_EXTENSION_URI], referenceTaskIds: [] },
  configuration: undefined,
  metadata: undefined,
});

const statusMeta = (task: Task) => (task.status?.message?.metadata ?? {}) as Record<string, unknown>;

/** The official x402 client, allowing our token on our chain, signs the offer. */
function sign(account: PrivateKeyAccount, required: PaymentRequired): Promise<PaymentPayload> {
  const x402 = x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmScheme(toClientEvmSigner(account)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] } });
  return x402.createPaymentPayload(required);
}

/** Asks to run `task` and signs what the answer asks for. */
async function asked(client: Client, account: PrivateKeyAccount, task = "review the contract") {
  const first = (await client.sendMessage(send(task), activated)) as Task;
  const required = statusMeta(first)["x402.payment.required"] as PaymentRequired;
  return { first, required, payload: await sign(account, required) };
}

const submitted = (payload: unknown) => ({ "x402.payment.status": "payment-submitted", "x402.payment.payload": payload });
const usdcOf = (address: Address) => chainClient.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [address] }) as Promise<bigint>;
const escrow = async () => (await chainClient.readContract({ address: tokenMarketplace, abi: tokenMarketplaceAbi, functionName: "listings", args: [tokenListing] }))[1] as bigint;
const raw = (body: unknown, headers: Record<string, string> = {}, id = agentId) =>
  fetch(endpoint(id), { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers }, body: JSON.stringify(body) });
const rawSend = { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "raw-1", role: "ROLE_USER", parts: [{ text: "review" }] } } };

describe("x402 over A2A: asking for payment", () => {
  it("answers a message without payment with input-required and the PaymentRequired of POST /v1/execute's 402; nothing runs", async () => {
    const client = await a2aClient();
    const task = (await client.sendMessage(send("review"), activated)) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(statusMeta(task)["x402.payment.status"]).toBe("payment-required");
    const required = statusMeta(task)["x402.payment.required"] as PaymentRequired;
    const http402 = await fetch(`${world.url}/v1/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task: "review", input: {} }) });
    expect(http402.status).toBe(402);
    const offer = decodePaymentRequiredHeader(http402.headers.get("payment-required")!);
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toEqual(offer.accepts);
    expect(required.accepts).toEqual([{ scheme: "exact", network: NETWORK, amount: PRICE.toString(), asset: usdc, payTo: expect.any(String), maxTimeoutSeconds: 600, extra: { name: "USD Coin", version: "2" } }]);
    expect(getAddress(required.accepts[0]!.payTo)).toBe(tokenMarketplace);
    expect(required.resource.url).toBe(endpoint());
    expect(await getRun(world.services.tables, task.id)).toBeNull();
  }, 120_000);

  it("keeps the 401 without the extension, for an ETH listing, and for methods other than sending a message", async () => {
    const without = await raw(rawSend);
    expect(without.status).toBe(401);
    const eth = await raw(rawSend, { "a2a-extensions": X402_EXTENSION_URI }, ethAgentId);
    expect(eth.status).toBe(401);
    const getTask = await raw({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "run_00000000000000000000000000000000" } }, { "a2a-extensions": X402_EXTENSION_URI });
    expect(getTask.status).toBe(401);
    const activatedRaw = await raw(rawSend, { "x-a2a-extensions": X402_EXTENSION_URI });
    expect(activatedRaw.status).toBe(200);
    expect(activatedRaw.headers.get("a2a-extensions")).toBe(X402_EXTENSION_URI);
    expect(activatedRaw.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(((await activatedRaw.json()) as { result: { task: { status: { state: string } } } }).result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
  }, 120_000);

  it("speaks v0.3 too: message/send with X-A2A-Extensions is asked to pay in v0.3's shapes", async () => {
    const legacy = { jsonrpc: "2.0", id: 3, method: "message/send", params: { message: { kind: "message", messageId: "legacy-1", role: "user", parts: [{ kind: "text", text: "review" }] } } };
    const answer = await raw(legacy, { "a2a-version": "0.3", "x-a2a-extensions": X402_EXTENSION_URI });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-a2a-extensions")).toBe(X402_EXTENSION_URI);
    const task = ((await answer.json()) as { result: { kind: string; status: { state: string; message: { metadata: Record<string, unknown> } } } }).result;
    expect(task.kind).toBe("task");
    expect(task.status.state).toBe("input-required");
    expect(task.status.message.metadata["x402.payment.status"]).toBe("payment-required");
    expect((task.status.message.metadata["x402.payment.required"] as PaymentRequired).accepts[0]!.amount).toBe(PRICE.toString());
  }, 120_000);
});

describe("x402 over A2A: paying", () => {
  it("runs the task paid by the official clients: completed with its output and receipts; the payer debited once by the price, the escrow credited the price less the fee", async () => {
    const account = await payer();
    const client = await a2aClient();
    const [before, escrowBefore] = [await usdcOf(account.address), await escrow()];
    const { first, payload } = await asked(client, account);
    const task = (await client.sendMessage(send("review the contract", submitted(payload), first.id), activated)) as Task;
    expect(task.status?.state, JSON.stringify(task.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.id).toBe(first.id);
    const part = task.artifacts[0]?.parts[0]?.content;
    expect(part).toEqual({ $case: "data", value: { findings: ["done: review the contract"] } });
    expect(statusMeta(task)["x402.payment.status"]).toBe("payment-completed");
    const [receipt] = statusMeta(task)["x402.payment.receipts"] as SettleResponse[];
    expect(receipt).toMatchObject({ success: true, network: NETWORK, payer: account.address.toLowerCase() });
    expect((task.metadata as Record<string, unknown>).settlement_tx).toBe(receipt!.transaction);
    const mined = await chainClient.getTransactionReceipt({ hash: receipt!.transaction as Hex });
    expect(getAddress(mined.to!)).toBe(tokenMarketplace);
    expect(await usdcOf(account.address)).toBe(before - PRICE);
    expect(await escrow()).toBe(escrowBefore + PRICE - FEE);
    const run = (await getRun(world.services.tables, task.id))!;
    expect(run).toMatchObject({ status: "completed", paid_by: "x402", wallet: account.address.toLowerCase(), settlement: "settled" });
    // The same payment again runs nothing, and the payer is not debited twice.
    const replay = (await client.sendMessage(send("review the contract", submitted(payload)), activated)) as Task;
    expect(replay.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusMeta(replay)).toMatchObject({ "x402.payment.status": "payment-failed", "x402.payment.error": "DUPLICATE_NONCE" });
    expect(await getRun(world.services.tables, replay.id)).toBeNull();
    const again = (await client.sendMessage(send("review the contract", submitted(payload), first.id), activated).catch((error: unknown) => error)) as Error;
    expect(again.message).toMatch(/already run/);
    expect(await usdcOf(account.address)).toBe(before - PRICE);
  }, 120_000);

  it("gives identical payments arriving at once one run; the other is refused DUPLICATE_NONCE", async () => {
    const account = await payer();
    const client = await a2aClient();
    const before = await usdcOf(account.address);
    const { payload } = await asked(client, account);
    const tasks = (await Promise.all([0, 1].map(() => client.sendMessage(send("review twice", submitted(payload)), activated)))) as Task[];
    const states = tasks.map((task) => task.status?.state).sort();
    expect(states).toEqual([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED].sort());
    const refused = tasks.find((task) => task.status?.state === TaskState.TASK_STATE_FAILED)!;
    expect(statusMeta(refused)["x402.payment.error"]).toBe("DUPLICATE_NONCE");
    expect(await getRun(world.services.tables, refused.id)).toBeNull();
    expect(await usdcOf(account.address)).toBe(before - PRICE);
  }, 120_000);

  it("never settles a failed run: the task fails with payment-failed and the payer keeps its money", async () => {
    const account = await payer();
    const client = await a2aClient();
    const before = await usdcOf(account.address);
    const { payload } = await asked(client, account, "fail now");
    const task = (await client.sendMessage(send("fail now", submitted(payload)), activated)) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusMeta(task)).toMatchObject({ "x402.payment.status": "payment-failed", "x402.payment.error": "RUN_FAILED" });
    expect((await getRun(world.services.tables, task.id))?.settlement).toBe("none");
    expect(await usdcOf(account.address)).toBe(before);
  }, 120_000);

  it("streams a paid task: the task, its output and the final status with the receipt, once the payment is in a block", async () => {
    const account = await payer();
    const client = await a2aClient();
    const { first, payload } = await asked(client, account, "stream it");
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send("stream it", submitted(payload), first.id), activated)) events.push(event);
    const last = events.at(-1)!.payload;
    expect(last?.$case).toBe("statusUpdate");
    const status = (last as { value: { status: Task["status"] } }).value.status!;
    expect(status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((status.message?.metadata as Record<string, unknown>)["x402.payment.status"]).toBe("payment-completed");
    expect(events.some((event) => event.payload?.$case === "artifactUpdate")).toBe(true);
    expect(await usdcOf(account.address)).toBe(10n * PRICE - PRICE);
  }, 120_000);
});

describe("x402 over A2A: bad payments are refused with the reason, never a run, never a 5xx", () => {
  const now = () => Math.floor(Date.now() / 1000);
  type Signed = PaymentPayload & { payload: { authorization: Record<string, string>; signature: string } };

  it("refuses a wrong amount, payTo, an expired authorization and another wallet's signature, each with its reason", async () => {
    const account = await payer();
    const client = await a2aClient();
    const before = await usdcOf(account.address);
    const cases: [(p: Signed) => void, string, string][] = [
      [(p) => ((p.payload.authorization.value = "1"), (p.accepted.amount = "1")), "INVALID_AMOUNT", "invalid_exact_evm_payload_authorization_value_mismatch"],
      [(p) => ((p.payload.authorization.to = usdc), (p.accepted.payTo = usdc)), "INVALID_PAY_TO", "invalid_exact_evm_recipient_mismatch"],
      [(p) => (p.payload.authorization.validBefore = String(now() - 3_600)), "EXPIRED_PAYMENT", "invalid_exact_evm_payload_authorization_valid_before"],
      [(p) => (p.payload.authorization.from = privateKeyToAccount(generatePrivateKey()).address), "INVALID_SIGNATURE", "invalid_exact_evm_signature"],
    ];
    for (const [change, code, reason] of cases) {
      const { first, payload } = await asked(client, account);
      const copy = structuredClone(payload) as Signed;
      change(copy);
      const task = (await client.sendMessage(send("review", submitted(copy), first.id), activated)) as Task;
      expect(task.status?.state, code).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusMeta(task), code).toMatchObject({ "x402.payment.status": "payment-failed", "x402.payment.error": code });
      expect((statusMeta(task)["x402.payment.receipts"] as SettleResponse[])[0]).toMatchObject({ success: false, errorReason: reason });
      expect(await getRun(world.services.tables, task.id)).toBeNull();
    }
    // A refusal gives the task back: the same task, paid properly, runs.
    const { first, payload } = await asked(client, account);
    const bad = structuredClone(payload) as Signed;
    bad.payload.authorization.value = "1";
    expect(((await client.sendMessage(send("review", submitted(bad), first.id), activated)) as Task).status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(((await client.sendMessage(send("review", submitted(payload), first.id), activated)) as Task).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await usdcOf(account.address)).toBe(before - PRICE);
  }, 180_000);

  it("answers a malformed payload -32602 with the service's code invalid_request, and runs nothing", async () => {
    for (const payload of [{ x402Version: 2 }, "not base64!", 42, { x402Version: 1, payload: {} }]) {
      const answer = await raw({ ...rawSend, params: { message: { ...rawSend.params.message, metadata: submitted(payload) } } }, { "a2a-extensions": X402_EXTENSION_URI });
      expect(answer.status, JSON.stringify(payload)).toBe(200);
      const body = (await answer.json()) as { error: { code: number; data: { metadata: Record<string, string> }[] } };
      expect(body.error.code, JSON.stringify(payload)).toBe(-32602);
      expect(body.error.data[0]!.metadata.code).toBe("invalid_request");
    }
  }, 120_000);
});
