// GET /v1/credentials judges a subscription's expiry by the chain's time, as verification does, never
// by the server's clock. Chain time must move, and the shared node must not be time-travelled, so this
// file runs on a Hardhat node of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestClient, http, parseEther, type Hex } from "viem";
import { buildApp } from "../../src/api/app.ts";
import { catchUp } from "../../src/credentials/indexer.ts";
import { startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import { signIn } from "../support/auth.ts";
import { createServicesOn, DAYS_30, fundAccount, type Account, type ServicesOn } from "../support/chain-actions.ts";

interface CredentialList {
  credentials: { listing_id: string; status: string; expires_at: string | null }[];
  total: number;
}

describe("credential status in the list follows chain time (own node)", () => {
  let node: ChainNode;
  let env: ServicesOn;
  let app: ReturnType<typeof buildApp>;
  let renter: Account;
  let token: string;
  let listingId: string;
  let onChainId: Hex;
  let expiresAt: number;

  const list = async (query = "") => {
    const res = await app.request(`/v1/credentials${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as CredentialList;
  };
  const verify = async () => {
    const res = await app.request(`/v1/credentials/${listingId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as { status: string; valid: boolean };
  };

  beforeAll(async () => {
    node = await startChain({ port: await freePort() });
    env = await createServicesOn({ rpcUrl: node.rpcUrl, dynamoEndpoint: inject("dynamoEndpoint") });
    app = buildApp(env.services);
    const creator = await fundAccount(node.rpcUrl);
    renter = await fundAccount(node.rpcUrl);
    const created = await env.market.createListing(creator, { accessType: "subscription", price: parseEther("0.001") });
    onChainId = created.listingId;
    listingId = `lst_${onChainId.slice(2)}`;
    const purchase = await env.market.purchaseSubscription(renter, onChainId, DAYS_30);
    expiresAt = purchase.blockTime + Number(DAYS_30);
    await catchUp({ tables: env.services.tables, chain: env.services.chain, logger: env.services.logger, fromBlock: env.deployBlock, confirmations: 0 });
    token = (await signIn(app, renter)).token;
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([node?.stop(), env?.services.close()]);
  });

  it("lists the live subscription as active, as verification does", async () => {
    const all = await list();
    expect(all.credentials).toEqual([expect.objectContaining({ listing_id: listingId, status: "active", expires_at: new Date(expiresAt * 1000).toISOString() })]);
    expect((await list("?status=expired")).total).toBe(0);
    expect(await verify()).toMatchObject({ status: "active", valid: true });
  });

  it("lists it as expired once chain time passes the expiry, though the server's clock has not", async () => {
    const test = createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
    await test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt + 1) });
    await test.mine({ blocks: 1 });
    expect(Date.now() / 1000).toBeLessThan(expiresAt); // 30 days of wall time have not passed

    expect(await verify()).toMatchObject({ status: "expired", valid: false });
    const expired = await list("?status=expired");
    expect(expired.total).toBe(1);
    expect(expired.credentials[0]).toMatchObject({ listing_id: listingId, status: "expired" });
    expect((await list("?status=active")).total).toBe(0);
    expect((await list()).credentials[0]!.status).toBe("expired");
  });
});
