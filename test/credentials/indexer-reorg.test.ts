// The chain indexer and the ERC-8004 indexer on a chain that reorganises, on a real Hardhat node of the
// suite's own with a finality depth of 8 blocks (the index shows a block at once, INDEXER_CONFIRMATIONS 0,
// and undoes it if a reorganisation takes it away). A reorganisation is an evm_revert to a snapshot taken
// before the transaction, then either more empty blocks than were taken away (the transaction gone for
// good) or another transaction in its place (the same block number, another hash):
//  - a purchase gone for good: the credential leaves GET /v1/credentials and execution is refused;
//  - a listing's creation and a price change gone: the listing is as before;
//  - a verified feedback gone: the listing's figures drop back, and the run may be rated again; the
//    creator's analytics count it only once final, so never the one taken away;
//  - a purchase replaced by another: the index shows the new one;
//  - the creator's analytics count a purchase once its block is final: one taken away before that never;
//  - a round that stopped after its writes, before its range was closed, keeps the images of before them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { createPublicClient, createWalletClient, http, parseEther, parseEventLogs, type Hex } from "viem";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { runJob } from "../../src/jobs.ts";
import { chainListingKey, getChainListing } from "../../src/listings/chain-listing.store.ts";
import { listJournalRanges, openJournalRange, restoreJournalRanges } from "../../src/adapters/tables/undo-journal.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { startWorldOn, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import { DAYS_30, DAYS_90, type Account } from "../support/chain-actions.ts";
import { startSuiteChain } from "../settlement/support.ts";

let node: Awaited<ReturnType<typeof startSuiteChain>>;
let world: World;
let listing: PublishedAgent & { webhookSecret: string };
let creator: { account: Account; token: string };

async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return (await world.services.chain.client.request({ method: method as never, params: params as never })) as T;
}
const head = () => world.services.chain.client.getBlockNumber({ cacheTime: 0 });

/** A snapshot before what a test does, and the reorganisation that takes it away for good: back to the
 * snapshot, then one block more than was taken (a higher head on another chain). */
async function beforeReorg(): Promise<{ takeAway(): Promise<void>; revert(): Promise<void> }> {
  const snapshot = await rpc<Hex>("evm_snapshot");
  const from = await head();
  const revert = async () => expect(await rpc("evm_revert", [snapshot])).toBe(true);
  return {
    revert,
    async takeAway() {
      const before = await head();
      await revert();
      await rpc("hardhat_mine", [`0x${(before - from + 1n).toString(16)}`]);
    },
  };
}

async function send(account: Account, tx: { to: Hex; data: Hex }) {
  const wallet = createWalletClient({ account, chain: world.services.chain.chain, transport: http(world.rpcUrl) });
  const client = createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) });
  const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: tx.to, data: tx.data }), pollingInterval: 50 });
  expect(receipt.status).toBe("success");
  return receipt;
}

const request = (path: string, token: string, body?: unknown) =>
  world.app.request(path, body === undefined ? { headers: { authorization: `Bearer ${token}` } } : { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });

async function get<T>(path: string, token: string): Promise<T> {
  const res = await request(path, token);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

type CredentialItem = { on_chain_listing_id: string; rental_model: string; status: string; expires_at: string | null; purchased_at: string };
const credentials = async (renter: Renter) => (await get<{ credentials: CredentialItem[] }>("/v1/credentials", renter.key)).credentials;

beforeAll(async () => {
  node = await startSuiteChain();
  world = await startWorldOn(
    { ...sharedInfrastructure(), rpcUrl: node.rpcUrl },
    { settler: false, env: { FINALITY_DEPTH: "8", CATALOGUE_REFRESH_MS: "0" }, agent: { handler: (call) => call.output({ findings: [`done: ${call.task}`] }) } },
  );
  listing = await world.publishConnected("reorg-summarizer", { rental: "one_time" });
  creator = await world.creator();
}, 180_000);

afterAll(async () => {
  await world?.close();
  await node?.stop();
});

describe("the chain indexer through a reorganisation", () => {
  it("a purchase gone for good: the credential leaves GET /v1/credentials and execution is refused", async () => {
    const renter = await world.renter();
    const reorg = await beforeReorg();
    await world.market.purchaseOneTime(renter.account, listing.onChainId);
    await world.index();
    expect((await credentials(renter)).map((c) => c.on_chain_listing_id)).toEqual([listing.onChainId.toLowerCase()]);
    await reorg.takeAway();
    await world.index();
    expect(await credentials(renter)).toEqual([]);
    const res = await request("/v1/execute", renter.key, { agent_id: listing.agent_id, task: "Summarize", input: { q: "x" } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("credential_not_found");
  }, 60_000);

  it("a listing's creation and a price change gone: the listing is as it was", async () => {
    const before = await get<{ price_units: string }>(`/v1/listings/${listing.listing_id}`, creator.token);
    const reorg = await beforeReorg();
    const created = await world.market.createListing(creator.account, { accessType: "per_query", price: parseEther("0.002") });
    const wallet = createWalletClient({ account: creator.account, chain: world.services.chain.chain, transport: http(world.rpcUrl) });
    const uri = (await getChainListing(world.services.tables, listing.onChainId))!.metadata_uri!;
    const hash = await wallet.writeContract({ address: world.services.chain.marketplace, abi: marketplaceAbi, functionName: "updateListing", args: [listing.onChainId, BigInt(before.price_units) * 3n, uri] });
    await world.services.chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await world.index();
    expect(await getChainListing(world.services.tables, created.listingId)).toMatchObject({ status: "active" });
    expect((await get<{ price_units: string }>(`/v1/listings/${listing.listing_id}`, creator.token)).price_units).toBe((BigInt(before.price_units) * 3n).toString());
    await reorg.takeAway();
    await world.index();
    expect(await getChainListing(world.services.tables, created.listingId)).toBeNull();
    expect(await get(`/v1/listings/${listing.listing_id}`, creator.token)).toEqual(before);
  }, 60_000);

  it("a purchase replaced by another in the same block number: the index shows the new one", async () => {
    const renter = await world.renter();
    const { listingId } = await world.market.createListing(creator.account, { accessType: "subscription", price: parseEther("0.001") });
    await world.index();
    const reorg = await beforeReorg();
    const first = await world.market.purchaseSubscription(renter.account, listingId, DAYS_30);
    await world.index();
    expect(await credentials(renter)).toMatchObject([{ on_chain_listing_id: listingId.toLowerCase(), expires_at: new Date((first.blockTime + Number(DAYS_30)) * 1000).toISOString() }]);
    await reorg.revert();
    // Another purchase where the first was: the same block number and log index, on another chain.
    const second = await world.market.purchaseSubscription(renter.account, listingId, DAYS_90);
    expect(second.blockNumber).toBe(first.blockNumber);
    expect(second.receipt.blockHash).not.toBe(first.receipt.blockHash);
    await world.index();
    expect(await credentials(renter)).toMatchObject([{ on_chain_listing_id: listingId.toLowerCase(), expires_at: new Date((second.blockTime + Number(DAYS_90)) * 1000).toISOString() }]);
  }, 60_000);
});

describe("the creator's analytics through a reorganisation", () => {
  type Totals = { totals: { revenue: { gross_wei: string } }; reconciliation: { block: string | null; matches: boolean } };
  const analytics = () => get<Totals>("/v1/creators/me/analytics", creator.token);
  const mine = (blocks: number) => rpc("hardhat_mine", [`0x${blocks.toString(16)}`]);

  it("counts a purchase once its block is final: one taken away before that is never counted, the one on the new chain once", async () => {
    const price = BigInt((await get<{ price_units: string }>(`/v1/listings/${listing.listing_id}`, creator.token)).price_units);
    await mine(9);
    await world.index();
    const before = BigInt((await analytics()).totals.revenue.gross_wei);
    const renter = await world.renter();
    const reorg = await beforeReorg();
    await world.market.purchaseOneTime(renter.account, listing.onChainId);
    await world.index();
    // Indexed (the credential is there) but not final: not counted yet.
    expect((await credentials(renter)).map((c) => c.on_chain_listing_id)).toEqual([listing.onChainId.toLowerCase()]);
    expect(BigInt((await analytics()).totals.revenue.gross_wei)).toBe(before);
    await reorg.takeAway();
    await mine(9);
    await world.index();
    // The purchase left the chain before it was final: never counted, and the figures match the chain.
    expect(BigInt((await analytics()).totals.revenue.gross_wei)).toBe(before);
    // Bought again on the new chain: counted once its block is the finality depth (8) under the head.
    await world.market.purchaseOneTime(renter.account, listing.onChainId);
    await world.index();
    expect(BigInt((await analytics()).totals.revenue.gross_wei)).toBe(before);
    await mine(8);
    await world.index();
    const after = await analytics();
    expect(BigInt(after.totals.revenue.gross_wei)).toBe(before + price);
    expect(after.reconciliation).toMatchObject({ matches: true, block: ((await head()) - 8n).toString() });
    await mine(3);
    await world.index();
    expect(BigInt((await analytics()).totals.revenue.gross_wei)).toBe(before + price);
  }, 60_000);
});

describe("the ERC-8004 indexer through a reorganisation", () => {
  it("a verified feedback gone for good: the listing's figures drop back, and its run may be rated again", async () => {
    // The listing registered as the creator's agent, and a renter's run of it logged.
    const step1 = (await (await request(`/v1/listings/${listing.listing_id}/erc8004`, creator.token, {})).json()) as { transaction: { to: Hex; data: Hex } };
    const registered = await send(creator.account, step1.transaction);
    const agentId = parseEventLogs({ abi: identityRegistryAbi, logs: registered.logs, eventName: "Registered" })[0]!.args.agentId;
    const step2 = (await (await request(`/v1/listings/${listing.listing_id}/erc8004`, creator.token, { agent_id: agentId.toString() })).json()) as { transaction: { to: Hex; data: Hex } };
    await send(creator.account, step2.transaction);
    const renter = await world.renter();
    await world.rent(renter.account, listing);
    const run = (await (await request("/v1/execute", renter.key, { agent_id: listing.agent_id, task: "Summarize", input: { q: "x" } })).json()) as { run_id: string; status: string };
    expect(run.status).toBe("completed");
    await runJob(world.services, "settler");
    const feedback = await request(`/v1/runs/${run.run_id}/feedback`, renter.token, { value: 80, text: "Fine." });
    expect(feedback.status).toBe(200);
    const { transaction } = (await feedback.json()) as { transaction: { to: Hex; data: Hex } };
    await world.index();
    const reputation = () => get<{ rating: number; review_count: number; unverified_count: number; feedback: { verified: boolean }[] }>(`/v1/listings/${listing.listing_id}/reputation`, renter.token);
    expect(await reputation()).toMatchObject({ review_count: 0, unverified_count: 0, feedback: [] });

    // The creator's analytics count verified feedback once its block is final (the depth, 8, under the head).
    const verifiedInAnalytics = async () => (await get<{ totals: { reputation: { verified_feedback: number } } }>(`/v1/creators/me/listings/${listing.listing_id}/analytics`, creator.token)).totals.reputation.verified_feedback;
    const mine = (blocks: number) => rpc("hardhat_mine", [`0x${blocks.toString(16)}`]);
    await mine(9);
    await world.index();
    const counted = await verifiedInAnalytics();

    const reorg = await beforeReorg();
    await send(renter.account, transaction);
    await world.index();
    expect(await reputation()).toMatchObject({ rating: 4, review_count: 1, unverified_count: 0 });
    expect(await verifiedInAnalytics()).toBe(counted);
    await reorg.takeAway();
    await mine(9);
    await world.index();
    expect(await reputation()).toMatchObject({ rating: 0, review_count: 0, unverified_count: 0, feedback: [] });
    // Taken away before it was final: never counted in the analytics.
    expect(await verifiedInAnalytics()).toBe(counted);
    // Given again on the new chain, it counts: the run's claim left with the feedback that held it.
    await send(renter.account, transaction);
    await world.index();
    expect(await reputation()).toMatchObject({ rating: 4, review_count: 1, unverified_count: 0, feedback: [{ verified: true }] });
    expect(await verifiedInAnalytics()).toBe(counted);
    await mine(8);
    await world.index();
    expect(await verifiedInAnalytics()).toBe(counted + 1);
    await mine(2);
    await world.index();
    expect(await verifiedInAnalytics()).toBe(counted + 1);
  }, 120_000);
});

describe("the undo journal", () => {
  it("a round that stopped between its writes and its close keeps the images taken before them, and an undo writes them back", async () => {
    const { tables } = world.services;
    const name = `test#${Date.now()}`;
    const key = chainListingKey(`0x${"ab".repeat(32)}`);
    const put = (price: string) => tables.doc.send(new PutCommand({ TableName: tables.name("chain_listings"), Item: { ...key, price_wei: price, position: price } }));
    await put("1");
    const first = await openJournalRange(tables, name, 100n);
    await first.capture("chain_listings", [key]);
    await put("2");
    // The round stops here; the next one opens the same range again and writes again.
    const again = await openJournalRange(tables, name, 100n);
    await again.capture("chain_listings", [key, chainListingKey(`0x${"cd".repeat(32)}`)]);
    await put("3");
    await again.close(105n, "0x01");
    const [range] = await listJournalRanges(tables, name);
    expect(range).toMatchObject({ from: 100n, to: 105n, hash: "0x01" });
    expect(range!.images.map((image) => image.item?.price_wei ?? null)).toEqual(["1", null]);
    await restoreJournalRanges(tables, [range!]);
    expect(await getChainListing(tables, `0x${"ab".repeat(32)}`)).toMatchObject({ price_wei: "1" });
    expect(await getChainListing(tables, `0x${"cd".repeat(32)}`)).toBeNull();
  });
});
