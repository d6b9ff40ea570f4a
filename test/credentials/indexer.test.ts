// The chain indexer against a real Hardhat node and real (dynalite) tables: every kind of marketplace
// event ends up as exactly the right rows; replaying any block range changes nothing; the cursor
// survives a new indexer instance; other contracts' events are ignored; and a confirmation depth of N
// keeps the last N blocks (and a reorged purchase) out of the index. The confirmation and reorg tests
// mine blocks and revert the chain, so they run on a Hardhat node of their own.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { createTestClient, http, parseEther, type Address, type Hex } from "viem";
import { startChain, LOCAL_CHAIN_ID, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import { createChainClient } from "../../src/chain/client.ts";
import { createTables, type Tables } from "../../src/adapters/tables/dynamo.ts";
import { catchUp, indexOnce, readCursor, type IndexerOptions } from "../../src/credentials/indexer.ts";
import { startJobs } from "../../src/jobs.ts";
import { createServicesOn, DAYS_30, DAYS_90, fundAccount, market, deployOn, type Account, type ServicesOn } from "../support/chain-actions.ts";

const P = 10n ** 15n;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const lower = (address: Address) => address.toLowerCase();

type Item = Record<string, unknown>;

async function scan(tables: Tables, table: "credentials" | "chain_listings" | "meta"): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(new ScanCommand({ TableName: tables.name(table), ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...((page.Items ?? []) as Item[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

const snapshot = async (tables: Tables) => ({ credentials: await scan(tables, "credentials"), chain_listings: await scan(tables, "chain_listings") });

/** indexOnce until caught up, summing the rounds. */
async function indexAll(options: IndexerOptions): Promise<{ rounds: number; events: number; writes: number; from: bigint; to: bigint }> {
  const total = { rounds: 0, events: 0, writes: 0, from: -1n, to: -1n };
  for (;;) {
    const round = await indexOnce(options);
    if (total.rounds === 0) total.from = round.fromBlock;
    total.to = round.toBlock;
    total.rounds++;
    total.events += round.events;
    total.writes += round.writes;
    if (round.caughtUp) return total;
  }
}

function credentialRow(wallet: Address, listingId: Hex, fields: Item): Item {
  return {
    pk: `wallet#${lower(wallet)}`,
    sk: `listing#${listingId}`,
    wallet: lower(wallet),
    on_chain_listing_id: listingId,
    gsi1pk: `listing#${listingId}`,
    gsi1sk: `wallet#${lower(wallet)}`,
    ...fields,
  };
}

describe("chain indexer on the shared node", () => {
  let env: ServicesOn;
  let options: IndexerOptions;
  let creator: Account;
  const renters: Account[] = [];
  const ids: Record<"oneTime" | "subscription" | "perQuery" | "closed", Hex> = {} as never;
  let seedOfOneTime: Hex;
  const expected: { credentials: Item[]; chain_listings: Item[] } = { credentials: [], chain_listings: [] };

  beforeAll(async () => {
    env = await createServicesOn({ rpcUrl: inject("rpcUrl"), dynamoEndpoint: inject("dynamoEndpoint") });
    options = { tables: env.services.tables, chain: env.services.chain, logger: env.services.logger, fromBlock: env.deployBlock, confirmations: 0 };
    creator = await fundAccount(inject("rpcUrl"));
    for (let i = 0; i < 4; i++) renters.push(await fundAccount(inject("rpcUrl")));
  });

  it("builds exactly the right credential and listing rows from purchases, top-ups, consumption, revocation, pause and close", async () => {
    const m = env.market;
    const [r1, r2, r3, r4] = renters as [Account, Account, Account, Account];

    // one_time, bought then revoked; the listing then paused.
    const l1 = await m.createListing(creator, { accessType: "one_time", price: P, uri: "ipfs://one-time" });
    ids.oneTime = l1.listingId;
    seedOfOneTime = l1.seed;
    const bought1 = await m.purchaseOneTime(r1, l1.listingId);
    const revoked1 = await m.revoke(creator, l1.listingId, r1.address);
    const paused1 = await m.setListingActive(creator, l1.listingId, false);

    // subscription: 30 days, renewed by 90 days while active (expiry extends from the old expiry).
    const l2 = await m.createListing(creator, { accessType: "subscription", price: 2n * P, uri: "ipfs://subscription" });
    ids.subscription = l2.listingId;
    const bought2 = await m.purchaseSubscription(r2, l2.listingId, DAYS_30);
    const renewed2 = await m.renewSubscription(r2, l2.listingId, DAYS_90);

    // per_query: r3 deposits 3P, tops up 2P, one run consumed (4P left); r4 deposits 1.5P, one run
    // consumed (0.5P, below one run), asks to withdraw the rest (marked), is revoked and withdraws at
    // once (0, the mark cleared).
    const l3 = await m.createListing(creator, { accessType: "per_query", price: P, uri: "ipfs://per-query" });
    ids.perQuery = l3.listingId;
    const bought3 = await m.purchasePerQuery(r3, l3.listingId, 3n * P);
    await m.topUpBalance(r3, l3.listingId, 2n * P);
    const consumed3 = await m.consumeQuery(env.authority, l3.listingId, r3.address);
    const bought4 = await m.purchasePerQuery(r4, l3.listingId, (3n * P) / 2n);
    await m.consumeQuery(env.authority, l3.listingId, r4.address);
    const requested4 = await m.requestBalanceWithdrawal(r4, l3.listingId);
    // 3 from the constructor, then 4 + 3 + 7 so far.
    expect((await catchUp(options)).events).toBe(17);
    const credentialItem = async (wallet: Address, listingId: Hex) => (await scan(env.services.tables, "credentials")).find((row) => row.pk === `wallet#${lower(wallet)}` && row.sk === `listing#${listingId}`);
    expect(await credentialItem(r4.address, l3.listingId)).toMatchObject({ balance_wei: (P / 2n).toString(), withdrawal_requested: true, position: requested4.lastPosition });
    await m.revoke(creator, l3.listingId, r4.address);
    const withdrawn4 = await m.withdrawUnspentBalance(r4, l3.listingId);

    // one_time bought by r2, then the listing is closed with its earnings withdrawn (closeListingAndWithdraw).
    const l4 = await m.createListing(creator, { accessType: "one_time", price: P, uri: "ipfs://closed" });
    ids.closed = l4.listingId;
    const bought5 = await m.purchaseOneTime(r2, l4.listingId);
    const closed4 = await m.closeListing(creator, l4.listingId);

    const result = await catchUp(options);
    // The rest since the first catch-up: r4's revocation and withdrawal, then l4's 4 (created, bought, the
    // earnings withdrawn and the close).
    expect(result.events).toBe(6);
    const head = await env.market.client.getBlockNumber({ cacheTime: 0 });
    expect(await readCursor(options)).toBeGreaterThan(closed4.blockNumber);
    expect(await readCursor(options)).toBeLessThanOrEqual(head + 1n);

    expected.credentials = [
      credentialRow(r1.address, l1.listingId, { rental_model: "one_time", purchased_at: iso(bought1.blockTime), expires_at: null, revoked: true, position: revoked1.lastPosition }),
      credentialRow(r2.address, l2.listingId, {
        rental_model: "subscription",
        purchased_at: iso(bought2.blockTime),
        expires_at: bought2.blockTime + Number(DAYS_30) + Number(DAYS_90),
        revoked: false,
        position: renewed2.lastPosition,
      }),
      credentialRow(r3.address, l3.listingId, { rental_model: "per_query", purchased_at: iso(bought3.blockTime), balance_wei: (4n * P).toString(), revoked: false, withdrawal_requested: false, position: consumed3.lastPosition }),
      credentialRow(r4.address, l3.listingId, { rental_model: "per_query", purchased_at: iso(bought4.blockTime), balance_wei: "0", revoked: true, withdrawal_requested: false, position: withdrawn4.lastPosition }),
      credentialRow(r2.address, l4.listingId, { rental_model: "one_time", purchased_at: iso(bought5.blockTime), expires_at: null, revoked: false, position: bought5.lastPosition }),
    ];
    const listingRow = (l: typeof l1, model: string, price: bigint, uri: string, status: string, last: typeof l1 | typeof paused1) => ({
      pk: `listing#${l.listingId}`,
      sk: "chain",
      on_chain_listing_id: l.listingId,
      creator: lower(creator.address),
      rental_model: model,
      price_wei: price.toString(),
      metadata_uri: uri,
      status,
      created_block: l.blockNumber.toString(),
      position: last.lastPosition,
    });
    expected.chain_listings = [
      listingRow(l1, "one_time", P, "ipfs://one-time", "paused", paused1),
      listingRow(l2, "subscription", 2n * P, "ipfs://subscription", "active", l2),
      listingRow(l3, "per_query", P, "ipfs://per-query", "active", l3),
      listingRow(l4, "one_time", P, "ipfs://closed", "closed", closed4),
    ];
    const byKey = (a: Item, b: Item) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`);
    expected.credentials.sort(byKey);
    expected.chain_listings.sort(byKey);

    const tables = await snapshot(env.services.tables);
    expect(tables.credentials).toEqual(expected.credentials);
    expect(tables.chain_listings).toEqual(expected.chain_listings);
  });

  it("replays the whole range from a reset cursor, in one round or in small chunks, without a single write", async () => {
    const before = await snapshot(env.services.tables);
    expect(before.credentials).toHaveLength(5);
    // The index's cursor, and the analytics' count of money events beside it (at the same block: a
    // finality depth of 0 counts a block as it is indexed).
    const cursors = (await scan(env.services.tables, "meta")).filter((item) => item.pk === "cursor");
    const cursorItems = cursors.filter((item) => !String(item.sk).includes("#facts#"));
    expect(cursorItems).toHaveLength(1);
    expect(cursors.filter((item) => String(item.sk).includes("#facts#")).map((item) => item.next_block)).toEqual([cursorItems[0]!.next_block]);

    const resetCursor = () =>
      env.services.tables.doc.send(new PutCommand({ TableName: env.services.tables.name("meta"), Item: { ...cursorItems[0], next_block: env.deployBlock.toString() } }));

    await resetCursor();
    expect(await readCursor(options)).toBe(env.deployBlock);
    const whole = await indexAll(options);
    expect(whole.from).toBe(env.deployBlock);
    expect(whole.events).toBe(23); // the 17 and the 6 of the first test
    expect(whole.writes).toBe(0);
    expect(await snapshot(env.services.tables)).toEqual(before);

    // The same range again in chunks of 2 blocks: every fold now covers a suffix of a key's events.
    await resetCursor();
    const chunked = await indexAll({ ...options, chunkSize: 2 });
    expect(chunked.rounds).toBeGreaterThan(5);
    expect(chunked.events).toBe(whole.events);
    expect(chunked.writes).toBe(0);
    expect(await snapshot(env.services.tables)).toEqual(before);

    // And once more with the cursor already at the head: nothing to read, nothing written.
    const again = await indexOnce(options);
    expect(again.writes).toBe(0);
    expect(await snapshot(env.services.tables)).toEqual(before);
  });

  it("keeps its cursor across indexer instances and resumes where the last one stopped", async () => {
    const cursor = await readCursor(options);
    // A second instance: its own DynamoDB client and its own chain client, same marketplace and start.
    const other: IndexerOptions = {
      tables: createTables({ region: env.config.AWS_REGION, prefix: env.config.TABLE_PREFIX, endpoint: inject("dynamoEndpoint") }),
      chain: createChainClient({ rpcUrl: inject("rpcUrl"), chainId: LOCAL_CHAIN_ID, marketplace: env.market.marketplace }),
      logger: env.services.logger,
      fromBlock: env.deployBlock,
      confirmations: 0,
    };
    expect(await readCursor(other)).toBe(cursor);

    const r3 = renters[2]!;
    const topUp = await env.market.topUpBalance(r3, ids.perQuery, P);
    const round = await indexAll(other);
    expect(round.from).toBe(cursor);
    expect(round.events).toBe(1);
    expect(round.writes).toBe(1);
    expect(await readCursor(options)).toBeGreaterThan(topUp.blockNumber);

    const rows = await scan(env.services.tables, "credentials");
    const row = rows.find((item) => item.pk === `wallet#${lower(r3.address)}` && item.sk === `listing#${ids.perQuery}`);
    expect(row).toMatchObject({ balance_wei: (5n * P).toString(), position: topUp.lastPosition });
    // Nothing else moved.
    expect(rows.filter((item) => item !== row)).toEqual(expected.credentials.filter((item) => item.pk !== row!.pk || item.sk !== row!.sk));
  });

  it("ignores the events of another contract at another address, even one with the same ABI", async () => {
    const before = await snapshot(env.services.tables);
    const rpcUrl = inject("rpcUrl");
    const otherMarket = await deployOn(rpcUrl);
    const m2 = market({ rpcUrl, marketplace: otherMarket.address });
    // The same creator and seed give the same listing id on the other marketplace; a renter of ours buys there.
    const l = await m2.createListing(creator, { accessType: "one_time", price: P, seed: seedOfOneTime });
    expect(l.listingId).toBe(ids.oneTime);
    await m2.purchaseOneTime(renters[3]!, l.listingId);
    const l2 = await m2.createListing(creator, { accessType: "per_query", price: P });
    await m2.purchasePerQuery(renters[0]!, l2.listingId, 2n * P);

    const round = await indexAll(options);
    expect(round.events).toBe(0);
    expect(round.writes).toBe(0);
    expect(await snapshot(env.services.tables)).toEqual(before);
  });

  it("runs as the indexer job, which picks up new events and stops cleanly", async () => {
    const r1 = renters[0]!;
    const loop = startJobs(env.services, { only: ["indexer"], everyMs: { indexer: 50 } });
    try {
      const bought = await env.market.purchaseSubscription(r1, ids.subscription, DAYS_30);
      const key = { pk: `wallet#${lower(r1.address)}`, sk: `listing#${ids.subscription}` };
      let row: Item | undefined;
      for (let i = 0; i < 200 && !row; i++) {
        row = (await scan(env.services.tables, "credentials")).find((item) => item.pk === key.pk && item.sk === key.sk);
        if (!row) await new Promise((r) => setTimeout(r, 25));
      }
      expect(row).toEqual(
        credentialRow(r1.address, ids.subscription, {
          rental_model: "subscription",
          purchased_at: iso(bought.blockTime),
          expires_at: bought.blockTime + Number(DAYS_30),
          revoked: false,
          position: bought.lastPosition,
        }),
      );
    } finally {
      await loop.stop();
    }
  });
});

describe("confirmation depth and reorgs (own node)", () => {
  let node: ChainNode;
  let env: ServicesOn;
  let creator: Account;
  let renter: Account;
  let listingId: Hex;
  const depth = 3;
  let options: IndexerOptions;
  const testClient = () => createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
  const rowOf = async (wallet: Address, id: Hex) =>
    (await scan(env.services.tables, "credentials")).find((item) => item.pk === `wallet#${lower(wallet)}` && item.sk === `listing#${id}`);

  beforeAll(async () => {
    node = await startChain({ port: await freePort() });
    env = await createServicesOn({ rpcUrl: node.rpcUrl, dynamoEndpoint: inject("dynamoEndpoint") });
    options = { tables: env.services.tables, chain: env.services.chain, logger: env.services.logger, fromBlock: env.deployBlock, confirmations: depth };
    creator = await fundAccount(node.rpcUrl);
    renter = await fundAccount(node.rpcUrl);
    ({ listingId } = await env.market.createListing(creator, { accessType: "per_query", price: P }));
    // Everything up to the listing confirmed and indexed, so the tests below see only their own events.
    await testClient().mine({ blocks: depth });
    await indexAll(options);
    expect(await readCursor(options)).toBe((await env.market.client.getBlockNumber({ cacheTime: 0 })) - BigInt(depth) + 1n);
  }, 90_000);

  afterAll(async () => {
    await node?.stop();
  });

  it(`leaves the last ${depth} blocks unindexed until ${depth} more blocks sit on top`, async () => {
    const bought = await env.market.purchasePerQuery(renter, listingId, 2n * P);
    const head = await env.market.client.getBlockNumber({ cacheTime: 0 });
    expect(head).toBe(bought.blockNumber);

    const first = await indexAll(options);
    expect(first.to).toBe(head - BigInt(depth));
    expect(await readCursor(options)).toBe(head - BigInt(depth) + 1n);
    expect(await rowOf(renter.address, listingId)).toBeUndefined();

    for (let mined = 1; mined < depth; mined++) {
      await testClient().mine({ blocks: 1 });
      const round = await indexAll(options);
      expect(round.events).toBe(0);
      expect(await rowOf(renter.address, listingId)).toBeUndefined();
    }
    await testClient().mine({ blocks: 1 });
    const last = await indexAll(options);
    expect(last.to).toBe(bought.blockNumber);
    expect(last.events).toBe(1);
    expect(last.writes).toBe(1);
    expect(await rowOf(renter.address, listingId)).toMatchObject({ rental_model: "per_query", balance_wei: (2n * P).toString(), position: bought.lastPosition });
  });

  it("never indexes a purchase that a reorg shallower than the depth removed", async () => {
    const other = await fundAccount(node.rpcUrl, "10");
    const test = testClient();
    const snapshotId = await test.snapshot();
    await env.market.purchasePerQuery(other, listingId, P);
    await test.mine({ blocks: depth - 1 });
    await indexAll(options);
    expect(await rowOf(other.address, listingId)).toBeUndefined();
    // The purchase's block and those on top are replaced by empty ones: the purchase never happened.
    await test.revert({ id: snapshotId });
    await test.mine({ blocks: depth + 2 });
    await indexAll(options);
    expect(await rowOf(other.address, listingId)).toBeUndefined();
    expect(await env.market.credentialStatus(listingId, other.address)).toBe(0);
    // Sanity: the balance the test account was given is untouched by the reorged purchase.
    expect(await env.market.client.getBalance({ address: other.address })).toBe(parseEther("10"));
  });

  it("a depth of 0 indexes the head block at once", async () => {
    const zero = { ...options, confirmations: 0 };
    const topUp = await env.market.topUpBalance(renter, listingId, P);
    const round = await indexAll(zero);
    expect(round.to).toBe(topUp.blockNumber);
    expect(await rowOf(renter.address, listingId)).toMatchObject({ balance_wei: (3n * P).toString(), position: topUp.lastPosition });
  });
});
