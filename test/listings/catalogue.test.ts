// From manifest to search result: a reviewed creator registers an agent, creates its listing
// on-chain, the indexer links them, the authority approves it, and renters find it. Refusals of the
// review gates and of bad catalogue input are checked on the way.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createPublicClient, createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { catchUp } from "../../src/credentials/indexer.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { approveCreator, authorityToken } from "../support/creators.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let creator: Awaited<ReturnType<typeof fundedAccount>>;
let creatorToken: string;
let renterToken: string;
let authToken: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

const manifest = (name: string, description: string, category = "legal") => ({
  name,
  category,
  description,
  model: { provider: "provider_a", model: "gpt-test" },
  system_prompt: "Be precise.",
  input_schema: { type: "object" },
  output_schema: { type: "object", examples: [{ findings: ["sample finding"] }] },
});

async function register(m: object): Promise<{ listing_id: string; listing_seed: `0x${string}`; metadata_uri: string; agent_id: string }> {
  const res = await app.request("/v1/agents", { method: "POST", headers: auth(creatorToken), body: JSON.stringify(m) });
  expect(res.status).toBe(202);
  for (;;) {
    const messages = await ctx.services.queue.receive(ctx.config.REGISTRATION_QUEUE_URL, { waitSeconds: 0 });
    if (!messages.length) break;
    for (const msg of messages) {
      await processRegistrationMessage(ctx.services, msg.body);
      await ctx.services.queue.delete(ctx.config.REGISTRATION_QUEUE_URL, msg.receiptHandle);
    }
  }
  const { job_id } = (await res.json()) as { job_id: string };
  const job = (await (await app.request(`/v1/jobs/${job_id}`, { headers: auth(creatorToken) })).json()) as { status: string; result: never };
  expect(job.status).toBe("completed");
  return job.result;
}

async function createOnChain(seed: `0x${string}`, model: 0 | 1 | 2, priceEth: string, uri: string): Promise<void> {
  const rpcUrl = inject("rpcUrl");
  const chain = chainFor(LOCAL_CHAIN_ID, rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(creator.privateKey), chain, transport: http(rpcUrl) });
  const client = createPublicClient({ chain, transport: http(rpcUrl) });
  await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: ctx.config.MARKETPLACE_ADDRESS as `0x${string}`, abi: marketplaceAbi, functionName: "createListing", args: [seed, model, parseEther(priceEth), uri] }) });
}

async function index(): Promise<void> {
  await catchUp({ tables: ctx.services.tables, chain: ctx.services.chain, logger: ctx.services.logger, fromBlock: 0n, confirmations: 0 });
}

async function decide(listingId: string, decision: "approve" | "reject", reason?: string) {
  return app.request(`/v1/reviews/listings/${listingId}`, { method: "POST", headers: auth(authToken), body: JSON.stringify({ decision, ...(reason ? { reason } : {}) }) });
}

async function search(query: string) {
  const res = await app.request(`/v1/listings${query}`, { headers: auth(renterToken) });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { CATALOGUE_REFRESH_MS: "0" } });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  creator = await fundedAccount(inject("rpcUrl"));
  creatorToken = (await signIn(app, creator)).token;
  renterToken = (await signIn(app, await fundedAccount(inject("rpcUrl"), "1"))).token;
  authToken = await authorityToken(ctx, app);
});

describe("review gates (POST /v1/creators, GET /v1/creators/me, GET /v1/reviews/creators, POST /v1/reviews/creators/{wallet}, GET /v1/reviews/listings, POST /v1/reviews/listings/{listing_id})", () => {
  it("refuses registration from a creator who has not been approved, saying what to do", async () => {
    const res = await app.request("/v1/agents", { method: "POST", headers: auth(creatorToken), body: JSON.stringify(manifest("early-bird", "Too early.")) });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("creator_not_approved");
    expect(body.error.message).toMatch(/POST \/v1\/creators/);
  });

  it("GET /v1/creators/me answers profile null and no agents for a wallet that never applied (an answer, not a 404)", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const res = await app.request("/v1/creators/me", { headers: auth((await signIn(app, stranger)).token) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ profile: null, agents: [] });
  });

  it("lets only the protocol authority review", async () => {
    await app.request("/v1/creators", { method: "POST", headers: auth(renterToken), body: JSON.stringify({ display_name: "Renter Who Applies" }) });
    for (const [method, path, body] of [
      ["GET", "/v1/reviews/creators", undefined],
      ["GET", "/v1/reviews/listings", undefined],
      ["POST", `/v1/reviews/creators/${creator.address}`, { decision: "approve" }],
      ["POST", `/v1/reviews/listings/lst_${"a".repeat(64)}`, { decision: "approve" }],
    ] as const) {
      const res = await app.request(path, { method, headers: auth(creatorToken), ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    }
  });

  it("requires a reason to reject, and shows it to the creator", async () => {
    await app.request("/v1/creators", { method: "POST", headers: auth(creatorToken), body: JSON.stringify({ display_name: "Acme Agents" }) });
    const noReason = await app.request(`/v1/reviews/creators/${creator.address}`, { method: "POST", headers: auth(authToken), body: JSON.stringify({ decision: "reject" }) });
    expect(noReason.status).toBe(400);
    await app.request(`/v1/reviews/creators/${creator.address}`, { method: "POST", headers: auth(authToken), body: JSON.stringify({ decision: "reject", reason: "Add a website" }) });
    const me = (await (await app.request("/v1/creators/me", { headers: auth(creatorToken) })).json()) as { profile: { status: string; reason: string } };
    expect(me.profile).toMatchObject({ status: "rejected", reason: "Add a website" });
    const refused = await app.request("/v1/agents", { method: "POST", headers: auth(creatorToken), body: JSON.stringify(manifest("rejected-one", "No.")) });
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Add a website/);
    // Applying again puts it back in review; the authority approves.
    await approveCreator(ctx, app, creator.address, creatorToken, "Acme Agents");
    const pending = (await (await app.request("/v1/reviews/creators?status=approved", { headers: auth(authToken) })).json()) as { applications: { wallet: string }[] };
    expect(pending.applications.map((a) => a.wallet)).toContain(creator.address.toLowerCase());
  });
});

describe("the catalogue", () => {
  let reviewer: { listing_id: string; listing_seed: `0x${string}`; metadata_uri: string };
  let summarizer: { listing_id: string; listing_seed: `0x${string}`; metadata_uri: string };

  it("keeps a listing out of search until it is on-chain and approved, then shows it with every field", async () => {
    reviewer = await register(manifest("contract-reviewer", "Reviews commercial contracts and flags risky clauses."));
    summarizer = await register(manifest("earnings-summarizer", "Summarizes quarterly earnings calls for analysts.", "finance"));

    // Registered, not on-chain, not approved: invisible.
    expect((await search("?q=contract")).body.total).toBe(0);
    expect((await app.request(`/v1/listings/${reviewer.listing_id}`, { headers: auth(renterToken) })).status).toBe(404);

    // Approved before it exists on-chain: still invisible (not linked).
    expect((await decide(reviewer.listing_id, "approve")).status).toBe(200);
    expect((await search("?q=contract")).body.total).toBe(0);

    // On-chain with the job's seed and URI, indexed: published.
    await createOnChain(reviewer.listing_seed, 0, "0.02", reviewer.metadata_uri);
    await createOnChain(summarizer.listing_seed, 2, "0.001", summarizer.metadata_uri);
    await index();
    const found = await search("?q=contarct");
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ total: 1, limit: 20, offset: 0 });
    const summary = found.body.listings[0];
    expect(Object.keys(summary).sort()).toEqual(["category", "creator", "currency", "description", "id", "last_updated", "price_eth", "price_units", "rating", "rental_model", "review_count", "run_count", "sample_output", "success_rate", "title"]);
    expect(summary).toMatchObject({ id: reviewer.listing_id, title: "Contract Reviewer", category: ["legal"], rental_model: "one_time", price_eth: 0.02, currency: { symbol: "ETH", address: null, decimals: 18 }, price_units: "20000000000000000", run_count: 0, success_rate: 0, rating: 0, review_count: 0, sample_output: ['{"findings":["sample finding"]}'] });
    expect(summary.creator).toEqual({ id: creator.address.toLowerCase(), display_name: "Acme Agents", listing_count: 1 });

    const detail = (await (await app.request(`/v1/listings/${reviewer.listing_id}`, { headers: auth(renterToken) })).json()) as Record<string, unknown>;
    expect(Object.keys(detail).sort()).toEqual([...Object.keys(summary), "metadata_uri", "on_chain_id", "published_at", "status", "erc8004"].sort());
    expect(detail).toMatchObject({ status: "active", on_chain_id: `0x${reviewer.listing_id.slice(4)}`, metadata_uri: reviewer.metadata_uri, erc8004: null });
    expect(Date.parse(detail.published_at as string)).not.toBeNaN();

    // The summarizer is on-chain but not approved: out of search.
    expect((await search("?category=finance")).body.total).toBe(0);
  });

  it("keeps a rejected listing out, with the reason visible to its creator", async () => {
    expect((await decide(summarizer.listing_id, "reject")).status).toBe(400);
    expect((await decide(summarizer.listing_id, "reject", "Sample output missing")).status).toBe(200);
    expect((await search("?category=finance")).body.total).toBe(0);
    const me = (await (await app.request("/v1/creators/me", { headers: auth(creatorToken) })).json()) as { agents: { listing_id: string; review_status: string; review_reason: string }[] };
    expect(me.agents.find((a) => a.listing_id === summarizer.listing_id)).toMatchObject({ review_status: "rejected", review_reason: "Sample output missing" });
    // Approved later: in search, with its on-chain price and model.
    await decide(summarizer.listing_id, "approve");
    const found = await search("?category=finance&sort=price_asc");
    expect(found.body.listings.map((l: { id: string }) => l.id)).toEqual([summarizer.listing_id]);
    expect(found.body.listings[0]).toMatchObject({ rental_model: "per_query", price_eth: 0.001 });
  });

  it("reports the same creator figures in search and in detail", async () => {
    const found = (await search("?sort=price_asc")).body.listings as { id: string; creator: unknown }[];
    expect(found.map((l) => l.creator)).toEqual([{ id: creator.address.toLowerCase(), display_name: "Acme Agents", listing_count: 2 }, { id: creator.address.toLowerCase(), display_name: "Acme Agents", listing_count: 2 }]);
    for (const listing of found) {
      const detail = (await (await app.request(`/v1/listings/${listing.id}`, { headers: auth(renterToken) })).json()) as { creator: unknown };
      expect(detail.creator).toEqual(listing.creator);
    }
  });

  it("filters, sorts and pages", async () => {
    expect((await search("?sort=price_desc")).body.listings.map((l: { id: string }) => l.id)).toEqual([reviewer.listing_id, summarizer.listing_id]);
    expect((await search("?max_price=0.01")).body.listings.map((l: { id: string }) => l.id)).toEqual([summarizer.listing_id]);
    expect((await search("?rental_model=one_time")).body.total).toBe(1);
    const page = await search("?limit=1&offset=1&sort=price_asc");
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.listings.map((l: { id: string }) => l.id)).toEqual([reviewer.listing_id]);
  });

  it("answers bad catalogue input with 400 naming the parameter, and unknown listings with 404", async () => {
    for (const [query, name] of [["?limit=101", "limit"], ["?limit=0", "limit"], ["?offset=-1", "offset"], ["?category=cooking", "category"], ["?sort=cheapest", "sort"], ["?min_rating=6", "min_rating"], ["?min_price=abc", "min_price"], ["?min_price=2&max_price=1", "min_price"], ["?rental_model=lease", "rental_model"]] as const) {
      const res = await search(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.message).toContain(name);
    }
    const unknown = await app.request(`/v1/listings/lst_${"b".repeat(64)}`, { headers: auth(renterToken) });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("listing_not_found");
    for (const id of ["lst_123", "abc", `lst_${"G".repeat(64)}`]) {
      const res = await app.request(`/v1/listings/${id}`, { headers: auth(renterToken) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_listing_id");
    }
  });
});
