// x402 v2 over MCP on the payers' endpoint (POST /v1/mcp/x402), end to end through the served API with
// the real app, settler and chain: the official MCP client (Client + StreamableHTTPClientTransport) with
// no credential lists the listings sold by x402 as tools; a tools/call without `_meta["x402/payment"]` gets
// the tool result carrying the PaymentRequired (x402's MCP transport); the retry with a PaymentPayload
// signed by @x402/evm's ExactEvmScheme over a viem account runs the task and returns its output with
// `_meta["x402/payment-response"]`; the payer's USDC goes down by the price once, the listing's escrow up
// by the price less the fee; a failed run moves nothing; a replay and a twin run nothing; every bad
// payment is refused with its reason and runs nothing, never a 5xx; POST /v1/mcp still answers a caller
// without a token 401 with its WWW-Authenticate challenge.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, getAddress, http, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/fetch";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "@x402/core/types";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { chainFor } from "../../src/chain/client.ts";
import { mintLocalTokens } from "../../src/chain/deploy.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { deployTokens, handAuthority, publishTokenAgent, type TokenAgent, type TokenDeployment } from "../support/token-listings.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";

const NETWORK = `eip155:${LOCAL_CHAIN_ID}` as const;
const PRICE = 250_000n; // 0.25 USDC
const FEE = (PRICE * 250n) / 10_000n;
const FUNDED_PAYERS = 8;
let world: World;
let tokens: TokenDeployment;
let usdc: Address;
let writer: TokenAgent;
let ethWriter: PublishedAgent;
let client: ReturnType<typeof createPublicClient>;
let mcp: Client;
/** The payable tool's name, as tools/list names it. */
let toolName: string;
const funded: PrivateKeyAccount[] = [];

beforeAll(async () => {
  const rpcUrl = sharedInfrastructure().rpcUrl;
  tokens = await deployTokens(rpcUrl);
  usdc = getAddress(tokens.tokens.usdc.address);
  client = createPublicClient({ chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), transport: http(rpcUrl) });
  world = await startWorld({ agent: { handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "the agent gave up") : call.output({ findings: [`done: ${call.task}`] })) }, env: tokens.env });
  await handAuthority(world, tokens);
  writer = await publishTokenAgent(world, tokens, "mcp-paid-writer", { rental: "per_query", token: tokens.tokens.usdc, price: PRICE });
  ethWriter = await world.publishConnected("mcp-eth-writer", { rental: "per_query" });
  // Payers funded by the tokens' deployer (not the settler's key, so no mint races its nonces).
  for (let i = 0; i < FUNDED_PAYERS; i++) funded.push(privateKeyToAccount(generatePrivateKey()));
  await mintLocalTokens({ rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), deployerPrivateKey: tokens.deployer.privateKey }, { usdc, utility: tokens.tokens.utility.address }, funded.map((a) => a.address), { usdc: 10n * PRICE, utility: 0n });
  mcp = new Client({ name: "x402-payer", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${world.url}/v1/mcp/x402`)));
  const { tools } = await mcp.listTools();
  toolName = tools.find((tool) => tool.description?.includes(writer.listing_id))!.name;
}, 240_000);

afterAll(async () => {
  await mcp?.close();
  await world?.close();
});

function payer(): PrivateKeyAccount {
  const account = funded.shift();
  if (!account) throw new Error("no funded payer left: raise FUNDED_PAYERS");
  return account;
}

const usdcOf = (address: Address) => client.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [address] }) as Promise<bigint>;
const escrow = async () => (await client.readContract({ address: tokens.address, abi: tokenMarketplaceAbi, functionName: "listings", args: [writer.onChainId] }))[1] as bigint;
const ran = () => world.agent.deliveriesTo("mcp-paid-writer").length;

type Meta = Record<string, unknown>;
/** A call of the payable tool (`task` as its task, no input), with `_meta` when given. */
const call = (task: string, meta?: Meta, name = toolName, args: Record<string, unknown> = { task }) =>
  mcp.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, { timeout: 110_000 }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
/** The PaymentRequired of a result, read as x402's MCP transport requires a client to (content[0].text). */
function requiredOf(result: CallToolResult): { message: string; required: PaymentRequired } {
  expect(result.isError).toBe(true);
  const wrapper = JSON.parse(textOf(result)) as { "x402/error": { code: number; message: string; data: PaymentRequired } };
  expect(wrapper["x402/error"].code).toBe(402);
  return { message: wrapper["x402/error"].message, required: wrapper["x402/error"].data };
}

/** A payment signed by the official client for `account` against the tool's offer. */
async function signedPayment(account: PrivateKeyAccount): Promise<PaymentPayload> {
  const { required } = requiredOf(await call("quote"));
  const x402 = x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmScheme(toClientEvmSigner(account)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] } });
  return x402.createPaymentPayload(required);
}
const paying = (payload: unknown, task = "write the email") => call(task, { "x402/payment": payload });

describe("x402 over MCP tools/call (POST /v1/mcp/x402)", () => {
  it("lists the listings sold by x402 as tools, and not an ETH listing; POST /v1/mcp still asks a caller without a token to authenticate", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toContain("run_agent");
    expect(tools.some((tool) => tool.description?.includes(ethWriter.listing_id))).toBe(false);
    expect(tools.find((tool) => tool.name === toolName)?.outputSchema).toBeDefined();
    const unauthenticated = await fetch(`${world.url}/v1/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource/);
    // GET /v1/mcp/x402: no standalone stream (stateless), 405 with Allow: POST.
    const stream = await fetch(`${world.url}/v1/mcp/x402`, { headers: { accept: "text/event-stream" } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST");
  }, 60_000);

  it("answers a call without payment with the PaymentRequired: in content[0].text always, as structuredContent for a tool without an output schema", async () => {
    const before = ran();
    const { required, message } = requiredOf(await call("quote"));
    expect(message).toMatch(/x402\/payment/);
    expect(required).toMatchObject({ x402Version: 2, error: "payment_required", resource: { url: `mcp://tool/${toolName}` } });
    expect(required.accepts).toEqual([{ scheme: "exact", network: NETWORK, amount: PRICE.toString(), asset: usdc, payTo: expect.any(String), maxTimeoutSeconds: 600, extra: { name: "USD Coin", version: "2" } }]);
    expect(getAddress(required.accepts[0]!.payTo)).toBe(getAddress(tokens.address));
    // The per-agent tool declares the agent's output schema: no structuredContent (the client checks it).
    expect((await call("quote")).structuredContent).toBeUndefined();
    const generic = await call("quote", undefined, "run_agent", { agent_id: writer.agent_id, task: "quote" });
    expect(generic.isError).toBe(true);
    expect(generic.structuredContent).toEqual(requiredOf(generic).required);
    // A listing not sold by x402 is no tool to pay for.
    const eth = await call("quote", undefined, "run_agent", { agent_id: ethWriter.listing_id, task: "quote" });
    expect(eth.isError).toBe(true);
    expect(eth._meta?.error).toMatchObject({ code: "unauthorized" });
    expect(ran()).toBe(before);
  }, 60_000);

  it("runs a paid call: output with x402/payment-response beside the run; the payer pays the price once, the escrow gets it less the fee", async () => {
    const account = payer();
    const [before, escrowBefore] = [await usdcOf(account.address), await escrow()];
    const result = await paying(await signedPayment(account), "write to Dana");
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ findings: ["done: write to Dana"] });
    const settled = result._meta?.["x402/payment-response"] as SettleResponse;
    expect(settled).toMatchObject({ success: true, network: NETWORK, payer: account.address.toLowerCase() });
    expect(result._meta?.run).toMatchObject({ run_id: expect.stringMatching(/^run_/), agent_id: writer.agent_id, cost_wei: PRICE.toString() });
    const receipt = await client.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(getAddress(receipt.to!)).toBe(getAddress(tokens.address));
    expect(await usdcOf(account.address)).toBe(before - PRICE);
    expect(await escrow()).toBe(escrowBefore + PRICE - FEE);
  }, 120_000);

  it("never settles a failed run: a tool error, no payment-response, the payer keeps its money", async () => {
    const account = payer();
    const before = await usdcOf(account.address);
    const result = await paying(await signedPayment(account), "fail now");
    expect(result.isError).toBe(true);
    expect(result._meta?.["x402/payment-response"]).toBeUndefined();
    expect(result._meta?.error).toMatchObject({ run_id: expect.stringMatching(/^run_/) });
    expect(await usdcOf(account.address)).toBe(before);
  }, 120_000);

  it("gives identical payments at once one run, and a replay none", async () => {
    const account = payer();
    const payload = await signedPayment(account);
    const before = ran();
    const results = await Promise.all([paying(payload), paying(payload)]);
    const refused = results.filter((r) => r.isError);
    expect(refused).toHaveLength(1);
    expect(requiredOf(refused[0]!).required.error).toBe("invalid_exact_evm_nonce_already_used");
    const replay = await paying(payload);
    expect(requiredOf(replay).required.error).toBe("invalid_exact_evm_nonce_already_used");
    expect(ran()).toBe(before + 1);
    expect(await usdcOf(account.address)).toBe(10n * PRICE - PRICE);
  }, 120_000);
});

describe("bad payments over MCP: refused with the reason, never a run, never a 5xx", () => {
  type Signed = PaymentPayload & { payload: { authorization: Record<string, string>; signature: string } };
  async function tampered(change: (payload: Signed) => void, account = payer()) {
    const copy = structuredClone(await signedPayment(account)) as Signed;
    change(copy);
    return paying(copy);
  }
  const reasonOf = (result: CallToolResult) => requiredOf(result).required.error;
  const now = () => Math.floor(Date.now() / 1000);

  it("refuses an expired or not yet valid authorization, a wrong amount or payTo, another wallet's signature, a payer without the balance", async () => {
    const before = ran();
    const account = payer();
    expect(reasonOf(await tampered((p) => (p.payload.authorization.validBefore = String(now() - 3_600)), account))).toBe("invalid_exact_evm_payload_authorization_valid_before");
    expect(reasonOf(await tampered((p) => (p.payload.authorization.validAfter = String(now() + 3_600)), account))).toBe("invalid_exact_evm_payload_authorization_valid_after");
    expect(reasonOf(await tampered((p) => ((p.payload.authorization.value = "1"), (p.accepted.amount = "1")), account))).toBe("invalid_exact_evm_payload_authorization_value_mismatch");
    expect(reasonOf(await tampered((p) => ((p.payload.authorization.to = usdc), (p.accepted.payTo = usdc)), account))).toBe("invalid_exact_evm_recipient_mismatch");
    expect(reasonOf(await tampered((p) => (p.payload.authorization.from = privateKeyToAccount(generatePrivateKey()).address), account))).toBe("invalid_exact_evm_signature");
    expect(reasonOf(await paying(await signedPayment(privateKeyToAccount(generatePrivateKey()))))).toBe("invalid_exact_evm_insufficient_balance");
    expect(ran()).toBe(before);
    expect(await usdcOf(account.address)).toBe(10n * PRICE);
  }, 120_000);

  it("answers a malformed _meta[\"x402/payment\"] with invalid_request naming it", async () => {
    const before = ran();
    const signed = await signedPayment(payer());
    for (const payment of ["eyJ4NDAyVmVyc2lvbiI6Mn0=", 402, [signed], { x402Version: 2 }, { ...signed, x402Version: 1 }, { ...signed, payload: { ...signed.payload, signature: "0x12" } }, { ...signed, padding: "A".repeat(10_000) }]) {
      const result = await paying(payment);
      expect(result.isError, JSON.stringify(payment).slice(0, 60)).toBe(true);
      expect(result._meta?.error, JSON.stringify(payment).slice(0, 60)).toMatchObject({ code: "invalid_request", status: 400 });
      expect(textOf(result)).toContain('_meta["x402/payment"] is not an x402 payment');
    }
    expect(ran()).toBe(before);
  }, 120_000);
});
