// The second step of the two-step check: every refusal before any agent work, with the right code
// and the contract's error, against the real chain.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { keccak256, parseEther, toHex, type Hex } from "viem";
import { buildApp } from "../../src/api/app.ts";
import { ApiError } from "../../src/errors.ts";
import { chainFor, createChainClient } from "../../src/chain/client.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { catchUp } from "../../src/credentials/indexer.ts";
import { checkExecutionAccess } from "../../src/execution/access.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { reviewListing } from "../../src/listings/reviews.ts";
import { createServices } from "../../src/services.ts";
import { LOCAL_CHAIN_ID } from "../../local/chain.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let creator: Awaited<ReturnType<typeof fundedAccount>>;
let renter: Awaited<ReturnType<typeof fundedAccount>>;
let target: { rpcUrl: string; chain: ReturnType<typeof chainFor>; marketplace: Hex };
const PRICE = parseEther("0.001");

interface Registered { listing_id: string; agent_id: string; listing_seed: Hex; metadata_uri: string; onChainId: Hex }

async function register(name: string, model: 0 | 1 | 2, approve = true): Promise<Registered> {
  const token = (await signIn(app, creator)).token;
  const res = await app.request("/v1/agents", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name, category: "coding", description: "d", model: { provider: "provider_a", model: "m" }, system_prompt: "p", input_schema: { type: "object" }, output_schema: { type: "string" } }),
  });
  const { job_id } = (await res.json()) as { job_id: string };
  await processRegistrationMessage(ctx.services, JSON.stringify({ job_id }));
  const job = (await (await app.request(`/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { result: Omit<Registered, "onChainId"> };
  const onChainId = `0x${job.result.listing_id.slice(4)}` as Hex;
  await writeMarketplace(target, creator, "createListing", [job.result.listing_seed, model, PRICE, job.result.metadata_uri]);
  if (approve) await reviewListing(ctx.services.tables, job.result.listing_id, "approve", undefined);
  return { ...job.result, onChainId };
}

async function refusal(agentId: string, wallet = renter.address, services = ctx.services): Promise<ApiError> {
  await index();
  const error = await checkExecutionAccess(services, wallet, agentId).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

async function index() {
  await catchUp({ tables: ctx.services.tables, chain: ctx.services.chain, logger: ctx.services.logger, fromBlock: 0n, confirmations: 0 });
}

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  const rpcUrl = inject("rpcUrl");
  target = { rpcUrl, chain: chainFor(LOCAL_CHAIN_ID, rpcUrl), marketplace: ctx.config.MARKETPLACE_ADDRESS as Hex };
  creator = await fundedAccount(rpcUrl);
  renter = await fundedAccount(rpcUrl);
  await approveCreator(ctx, app, creator.address, (await signIn(app, creator)).token);
});

describe("execution access", () => {
  it("admits a valid one_time credential by listing id and by agent id", async () => {
    const listing = await register("one-time-agent", 0);
    expect((await refusal(listing.listing_id)).code).toBe("credential_not_found");
    await writeMarketplace(target, renter, "purchaseOneTime", [listing.onChainId], PRICE);
    await index();
    for (const id of [listing.listing_id, listing.agent_id, listing.onChainId]) {
      const access = await checkExecutionAccess(ctx.services, renter.address, id);
      expect(access).toMatchObject({ listingId: listing.listing_id, rentalModel: "one_time", priceWei: PRICE, balanceWei: 0n });
    }
  });

  it("refuses with the contract's error when there is no credential", async () => {
    const listing = await register("nobody-rented", 0);
    const error = await refusal(listing.agent_id);
    expect(error).toMatchObject({ code: "credential_not_found", status: 403, onChainError: { contract: "Marketplace", error: "CredentialNotFound" } });
  });

  it("refuses a paused listing, and admits again once it resumes", async () => {
    const listing = await register("pausable-agent", 0);
    await writeMarketplace(target, renter, "purchaseOneTime", [listing.onChainId], PRICE);
    await index();
    await writeMarketplace(target, creator, "setListingActive", [listing.onChainId, false]);
    // Live from the chain, before the indexer has seen the pause.
    const paused = await checkExecutionAccess(ctx.services, renter.address, listing.listing_id).catch((e: unknown) => e);
    expect(paused).toMatchObject({ code: "listing_paused", onChainError: { error: "ListingNotActive" } });
    await writeMarketplace(target, creator, "setListingActive", [listing.onChainId, true]);
    await index();
    await expect(checkExecutionAccess(ctx.services, renter.address, listing.listing_id)).resolves.toMatchObject({ rentalModel: "one_time" });
  });

  it("charges the live price, not the index's, after the creator changes it", async () => {
    const listing = await register("repriced-agent", 2);
    await writeMarketplace(target, renter, "purchasePerQuery", [listing.onChainId], PRICE * 10n);
    await index();
    await writeMarketplace(target, creator, "updateListing", [listing.onChainId, PRICE / 2n, listing.metadata_uri]);
    await expect(checkExecutionAccess(ctx.services, renter.address, listing.listing_id)).resolves.toMatchObject({ priceWei: PRICE / 2n });
  });

  it("admits a run at a raised price only once the renter deposited at it: price_not_agreed before, naming both prices", async () => {
    const listing = await register("raised-agent", 2);
    await writeMarketplace(target, renter, "purchasePerQuery", [listing.onChainId], PRICE * 10n);
    await index();
    await writeMarketplace(target, creator, "updateListing", [listing.onChainId, PRICE * 2n, listing.metadata_uri]);
    const error = await refusal(listing.listing_id);
    expect(error).toMatchObject({ status: 403, code: "price_not_agreed", onChainError: undefined });
    expect(error.message).toContain(`${PRICE * 2n} wei`);
    expect(error.message).toContain(`${PRICE} wei`);
    await writeMarketplace(target, renter, "topUpBalance", [listing.onChainId], PRICE * 2n);
    await expect(checkExecutionAccess(ctx.services, renter.address, listing.listing_id)).resolves.toMatchObject({ priceWei: PRICE * 2n });
  });

  it("refuses an empty per-task balance with insufficient_balance", async () => {
    const listing = await register("per-task-agent", 2);
    await writeMarketplace(target, renter, "purchasePerQuery", [listing.onChainId], PRICE);
    await index();
    await expect(checkExecutionAccess(ctx.services, renter.address, listing.listing_id)).resolves.toMatchObject({ rentalModel: "per_query", balanceWei: PRICE });
    await writeMarketplace(target, ctx.authority, "consumeQuery", [listing.onChainId, renter.address, keccak256(toHex("run-1")), PRICE]);
    const error = await refusal(listing.listing_id);
    expect(error).toMatchObject({ code: "insufficient_balance", onChainError: { error: "InsufficientBalance" } });
  });

  it("refuses a per-task balance above zero but below one run at the current price with insufficient_balance", async () => {
    const listing = await register("per-task-raised", 2);
    await writeMarketplace(target, renter, "purchasePerQuery", [listing.onChainId], PRICE);
    await index();
    await writeMarketplace(target, creator, "updateListing", [listing.onChainId, PRICE + 1n, listing.metadata_uri]);
    const error = await refusal(listing.listing_id);
    expect(error).toMatchObject({ status: 403, code: "insufficient_balance", onChainError: { error: "InsufficientBalance" } });
  });

  it("refuses a revoked credential and a closed listing with codes of their own", async () => {
    const revoked = await register("revoking-agent", 0);
    await writeMarketplace(target, renter, "purchaseOneTime", [revoked.onChainId], PRICE);
    await writeMarketplace(target, creator, "revokeAccess", [revoked.onChainId, renter.address]);
    expect(await refusal(revoked.listing_id)).toMatchObject({ code: "credential_revoked", onChainError: { error: "CredentialRevoked" } });

    const closed = await register("closing-agent", 0);
    await writeMarketplace(target, renter, "purchaseOneTime", [closed.onChainId], PRICE);
    const [, escrow] = await ctx.services.chain.client.readContract({ address: target.marketplace, abi: (await import("@agent-rental/core/marketplace")).marketplaceAbi, functionName: "listings", args: [closed.onChainId] });
    await writeMarketplace(target, creator, "withdrawEarnings", [closed.onChainId, escrow]);
    await writeMarketplace(target, creator, "setListingActive", [closed.onChainId, false]);
    await writeMarketplace(target, creator, "closeListing", [closed.onChainId]);
    expect((await refusal(closed.listing_id)).code).toBe("listing_closed");
  });

  it("does not reveal unpublished, unknown or malformed listings", async () => {
    const unreviewed = await register("unreviewed-agent", 0, false);
    await writeMarketplace(target, renter, "purchaseOneTime", [unreviewed.onChainId], PRICE);
    expect((await refusal(unreviewed.listing_id)).code).toBe("listing_not_found");
    expect((await refusal(`lst_${"c".repeat(64)}`)).code).toBe("listing_not_found");
    expect((await refusal("ghost-agent-0badc0de")).code).toBe("listing_not_found");
    for (const bad of ["lst_12", "NOT AN ID", "0x1234"]) expect((await refusal(bad)).code).toBe("invalid_listing_id");
  });

  it("answers 503 when the chain cannot be reached, whatever the index says", async () => {
    const listing = await register("offline-agent", 0);
    await writeMarketplace(target, renter, "purchaseOneTime", [listing.onChainId], PRICE);
    await index();
    const offline = createServices(ctx.config, { logger: ctx.services.logger, tables: ctx.services.tables, chain: createChainClient({ rpcUrl: "http://127.0.0.1:1", chainId: LOCAL_CHAIN_ID, marketplace: target.marketplace }) });
    const error = await checkExecutionAccess(offline, renter.address, listing.listing_id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "service_unavailable", status: 503 });
  });
});
