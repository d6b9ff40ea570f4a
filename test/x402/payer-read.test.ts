// An x402 payer reads its own run without a credential (decision 0257), end to end through the served API
// with the real app and chain, and no settler running (SETTLEMENT_WAIT_MS small), so a paid run is
// answered with its settlement pending: the payer, paying with the official x402 clients and holding
// nothing but its wallet, reads the run with X-Wallet-Signature (run-read:<run_id>:<unix_timestamp>)
// exactly as its owner signed in would (output withheld), and after a settlement pass with the output;
// over A2A, the official @a2a-js/sdk client's GetTask with the header answers the task as the paying
// message would have (working/payment-verified, then completed/payment-completed with its receipt).
// Another wallet's signature is 404 (A2A: task not found); a stale or malformed one 401 with the rate
// headers, counted by the socket's address; a feedback signature never reads and a read signature never
// prepares feedback; every other A2A method stays bearer-only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { TaskState, type Part, type Task } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import { AgentRentalClient, NotFoundError, runWalletSignature } from "../../sdk/src/index.ts";
import { chainFor } from "../../src/chain/client.ts";
import { mintLocalTokens } from "../../src/chain/deploy.ts";
import { getRun } from "../../src/execution/runs/run.store.ts";
import { X402_EXTENSION_URI } from "../../src/a2a/x402.ts";
import { signIn } from "../support/auth.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { settledByPasses } from "../support/settlement.ts";
import { deployTokens, handAuthority, publishTokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type World } from "../support/world.ts";

const NETWORK = "eip155:31337" as const;
const PRICE = 250_000n; // 0.25 USDC
let world: World;
let tokens: TokenDeployment;
let usdc: Address;
let agentId: string;

beforeAll(async () => {
  tokens = await deployTokens(sharedInfrastructure().rpcUrl);
  usdc = getAddress(tokens.tokens.usdc.address);
  // No settler: a paid run's settlement is not confirmed within the (short) wait, so it is answered
  // pending; the test settles it with settler passes.
  world = await startWorld({
    settler: false,
    env: { ...tokens.env, CATALOGUE_REFRESH_MS: "0", SETTLEMENT_WAIT_MS: "300" },
    agent: { handler: (call) => call.output({ findings: [`done: ${call.task}`] }) },
  });
  await handAuthority(world, tokens);
  agentId = (await publishTokenAgent(world, tokens, "payer-read-writer", { rental: "per_query", token: tokens.tokens.usdc, price: PRICE })).agent_id;
}, 240_000);

afterAll(async () => {
  await world?.close();
});

/** A wallet holding ten runs' USDC and nothing else: no key, no rental, no sign-in. */
async function payer(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  const rpcUrl = sharedInfrastructure().rpcUrl;
  await mintLocalTokens({ rpcUrl, chain: chainFor(31337, rpcUrl), deployerPrivateKey: tokens.deployer.privateKey }, { usdc, utility: tokens.tokens.utility.address }, [account.address], { usdc: 10n * PRICE, utility: 0n });
  return account;
}

/** The official x402 client, allowing our token on our chain. */
const x402For = (account: PrivateKeyAccount) => x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmScheme(toClientEvmSigner(account)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] } });

const now = () => Math.floor(Date.now() / 1000);
/** X-Wallet-Signature of `run-<purpose>:<run_id>:<timestamp>` by `account`. */
const signed = async (account: PrivateKeyAccount, purpose: "read" | "feedback", runId: string, timestamp = now()) => `${timestamp}:${await account.signMessage({ message: `run-${purpose}:${runId}:${timestamp}` })}`;
const read = (runId: string, headers: Record<string, string> = {}) => fetch(`${world.url}/v1/runs/${runId}`, { headers });
const codeOf = async (answer: Response) => ((await answer.json()) as { error: { code: string } }).error.code;

interface RunBody {
  run_id: string;
  status: string;
  settlement: string;
  settlement_tx: string | null;
  output: unknown;
}

describe("GET /v1/runs/{run_id} by the payer's X-Wallet-Signature", () => {
  let account: PrivateKeyAccount;
  let runId: string;

  it("reads a run whose settlement is pending exactly as its owner does (output withheld), then with the output once settled", async () => {
    account = await payer();
    const paid = await wrapFetchWithPayment(fetch, x402For(account))(`${world.url}/v1/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task: "review the contract", input: {} }) });
    const answered = (await paid.json()) as RunBody;
    expect(paid.status, JSON.stringify(answered)).toBe(200);
    expect(answered).toMatchObject({ status: "completed", settlement: "pending", output: null });
    runId = answered.run_id;

    const pending = await read(runId, { "x-wallet-signature": await signed(account, "read", runId) });
    expect(pending.status).toBe(200);
    expect(pending.headers.get("x-ratelimit-limit")).not.toBeNull();
    const pendingBody = (await pending.json()) as RunBody;
    expect(pendingBody).toMatchObject({ run_id: runId, status: "completed", settlement: "pending", settlement_tx: null, output: null });
    // The owner's view: the same wallet signed in (a JWT), the bearer path.
    const { token } = await signIn(world.app, account);
    const owner = () => read(runId, { authorization: `Bearer ${token}` }).then((answer) => answer.json());
    expect(pendingBody).toEqual(await owner());

    await settledByPasses(world.services, [runId]);
    const settled = await read(runId, { "x-wallet-signature": await signed(account, "read", runId) });
    expect(settled.status).toBe(200);
    const settledBody = (await settled.json()) as RunBody;
    expect(settledBody).toMatchObject({ run_id: runId, status: "completed", settlement: "settled", output: { findings: ["done: review the contract"] } });
    expect(settledBody.settlement_tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(settledBody).toEqual(await owner());

    // The SDK: a viem account reads its run with the signature, sending no credential.
    const sdk = new AgentRentalClient({ baseUrl: world.url, apiKey: "svc_test_not_a_key_of_anyone" });
    const { cost_wei: costWei, ...rest } = settledBody as RunBody & { cost_wei: number };
    expect(await sdk.runs.get(runId, { wallet: account })).toEqual({ ...rest, cost_wei: BigInt(costWei) });
    const header = await runWalletSignature(account, runId, "read");
    expect(header).toMatch(/^\d{10}:0x[0-9a-f]{130}$/);
    expect((await read(runId, { "x-wallet-signature": header })).status).toBe(200);
  }, 180_000);

  it("answers another wallet's signature and an unknown run 404 not_found, as another wallet's run is to a bearer caller", async () => {
    const other = privateKeyToAccount(generatePrivateKey());
    const stranger = await read(runId, { "x-wallet-signature": await signed(other, "read", runId) });
    expect(stranger.status).toBe(404);
    expect(await codeOf(stranger)).toBe("not_found");
    const unknown = `run_${"0".repeat(32)}`;
    const missing = await read(unknown, { "x-wallet-signature": await signed(account, "read", unknown) });
    expect(missing.status).toBe(404);
    expect(await codeOf(missing)).toBe("not_found");
    // The signature names its run: the payer's signature for another run proves nothing for this one.
    expect((await read(runId, { "x-wallet-signature": await signed(account, "read", unknown) })).status).toBe(404);
    await expect(new AgentRentalClient({ baseUrl: world.url }).runs.get(runId, { wallet: other })).rejects.toBeInstanceOf(NotFoundError);
  }, 60_000);

  it("answers a stale or malformed signature 401 unauthorized in the envelope with the rate headers, and nothing at all 401 as before", async () => {
    const cases = [
      // Well outside the 300 s window either way, however long the requests take.
      await signed(account, "read", runId, now() - 360),
      await signed(account, "read", runId, now() + 360),
      "not a signature",
      String(now()),
      `${now()}:${(await account.signMessage({ message: `run-read:${runId}:${now()}` })).slice(2)}`,
      "",
    ];
    for (const header of cases) {
      const answer = await read(runId, { "x-wallet-signature": header });
      expect(answer.status, header.slice(0, 40)).toBe(401);
      expect(answer.headers.get("x-ratelimit-limit"), header.slice(0, 40)).not.toBeNull();
      expect(await codeOf(answer)).toBe("unauthorized");
    }
    const bare = await read(runId);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toMatch(/^Bearer /);
  }, 60_000);

  it("counts signature reads by the socket's address under the default rule: a forged X-Forwarded-For does not move the bucket", async () => {
    const figures = (answer: Response) => ({ limit: Number(answer.headers.get("x-ratelimit-limit")), remaining: Number(answer.headers.get("x-ratelimit-remaining")), reset: Number(answer.headers.get("x-ratelimit-reset")) });
    const first = figures(await read(runId, { "x-wallet-signature": await signed(account, "read", runId), "x-forwarded-for": "203.0.113.7" }));
    const second = figures(await read(runId, { "x-wallet-signature": await signed(account, "read", runId), "x-forwarded-for": "198.51.100.9" }));
    expect(first.limit).toBe(100);
    // One bucket for both (unless its window turned between the two requests).
    if (second.reset === first.reset) expect(second.remaining).toBe(first.remaining - 1);
    else expect(second.remaining).toBe(second.limit - 1);
  }, 60_000);

  it("refuses a feedback signature on the read and a read signature on the feedback, each 404; each message is accepted where it belongs", async () => {
    const feedbackSignature = await signed(account, "feedback", runId);
    const readSignature = await signed(account, "read", runId);
    const onRead = await read(runId, { "x-wallet-signature": feedbackSignature });
    expect(onRead.status).toBe(404);
    expect(await codeOf(onRead)).toBe("not_found");
    const feedback = (header: string) => fetch(`${world.url}/v1/runs/${runId}/feedback`, { method: "POST", headers: { "content-type": "application/json", "x-wallet-signature": header }, body: JSON.stringify({ value: 90 }) });
    const onFeedback = await feedback(readSignature);
    expect(onFeedback.status).toBe(404);
    expect(await codeOf(onFeedback)).toBe("not_found");
    // The feedback message passes the wallet proof on the feedback route (what follows is the route's own
    // rules: the run's receipt is not logged in this world, or the registries are not configured).
    const accepted = await feedback(feedbackSignature);
    expect([200, 409, 503], await accepted.clone().text()).toContain(accepted.status);
    expect((await read(runId, { "x-wallet-signature": readSignature })).status).toBe(200);
  }, 60_000);
});

describe("A2A GetTask by the payer's X-Wallet-Signature", () => {
  const endpoint = () => `${world.url}/a2a/${agentId}`;
  const activated = { serviceParameters: ServiceParameters.create(withA2AExtensions(X402_EXTENSION_URI)) };
  const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
  let counter = 0;
  const send = (task: string, metadata?: Record<string, unknown>, taskId = "") => ({
    tenant: "",
    message: { messageId: `payer-read-${Date.now()}-${counter++}`, contextId: "", taskId, role: 1, parts: [text(task), { content: { $case: "data" as const, value: {} }, metadata: undefined, filename: "", mediaType: "application/json" }], metadata, extensions: [X402_EXTENSION_URI], referenceTaskIds: [] },
    configuration: undefined,
    metadata: undefined,
  });
  const statusMeta = (task: Task) => (task.status?.message?.metadata ?? {}) as Record<string, unknown>;
  /** The official client, with no bearer token (it reads the public card). */
  async function a2aClient(): Promise<Client> {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: fetch })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch }) }));
    return factory.createFromUrl(`${endpoint()}/.well-known/agent-card.json`, "");
  }
  /** The official client's GetTask with X-Wallet-Signature (its service parameters are sent as headers). */
  const getTask = async (client: Client, id: string, header: string) => client.getTask({ tenant: "", id }, { serviceParameters: { "X-Wallet-Signature": header } });
  const raw = (body: unknown, headers: Record<string, string>) => fetch(endpoint(), { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers }, body: JSON.stringify(body) });
  let account: PrivateKeyAccount;
  let taskId: string;

  it("answers the payer's GetTask of a task left working as the paying message did, then completed with its receipt once settled", async () => {
    account = await payer();
    const client = await a2aClient();
    const first = (await client.sendMessage(send("review the lease"), activated)) as Task;
    const payload = await x402For(account).createPaymentPayload(statusMeta(first)["x402.payment.required"] as PaymentRequired);
    const paid = (await client.sendMessage(send("review the lease", { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload }, first.id), activated)) as Task;
    expect(paid.status?.state, JSON.stringify(paid.status)).toBe(TaskState.TASK_STATE_WORKING);
    expect(statusMeta(paid)).toMatchObject({ "x402.payment.status": "payment-verified", "x402.payment.receipts": [] });
    expect(paid.artifacts).toEqual([]);
    taskId = paid.id;

    const working = await getTask(client, taskId, await signed(account, "read", taskId));
    expect(working.id).toBe(taskId);
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(statusMeta(working)).toEqual(statusMeta(paid));
    expect(working.artifacts).toEqual([]);
    expect(working.metadata).toEqual(paid.metadata);

    await settledByPasses(world.services, [taskId]);
    const done = await getTask(client, taskId, await signed(account, "read", taskId));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(statusMeta(done)["x402.payment.status"]).toBe("payment-completed");
    const run = (await getRun(world.services.tables, taskId))!;
    const [receipt] = statusMeta(done)["x402.payment.receipts"] as SettleResponse[];
    expect(receipt).toEqual({ success: true, transaction: run.settlement_tx, network: NETWORK, payer: account.address.toLowerCase() });
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "data", value: { findings: ["done: review the lease"] } });
  }, 180_000);

  it("answers another wallet's signature, a feedback signature and an unknown task -32001; a stale one 401", async () => {
    const client = await a2aClient();
    const other = privateKeyToAccount(generatePrivateKey());
    await expect(getTask(client, taskId, await signed(other, "read", taskId))).rejects.toMatchObject({ envelopeCode: -32001 });
    await expect(getTask(client, taskId, await signed(account, "feedback", taskId))).rejects.toMatchObject({ envelopeCode: -32001 });
    const unknown = `run_${"0".repeat(32)}`;
    await expect(getTask(client, unknown, await signed(account, "read", unknown))).rejects.toMatchObject({ envelopeCode: -32001 });
    const stale = await raw({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: taskId } }, { "x-wallet-signature": await signed(account, "read", taskId, now() - 360) });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("x-ratelimit-limit")).not.toBeNull();
    const body = (await stale.json()) as { id: number; error: { data: { metadata: Record<string, string> }[] } };
    expect(body.id).toBe(1);
    expect(body.error.data[0]!.metadata.code).toBe("unauthorized");
  }, 60_000);

  it("speaks v0.3's tasks/get too, and keeps every other method bearer-only with the signature", async () => {
    const legacy = await raw({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: taskId } }, { "a2a-version": "0.3", "x-wallet-signature": await signed(account, "read", taskId) });
    expect(legacy.status).toBe(200);
    const task = ((await legacy.json()) as { result: { kind: string; id: string; status: { state: string; message: { metadata: Record<string, unknown> } } } }).result;
    expect(task).toMatchObject({ kind: "task", id: taskId, status: { state: "completed" } });
    expect(task.status.message.metadata["x402.payment.status"]).toBe("payment-completed");
    const header = { "x-wallet-signature": await signed(account, "read", taskId) };
    for (const method of ["ListTasks", "CancelTask", "SubscribeToTask", "SendMessage"]) {
      const params = method === "ListTasks" ? {} : method === "SendMessage" ? { message: { messageId: "sig-1", role: "ROLE_USER", parts: [{ text: "review" }] } } : { id: taskId };
      const answer = await raw({ jsonrpc: "2.0", id: 3, method, params }, header);
      expect(answer.status, method).toBe(401);
    }
  }, 60_000);
});
