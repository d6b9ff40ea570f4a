// The A2A surface as other agents reach it: the official @a2a-js/sdk client (ClientFactory, JSON-RPC
// transport) reads a published listing's Agent Card from the API served on 127.0.0.1 and sends it tasks
// with a renter's API key and with a wallet JWT, against the real chain, contract and dynalite, with
// connected agents on a real HTTPS server. A task is a run: charged once, exactly, with its cost in the
// task's metadata; a caller without a rental is refused before anything runs and is charged nothing; every
// bad request gets its JSON-RPC error with the service's code and the request id, never a 5xx.
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRemoteJWKSet, flattenedVerify, base64url, type JWK } from "jose";
import { AgentCard, TaskState, canonicalizeAgentCard, verifyAgentCardSignature, type Task, type StreamResponse, type Part } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { canonicalCardPayload, verifyCardSignature } from "../../src/a2a/signing.ts";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { createKey, signIn } from "../support/auth.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import { until } from "../support/until.ts";
import { getWithHost } from "../support/raw-http.ts";

let world: World;
let renter: Account;
let apiKey: string;
let jwt: string;
let other: { account: Account; key: string };
let summarizer: PublishedAgent;
let researcher: PublishedAgent;
let unrented: PublishedAgent;

async function agent(call: AgentCall): Promise<void> {
  if (call.task.startsWith("hold")) await call.gate();
  if (call.task.startsWith("stream") || call.task.startsWith("hold")) return call.stream(["one ", "two ", "three"], call.agent.includes("summarizer") ? { summary: "one two three", words: 3 } : { findings: ["one two three"] });
  const input = call.input as { text?: string; topic?: string } | null;
  call.output(call.agent.includes("summarizer") ? { summary: `${call.task}: ${input?.text ?? ""}`, words: (input?.text ?? "").split(" ").length } : { findings: [`${call.task}: ${input?.topic ?? "-"}`] });
}

const SUMMARIZER = {
  name: "a2a-summarizer",
  description: "Summarizes a text",
  category: "content",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { text: { type: "string", minLength: 1 } }, required: ["text"], additionalProperties: false },
  output_schema: { type: "object", properties: { summary: { type: "string" }, words: { type: "integer" } }, required: ["summary", "words"] },
  timeout_seconds: 20,
};
const RESEARCHER = {
  name: "a2a-researcher",
  description: "Finds facts about a topic",
  category: "research",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 20,
};

const endpoint = (agent: PublishedAgent) => `${world.url}/a2a/${agent.agent_id}`;
const cardUrl = (agent: PublishedAgent) => `${endpoint(agent)}/.well-known/agent-card.json`;

/** The official client for an agent, authenticating every request with `bearer`. */
async function clientFor(agent: PublishedAgent, bearer: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }),
  );
  return factory.createFromUrl(cardUrl(agent), "");
}

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });
let messageCounter = 0;
const message = (parts: Part[], messageId = `msg-${Date.now()}-${messageCounter++}`) => ({
  tenant: "",
  message: { messageId, contextId: "", taskId: "", role: 1, parts, metadata: undefined, extensions: [], referenceTaskIds: [] },
  configuration: undefined,
  metadata: undefined,
});

async function balanceOf(account: Account, listing: PublishedAgent): Promise<bigint> {
  const [, , , , balance] = await world.market.client.readContract({ address: world.market.marketplace, abi: marketplaceAbi, functionName: "credentialOf", args: [listing.onChainId, account.address] });
  return balance;
}

/** A raw JSON-RPC request to an agent's endpoint. */
async function rpc(agent: PublishedAgent, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(endpoint(agent), {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
}

/** The SSE events of a response, each `data` parsed, with their ids. */
async function events(res: Response): Promise<{ id: string | undefined; data: Record<string, unknown> }[]> {
  const out: { id: string | undefined; data: Record<string, unknown> }[] = [];
  for (const block of (await res.text()).split("\n\n")) {
    if (!block.trim()) continue;
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    const dataLine = block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n");
    out.push({ id, data: JSON.parse(dataLine) as Record<string, unknown> });
  }
  return out;
}

/** The service's error code and request id in a JSON-RPC error's data. */
const metadataOf = (error: { data?: { metadata?: Record<string, string> }[] }) => error.data?.[0]?.metadata ?? {};

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent } });
  summarizer = await world.publishConnected(SUMMARIZER.name, { manifest: SUMMARIZER, rental: "per_query" });
  researcher = await world.publishConnected(RESEARCHER.name, { manifest: RESEARCHER, rental: "one_time" });
  unrented = await world.publishConnected("a2a-unrented", { manifest: { ...RESEARCHER, name: "a2a-unrented" }, rental: "per_query" });
  renter = await world.account();
  await world.rent(renter, summarizer, { deposit: summarizer.priceWei * 20n });
  await world.rent(renter, researcher);
  jwt = (await signIn(world.app, renter)).token;
  apiKey = (await createKey(world.app, renter, jwt, "a2a")).key;
  const otherAccount = await world.account();
  await world.rent(otherAccount, summarizer, { deposit: summarizer.priceWei * 5n });
  other = { account: otherAccount, key: (await createKey(world.app, otherAccount, (await signIn(world.app, otherAccount)).token, "a2a other")).key };
}, 180_000);

afterAll(async () => {
  world?.agent.gates.openAll();
  await world?.close();
});

describe("GET /a2a/{agent_id}/.well-known/agent-card.json", () => {
  it("serves every required field of an A2A v1.0 card, built from the listing and its manifest, cacheable with an ETag", async () => {
    const res = await fetch(cardUrl(summarizer));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("etag")).toMatch(/^"[\w-]+"$/);
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const card = (await res.json()) as Record<string, any>;
    expect(card).toMatchObject({
      name: "A2a Summarizer",
      description: "Summarizes a text",
      supportedInterfaces: [
        { url: endpoint(summarizer), protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: endpoint(summarizer), protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
      version: summarizer.metadata_uri.replace("ipfs://", ""),
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
      defaultInputModes: ["text/plain", "application/json"],
      defaultOutputModes: ["application/json"],
      securitySchemes: {
        apiKey: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "API key" } },
        walletJwt: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
        oauth: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: `${world.url}/oauth/authorize`, tokenUrl: `${world.url}/oauth/token`, pkceRequired: true } }, oauth2MetadataUrl: `${world.url}/.well-known/oauth-authorization-server` } },
      },
      securityRequirements: [{ schemes: { apiKey: {} } }, { schemes: { walletJwt: {} } }, { schemes: { oauth: { list: ["tasks:run"] } } }],
      provider: { organization: expect.any(String), url: `${world.url}/listings/${summarizer.listing_id}` },
      documentationUrl: `${world.url}/v1/metadata/${summarizer.metadata_uri.replace("ipfs://", "")}`,
    });
    expect(card.skills).toHaveLength(1);
    expect(card.skills[0]).toMatchObject({ id: summarizer.agent_id, name: "A2a Summarizer", tags: ["content", "per-query"], examples: ['{"text":"…"}', '{"summary":"string","words":0}'] });
    expect(card.skills[0].description).toContain("an object {text: string}");
    expect(card.skills[0].description).toContain("per task, 0.001 ETH a run");
    // The doc it links is the public metadata: the input schema itself.
    expect(((await (await fetch(card.documentationUrl)).json()) as { input_schema: unknown }).input_schema).toEqual(SUMMARIZER.input_schema);
  });

  it("answers 304 to If-None-Match with its ETag, and the same bytes again while the card is unchanged", async () => {
    const first = await fetch(cardUrl(summarizer));
    const etag = first.headers.get("etag")!;
    const body = await first.text();
    const again = await fetch(cardUrl(summarizer));
    expect(await again.text()).toBe(body);
    const revalidated = await fetch(cardUrl(summarizer), { headers: { "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(await revalidated.text()).toBe("");
    expect((await fetch(cardUrl(summarizer), { headers: { "if-none-match": '"other"' } })).status).toBe(200);
  });

  it("is signed: the JWS verifies with jose against the published JWKS over the RFC 8785 canonical card, and with the SDK's verifier; a tampered card does not verify", async () => {
    const card = (await (await fetch(cardUrl(summarizer))).json()) as Record<string, any>;
    expect(card.signatures).toHaveLength(1);
    const header = JSON.parse(new TextDecoder().decode(base64url.decode(card.signatures[0].protected))) as { alg: string; typ: string; kid: string; jku: string };
    expect(header).toEqual({ alg: "ES256", typ: "JOSE", kid: world.config.CARD_SIGNING_KEYS![0]!.kid, jku: `${world.url}/.well-known/jwks.json` });
    const jwks = (await (await fetch(header.jku)).json()) as { keys: JWK[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([header.kid]);
    expect(jwks.keys[0]).not.toHaveProperty("d");
    // jose, by hand: the detached payload is the canonical card without its signatures.
    const payload = base64url.encode(canonicalCardPayload(card));
    const keySet = createRemoteJWKSet(new URL(header.jku));
    await expect(flattenedVerify({ ...card.signatures[0], payload }, keySet)).resolves.toBeDefined();
    // The same bytes as the official SDK's canonical form, and its verifier accepts the card as it came
    // over the wire (the SDK reads the ProtoJSON itself; given its already-parsed object it would read
    // the security schemes a second time and drop them).
    const wire = card as unknown as AgentCard;
    expect(canonicalCardPayload(card)).toBe(canonicalizeAgentCard(wire));
    const sdkVerify = verifyAgentCardSignature(async (kid) => jwks.keys.find((k) => k.kid === kid)!);
    await expect(sdkVerify(wire)).resolves.toBeUndefined();
    expect(await verifyCardSignature(card, jwks)).toBe(true);
    // Tampered: another endpoint, or another price in the skill.
    const tampered = { ...card, supportedInterfaces: [{ ...card.supportedInterfaces[0], url: "https://evil.example/a2a" }] };
    await expect(flattenedVerify({ ...card.signatures[0], payload: base64url.encode(canonicalCardPayload(tampered)) }, keySet)).rejects.toThrow();
    expect(await verifyCardSignature(tampered, jwks)).toBe(false);
    await expect(sdkVerify({ ...card, description: "cheaper" } as unknown as AgentCard)).rejects.toThrow();
  });

  it("an unknown or unpublished agent is 404 listing_not_found, a malformed id 400, in the error envelope with the rate-limit headers", async () => {
    const unknown = await fetch(`${world.url}/a2a/no-such-agent-0123abcd/.well-known/agent-card.json`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(await unknown.json()).toMatchObject({ error: { code: "listing_not_found", status: 404, request_id: expect.stringMatching(/^req_/) } });
    const malformed = await fetch(`${world.url}/a2a/NOT_AN_ID/.well-known/agent-card.json`);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: "invalid_listing_id" } });
  });
});

describe("GET /.well-known/jwks.json", () => {
  it("publishes the public halves of the card signing keys", async () => {
    const res = await fetch(`${world.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    const { d: _d, ...publicHalf } = world.config.CARD_SIGNING_KEYS![0]!.privateJwk;
    expect(keys).toEqual([{ ...publicHalf, kid: world.config.CARD_SIGNING_KEYS![0]!.kid, alg: "ES256", use: "sig" }]);
  });
});

describe("POST /a2a/{agent_id}: SendMessage and SendStreamingMessage run the task as a run", () => {
  it("with a renter's API key: the completed task carries the output as an artifact, the run in its metadata, and the per-task balance is charged exactly once", async () => {
    const client = await clientFor(summarizer, apiKey);
    const before = await balanceOf(renter, summarizer);
    const task = (await client.sendMessage(message([text("sum up"), data({ text: "a b c" })]))) as Task;
    expect(task.id).toMatch(/^run_[0-9a-f]{32}$/);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { summary: "sum up: a b c", words: 3 } });
    expect(task.metadata).toMatchObject({ run_id: task.id, agent_id: summarizer.agent_id, cost_wei: summarizer.priceWei.toString(), settlement: "settled", rental_model: "per_query" });
    expect(task.history[0]!.parts.map((p) => p.content?.$case)).toEqual(["text", "data"]);
    expect(world.agent.deliveriesTo(SUMMARIZER.name).at(-1)).toMatchObject({ task: "sum up", input: { text: "a b c" } });
    expect(await balanceOf(renter, summarizer)).toBe(before - summarizer.priceWei);
    // The task is the run: the REST API shows the same run.
    const run = (await (await world.app.request(`/v1/runs/${task.id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ run_id: task.id, status: "completed", output: { summary: "sum up: a b c", words: 3 }, cost_wei: Number(summarizer.priceWei) });
  });

  it("with a wallet JWT: a one-time rental's task completes, cost 0", async () => {
    const client = await clientFor(researcher, jwt);
    const task = (await client.sendMessage(message([text("tides"), data({ topic: "moon" })]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { findings: ["tides: moon"] } });
    expect(task.metadata).toMatchObject({ cost_wei: "0", rental_model: "one_time" });
  });

  it("streamed: the task first, then working, the output as artifact chunks, the final output replacing them, the completed status; charged once", async () => {
    const client = await clientFor(summarizer, apiKey);
    const before = await balanceOf(renter, summarizer);
    const received: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(message([text("stream it"), data({ text: "x" })]))) received.push(event);
    const kinds = received.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds[1]).toBe("statusUpdate");
    expect(kinds.at(-1)).toBe("statusUpdate");
    const chunks = received.filter((e) => e.payload?.$case === "artifactUpdate").map((e) => (e.payload as { value: { append: boolean; lastChunk: boolean; artifact: { parts: Part[] } } }).value);
    expect(chunks.slice(0, -1).map((c) => (c.artifact.parts[0]!.content as { value: string }).value).join("")).toBe("one two three");
    expect(chunks.at(-1)).toMatchObject({ append: false, lastChunk: true });
    expect(chunks.at(-1)!.artifact.parts[0]!.content).toEqual({ $case: "data", value: { summary: "one two three", words: 3 } });
    const final = (received.at(-1)!.payload as { value: { status: { state: TaskState }; metadata: Record<string, unknown> } }).value;
    expect(final.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(final.metadata).toMatchObject({ cost_wei: summarizer.priceWei.toString(), settlement: "settled" });
    expect(await balanceOf(renter, summarizer)).toBe(before - summarizer.priceWei);
  });

  it("the same messageId again is the same task, never a second run or charge (streamed or not)", async () => {
    const client = await clientFor(summarizer, apiKey);
    const before = await balanceOf(renter, summarizer);
    const deliveries = world.agent.deliveriesTo(SUMMARIZER.name).length;
    const request = message([text("once"), data({ text: "only once" })], `idem-${Date.now()}`);
    const first = (await client.sendMessage(request)) as Task;
    const second = (await client.sendMessage(request)) as Task;
    expect(second.id).toBe(first.id);
    expect(second.artifacts).toEqual(first.artifacts);
    const streamed: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(request)) streamed.push(event);
    expect((streamed[0]!.payload as { value: Task }).value.id).toBe(first.id);
    expect(world.agent.deliveriesTo(SUMMARIZER.name).length).toBe(deliveries + 1);
    expect(await balanceOf(renter, summarizer)).toBe(before - summarizer.priceWei);
    // The same messageId with another message: refused, nothing runs.
    const reused = await client.sendMessage(message([text("another"), data({ text: "z" })], request.message.messageId)).catch((e: unknown) => e);
    expect(reused).toMatchObject({ envelopeCode: -32602 });
    expect(metadataOf(reused as never)).toMatchObject({ code: "idempotency_key_reused" });
  });

  it("input that fails the agent's schema fails the task with invalid_input, free of charge, before the agent is called", async () => {
    const client = await clientFor(summarizer, apiKey);
    const before = await balanceOf(renter, summarizer);
    const task = (await client.sendMessage(message([text("no text"), data({ words: 1 })]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect((task.status?.message?.parts[0]?.content as { value: string }).value).toMatch(/^invalid_input: .*must have required property 'text'/);
    expect(task.metadata).toMatchObject({ cost_wei: "0", error: { code: "invalid_input" } });
    expect(task.artifacts).toEqual([]);
    expect(await balanceOf(renter, summarizer)).toBe(before);
  });
});

describe("POST /a2a/{agent_id}: a caller without a rental", () => {
  it("is refused before anything runs, with credential_not_found and the request id in the error's data; nothing is charged on-chain", async () => {
    const client = await clientFor(unrented, apiKey);
    const before = { balance: await balanceOf(renter, unrented), eth: await world.market.client.getBalance({ address: renter.address }), deliveries: world.agent.deliveriesTo("a2a-unrented").length };
    const refused = await client.sendMessage(message([text("not mine"), data({ topic: "x" })])).catch((e: unknown) => e);
    expect(refused).toMatchObject({ envelopeCode: -32000 });
    expect(metadataOf(refused as never)).toMatchObject({ code: "credential_not_found", status: "403", request_id: expect.stringMatching(/^req_/), on_chain_error: "Marketplace.CredentialNotFound" });
    const streamed = await (async () => {
      for await (const _ of client.sendMessageStream(message([text("not mine either")]))) return "streamed";
      return "ended";
    })().catch((e: unknown) => e);
    expect(metadataOf(streamed as never)).toMatchObject({ code: "credential_not_found" });
    expect(world.agent.deliveriesTo("a2a-unrented").length).toBe(before.deliveries);
    expect(await balanceOf(renter, unrented)).toBe(0n);
    expect(await world.market.client.getBalance({ address: renter.address })).toBe(before.eth);
    expect((await client.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "", statusTimestampAfter: undefined })).tasks).toEqual([]);
  });

  it("without a token: 401 with a JSON-RPC error (-32000, unauthorized) and the rate-limit headers; nothing runs", async () => {
    const res = await fetch(endpoint(summarizer), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: {} }) });
    expect(res.status).toBe(401);
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; data: { metadata: Record<string, string> }[] } };
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect(metadataOf(body.error)).toMatchObject({ code: "unauthorized", request_id: res.headers.get("x-request-id") });
  });
});

describe("POST /a2a/{agent_id}: money at the edges", () => {
  it("a per-task balance that covers one run pays for exactly one; the next message is refused insufficient_balance before anything runs", async () => {
    const account = await world.account();
    await world.rent(account, summarizer, { deposit: summarizer.priceWei });
    const key = (await createKey(world.app, account, (await signIn(world.app, account)).token, "a2a one run")).key;
    const client = await clientFor(summarizer, key);
    const done = (await client.sendMessage(message([text("only one"), data({ text: "a" })]))) as Task;
    expect(done.metadata).toMatchObject({ cost_wei: summarizer.priceWei.toString() });
    expect(await balanceOf(account, summarizer)).toBe(0n);
    const deliveries = world.agent.deliveriesTo(SUMMARIZER.name).length;
    const refused = await client.sendMessage(message([text("one more"), data({ text: "b" })])).catch((e: unknown) => e);
    expect(refused).toMatchObject({ envelopeCode: -32000 });
    expect(metadataOf(refused as never)).toMatchObject({ code: "insufficient_balance", on_chain_error: "Marketplace.InsufficientBalance" });
    expect(world.agent.deliveriesTo(SUMMARIZER.name).length).toBe(deliveries);
    expect(await balanceOf(account, summarizer)).toBe(0n);
  });

  it("a streaming client that goes away does not stop its run: it finishes, is charged once, and its task is readable", async () => {
    const gate = world.agent.gates.hold("hold and leave");
    const before = await balanceOf(renter, summarizer);
    const controller = new AbortController();
    const res = await fetch(endpoint(summarizer), {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: { messageId: `leave-${Date.now()}`, role: "ROLE_USER", parts: [{ text: "hold and leave" }, { data: { text: "l" } }] } } }),
      signal: controller.signal,
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(res.headers.get("a2a-version")).toBe("1.0");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = /"id":"(run_[0-9a-f]{32})"/.exec(first)![1]!;
    await until("the run reaches the agent", () => gate.arrived > 0, 20_000);
    controller.abort();
    gate.open();
    const client = await clientFor(summarizer, apiKey);
    await until("the task completes", async () => (await client.getTask({ tenant: "", id: taskId })).status?.state === TaskState.TASK_STATE_COMPLETED, 30_000);
    const task = await client.getTask({ tenant: "", id: taskId });
    expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { summary: "one two three", words: 3 } });
    expect(await balanceOf(renter, summarizer)).toBe(before - summarizer.priceWei);
  });
});

describe("POST /a2a/{agent_id}: GetTask, ListTasks, CancelTask, SubscribeToTask", () => {
  it("GetTask returns the caller's task; another wallet's, another agent's or a made-up id is task not found (-32001)", async () => {
    const client = await clientFor(summarizer, apiKey);
    const sent = (await client.sendMessage(message([text("get me"), data({ text: "q" })]))) as Task;
    const got = await client.getTask({ tenant: "", id: sent.id });
    expect(got).toMatchObject({ id: sent.id, contextId: sent.contextId, artifacts: sent.artifacts, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(got.metadata).toMatchObject({ run_id: sent.id, cost_wei: summarizer.priceWei.toString() });
    const stranger = await clientFor(summarizer, other.key);
    await expect(stranger.getTask({ tenant: "", id: sent.id })).rejects.toMatchObject({ envelopeCode: -32001 });
    await expect((await clientFor(researcher, apiKey)).getTask({ tenant: "", id: sent.id })).rejects.toMatchObject({ envelopeCode: -32001 });
    // Once the run log has batched it (the world's settler logs finished runs every few seconds), the
    // task's metadata carries the run's receipt.
    await expect.poll(async () => (await client.getTask({ tenant: "", id: sent.id })).metadata?.receipt ?? null, { timeout: 30_000, interval: 250 }).not.toBeNull();
    const logged = await client.getTask({ tenant: "", id: sent.id });
    expect(logged.metadata).toMatchObject({ receipt: { batch_index: expect.any(Number), root: expect.stringMatching(/^0x/), leaf: expect.stringMatching(/^0x/), proof: expect.any(Array), tx_hash: expect.stringMatching(/^0x/) } });
    const missing = await client.getTask({ tenant: "", id: "run_00000000000000000000000000000000" }).catch((e: unknown) => e);
    expect(metadataOf(missing as never)).toMatchObject({ code: "not_found", request_id: expect.stringMatching(/^req_/) });
  });

  it("ListTasks lists only the caller's runs of this agent, newest first, paged with a token, with the total", async () => {
    const mine = await clientFor(summarizer, apiKey);
    const theirs = await clientFor(summarizer, other.key);
    await theirs.sendMessage(message([text("theirs"), data({ text: "t" })]));
    // Tasks of its own (two completed, one failed), whatever ran before.
    for (const parts of [[text("list one"), data({ text: "1" })], [text("list two"), data({ text: "2" })], [text("list failed"), data({})]]) await mine.sendMessage(message(parts));
    const all = await mine.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "", statusTimestampAfter: undefined, pageSize: 100 });
    expect(all.tasks.length).toBeGreaterThanOrEqual(4);
    expect(all.tasks.slice(0, 3).map((t) => t.status?.state)).toEqual([TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_COMPLETED]);
    expect(all.totalSize).toBe(all.tasks.length);
    expect(all.nextPageToken).toBe("");
    expect(all.tasks.every((t) => (t.metadata as { agent_id: string }).agent_id === summarizer.agent_id)).toBe(true);
    const times = all.tasks.map((t) => t.id);
    const page1 = await mine.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "", statusTimestampAfter: undefined, pageSize: 2 });
    expect(page1.tasks.map((t) => t.id)).toEqual(times.slice(0, 2));
    expect(page1.nextPageToken).not.toBe("");
    expect(page1.tasks[0]!.artifacts).toEqual([]); // artifacts only when asked for
    const page2 = await mine.listTasks({ tenant: "", contextId: "", status: 0, pageToken: page1.nextPageToken, statusTimestampAfter: undefined, pageSize: 2, includeArtifacts: true });
    expect(page2.tasks.map((t) => t.id)).toEqual(times.slice(2, 4));
    const failed = await mine.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_FAILED, pageToken: "", statusTimestampAfter: undefined, pageSize: 100 });
    expect(failed.tasks.length).toBeGreaterThanOrEqual(1);
    expect(failed.tasks.every((t) => t.status?.state === TaskState.TASK_STATE_FAILED)).toBe(true);
    const theirList = await theirs.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "", statusTimestampAfter: undefined });
    expect(theirList.tasks.map((t) => t.id).filter((id) => times.includes(id))).toEqual([]);
    const badToken = await mine.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "forged", statusTimestampAfter: undefined }).catch((e: unknown) => e);
    expect(badToken).toMatchObject({ envelopeCode: -32602 });
  });

  it("CancelTask: a run cannot be stopped, so not cancelable (-32002); the task goes on", async () => {
    const client = await clientFor(researcher, apiKey);
    const sent = (await client.sendMessage(message([text("done already")]))) as Task;
    await expect(client.cancelTask({ tenant: "", id: sent.id, metadata: undefined })).rejects.toMatchObject({ envelopeCode: -32002 });
  });

  it("SubscribeToTask follows a running task to its end; an ended task is unsupported (-32004); a stream is resumed after a Last-Event-ID", async () => {
    const gate = world.agent.gates.hold("hold on");
    const client = await clientFor(researcher, apiKey);
    const request = message([text("hold on")]);
    const stream = client.sendMessageStream(request);
    const first = await stream.next();
    const taskId = ((first.value as StreamResponse).payload as { value: Task }).value.id;
    await until("the run reaches the agent", () => gate.arrived > 0, 20_000);
    const subscribed = client.resubscribeTask({ tenant: "", id: taskId });
    const initial = await subscribed.next();
    expect((initial.value as StreamResponse).payload).toMatchObject({ $case: "task", value: { id: taskId, status: { state: TaskState.TASK_STATE_WORKING } } });
    gate.open();
    const rest: StreamResponse[] = [];
    for await (const event of subscribed) rest.push(event);
    expect(rest.at(-1)!.payload).toMatchObject({ $case: "statusUpdate", value: { taskId, status: { state: TaskState.TASK_STATE_COMPLETED } } });
    for await (const _ of stream) void _;
    const ended = await client.resubscribeTask({ tenant: "", id: taskId }).next().catch((e: unknown) => e);
    expect(ended).toMatchObject({ envelopeCode: -32004 });
    // The same message again with Last-Event-ID 8 (the offset after "one two "): the task, the rest of
    // the text, the final output and status, each event with its id.
    const resumed = await events(await rpc(researcher, { jsonrpc: "2.0", id: 7, method: "SendStreamingMessage", params: { message: { messageId: request.message.messageId, role: "ROLE_USER", parts: [{ text: "hold on" }] } } }, { "last-event-id": "8" }));
    expect(resumed.map((e) => e.id)).toEqual(["task", "13", "output", "done"]);
    expect(resumed[1]!.data).toMatchObject({ jsonrpc: "2.0", id: 7, result: { artifactUpdate: { taskId, append: true, artifact: { parts: [{ text: "three" }] } } } });
    expect(resumed[3]!.data).toMatchObject({ result: { statusUpdate: { taskId, status: { state: "TASK_STATE_COMPLETED" } } } });
  });
});

describe("POST /a2a/{agent_id}: v0.3's method names", () => {
  it("message/send, tasks/get, tasks/cancel and message/stream answer in v0.3's shapes; the run is charged once", async () => {
    const before = await balanceOf(renter, summarizer);
    const sent = await rpc(summarizer, { jsonrpc: "2.0", id: "a", method: "message/send", params: { message: { kind: "message", messageId: `v03-${Date.now()}`, role: "user", parts: [{ kind: "text", text: "old" }, { kind: "data", data: { text: "school" } }] } } }, { "a2a-version": "0.3" });
    expect(sent.status).toBe(200);
    expect(sent.headers.get("a2a-version")).toBe("0.3");
    const task = ((await sent.json()) as { result: Record<string, any> }).result;
    expect(task).toMatchObject({ kind: "task", id: expect.stringMatching(/^run_/), status: { state: "completed" }, metadata: { cost_wei: summarizer.priceWei.toString() } });
    expect(task.artifacts[0].parts[0]).toMatchObject({ kind: "data", data: { summary: "old: school", words: 1 } });
    expect(await balanceOf(renter, summarizer)).toBe(before - summarizer.priceWei);
    const got = (await (await rpc(summarizer, { jsonrpc: "2.0", id: "b", method: "tasks/get", params: { id: task.id } }, { "a2a-version": "" })).json()) as { result: Record<string, any> };
    expect(got.result).toMatchObject({ kind: "task", id: task.id, status: { state: "completed" } });
    const cancel = (await (await rpc(summarizer, { jsonrpc: "2.0", id: "c", method: "tasks/cancel", params: { id: task.id } })).json()) as { error: { code: number } };
    expect(cancel.error.code).toBe(-32002);
    const resubscribe = (await (await rpc(summarizer, { jsonrpc: "2.0", id: "e", method: "tasks/resubscribe", params: { id: task.id } }, { "a2a-version": "0.3" })).json()) as { id: string; error: { code: number } };
    expect(resubscribe).toMatchObject({ id: "e", error: { code: -32004 } });
    const streamed = await events(await rpc(researcher, { jsonrpc: "2.0", id: "d", method: "message/stream", params: { message: { kind: "message", messageId: `v03s-${Date.now()}`, role: "user", parts: [{ kind: "text", text: "stream old" }] } } }, { "a2a-version": "0.3" }));
    expect(streamed[0]!.data).toMatchObject({ jsonrpc: "2.0", id: "d", result: { kind: "task" } });
    expect(streamed.at(-1)!.data).toMatchObject({ result: { kind: "status-update", status: { state: "completed" }, final: true } });
  });
});

describe("POST /a2a/{agent_id}: settlement pending", () => {
  it("a run whose charge is not confirmed stays working without its output (never released unpaid), and completes with it once the charge lands, charged once", async () => {
    const { buildApp } = await import("../../src/api/app.ts");
    const { serveApi, closeApi } = await import("../support/http.ts");
    const { settledByPasses } = await import("../support/settlement.ts");
    // The settler cannot be reached: this server's settlement queue points nowhere.
    const broken = { ...world.services, config: { ...world.config, SETTLEMENT_QUEUE_URL: "http://127.0.0.1:9/000000000000/nowhere" } };
    const served = await serveApi(buildApp(broken));
    try {
      const before = await balanceOf(renter, summarizer);
      const res = await fetch(`${served.url}/a2a/${summarizer.agent_id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: `pending-${Date.now()}`, role: "ROLE_USER", parts: [{ text: "pay later" }, { data: { text: "x y" } }] } } }),
      });
      const task = ((await res.json()) as { result: { task: Record<string, any> } }).result.task;
      expect(task.status.state).toBe("TASK_STATE_WORKING");
      expect(task.status.message.parts[0].text).toMatch(/not confirmed on-chain yet/);
      expect(task.artifacts).toBeUndefined();
      expect(JSON.stringify(task)).not.toContain("pay later: x y");
      expect(task.metadata).toMatchObject({ settlement: "pending" });
      // The world's settler may already have the charge (its settlement pass hands it over): once at most.
      expect([before, before - summarizer.priceWei]).toContain(await balanceOf(renter, summarizer));
      // The settlement pass hands the charge to the world's settler, and settles the run once it lands.
      await settledByPasses(world.services, [task.id]);
      expect(await balanceOf(renter, summarizer)).toBe(before - summarizer.priceWei);
      const client = await clientFor(summarizer, apiKey);
      const released = await client.getTask({ tenant: "", id: task.id });
      expect(released.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(released.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { summary: "pay later: x y", words: 2 } });
      expect(released.metadata).toMatchObject({ settlement: "settled", cost_wei: summarizer.priceWei.toString() });
    } finally {
      await closeApi(served.server);
    }
  });
});

describe("POST /a2a/{agent_id}: bad input gets its JSON-RPC error, never a 5xx or a hang; nothing runs or is charged", () => {
  it("each malformed request: parse error, invalid request, method not found, invalid params, version, content types, sizes, task not found", async () => {
    const before = { balance: await balanceOf(renter, summarizer), deliveries: world.agent.deliveriesTo(SUMMARIZER.name).length };
    const send = (params: unknown) => ({ jsonrpc: "2.0", id: 9, method: "SendMessage", params });
    const good = { messageId: "m", role: "ROLE_USER", parts: [{ text: "t" }] };
    const cases: [string, string | Record<string, unknown>, Record<string, string>, number, number, string][] = [
      ["not JSON", "{not json", {}, 200, -32700, "invalid_request"],
      ["a batch", "[]", {}, 200, -32600, "invalid_request"],
      ["no jsonrpc", { id: 1, method: "GetTask", params: { id: "x" } }, {}, 200, -32600, "invalid_request"],
      ["a fractional id", { jsonrpc: "2.0", id: 1.5, method: "GetTask", params: { id: "x" } }, {}, 200, -32600, "invalid_request"],
      ["an unknown method", { jsonrpc: "2.0", id: 1, method: "DoSomething", params: {} }, {}, 200, -32601, "invalid_request"],
      ["params not an object", { jsonrpc: "2.0", id: 1, method: "GetTask", params: [1] }, {}, 200, -32602, "invalid_request"],
      ["an id of the wrong type", { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: 5 } }, {}, 200, -32602, "invalid_request"],
      ["parts of the wrong type", send({ message: { ...good, parts: "x" } }), {}, 200, -32602, "invalid_request"],
      ["no parts", send({ message: { ...good, parts: [] } }), {}, 200, -32602, "invalid_request"],
      ["no text part", send({ message: { ...good, parts: [{ data: { text: "x" } }] } }), {}, 200, -32602, "invalid_request"],
      ["a data part that is an array", send({ message: { ...good, parts: [{ text: "t" }, { data: [1] }] } }), {}, 200, -32602, "invalid_request"],
      ["two data parts", send({ message: { ...good, parts: [{ text: "t" }, { data: { text: "a" } }, { data: { text: "b" } }] } }), {}, 200, -32602, "invalid_request"],
      ["an agent's role", send({ message: { ...good, role: "ROLE_AGENT" } }), {}, 200, -32602, "invalid_request"],
      ["a raw file part", send({ message: { ...good, parts: [{ text: "t" }, { raw: "aGVsbG8=" }] } }), {}, 200, -32005, "invalid_request"],
      ["a url part that is not ipfs", send({ message: { ...good, parts: [{ text: "t" }, { url: "https://example.com/x" }] } }), {}, 200, -32005, "invalid_request"],
      ["returnImmediately", send({ message: good, configuration: { returnImmediately: true } }), {}, 200, -32004, "invalid_request"],
      ["a follow-up to a task", send({ message: { ...good, taskId: "run_00000000000000000000000000000000" } }), {}, 200, -32001, "not_found"],
      ["a push notification config", { jsonrpc: "2.0", id: 1, method: "CreateTaskPushNotificationConfig", params: { taskId: "x", url: "https://example.com" } }, {}, 200, -32003, "invalid_request"],
      ["the extended card", { jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard" }, {}, 200, -32004, "invalid_request"],
      ["an unknown task", { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "nope" } }, {}, 200, -32001, "not_found"],
      ["an unsupported A2A-Version", { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }, { "a2a-version": "2.0" }, 200, -32009, "invalid_request"],
      ["a page size over 100", { jsonrpc: "2.0", id: 1, method: "ListTasks", params: { pageSize: 1000 } }, {}, 200, -32602, "invalid_request"],
      ["a body that is not JSON", "hello", { "content-type": "text/plain" }, 415, -32600, "unsupported_media_type"],
      ["a body nested too deep", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${"[".repeat(100)}${"]".repeat(100)}}`, {}, 200, -32600, "invalid_request"],
      ["a huge body", send({ message: { ...good, parts: [{ text: "x".repeat(1_100_000) }] } }), {}, 413, -32600, "payload_too_large"],
      ["an unknown agent", send({ message: good }), { path: "/a2a/no-such-agent-0123abcd" }, 200, -32000, "listing_not_found"],
      ["a malformed agent id", send({ message: good }), { path: "/a2a/NOT_AN_ID" }, 200, -32602, "invalid_listing_id"],
    ];
    for (const [name, body, headers, status, code, ourCode] of cases) {
      const { path, ...rest } = headers;
      const res = await fetch(`${world.url}${path ?? `/a2a/${summarizer.agent_id}`}`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "a2a-version": "1.0", ...rest },
        body: typeof body === "string" ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      expect(res.status, name).toBe(status);
      expect(res.headers.get("x-ratelimit-limit"), name).toMatch(/^\d+$/);
      const answer = (await res.json()) as { jsonrpc: string; error: { code: number; message: string; data: { metadata: Record<string, string> }[] } };
      expect(answer.jsonrpc, name).toBe("2.0");
      expect(answer.error.code, `${name}: ${answer.error.message}`).toBe(code);
      expect(metadataOf(answer.error), name).toMatchObject({ code: ourCode, request_id: res.headers.get("x-request-id") });
    }
    expect(world.agent.deliveriesTo(SUMMARIZER.name).length).toBe(before.deliveries);
    expect(await balanceOf(renter, summarizer)).toBe(before.balance);
  });

  it("a request's id is echoed in its error; the API key never shows in any answer", async () => {
    const res = await rpc(summarizer, { jsonrpc: "2.0", id: "my-id", method: "GetTask", params: { id: "nope" } });
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ id: "my-id", error: { code: -32001 } });
    expect(res.headers.get("a2a-version")).toBe("1.0");
    expect(text).not.toContain(apiKey);
  });
});

describe("a forged Host header", () => {
  it("changes neither the signed card's URLs nor the OAuth issuer: both are the configured base", async () => {
    const card = await getWithHost(`${world.url}/a2a/${summarizer.agent_id}/.well-known/agent-card.json`, "evil.example");
    expect(card.status).toBe(200);
    expect((JSON.parse(card.body) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]!.url).toBe(endpoint(summarizer));
    expect(card.body).not.toContain("evil.example");
    const metadata = await getWithHost(`${world.url}/.well-known/oauth-authorization-server`, "evil.example");
    expect((JSON.parse(metadata.body) as { issuer: string }).issuer).toBe(world.url);
    expect(metadata.body).not.toContain("evil.example");
  });
});

describe("the local stack's origin (the dashboard in front of the API)", () => {
  it("sends /a2a/… and /.well-known/… to the API, every other page to the dashboard", async () => {
    // The server `npm start` runs (listenSite), over a real socket; no dashboard build, so its pages
    // answer 503 "not built".
    const { listenSite } = await import("../../local/dashboard.ts");
    const server = await listenSite(world.services, {
      port: 0,
      distDir: "/nonexistent-dashboard-build",
      config: { api_url: world.url, chain_id: 31337, chain_name: "Local chain", rpc_url: world.rpcUrl, marketplace_address: world.market.marketplace, explorer_url: null, allow_private_agent_hosts: true },
    });
    try {
      const address = server.address() as AddressInfo;
      const origin = `http://127.0.0.1:${address.port}`;
      const card = await fetch(`${origin}/a2a/${summarizer.agent_id}/.well-known/agent-card.json`);
      expect(card.status).toBe(200);
      expect(((await card.json()) as { name: string }).name).toBe("A2a Summarizer");
      const jwks = await fetch(`${origin}/.well-known/jwks.json`);
      expect(((await jwks.json()) as { keys: unknown[] }).keys).toHaveLength(1);
      const rpcAnswer = await fetch(`${origin}/a2a/${summarizer.agent_id}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(rpcAnswer.status).toBe(401);
      expect((await fetch(`${origin}/listings/x`, { headers: { accept: "text/html" } })).status).toBe(503); // the dashboard (not built here)
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
