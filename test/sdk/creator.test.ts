// The SDK's creator and review methods against the real service over HTTP (the real chain and
// contract, dynalite, the SQS emulator with the registration consumer running, the indexer): a creator
// applies and is approved, registers a connected agent and a manifest that fails, lists the agent
// on-chain, sets its webhook secret; the authority approves the listing; a renter who ran it rates it.
// Also the refusals: reviews by a non-authority, a provider key for a connected agent, a rating without
// a run, a job of another wallet, and request() for routes without a method.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Hex } from "viem";
import { writeMarketplace } from "../../src/chain/write.ts";
import type { Account } from "../support/chain-actions.ts";
import { startWorld, type World } from "../support/world.ts";
import { until } from "../support/until.ts";
import { AccessError, AgentRentalClient, ApiError, NotFoundError, type AgentManifest } from "@agent-rental/sdk";

/** With the registration worker and the indexer running, and a connected agent that answers once the
 * test gives it the listing's webhook secret. */
let world: World;
let baseUrl: string;
let creator: Account;
let renter: Account;

const MANIFEST: AgentManifest = {
  name: "sdk-creator-agent",
  category: "research",
  description: "A connected agent registered through the SDK.",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object" },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 20,
};


beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: true, jobs: { only: ["registration-worker", "indexer"], everyMs: { indexer: 100 } } });
  baseUrl = world.url;
  [creator, renter] = await Promise.all([world.account(), world.account()]);
}, 120_000);

afterAll(() => world?.close(), 60_000);

describe("SDK: creators and reviews", () => {
  let creatorClient: AgentRentalClient;
  let authority: AgentRentalClient;
  let renterClient: AgentRentalClient;
  let listingId: string;
  let agentId: string;

  it("applies as a creator, is refused review powers, and is approved by the authority", async () => {
    creatorClient = new AgentRentalClient({ baseUrl });
    authority = new AgentRentalClient({ baseUrl });
    renterClient = new AgentRentalClient({ baseUrl });
    await Promise.all([creatorClient.signIn(creator), authority.signIn(world.ctx.authority), renterClient.signIn(renter)]);

    const applied = await creatorClient.creators.apply("SDK Creator");
    expect(applied).toMatchObject({ wallet: creator.address.toLowerCase(), display_name: "SDK Creator", status: "pending" });
    await expect(creatorClient.reviews.creators()).rejects.toBeInstanceOf(AccessError);
    await expect(creatorClient.reviews.reviewCreator(creator.address, { decision: "approve" })).rejects.toBeInstanceOf(AccessError);

    const pending = await authority.reviews.creators("pending");
    expect(pending.map((p) => p.wallet)).toContain(creator.address.toLowerCase());
    const approved = await authority.reviews.reviewCreator(creator.address, { decision: "approve" });
    expect(approved.status).toBe("approved");
    expect((await creatorClient.creators.me()).profile.status).toBe("approved");
  });

  it("registers an agent and waits for its job; a bad manifest fails with every problem and its pointer", async () => {
    const queued = await creatorClient.agents.register({ ...MANIFEST, entrypoint_url: world.agent.entrypoint("agent") });
    expect(queued.status).toBe("queued");
    const job = await creatorClient.jobs.wait(queued.job_id, { intervalMs: 50, timeoutMs: 30_000 });
    expect(job.status).toBe("completed");
    expect(job.result?.agent_id).toMatch(/^sdk-creator-agent-[0-9a-f]{8}$/);
    listingId = job.result!.listing_id;
    agentId = job.result!.agent_id;

    // The manifest's JSON text as written is accepted too; this one breaks three rules.
    const bad = JSON.stringify({ ...MANIFEST, name: "Not Kebab", timeout_seconds: 301, system_prompt: "x", entrypoint_url: "https://example.com/a" });
    const failed = await creatorClient.jobs.wait((await creatorClient.agents.register(bad)).job_id, { intervalMs: 50 });
    expect(failed.status).toBe("failed");
    const pointers = failed.error?.details?.map((d) => d.pointer) ?? [];
    expect(pointers).toEqual(expect.arrayContaining(["/name", "/timeout_seconds"]));
    expect(pointers.length).toBeGreaterThanOrEqual(3);

    // Another wallet's job is not found, and so is an unknown one.
    await expect(renterClient.jobs.get(queued.job_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(creatorClient.jobs.get("job_000000000000000000000000")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("lists the agent on-chain, sets its webhook secret (shown once), and is refused a provider key for it", async () => {
    const me = await creatorClient.creators.me();
    const agent = me.agents.find((a) => a.listing_id === listingId)!;
    expect(agent.review_status).toBe("pending");
    await writeMarketplace(world.target, creator, "createListing", [agent.listing_seed as Hex, 0, parseEther("0.001"), agent.metadata_uri]);

    const secret = await creatorClient.listings.rotateWebhookSecret(listingId);
    expect(secret.webhook_secret).toMatch(/^whsec_/);
    world.agent.setSecret("agent", secret.webhook_secret);
    const refused = await creatorClient.listings.setProviderKey(listingId, "sk-not-for-a-connected-agent").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    await expect(renterClient.listings.rotateWebhookSecret(listingId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("is published once the authority approves the listing; a renter who ran it rates it, one who did not is refused", async () => {
    await until("the listing in the review queue", async () => (await authority.reviews.listings()).some((l) => l.listing_id === listingId));
    await expect(creatorClient.reviews.reviewListing(listingId, { decision: "approve" })).rejects.toBeInstanceOf(AccessError);
    expect(await authority.reviews.reviewListing(listingId, { decision: "approve" })).toEqual({ listing_id: listingId, review_status: "approved", review_reason: null });
    await until("the listing published", async () => (await renterClient.listings.get(listingId).then(() => true, () => false)));

    // A rating needs a completed run of the listing.
    const early = await renterClient.listings.rate(listingId, 5).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(AccessError);

    const listing = await renterClient.listings.get(listingId);
    await writeMarketplace(world.target, renter, "purchaseOneTime", [listing.on_chain_id as Hex], parseEther("0.001"));
    await until("the credential", async () => (await renterClient.credentials.verify(listingId)).valid);
    const run = await renterClient.execute({ agent_id: agentId, task: "Find things" });
    expect(run.status).toBe("completed");

    const rated = await renterClient.listings.rate(listingId, 4, "Useful findings.");
    expect(rated).toMatchObject({ listing_id: listingId, rating: 4, comment: "Useful findings.", listing: { rating: 4, review_count: 1 } });
    const page = await renterClient.listings.ratings(listingId, { limit: 10 });
    expect(page.ratings).toHaveLength(1);
    expect(page.ratings[0]).toMatchObject({ wallet: renter.address.toLowerCase(), rating: 4 });
    await expect(renterClient.listings.rate(listingId, 9)).rejects.toBeInstanceOf(ApiError);
  });

  it("reaches any route through request(), with the same typed errors", async () => {
    const health = await renterClient.request<{ status: string }>("GET", "/v1/health");
    expect(health.status).toBeTypeOf("string");
    const search = await renterClient.request<{ total: number }>("GET", "/v1/listings", { query: { q: "sdk creator" } });
    expect(search.total).toBeGreaterThanOrEqual(1);
    await expect(renterClient.request("GET", "/v1/listings/lst_not-a-listing")).rejects.toBeInstanceOf(ApiError);
    expect(() => renterClient.request("GET", "health")).toThrow(TypeError);
  });
});
