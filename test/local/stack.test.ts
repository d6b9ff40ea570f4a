// Starts the local stack exactly as the README says (`npm start`), on free ports and a temporary data
// folder, talks to it over HTTP, and stops it, leaving no process behind.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { createTables } from "../../src/adapters/tables/dynamo.ts";
import { createPublicClient, createWalletClient, encodeFunctionData, getAddress, http, keccak256, parseEther, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import Ajv2020 from "ajv/dist/2020.js";
import { freePort, portInUse } from "../../local/ports.ts";
import type { StackInfo } from "../../local/stack.ts";
import type { DemoData, DemoListing } from "../../local/demo.ts";
import { parseSse } from "../support/sse.ts";
import { getWithHost } from "../support/raw-http.ts";
import { fetchWaitingOut429 as apiFetch } from "../support/http.ts";
import { RENTAL_MODELS } from "@agent-rental/core/vocabulary";
import { base64url, createRemoteJWKSet, flattenedVerify } from "jose";
import { TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { canonicalCardPayload } from "../../src/a2a/signing.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = mkdtempSync(join(tmpdir(), "stack-test-"));
const started: ChildProcess[] = [];

interface Ports { PORT: number; CHAIN_PORT: number; DYNAMODB_PORT: number; AWS_EMULATOR_PORT: number }

async function ports(): Promise<Ports> {
  return { PORT: await freePort(), CHAIN_PORT: await freePort(), DYNAMODB_PORT: await freePort(), AWS_EMULATOR_PORT: await freePort() };
}

function npmStart(p: Ports, dir: string) {
  const child = spawn("npm", ["start", "--silent"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])), LOCAL_DATA_DIR: dir, LOG_LEVEL: "warn" },
  });
  started.push(child);
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitForStack(dir: string, exited: Promise<unknown>, output: () => string, timeoutMs = 120_000): Promise<StackInfo> {
  const file = join(dir, "stack.json");
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline) {
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as StackInfo;
    if (done) throw new Error(`the stack exited before it was ready:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the stack was not ready in time:\n${output()}`);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** cost_wei read from the body text as an exact integer (docs/reference/execution.md: wei exceed 2^53). */
function costWeiOf(body: string): bigint {
  const match = /"cost_wei":\s*(\d+)/.exec(body);
  if (!match) throw new Error(`no cost_wei in ${body}`);
  return BigInt(match[1]!);
}

const RUN_ID = /^run_[0-9a-f]{32}$/;

/**
 * README "Try it": what a newcomer runs against the demo right after `npm start`, with the agent ids
 * taken from stack.json (`demo.listings`) and the exact bodies the README's curl commands send.
 * The deterministic model server answers structured output with the minimal instance of the schema
 * (strings "example") and text with `Echo: <the user message, whitespace collapsed>`, where the user
 * message is the task, a blank line, `Input (JSON):` and the input as indented JSON.
 */
async function readmeQuickstart(info: StackInfo, demoKey: string): Promise<void> {
  const demo = info.demo as unknown as DemoData;
  const auth = { authorization: `Bearer ${demoKey}` };
  const post = (path: string, body: unknown) =>
    apiFetch(`${info.api_url}${path}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
  const getText = async (path: string, headers: Record<string, string> = auth) => {
    const res = await apiFetch(`${info.api_url}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    expect(res.status, `GET ${path}: ${text}`).toBe(200);
    return text;
  };
  const listing = (name: string): DemoListing => {
    const found = demo.listings.find((l) => l.name === name);
    if (!found) throw new Error(`stack.json has no demo listing ${name}: ${JSON.stringify(demo.listings.map((l) => l.name))}`);
    return found;
  };
  // The output schema as a renter can read it: the listing's public metadata (ipfs://<cid>).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const expectMatchesOutputSchema = async (l: DemoListing, output: unknown) => {
    const metadata = JSON.parse(await getText(`/v1/metadata/${l.metadata_uri.replace(/^ipfs:\/\//, "")}`, {})) as { output_schema: Record<string, unknown> };
    const validate = ajv.compile(metadata.output_schema);
    expect(validate(output), `${l.name} output ${JSON.stringify(output)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };
  const chain = chainFor(info.chain_id, info.rpc_url);
  const client = createPublicClient({ chain, transport: http(info.rpc_url) });
  const marketplace = info.contracts.marketplace as Hex;

  // 1. POST /v1/execute on the one-time rental of contract-reviewer (the README's command, verbatim).
  const reviewer = listing("contract-reviewer");
  expect(reviewer.rental_model).toBe("one_time");
  const executed = await post("/v1/execute", { agent_id: reviewer.agent_id, task: "Review this contract", input: { contract: "The supplier accepts unlimited liability." } });
  const executedText = await executed.text();
  expect(executed.status, executedText).toBe(200);
  const run = JSON.parse(executedText) as { run_id: string; agent_id: string; status: string; output: unknown; cost_wei: number; duration_ms: number; error?: unknown };
  expect(run.run_id).toMatch(RUN_ID);
  expect(run).toMatchObject({ agent_id: reviewer.agent_id, status: "completed", cost_wei: 0 });
  expect(run.error).toBeUndefined();
  expect(run.output).toEqual({ findings: ["example"] });
  await expectMatchesOutputSchema(reviewer, run.output);
  expect(JSON.parse(await getText(`/v1/runs/${run.run_id}`))).toMatchObject({
    run_id: run.run_id, listing_id: reviewer.listing_id, status: "completed", output: { findings: ["example"] }, cost_wei: 0, rental_model: "one_time", settlement: "none", settlement_tx: null,
  });

  // 1b. The subscription (earnings-summarizer, the other wire protocol): the README names the rental but
  // gives no command for it; the body follows the agent's input schema ({transcript}).
  const summarizer = listing("earnings-summarizer");
  expect(summarizer.rental_model).toBe("subscription");
  const summarized = await post("/v1/execute", { agent_id: summarizer.agent_id, task: "Summarize the call", input: { transcript: "Revenue grew 12% year over year; guidance raised." } });
  const summarizedText = await summarized.text();
  expect(summarized.status, summarizedText).toBe(200);
  const summary = JSON.parse(summarizedText) as { run_id: string; output: unknown };
  expect(summary).toMatchObject({ agent_id: summarizer.agent_id, status: "completed", cost_wei: 0 });
  expect(summary.output).toBe('Echo: Summarize the call Input (JSON): { "transcript": "Revenue grew 12% year over year; guidance raised." }');
  await expectMatchesOutputSchema(summarizer, summary.output);
  expect(JSON.parse(await getText(`/v1/runs/${summary.run_id}`))).toMatchObject({ status: "completed", cost_wei: 0, rental_model: "subscription", settlement: "none" });

  // 2. POST /v1/execute/stream on the per-query balance of unit-test-writer (the README's command,
  // verbatim): output events with offset ids, then one done with the run; the price is charged on-chain.
  const writer = listing("unit-test-writer");
  expect(writer.rental_model).toBe("per_query");
  const price = parseEther(writer.price_eth);
  const onChainId = `0x${writer.listing_id.slice(4)}` as Hex;
  const balance = async () => (await client.readContract({ address: marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [onChainId, demo.renter as Hex] }))[0];
  expect(await balance()).toBe(price * 10n); // "a per-query balance for ten runs"
  const expected = 'Echo: Write tests for sum Input (JSON): { "source": "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);" }';
  const streamed = await post("/v1/execute/stream", { agent_id: writer.agent_id, task: "Write tests for sum", input: { source: "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);" } });
  const streamText = await streamed.text();
  expect(streamed.status, streamText).toBe(200);
  expect(streamed.headers.get("content-type")).toContain("text/event-stream");
  const runId = streamed.headers.get("x-run-id");
  expect(runId).toMatch(RUN_ID);
  const events = parseSse(streamText);
  expect(events.map((e) => e.event).filter((e) => e !== "output")).toEqual(["done"]);
  const done = events.at(-1)!;
  expect(done).toMatchObject({ event: "done", id: "done" });
  const outputs = events.slice(0, -1);
  expect(outputs.length).toBeGreaterThan(1); // streamed word by word, not one final chunk
  let offset = 0;
  const deltas = outputs.map((e) => {
    const { delta } = JSON.parse(e.data) as { delta: string };
    offset += delta.length;
    expect(e.id, `output event ${e.data}`).toBe(String(offset)); // the id is the offset after this delta
    return delta;
  });
  expect(deltas.join("")).toBe(expected);
  const doneRun = JSON.parse(done.data) as Record<string, unknown>;
  expect(doneRun).toMatchObject({ run_id: runId, agent_id: writer.agent_id, status: "completed", output: expected });
  expect(doneRun.settlement).toBeUndefined(); // not "pending": the charge was confirmed
  expect(costWeiOf(done.data)).toBe(price);
  await expectMatchesOutputSchema(writer, doneRun.output);

  // GET /v1/runs/<run_id>: the same run, settled; the contract holds one run less.
  const detailText = await getText(`/v1/runs/${runId}`);
  const detail = JSON.parse(detailText) as { settlement_tx: Hex; receipt: null | { batch_index: number; leaf: Hex; proof: Hex[]; tx_hash: Hex } };
  expect(detail).toMatchObject({ run_id: runId, agent_id: writer.agent_id, listing_id: writer.listing_id, status: "completed", output: expected, rental_model: "per_query", settlement: "settled" });
  expect(costWeiOf(detailText)).toBe(price);
  expect(detail.settlement_tx).toMatch(/^0x[0-9a-f]{64}$/);
  expect((await client.getTransactionReceipt({ hash: detail.settlement_tx })).status).toBe("success");
  expect(await balance()).toBe(price * 9n);

  // "with its on-chain receipt once the run log has batched it (every 5 s locally)": bounded wait, then
  // the receipt verifies against the contract.
  let logged = detail;
  await waitUntil(async () => {
    logged = JSON.parse(await getText(`/v1/runs/${runId}`)) as typeof detail;
    return logged.receipt !== null;
  }, 30_000);
  const receipt = logged.receipt!;
  const leaf = await client.readContract({
    address: marketplace, abi: marketplaceAbi, functionName: "runReceiptLeaf",
    args: [keccak256(toHex(runId!)), onChainId, demo.renter as Hex, 0, price, BigInt(doneRun.duration_ms as number)],
  });
  expect(leaf).toBe(receipt.leaf);
  const fields = { runId: keccak256(toHex(runId!)), listingId: onChainId, renter: demo.renter as Hex, status: 0, costWei: price, durationMs: BigInt(doneRun.duration_ms as number) };
  expect(await client.readContract({ address: marketplace, abi: marketplaceAbi, functionName: "verifyRunReceipt", args: [BigInt(receipt.batch_index), fields, receipt.proof] })).toBe(true);
}

afterAll(async () => {
  for (const child of started) if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * README "Hire a demo agent over A2A": a demo agent's Agent Card, read from the stack's origin (the
 * dashboard in front of the API), its signature checked against the published key set, and a task sent
 * with the official @a2a-js/sdk client and the demo renter's key, answered with the agent's output.
 */
/** The OAuth issuer and the signed Agent Card name the stack's own address, whatever Host a request
 * carries. */
async function forgedHost(info: StackInfo): Promise<void> {
  const metadata = await getWithHost(`${info.api_url}/.well-known/oauth-authorization-server`, "evil.example");
  expect(metadata.status).toBe(200);
  expect((JSON.parse(metadata.body) as { issuer: string }).issuer).toBe(info.api_url);
  expect(metadata.body).not.toContain("evil.example");
  const reviewer = (info.demo as unknown as DemoData).listings.find((l) => l.name === "contract-reviewer")!;
  const card = await getWithHost(`${info.api_url}/a2a/${reviewer.agent_id}/.well-known/agent-card.json`, "evil.example");
  expect(card.status).toBe(200);
  expect((JSON.parse(card.body) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]!.url).toBe(`${info.api_url}/a2a/${reviewer.agent_id}`);
  expect(card.body).not.toContain("evil.example");
}

async function a2aQuickstart(info: StackInfo, demoKey: string): Promise<void> {
  const demo = info.demo as unknown as DemoData;
  const reviewer = demo.listings.find((l) => l.name === "contract-reviewer")!;
  const cardUrl = `${info.api_url}/a2a/${reviewer.agent_id}/.well-known/agent-card.json`;
  const cardRes = await apiFetch(cardUrl, { signal: AbortSignal.timeout(30_000) });
  expect(cardRes.status).toBe(200);
  expect(cardRes.headers.get("etag")).toMatch(/^"/);
  const card = (await cardRes.json()) as { name: string; supportedInterfaces: { url: string }[]; signatures: { protected: string; signature: string }[] };
  expect(card.name).toBe("Contract Reviewer");
  expect(card.supportedInterfaces[0]!.url).toBe(`${info.api_url}/a2a/${reviewer.agent_id}`);
  const { jku } = JSON.parse(new TextDecoder().decode(base64url.decode(card.signatures[0]!.protected))) as { jku: string };
  expect(jku).toBe(`${info.api_url}/.well-known/jwks.json`);
  await flattenedVerify({ ...card.signatures[0]!, payload: base64url.encode(canonicalCardPayload(card as unknown as Record<string, unknown>)) }, createRemoteJWKSet(new URL(jku)));
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${demoKey}`);
    return apiFetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
  const client = await factory.createFromUrl(cardUrl, "");
  const task = (await client.sendMessage({
    tenant: "",
    message: {
      messageId: `stack-${Date.now()}`,
      contextId: "",
      taskId: "",
      role: 1,
      parts: [
        { content: { $case: "text", value: "Review this contract" }, metadata: undefined, filename: "", mediaType: "text/plain" },
        { content: { $case: "data", value: { contract: "The supplier accepts unlimited liability." } }, metadata: undefined, filename: "", mediaType: "application/json" },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  })) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(task.id).toMatch(RUN_ID);
  expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { findings: ["example"] } });
  expect(task.metadata).toMatchObject({ run_id: task.id, cost_wei: "0" });
}

/**
 * The demo's token listings: a per-task USDC listing, published with its currency, whose registration file
 * says x402Support and whose Agent Card declares the A2A x402 extension with what a payment must be; and a
 * RENT subscription, not payable by x402 (false, no extension).
 */
async function tokenListings(info: StackInfo, demoKey: string, searched: { id: string; price_eth: number; price_units: string; currency: { symbol: string; address: string | null; decimals: number } }[]): Promise<void> {
  const demo = info.demo as unknown as DemoData;
  const usdc = demo.listings.find((l) => l.name === "sales-email-writer")!;
  const rent = demo.listings.find((l) => l.name === "blog-post-outliner")!;
  expect(usdc).toMatchObject({ currency: "USDC", rental_model: "per_query", price_eth: "0.25" });
  expect(rent).toMatchObject({ currency: "RENT", rental_model: "subscription", price_eth: "20" });
  const usdcAddress = getAddress(info.contracts.tokens.usdc.address);
  expect(searched.find((l) => l.id === usdc.listing_id)).toMatchObject({ price_eth: 0.25, price_units: "250000", currency: { symbol: "USDC", address: usdcAddress, decimals: 6 } });
  expect(searched.find((l) => l.id === rent.listing_id)).toMatchObject({ price_eth: 20, price_units: (20n * 10n ** 18n).toString(), currency: { symbol: "RENT", address: getAddress(info.contracts.tokens.utility!.address), decimals: 18 } });
  const client = createPublicClient({ chain: chainFor(31337, info.rpc_url), transport: http(info.rpc_url) });
  const fileOf = async (listing: DemoListing) => {
    const tokenUri = await client.readContract({ address: info.contracts.identity_registry as Hex, abi: identityRegistryAbi, functionName: "tokenURI", args: [BigInt(listing.erc8004_agent_id!)] });
    return (await (await apiFetch(`${info.api_url}/v1/metadata/${tokenUri.slice(7)}`)).json()) as { x402Support: boolean; services: { name: string; endpoint: string }[] };
  };
  const cardOf = async (listing: DemoListing) => {
    const file = await fileOf(listing);
    const card = (await (await apiFetch(file.services.find((s) => s.name === "A2A")!.endpoint)).json()) as { capabilities: { extensions?: { uri: string; required?: boolean; params?: Record<string, unknown> }[] } };
    return { file, card };
  };
  const paid = await cardOf(usdc);
  expect(paid.file.x402Support).toBe(true);
  expect(paid.card.capabilities.extensions).toEqual([
    expect.objectContaining({
      uri: "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2",
      params: { x402Version: 2, scheme: "exact", network: "eip155:31337", asset: usdcAddress, amount: "250000", payTo: getAddress(info.contracts.token_marketplace), extra: { name: "USD Coin", version: "2" } },
    }),
  ]);
  // Two MCP services for the paid listing: the OAuth one, and the one that takes x402.
  const mcpPaths = (file: { services: { name: string; endpoint: string }[] }) => file.services.filter((s) => s.name === "MCP").map((s) => new URL(s.endpoint).pathname);
  expect(mcpPaths(paid.file)).toEqual(["/v1/mcp", "/v1/mcp/x402"]);
  const unpaid = await cardOf(rent);
  expect(unpaid.file.x402Support).toBe(false);
  expect(mcpPaths(unpaid.file)).toEqual(["/v1/mcp"]);
  expect(unpaid.card.capabilities.extensions ?? []).toEqual([]);
  expect((await fileOf(demo.listings.find((l) => l.name === "unit-test-writer")!)).x402Support).toBe(false);
  // The token listing is the TokenMarketplace's own.
  const onChain = await client.readContract({ address: info.contracts.token_marketplace as Hex, abi: tokenMarketplaceAbi, functionName: "listings", args: [`0x${usdc.listing_id.slice(4)}` as Hex] });
  expect(onChain[6]).toBe(usdcAddress);
  void demoKey;
}

/**
 * ERC-8004 on the stack: a demo listing's agent, registered at start, has a tokenURI that resolves (through
 * the stack's /v1/metadata) to a registration file whose A2A service is that listing's card; the demo
 * renter's feedback on a completed run raises the listing's verified rating, while a wallet that never ran
 * the agent sends giveFeedback directly and changes nothing but the unverified count.
 */
async function erc8004Quickstart(info: StackInfo, demoKey: string): Promise<void> {
  const demo = info.demo as unknown as DemoData;
  const reviewer = demo.listings.find((l) => l.name === "contract-reviewer")!;
  const auth = { authorization: `Bearer ${demoKey}`, "content-type": "application/json" };
  const getJson = async <T>(path: string) => (await (await apiFetch(`${info.api_url}${path}`, { headers: auth, signal: AbortSignal.timeout(30_000) })).json()) as T;
  const listing = await getJson<{ erc8004: { agent_id: string; agent_registry: string } | null; rating: number; review_count: number }>(`/v1/listings/${reviewer.listing_id}`);
  expect(listing.erc8004).toEqual({ agent_id: reviewer.erc8004_agent_id, agent_registry: `eip155:31337:${info.contracts.identity_registry}` });
  const chain = chainFor(31337, info.rpc_url);
  const client = createPublicClient({ chain, transport: http(info.rpc_url) });
  const agentId = BigInt(listing.erc8004!.agent_id);
  const tokenUri = await client.readContract({ address: info.contracts.identity_registry as Hex, abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] });
  expect(tokenUri).toMatch(/^ipfs:\/\/b[a-z2-7]+$/);
  const file = (await (await apiFetch(`${info.api_url}/v1/metadata/${tokenUri.slice(7)}`)).json()) as { services: { name: string; endpoint: string }[]; registrations: unknown[]; active: boolean };
  expect(file.services.find((s) => s.name === "A2A")!.endpoint).toBe(`${info.api_url}/a2a/${reviewer.agent_id}/.well-known/agent-card.json`);
  expect(file.registrations).toEqual([{ agentId: Number(agentId), agentRegistry: listing.erc8004!.agent_registry }]);
  expect(file.active).toBe(true);

  // The demo renter runs the agent, waits for the run's receipt, and sends its feedback.
  const run = (await (await apiFetch(`${info.api_url}/v1/execute`, { method: "POST", headers: auth, body: JSON.stringify({ agent_id: reviewer.agent_id, task: "Review this contract", input: { contract: "Net 30." } }) })).json()) as { run_id: string };
  let prepared: Response | undefined;
  for (let i = 0; i < 120; i++) {
    prepared = await apiFetch(`${info.api_url}/v1/runs/${run.run_id}/feedback`, { method: "POST", headers: auth, body: JSON.stringify({ value: 80, text: "Found the clause." }) });
    if (prepared.status !== 409) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(prepared!.status).toBe(200);
  const feedback = (await prepared!.json()) as { transaction: { to: Hex; data: Hex } };
  const renterKey = info.accounts.find((a) => a.role === "renter")!.private_key as Hex;
  const sendFrom = async (key: Hex, tx: { to: Hex; data: Hex }) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(info.rpc_url) });
    const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction(tx), pollingInterval: 50 });
    expect(receipt.status).toBe("success");
  };
  await sendFrom(renterKey, feedback.transaction);
  const reputation = () => getJson<{ rating: number; review_count: number; unverified_count: number }>(`/v1/listings/${reviewer.listing_id}/reputation`);
  let rep = await reputation();
  for (let i = 0; i < 40 && rep.review_count === listing.review_count; i++) {
    await new Promise((r) => setTimeout(r, 250));
    rep = await reputation();
  }
  expect(rep.review_count).toBe(listing.review_count + 1);
  expect(rep.rating).toBeGreaterThan(0);
  // A wallet that never ran the agent (the treasury's development account) gives 100 directly.
  const sybilKey = info.accounts.find((a) => a.role === "treasury")!.private_key as Hex;
  await sendFrom(sybilKey, {
    to: info.contracts.reputation_registry as Hex,
    data: encodeFunctionData({ abi: reputationRegistryAbi, functionName: "giveFeedback", args: [agentId, 100n, 0, "starred", "", "", "", `0x${"00".repeat(32)}`] }),
  });
  let after = await reputation();
  for (let i = 0; i < 40 && after.unverified_count === rep.unverified_count; i++) {
    await new Promise((r) => setTimeout(r, 250));
    after = await reputation();
  }
  expect(after).toMatchObject({ rating: rep.rating, review_count: rep.review_count, unverified_count: rep.unverified_count + 1 });
}

describe("npm start (the local stack)", () => {
  it("starts everything, serves the API, runs the README's executes against the demo, serves a demo agent's signed A2A card and runs an A2A task (GET /a2a/{agent_id}/.well-known/agent-card.json, POST /a2a/{agent_id}), refuses a second start, stops cleanly, and keeps off-chain data across a restart", async () => {
    const p = await ports();
    const first = npmStart(p, dataDir);
    const info = await waitForStack(dataDir, first.exited, first.output);

    expect(info).toMatchObject({ api_url: `http://127.0.0.1:${p.PORT}`, rpc_url: `http://127.0.0.1:${p.CHAIN_PORT}`, chain_id: 31337 });
    expect(info.contracts.marketplace).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(info.accounts.map((a) => a.role)).toEqual(expect.arrayContaining(["authority", "creator", "renter"]));
    expect(info.authority).toBe(info.accounts.find((a) => a.role === "authority")!.address);
    // stack.json is written before the banner reaches the pipe: wait for the banner itself.
    await waitUntil(() => first.output().includes(info.api_url), 10_000);
    expect(first.output()).toContain(info.api_url);

    // The demo API key works.
    const demoKey = (info.demo as { api_key: string }).api_key;
    expect(demoKey).toMatch(/^svc_test_/);
    // The demo: reviewed agents in search, and the demo renter's rentals of the three models.
    const searched = (await (await apiFetch(`${info.api_url}/v1/listings?sort=price_asc`, { headers: { authorization: `Bearer ${demoKey}` } })).json()) as { total: number; listings: { id: string; rental_model: string; price_eth: number; price_units: string; currency: { symbol: string; address: string | null; decimals: number } }[] };
    expect(searched.total).toBe(6);
    expect(new Set(searched.listings.map((l) => l.rental_model))).toEqual(new Set(RENTAL_MODELS));
    // Priced in each currency, sorted within each (decision 0190): the ETH listings first, then RENT, then USDC.
    expect(searched.listings.map((l) => l.currency.symbol)).toEqual(["ETH", "ETH", "ETH", "ETH", "RENT", "USDC"]);
    await tokenListings(info, demoKey, searched.listings);
    const credentialsOf = async (url: string) =>
      ((await (await apiFetch(`${url}/v1/credentials`, { headers: { authorization: `Bearer ${demoKey}` } })).json()) as { total: number; credentials: { listing_id: string; rental_model: string; status: string }[] });
    let demoCredentials = await credentialsOf(info.api_url);
    for (let i = 0; i < 50 && demoCredentials.total < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      demoCredentials = await credentialsOf(info.api_url);
    }
    expect(demoCredentials.credentials.map((c) => `${c.rental_model}:${c.status}`).sort()).toEqual(["one_time:active", "per_query:active", "subscription:active"]);
    expect(demoCredentials.credentials.map((c) => (c as unknown as { listing_title: string }).listing_title).sort()).toEqual(["Contract Reviewer", "Earnings Summarizer", "Unit Test Writer"]);

    // The README's "Try it": an execute, a streamed per-query execute, and the run with its receipt.
    await readmeQuickstart(info, demoKey);
    // The README's A2A step: a demo agent's signed card and a task with the official client.
    await a2aQuickstart(info, demoKey);
    // A forged Host header changes neither the OAuth issuer nor the signed card's URLs.
    await forgedHost(info);
    // ERC-8004: the demo agent's registration and the reputation only paying renters give.
    await erc8004Quickstart(info, demoKey);

    // A rental bought on the stack's chain reaches the credentials API through the stack's indexer.
    const chain = chainFor(info.chain_id, info.rpc_url);
    const creatorKey = info.accounts.find((a) => a.role === "creator")!.private_key as Hex;
    const renterKey = info.accounts.find((a) => a.address === (info.demo as { renter: string }).renter)!.private_key as Hex;
    const client = createPublicClient({ chain, transport: http(info.rpc_url) });
    const creatorWallet = createWalletClient({ account: privateKeyToAccount(creatorKey), chain, transport: http(info.rpc_url) });
    const renterWallet = createWalletClient({ account: privateKeyToAccount(renterKey), chain, transport: http(info.rpc_url) });
    const marketplace = info.contracts.marketplace as Hex;
    // The token marketplace and its two tokens are deployed and allowed; the demo renter holds both.
    expect(info.contracts.token_marketplace).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(info.contracts.tokens.usdc).toMatchObject({ symbol: "USDC", name: "USD Coin", version: "2", decimals: 6 });
    expect(info.contracts.tokens.utility).toMatchObject({ symbol: "RENT", name: "Rental Credit", version: "1", decimals: 18 });
    for (const token of [info.contracts.tokens.usdc, info.contracts.tokens.utility!]) {
      const [allowed] = await client.readContract({ address: info.contracts.token_marketplace as Hex, abi: tokenMarketplaceAbi, functionName: "tokenTerms", args: [token.address] });
      expect(allowed).toBe(true);
      expect(await client.readContract({ address: token.address, abi: localUsdcAbi, functionName: "balanceOf", args: [renterWallet.account.address] })).toBeGreaterThan(0n);
    }
    const seed = keccak256(toHex("stack test"));
    await client.waitForTransactionReceipt({ hash: await creatorWallet.writeContract({ address: marketplace, abi: marketplaceAbi, functionName: "createListing", args: [seed, 0, parseEther("0.001"), "ipfs://stack-test"] }) });
    const onChainId = await client.readContract({ address: marketplace, abi: marketplaceAbi, functionName: "listingIdOf", args: [creatorWallet.account.address, seed] });
    await client.waitForTransactionReceipt({ hash: await renterWallet.writeContract({ address: marketplace, abi: marketplaceAbi, functionName: "purchaseOneTime", args: [onChainId], value: parseEther("0.001") }) });
    await waitUntil(async () => (await credentialsOf(info.api_url)).total === 4, 90_000);
    const verified = await apiFetch(`${info.api_url}/v1/credentials/lst_${onChainId.slice(2)}`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(await verified.json()).toMatchObject({ status: "active", valid: true, rental_model: "one_time", on_chain_verified: true });

    // An unauthenticated call gets 401 unauthorized in the envelope.
    const res = await apiFetch(`${info.api_url}/v1/credentials`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    // The OpenAPI document parses.
    const doc = (await (await apiFetch(`${info.api_url}/v1/openapi.json`)).json()) as { openapi: string };
    expect(doc.openapi).toBe("3.1.0");
    // The contract is deployed on the chain the stack reports.
    const code = await apiFetch(info.rpc_url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getCode", params: [info.contracts.marketplace, "latest"] }) });
    expect(((await code.json()) as { result: string }).result.length).toBeGreaterThan(10);

    // A second start on the same data folder fails at once, naming the running one.
    const second = npmStart(await ports(), dataDir);
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toMatch(new RegExp(`already running \\(pid ${info.pid}\\)`));

    // A start whose port is taken fails at once, naming the port and the setting.
    const otherDir = mkdtempSync(join(tmpdir(), "stack-test-"));
    const busy = npmStart({ ...(await ports()), PORT: p.PORT }, otherDir);
    expect(await busy.exited).not.toBe(0);
    expect(busy.output()).toContain(`Port ${p.PORT} on 127.0.0.1 is already in use (set PORT`);
    rmSync(otherDir, { recursive: true, force: true });

    // Data created off-chain and data derived from the chain.
    const tables = createTables({ region: "us-east-1", prefix: "local-", endpoint: `http://127.0.0.1:${p.DYNAMODB_PORT}` });
    await tables.doc.send(new PutCommand({ TableName: tables.name("keys"), Item: { pk: "hash#kept", sk: "key", label: "survives" } }));
    await tables.doc.send(new PutCommand({ TableName: tables.name("credentials"), Item: { pk: "wallet#0xabc", sk: "listing#1", status: "active" } }));

    // SIGTERM stops every part: the process group empties and every port is free again.
    process.kill(info.pid, "SIGTERM");
    expect(await first.exited).toBe(0);
    await waitUntil(() => !groupAlive(first.child.pid!));
    for (const port of Object.values(p)) expect(await portInUse(port)).toBe(false);
    expect(existsSync(join(dataDir, "stack.json"))).toBe(false);

    // Restart: a fresh chain is detected; chain-derived rows are rebuilt, off-chain rows kept.
    const again = npmStart(p, dataDir);
    const info2 = await waitForStack(dataDir, again.exited, again.output);
    expect(info2.chain_rebuilt).toBe(true);
    const tables2 = createTables({ region: "us-east-1", prefix: "local-", endpoint: `http://127.0.0.1:${p.DYNAMODB_PORT}` });
    expect((await tables2.doc.send(new GetCommand({ TableName: tables2.name("keys"), Key: { pk: "hash#kept", sk: "key" } }))).Item?.label).toBe("survives");
    expect((await tables2.doc.send(new GetCommand({ TableName: tables2.name("credentials"), Key: { pk: "wallet#0xabc", sk: "listing#1" } }))).Item).toBeUndefined();
    expect((await apiFetch(`${info2.api_url}/v1/health`)).status).toBe(200);
    // The rental lived on the previous chain: after the rebuild it is gone from the API too, while the
    // demo's rentals are made again on the new chain.
    let after = await credentialsOf(info2.api_url);
    for (let i = 0; i < 50 && after.total < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await credentialsOf(info2.api_url);
    }
    expect(after.total).toBe(3);
    expect(after.credentials.map((c) => c.listing_id)).not.toContain(`lst_${onChainId.slice(2)}`);
    // The demo key (created off-chain) survived the restart.
    expect((info2.demo as { api_key: string }).api_key).toBe(demoKey);
    expect((await apiFetch(`${info2.api_url}/v1/keys`, { headers: { authorization: `Bearer ${demoKey}` } })).status).toBe(200);

    // Ctrl-C (SIGINT to the whole foreground group) also stops everything.
    process.kill(-again.child.pid!, "SIGINT");
    await again.exited;
    await waitUntil(() => !groupAlive(again.child.pid!));
    for (const port of Object.values(p)) expect(await portInUse(port)).toBe(false);

    // A supervisor's SIGTERM to npm alone (not its group) reaches the stack: npm hands it on.
    const third = npmStart(p, dataDir);
    await waitForStack(dataDir, third.exited, third.output);
    process.kill(third.child.pid!, "SIGTERM");
    await third.exited;
    await waitUntil(() => !groupAlive(third.child.pid!));
    expect(third.output()).toContain("SIGTERM: stopping the local stack...");
    for (const port of Object.values(p)) expect(await portInUse(port)).toBe(false);

    // npm killed outright: the stack sees it lost its parent and stops, freeing every port.
    const fourth = npmStart(p, dataDir);
    await waitForStack(dataDir, fourth.exited, fourth.output);
    process.kill(fourth.child.pid!, "SIGKILL");
    await waitUntil(() => !groupAlive(fourth.child.pid!));
    for (const port of Object.values(p)) expect(await portInUse(port)).toBe(false);
  }, 300_000);
});
