// An expired subscription is refused before any agent work: the access check (step two of the two-step
// check) and POST /v1/execute (and /v1/execute/stream) answer 403 `credential_expired` (without
// on_chain_error: the contract has no custom error for expiry), and the agent receives nothing. Expiry
// needs chain time to move, and the shared Hardhat node of the test run must not be time-travelled
// (other files run on it in parallel), so this file runs on a Hardhat node of its own, with a
// marketplace, tables, queues and a bucket of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestClient, http, parseEther } from "viem";
import { ApiError } from "../../src/errors.ts";
import { readChainCredential } from "../../src/credentials/verify.ts";
import { checkExecutionAccess } from "../../src/execution/access.ts";
import { startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import { DAYS_30, type Account, type TxResult } from "../support/chain-actions.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { startWorldOn, type PublishedAgent, type World } from "../support/world.ts";

const PRICE = parseEther("0.001");
/** The contract's CredentialStatus.Expired. */
const CHAIN_EXPIRED = 2;

interface ErrorEnvelope {
  error: { code: string; message: string; status: number; request_id: string; on_chain_error?: { contract: string; error: string } };
}

describe("an expired subscription (own node, chain time moves)", () => {
  let node: ChainNode;
  let world: World;
  let renter: Account;
  let renterKey: string;
  let listing: PublishedAgent;
  let purchase: TxResult;
  let expiresAt: number;
  /** Every request the connected agent received, with whether its webhook signature verified. */
  const deliveries = () => world.agent.deliveries.map(({ task, verified }) => ({ task, verified }));

  const execute = (agentId: string, task: string, path = "/v1/execute") =>
    world.app.request(path, { method: "POST", headers: { authorization: `Bearer ${renterKey}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agentId, task }) });

  const runCount = async () => ((await (await world.app.request(`/v1/listings/${listing.listing_id}`, { headers: { authorization: `Bearer ${renterKey}` } })).json()) as { run_count: number }).run_count;

  beforeAll(async () => {
    node = await startChain({ port: await freePort() });
    // The shared emulators, with tables, queues and a bucket of this file's own; this node for the chain.
    world = await startWorldOn({ ...sharedInfrastructure(), rpcUrl: node.rpcUrl }, { serve: false, agent: true });

    // A connected agent published through the real pipeline as a subscription: registration through
    // the queue's consumer, the creator's createListing on this node, the authority's approval, and
    // its webhook secret.
    listing = await world.publishConnected("expiring-agent", {
      manifest: { description: "A connected test agent rented by subscription", timeout_seconds: 10 },
      rental: "subscription",
      price: "0.001",
    });
    const creator = (await world.creator()).account;
    expect(await world.market.listingIdOf(creator.address, listing.listing_seed)).toBe(listing.onChainId);

    // The renter buys 30 days and gets an API key; the index catches up with the purchase.
    ({ account: renter, key: renterKey } = await world.renter());
    purchase = await world.market.purchaseSubscription(renter, listing.onChainId, DAYS_30);
    expiresAt = purchase.blockTime + Number(DAYS_30);
    await world.index();
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await node?.stop();
  });

  it("admits the live subscription: the access check resolves and a run reaches the agent", async () => {
    const credential = await readChainCredential(world.services.chain, listing.onChainId, renter.address);
    expect(credential).toMatchObject({ status: "active", rentalModel: "subscription", expiresAt });
    for (const id of [listing.agent_id, listing.listing_id, listing.onChainId]) {
      await expect(checkExecutionAccess(world.services, renter.address, id)).resolves.toMatchObject({
        listingId: listing.listing_id,
        onChainId: listing.onChainId,
        rentalModel: "subscription",
        priceWei: PRICE,
        balanceWei: 0n,
      });
    }
    const res = await execute(listing.agent_id, "before the expiry");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ agent_id: listing.agent_id, status: "completed", cost_wei: 0, output: { findings: ["done: before the expiry"] } });
    expect(deliveries()).toEqual([{ task: "before the expiry", verified: true }]);
    expect(await runCount()).toBe(1);
  });

  it("still admits a minute before the expiry", async () => {
    const test = createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
    await test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt - 60) });
    await test.mine({ blocks: 1 });
    expect(await world.market.credentialStatus(listing.onChainId, renter.address)).toBe(1);
    await expect(checkExecutionAccess(world.services, renter.address, listing.agent_id)).resolves.toMatchObject({ rentalModel: "subscription" });
  });

  describe("once chain time passes the expiry", () => {
    beforeAll(async () => {
      const test = createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
      await test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt + 1) });
      await test.mine({ blocks: 1 });
      const latest = await world.market.client.getBlock();
      expect(Number(latest.timestamp)).toBeGreaterThan(expiresAt);
      // The contract itself now calls the credential expired.
      expect(await world.market.credentialStatus(listing.onChainId, renter.address)).toBe(CHAIN_EXPIRED);
    });

    it("the access check refuses with credential_expired (403), by every id", async () => {
      for (const id of [listing.agent_id, listing.listing_id, listing.onChainId]) {
        const error = await checkExecutionAccess(world.services, renter.address, id).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        const apiError = error as ApiError;
        expect(apiError.code).toBe("credential_expired");
        expect(apiError.status).toBe(403);
        // no contract custom error means "expired" (the contract reports it as a status)
        expect(apiError.onChainError).toBeUndefined();
        expect(apiError.message).toMatch(/expired/i);
        expect(apiError.message).toContain("renewSubscription");
      }
    });

    it("POST /v1/execute answers 403 credential_expired in the error envelope, and nothing reaches the agent", async () => {
      const before = deliveries().length;
      for (const id of [listing.agent_id, listing.listing_id]) {
        const res = await execute(id, "after the expiry");
        expect(res.status).toBe(403);
        expect(res.headers.get("content-type")).toContain("application/json");
        const body = (await res.json()) as ErrorEnvelope;
        expect(Object.keys(body)).toEqual(["error"]);
        expect(Object.keys(body.error).sort()).toEqual(["code", "message", "request_id", "status"]);
        expect(body.error).toMatchObject({ code: "credential_expired", status: 403 });
        expect(body.error.message).toContain("renewSubscription");
        expect(body.error.request_id).toMatch(/\S/);
        expect(res.headers.get("x-request-id")).toBe(body.error.request_id);
      }
      expect(deliveries().length).toBe(before);
      expect(await runCount()).toBe(1);
    });

    it("POST /v1/execute/stream refuses the same way before the stream opens", async () => {
      const before = deliveries().length;
      const res = await execute(listing.agent_id, "stream after the expiry", "/v1/execute/stream");
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/json");
      const error = ((await res.json()) as ErrorEnvelope).error;
      expect(error).toMatchObject({ code: "credential_expired", status: 403 });
      expect(error.on_chain_error).toBeUndefined();
      expect(deliveries().length).toBe(before);
      expect(await runCount()).toBe(1);
    });
  });
});
