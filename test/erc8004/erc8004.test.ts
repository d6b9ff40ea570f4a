// ERC-8004 on the real chain: a creator registers a listing as an agent (POST /v1/listings/{listing_id}/erc8004,
// then the wallet sends register and setAgentURI), its tokenURI resolves to a registration file whose A2A
// service is the listing's card; a paying renter's feedback (POST /v1/runs/{run_id}/feedback, sent by the
// renter's wallet) raises the listing's verified rating, while feedback from a wallet that never ran the
// agent, hostile files and a second feedback for the same run change nothing but the unverified count
// (GET /v1/listings/{listing_id}/reputation); every bad input answers in the envelope with rate headers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, createWalletClient, encodeFunctionData, http, keccak256, parseEventLogs, type Hex } from "viem";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import { canonicalJson, cidOf } from "../../src/registration/cid.ts";
import { runJob } from "../../src/jobs.ts";
import { positionOf, putFeedback } from "../../src/erc8004/erc8004.store.ts";
import { recountListing } from "../../src/erc8004/indexer.ts";
import { signIn } from "../support/auth.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import type { Account } from "../support/chain-actions.ts";
import { verifyReputation } from "../../sdk/src/erc8004.ts";
import { AgentRentalClient, ApiError } from "../../sdk/src/index.ts";

let world: World;
let listing: PublishedAgent & { webhookSecret: string };
let other: PublishedAgent & { webhookSecret: string };
let creatorToken: string;
let creator: Account;
let renter: Account;
let renterToken: string;
let agentId: bigint;

const json = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function send(account: Account, tx: { to: string; data: string }) {
  const wallet = createWalletClient({ account, chain: world.services.chain.chain, transport: http(world.rpcUrl) });
  const client = createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) });
  const hash = await wallet.sendTransaction({ to: tx.to as Hex, data: tx.data as Hex });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
  return receipt;
}

async function post(path: string, token: string, body: unknown): Promise<Response> {
  return world.app.request(path, { method: "POST", headers: json(token), body: typeof body === "string" ? body : JSON.stringify(body) });
}

async function get<T>(path: string, token: string): Promise<T> {
  const res = await world.app.request(path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

async function execute(target: PublishedAgent, token: string, task = "Summarize the filing"): Promise<{ run_id: string; status: string }> {
  const res = await post("/v1/execute", token, { agent_id: target.agent_id, task, input: { q: "x" } });
  expect(res.status).toBe(200);
  return (await res.json()) as { run_id: string; status: string };
}

async function logRuns(): Promise<void> {
  await runJob(world.services, "settler");
}

interface Reputation {
  rating: number;
  review_count: number;
  unverified_count: number;
  erc8004: { agent_id: string; agent_registry: string } | null;
  feedback: { agent_id: string; client: string; tx_hash: string; verified: boolean; reason: string | null; receipt: Record<string, unknown> | null; run_id: string | null; value: number }[];
}

const reputation = (target = listing) => get<Reputation>(`/v1/listings/${target.listing_id}/reputation`, renterToken);

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
  const body = (await res.json()) as { error: { code: string; status: number; message: string } };
  expect(body.error).toMatchObject({ code, status });
  expect(body.error.message.length).toBeGreaterThan(0);
}

/** Stores a document in the service's content-addressed store, as any file there would be. */
async function storeRaw(bytes: Buffer): Promise<{ uri: string; hash: Hex }> {
  const cid = cidOf(bytes);
  await world.services.blobs.put(`ipfs/${cid}`, bytes, "application/json");
  return { uri: `ipfs://${cid}`, hash: keccak256(bytes) };
}

function giveFeedbackTx(args: { agentId: bigint; value: bigint; decimals?: number; tag1?: string; uri?: string; hash?: Hex }) {
  return {
    to: world.services.chain.erc8004!.reputationRegistry,
    data: encodeFunctionData({ abi: reputationRegistryAbi, functionName: "giveFeedback", args: [args.agentId, args.value, args.decimals ?? 0, args.tag1 ?? "starred", "", "", args.uri ?? "", args.hash ?? `0x${"00".repeat(32)}`] }),
  };
}

beforeAll(async () => {
  world = await startWorld({
    env: { CATALOGUE_REFRESH_MS: "0" },
    // The run log is run by the tests (a settler pass), when they want receipts logged: the listings are
    // one-time rentals, so no per-task charge waits for a settler meanwhile.
    settler: false,
    agent: {
      handler: (call) => (call.task.startsWith("fail") ? call.fail(500, "down") : call.output({ findings: [`done: ${call.task}`] })),
    },
  });
  listing = await world.publishConnected("erc-summarizer", { rental: "one_time" });
  other = await world.publishConnected("erc-other", { rental: "one_time" });
  const c = await world.creator();
  creator = c.account;
  creatorToken = c.token;
  renter = await world.account();
  await world.rent(renter, listing);
  await world.rent(renter, other);
  renterToken = await signIn(world.app, renter).then((s) => s.token);
}, 180_000);

afterAll(async () => {
  await world?.close();
});

describe("POST /v1/listings/{listing_id}/erc8004", () => {
  it("registers the listing as the creator's agent whose tokenURI resolves to a registration file pointing at the listing's A2A card", async () => {
    const detail0 = await get<{ erc8004: unknown }>(`/v1/listings/${listing.listing_id}`, renterToken);
    expect(detail0.erc8004).toBeNull();

    const first = await post(`/v1/listings/${listing.listing_id}/erc8004`, creatorToken, {});
    expect(first.status).toBe(200);
    const step1 = (await first.json()) as { agent_id: null; agent_uri: string; registration_file: Record<string, unknown>; transaction: { to: string; data: string }; agent_registry: string };
    expect(step1.agent_id).toBeNull();
    expect(step1.registration_file).toMatchObject({ registrations: [], active: true, supportedTrust: ["reputation"], x402Support: false });
    expect(step1.transaction.to.toLowerCase()).toBe(world.services.chain.erc8004!.identityRegistry.toLowerCase());
    const registered = await send(creator, step1.transaction);
    const event = parseEventLogs({ abi: identityRegistryAbi, logs: registered.logs, eventName: "Registered" })[0]!;
    expect(event.args.owner.toLowerCase()).toBe(creator.address.toLowerCase());
    agentId = event.args.agentId;

    const second = await post(`/v1/listings/${listing.listing_id}/erc8004`, creatorToken, { agent_id: agentId.toString() });
    expect(second.status).toBe(200);
    const step2 = (await second.json()) as { agent_uri: string; registration_file: Record<string, unknown>; transaction: { to: string; data: string } };
    await send(creator, step2.transaction);
    await world.index();

    const detail = await get<{ erc8004: { agent_id: string; agent_registry: string } }>(`/v1/listings/${listing.listing_id}`, renterToken);
    expect(detail.erc8004).toEqual({ agent_id: agentId.toString(), agent_registry: `eip155:${world.config.CHAIN_ID}:${world.services.chain.erc8004!.identityRegistry}` });

    // The chain's tokenURI is the file, served like listing metadata, and its A2A service is the card.
    const tokenUri = await world.services.chain.client.readContract({ address: world.services.chain.erc8004!.identityRegistry, abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] });
    expect(tokenUri).toBe(step2.agent_uri);
    const fileRes = await world.app.request(`/v1/metadata/${tokenUri.slice("ipfs://".length)}`);
    expect(fileRes.status).toBe(200);
    const file = (await fileRes.json()) as { type: string; name: string; services: { name: string; endpoint: string }[]; registrations: unknown[]; active: boolean; image: string };
    expect(file.type).toBe("https://eips.ethereum.org/EIPS/eip-8004#registration-v1");
    expect(file.registrations).toEqual([{ agentId: Number(agentId), agentRegistry: detail.erc8004.agent_registry }]);
    expect(file.image).toMatch(/^data:image\/svg\+xml;base64,/);
    const a2a = file.services.find((s) => s.name === "A2A")!;
    expect(new URL(a2a.endpoint).pathname).toBe(`/a2a/${listing.agent_id}/.well-known/agent-card.json`);
    const card = await world.app.request(new URL(a2a.endpoint).pathname);
    expect(card.status).toBe(200);
    expect(((await card.json()) as { name: string }).name).toBe(file.name);
    expect(file.services.map((s) => s.name)).toEqual(["A2A", "MCP", "web"]);
    // agentWallet: the creator's payout address (earnings go to the listing's creator).
    const wallet = await world.services.chain.client.readContract({ address: world.services.chain.erc8004!.identityRegistry, abi: identityRegistryAbi, functionName: "getAgentWallet", args: [agentId] });
    expect(wallet.toLowerCase()).toBe(creator.address.toLowerCase());
  });

  it("refuses another creator's listing, another wallet's agent, and unknown fields", async () => {
    const stranger = await world.newCreator("Stranger");
    await expectError(await post(`/v1/listings/${listing.listing_id}/erc8004`, stranger.token, {}), 404, "listing_not_found");
    await expectError(await post(`/v1/listings/${listing.listing_id}/erc8004`, creatorToken, { agent_id: "999999" }), 400, "invalid_request");
    await expectError(await post(`/v1/listings/${listing.listing_id}/erc8004`, creatorToken, { agent_id: "1", extra: true }), 400, "invalid_request");
    await expectError(await post(`/v1/listings/${listing.listing_id}/erc8004`, creatorToken, { agent_id: "-1" }), 400, "invalid_request");
    await expectError(await post(`/v1/listings/lst_nope/erc8004`, creatorToken, {}), 400, "invalid_listing_id");
  });
});

describe("POST /v1/runs/{run_id}/feedback", () => {
  let runId: string;
  let firstFile: { uri: string; hash: Hex; file: Record<string, unknown> };

  it("answers 409 receipt_pending with Retry-After before the run's receipt is logged", async () => {
    runId = (await execute(listing, renterToken)).run_id;
    const res = await post(`/v1/runs/${runId}/feedback`, renterToken, { value: 90 });
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectError(res, 409, "receipt_pending");
    // Through the SDK: the typed error carries the wait the API asked for.
    const sdk = new AgentRentalClient({ baseUrl: "http://api.test", token: renterToken, fetch: (input, init) => Promise.resolve(world.app.request(String(input), init)) });
    const error = await sdk.runs.feedback(runId, { value: 90 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "receipt_pending", status: 409, retryAfter: Number(res.headers.get("retry-after")) });
  });

  it("refuses bad input in the envelope: value range and decimals, tag and text lengths, types, unknown fields", async () => {
    await logRuns();
    const cases: unknown[] = [
      { value: 101 },
      { value: -1 },
      { value: 1.234 },
      { value: 1e-7 },
      { value: "90" },
      {},
      { value: 90, tag1: "" },
      { value: 90, tag1: "x".repeat(65) },
      { value: 90, tag1: "a\u0000b" },
      { value: 90, text: "y".repeat(1001) },
      { value: 90, text: "bell\u0007" },
      { value: 90, extra: 1 },
      "not json",
      { value: 90, text: 5 },
    ];
    for (const body of cases) await expectError(await post(`/v1/runs/${runId}/feedback`, renterToken, body), 400, "invalid_request");
  });

  it("refuses someone else's run as an unknown one, and a failed run", async () => {
    const outsider = await world.account();
    await expectError(await post(`/v1/runs/${runId}/feedback`, (await signIn(world.app, outsider)).token, { value: 90 }), 404, "not_found");
    await expectError(await post(`/v1/runs/run_does_not_exist/feedback`, renterToken, { value: 90 }), 404, "not_found");
    const failed = await execute(listing, renterToken, "fail please");
    expect(failed.status).toBe("failed");
    await expectError(await post(`/v1/runs/${failed.run_id}/feedback`, renterToken, { value: 90 }), 403, "feedback_not_allowed");
  });

  it("refuses feedback for a listing not registered as an agent", async () => {
    const run = await execute(other, renterToken);
    await logRuns();
    await expectError(await post(`/v1/runs/${run.run_id}/feedback`, renterToken, { value: 90 }), 409, "agent_not_registered");
  });

  it("a paying renter's feedback raises the listing's verified rating, with the run's receipt", async () => {
    const res = await post(`/v1/runs/${runId}/feedback`, renterToken, { value: 90, text: "Sharp summary." });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { feedback_uri: string; feedback_hash: Hex; feedback_file: Record<string, unknown>; transaction: { to: string; data: string }; agent_id: string };
    expect(body.agent_id).toBe(agentId.toString());
    const fileRes = await world.app.request(`/v1/metadata/${body.feedback_uri.slice(7)}`);
    const bytes = Buffer.from(await fileRes.arrayBuffer());
    expect(keccak256(bytes)).toBe(body.feedback_hash);
    expect(body.feedback_file).toMatchObject({ agentId: Number(agentId), value: 90, valueDecimals: 0, tag1: "starred", text: "Sharp summary.", proofOfPayment: { txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    firstFile = { uri: body.feedback_uri, hash: body.feedback_hash, file: body.feedback_file };
    await send(renter, body.transaction);
    await world.index();
    const detail = await get<{ rating: number; review_count: number }>(`/v1/listings/${listing.listing_id}`, renterToken);
    expect(detail).toMatchObject({ rating: 4.5, review_count: 1 });
    const rep = await reputation();
    expect(rep).toMatchObject({ rating: 4.5, review_count: 1, unverified_count: 0 });
    expect(rep.feedback[0]).toMatchObject({ verified: true, reason: null, run_id: runId, value: 90, client: renter.address.toLowerCase() });
    expect(rep.feedback[0]!.receipt).toMatchObject({ batchIndex: expect.any(String), proof: expect.any(Array) });
    // Search agrees with the detail.
    const found = await get<{ listings: { id: string; rating: number; review_count: number }[] }>(`/v1/listings?q=erc`, renterToken);
    expect(found.listings.find((l) => l.id === listing.listing_id)).toMatchObject({ rating: 4.5, review_count: 1 });
  });

  it("a second feedback for the same run: 409 from the route, and never counted when sent directly", async () => {
    await expectError(await post(`/v1/runs/${runId}/feedback`, renterToken, { value: 10 }), 409, "feedback_exists");
    // The same file sent again by the renter's wallet: a second feedback of the same run.
    await send(renter, giveFeedbackTx({ agentId, value: 90n, uri: firstFile.uri, hash: firstFile.hash }));
    await world.index();
    const rep = await reputation();
    expect(rep).toMatchObject({ rating: 4.5, review_count: 1, unverified_count: 1 });
    expect(rep.feedback[0]).toMatchObject({ verified: false, reason: "run_already_rated" });
  });

  it("a wallet that never ran the agent sends giveFeedback directly and changes nothing but the unverified count", async () => {
    const sybil = await world.account();
    const before = await reputation();
    // Reusing the paying renter's own file (its receipt names the renter, not the sybil).
    await send(sybil, giveFeedbackTx({ agentId, value: 0n, uri: firstFile.uri, hash: firstFile.hash }));
    // No file at all.
    await send(sybil, giveFeedbackTx({ agentId, value: 0n }));
    await world.index();
    const rep = await reputation();
    expect(rep).toMatchObject({ rating: before.rating, review_count: before.review_count, unverified_count: before.unverified_count + 2 });
    expect(rep.feedback.slice(0, 2).map((f) => f.reason).sort()).toEqual(["file_of_another_feedback", "file_unavailable"]);
  });

  it("hostile files never count and never stop the indexer: huge, malformed, wrong hash, another listing's receipt, another renter's receipt", async () => {
    const before = await reputation();
    const huge = await storeRaw(Buffer.alloc(200 * 1024, 0x20));
    const malformed = await storeRaw(Buffer.from("{not json", "utf8"));
    // A receipt of the renter's run of another listing, in a file otherwise about this agent.
    const otherRun = await execute(other, renterToken);
    await logRuns();
    const otherRecord = await get<{ receipt: { batch_index: number; proof: Hex[]; root: Hex; leaf: Hex; tx_hash: Hex } }>(`/v1/runs/${otherRun.run_id}`, renterToken);
    const forged = JSON.parse(JSON.stringify(firstFile.file)) as { runReceipt: { batchIndex: string; receipt: Record<string, unknown>; proof: Hex[]; root: Hex; leaf: Hex; txHash: Hex }; createdAt: string };
    forged.runReceipt.receipt.listingId = other.onChainId;
    forged.runReceipt.receipt.runId = keccak256(Buffer.from(otherRun.run_id, "utf8"));
    forged.runReceipt.batchIndex = String(otherRecord.receipt.batch_index);
    forged.runReceipt.proof = otherRecord.receipt.proof;
    forged.createdAt = new Date().toISOString();
    const anotherListing = await storeRaw(Buffer.from(canonicalJson(forged), "utf8"));
    // A receipt of this listing and this renter that the run log never logged (its cost altered).
    const altered = JSON.parse(JSON.stringify(firstFile.file)) as { runReceipt: { receipt: Record<string, unknown> } };
    altered.runReceipt.receipt.costWei = "1";
    const notOnChain = await storeRaw(Buffer.from(canonicalJson(altered), "utf8"));
    // The paying renter's file sent by a second paying renter of the same listing.
    const secondRenter = await world.account();
    await world.rent(secondRenter, listing);
    const sent = {
      huge: await send(renter, giveFeedbackTx({ agentId, value: 100n, uri: huge.uri, hash: huge.hash })),
      malformed: await send(renter, giveFeedbackTx({ agentId, value: 100n, uri: malformed.uri, hash: malformed.hash })),
      wrongHash: await send(renter, giveFeedbackTx({ agentId, value: 100n, uri: firstFile.uri, hash: keccak256(Buffer.from("something else")) })),
      anotherListing: await send(renter, giveFeedbackTx({ agentId, value: 90n, uri: anotherListing.uri, hash: anotherListing.hash })),
      notOnChain: await send(renter, giveFeedbackTx({ agentId, value: 90n, uri: notOnChain.uri, hash: notOnChain.hash })),
      anotherRenters: await send(secondRenter, giveFeedbackTx({ agentId, value: 90n, uri: firstFile.uri, hash: firstFile.hash })),
    };
    await world.index();
    const rep = await reputation();
    expect(rep).toMatchObject({ rating: before.rating, review_count: before.review_count, unverified_count: before.unverified_count + 6 });
    const reasonOf = (receipt: { transactionHash: string }) => rep.feedback.find((f) => f.tx_hash.toLowerCase() === receipt.transactionHash.toLowerCase())?.reason;
    expect(Object.fromEntries(Object.entries(sent).map(([what, receipt]) => [what, reasonOf(receipt)]))).toEqual({
      huge: "file_too_large",
      malformed: "file_malformed",
      wrongHash: "hash_mismatch",
      anotherListing: "receipt_of_another_listing",
      notOnChain: "receipt_not_on_chain",
      anotherRenters: "file_of_another_feedback",
    });
  });

  it("verifyReputation (SDK) recomputes the same verified rating and verdicts from the chain and the files alone", async () => {
    const rep = await get<Reputation & { feedback: { reason: string | null }[] }>(`/v1/listings/${listing.listing_id}/reputation?limit=100`, renterToken);
    const result = await verifyReputation({
      client: createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) }),
      identityRegistry: world.services.chain.erc8004!.identityRegistry,
      reputationRegistry: world.services.chain.erc8004!.reputationRegistry,
      marketplace: world.services.chain.marketplace,
      agentId,
      listingId: listing.onChainId,
      fromBlock: world.config.ERC8004_DEPLOY_BLOCK,
      // The service's gateway, read over HTTP like any IPFS gateway would be.
      fetchFile: async (uri) => {
        const res = await world.app.request(`/v1/metadata/${uri.slice("ipfs://".length)}`);
        return res.status === 200 ? new Uint8Array(await res.arrayBuffer()) : null;
      },
    });
    expect(result.rating).toBe(rep.rating);
    expect(result.review_count).toBe(rep.review_count);
    expect(result.unverified.length).toBe(rep.unverified_count);
    expect(result.verified.map((f) => f.runId)).toEqual([keccak256(Buffer.from(runId, "utf8"))]);
    expect(result.unverified.map((f) => f.reason).sort()).toEqual(rep.feedback.filter((f) => f.reason !== null).map((f) => f.reason).sort());
  });

  it("revoking the counted feedback takes it out of the rating", async () => {
    const wallet = createWalletClient({ account: renter, chain: world.services.chain.chain, transport: http(world.rpcUrl) });
    const client = createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) });
    const hash = await wallet.writeContract({ address: world.services.chain.erc8004!.reputationRegistry, abi: reputationRegistryAbi, functionName: "revokeFeedback", args: [agentId, 1n] });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await world.index();
    const rep = await reputation();
    expect(rep).toMatchObject({ rating: 0, review_count: 0 });
    expect(rep.feedback.find((f) => f.run_id === null && f.reason === "revoked")).toBeDefined();
  });
});

describe("GET /v1/listings/{listing_id}/reputation", () => {
  it("pages the feedback newest first and refuses bad queries", async () => {
    const first = await get<Reputation & { next_cursor: string | null }>(`/v1/listings/${listing.listing_id}/reputation?limit=2`, renterToken);
    expect(first.feedback).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = await get<Reputation & { next_cursor: string | null }>(`/v1/listings/${listing.listing_id}/reputation?limit=2&cursor=${first.next_cursor}`, renterToken);
    expect(second.feedback[0]).not.toEqual(first.feedback[0]);
    const bad = (q: string) => world.app.request(`/v1/listings/${listing.listing_id}/reputation?${q}`, { headers: { authorization: `Bearer ${renterToken}` } });
    await expectError(await bad("limit=0"), 400, "invalid_request");
    await expectError(await bad("limit=101"), 400, "invalid_request");
    await expectError(await bad("cursor=bm9wZQ"), 400, "invalid_request");
    await expectError(await world.app.request(`/v1/listings/lst_${"0".repeat(64)}/reputation`, { headers: { authorization: `Bearer ${renterToken}` } }), 404, "listing_not_found");
    expect((await world.app.request(`/v1/listings/${listing.listing_id}/reputation`)).status).toBe(401);
  });

  it("lists a feedback only once the figures count it: one written but not yet recounted is not shown beside figures that leave it out", async () => {
    const before = await reputation();
    // What the indexer has written for an event of a later block, before its round recounts the listing.
    const block = 10n ** 12n;
    const txHash = `0x${"ab".repeat(32)}`;
    await putFeedback(world.services.tables, {
      sk: positionOf(block, 0),
      agent_id: agentId.toString(),
      client: `0x${"11".repeat(20)}`,
      feedback_index: "1",
      value: "50",
      value_decimals: 0,
      tag1: "other",
      tag2: "",
      endpoint: "",
      feedback_uri: "",
      feedback_hash: `0x${"00".repeat(32)}`,
      tx_hash: txHash,
      block_number: block.toString(),
      revoked: false,
      verdict: "not_a_rating",
    });
    const between = await reputation();
    expect(between.unverified_count).toBe(before.unverified_count);
    expect(between.feedback.find((f) => f.tx_hash === txHash)).toBeUndefined();
    // The round's recount: the figures and the list take it in together.
    await recountListing(world.services.tables, `0x${listing.listing_id.slice(4)}`, positionOf(block + 1n, 0));
    const after = await reputation();
    expect(after.unverified_count).toBe(before.unverified_count + 1);
    expect(after.feedback[0]).toMatchObject({ tx_hash: txHash, verified: false, reason: "not_a_rating" });
  });

  it("the registration file follows the listing's status: active false once paused", async () => {
    await world.market.setListingActive(creator, listing.onChainId, false);
    await world.index();
    const res = await post(`/v1/listings/${listing.listing_id}/erc8004`, creatorToken, { agent_id: agentId.toString() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { registration_file: { active: boolean }; transaction: { to: string; data: string }; agent_uri: string };
    expect(body.registration_file.active).toBe(false);
    await send(creator, body.transaction);
    await world.index();
    const linked = await get<{ erc8004: { agent_id: string } | null; status: string }>(`/v1/listings/${listing.listing_id}`, renterToken);
    expect(linked).toMatchObject({ status: "paused", erc8004: { agent_id: agentId.toString() } });
    await world.market.setListingActive(creator, listing.onChainId, true);
    await world.index();
  });

  it("a transfer away from the creator unlinks the agent", async () => {
    const buyer = await world.account();
    const wallet = createWalletClient({ account: creator, chain: world.services.chain.chain, transport: http(world.rpcUrl) });
    const hash = await wallet.writeContract({ address: world.services.chain.erc8004!.identityRegistry, abi: identityRegistryAbi, functionName: "transferFrom", args: [creator.address, buyer.address, agentId] });
    await createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await world.index();
    const detail = await get<{ erc8004: unknown }>(`/v1/listings/${listing.listing_id}`, renterToken);
    expect(detail.erc8004).toBeNull();
  });
});

describe("a listing's verified reputation survives what its creator does on the registries", () => {
  let firstAgent: bigint;
  let secondAgent: bigint;
  let ratedRun: string;

  const detail = () => get<{ rating: number; review_count: number; erc8004: { agent_id: string } | null }>(`/v1/listings/${other.listing_id}`, renterToken);

  /** The renter rates a run through the API and sends the transaction it prepares. */
  async function rate(runId: string, value: number): Promise<string> {
    const res = await post(`/v1/runs/${runId}/feedback`, renterToken, { value });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { transaction: { to: string; data: string }; agent_id: string };
    await send(renter, body.transaction);
    await world.index();
    return body.agent_id;
  }

  async function registerAgain(uri: string): Promise<bigint> {
    const receipt = await send(creator, { to: world.services.chain.erc8004!.identityRegistry, data: encodeFunctionData({ abi: identityRegistryAbi, functionName: "register", args: [uri] }) });
    return parseEventLogs({ abi: identityRegistryAbi, logs: receipt.logs, eventName: "Registered" })[0]!.args.agentId;
  }

  it("registering the listing's file again keeps the counted rating, and the rated run stays rated", async () => {
    const first = await post(`/v1/listings/${other.listing_id}/erc8004`, creatorToken, {});
    const step1 = (await first.json()) as { transaction: { to: string; data: string } };
    const registered = await send(creator, step1.transaction);
    firstAgent = parseEventLogs({ abi: identityRegistryAbi, logs: registered.logs, eventName: "Registered" })[0]!.args.agentId;
    const second = await post(`/v1/listings/${other.listing_id}/erc8004`, creatorToken, { agent_id: firstAgent.toString() });
    await send(creator, ((await second.json()) as { transaction: { to: string; data: string } }).transaction);
    await world.index();

    ratedRun = (await execute(other, renterToken, "the run to rate")).run_id;
    await logRuns();
    expect(await rate(ratedRun, 60)).toBe(firstAgent.toString());
    expect(await detail()).toMatchObject({ rating: 3, review_count: 1, erc8004: { agent_id: firstAgent.toString() } });

    // The attack: the creator registers the listing's file again; the newest agent becomes the listing's.
    const uri = await world.services.chain.client.readContract({ address: world.services.chain.erc8004!.identityRegistry, abi: identityRegistryAbi, functionName: "tokenURI", args: [firstAgent] });
    secondAgent = await registerAgain(uri);
    await world.index();
    expect(await detail()).toMatchObject({ rating: 3, review_count: 1, erc8004: { agent_id: secondAgent.toString() } });
    const rep = await reputation(other);
    expect(rep).toMatchObject({ rating: 3, review_count: 1 });
    expect(rep.feedback.filter((f) => f.verified)).toEqual([expect.objectContaining({ run_id: ratedRun, value: 60 })]);
    // The rated run's rating still counts, so rating it again is refused for that reason, not lost.
    await expectError(await post(`/v1/runs/${ratedRun}/feedback`, renterToken, { value: 100 }), 409, "feedback_exists");

    // A new run is rated to the new agent, and both count.
    const next = (await execute(other, renterToken, "another run")).run_id;
    await logRuns();
    expect(await rate(next, 100)).toBe(secondAgent.toString());
    expect(await reputation(other)).toMatchObject({ rating: 4, review_count: 2 });
   }, 120_000);

  it("transferring the agents away unlinks them and keeps every counted rating", async () => {
    const buyer = await world.account();
    const wallet = createWalletClient({ account: creator, chain: world.services.chain.chain, transport: http(world.rpcUrl) });
    const client = createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) });
    for (const id of [secondAgent, firstAgent]) {
      const hash = await wallet.writeContract({ address: world.services.chain.erc8004!.identityRegistry, abi: identityRegistryAbi, functionName: "transferFrom", args: [creator.address, buyer.address, id] });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    }
    await world.index();
    expect(await detail()).toMatchObject({ rating: 4, review_count: 2, erc8004: null });
    const rep = await reputation(other);
    expect(rep).toMatchObject({ rating: 4, review_count: 2 });
    expect(rep.feedback.filter((f) => f.verified).map((f) => f.value)).toEqual([100, 60]);
    // Paging crosses the agents in one order: newest first, one per page.
    const page1 = await get<Reputation & { next_cursor: string | null }>(`/v1/listings/${other.listing_id}/reputation?limit=1`, renterToken);
    expect(page1.feedback.map((f) => f.value)).toEqual([100]);
    const page2 = await get<Reputation & { next_cursor: string | null }>(`/v1/listings/${other.listing_id}/reputation?limit=1&cursor=${page1.next_cursor}`, renterToken);
    expect(page2.feedback.map((f) => f.value)).toEqual([60]);
    expect(page2.next_cursor).toBeNull();
    await expectError(await post(`/v1/runs/${ratedRun}/feedback`, renterToken, { value: 100 }), 409, "feedback_exists");
    // Each feedback names its agent, and the SDK recomputes the same figures from the chain across them.
    expect(rep.feedback.filter((f) => f.verified).map((f) => f.agent_id)).toEqual([secondAgent.toString(), firstAgent.toString()]);
    const verify = (agentIds: bigint[]) =>
      verifyReputation({
        client,
        identityRegistry: world.services.chain.erc8004!.identityRegistry,
        reputationRegistry: world.services.chain.erc8004!.reputationRegistry,
        marketplace: world.services.chain.marketplace,
        agentIds,
        listingId: other.onChainId,
        fromBlock: world.config.ERC8004_DEPLOY_BLOCK,
        fetchFile: async (uri) => {
          const res = await world.app.request(`/v1/metadata/${uri.slice("ipfs://".length)}`);
          return res.status === 200 ? new Uint8Array(await res.arrayBuffer()) : null;
        },
      });
    const every = [...new Set(rep.feedback.map((f) => f.agent_id))].map(BigInt);
    const recomputed = await verify(every);
    expect(recomputed).toMatchObject({ rating: 4, review_count: 2 });
    expect(recomputed.verified.map((f) => f.agentId)).toEqual([firstAgent, secondAgent]);
    expect(recomputed.unverified.length).toBe(rep.unverified_count);
    // One agent alone misses the other's counted feedback.
    expect(await verify([secondAgent])).toMatchObject({ rating: 5, review_count: 1 });
   }, 120_000);
});
