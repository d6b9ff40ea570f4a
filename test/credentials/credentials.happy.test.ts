// The credentials API through the real app: GET /v1/credentials (the index, the spec's fields, status
// filter, pagination with total) and GET /v1/credentials/:listing_id (the spec's shapes, verified
// against the contract, with the local record repaired when it disagrees with the chain). Expiry needs
// chain time to move, so the expired-subscription case runs on a Hardhat node of its own.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { createTestClient, http, toHex, type Address, type Hex } from "viem";
import { randomBytes } from "node:crypto";
import { buildApp } from "../../src/api/app.ts";
import { catchUp } from "../../src/credentials/indexer.ts";
import { credentialKey } from "../../src/credentials/credential.store.ts";
import { startChain, type ChainNode } from "../../local/chain.ts";
import { freePort } from "../../local/ports.ts";
import type { Tables } from "../../src/adapters/tables/dynamo.ts";
import type { Services } from "../../src/services.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { createServicesOn, DAYS_30, fundAccount, market, type Account, type Market, type ServicesOn, type TxResult } from "../support/chain-actions.ts";

const P = 10n ** 15n;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const apiId = (onChainId: Hex) => `lst_${onChainId.slice(2)}`;

const LIST_ITEM_KEYS = ["expires_at", "listing_id", "listing_title", "on_chain_listing_id", "purchased_at", "rental_model", "status"];
const VALID_KEYS = ["listing_id", "on_chain_listing_id", "on_chain_verified", "rental_model", "status", "valid"];
const EXPIRED_KEYS = ["expired_at", "listing_id", "on_chain_listing_id", "on_chain_verified", "rental_model", "status", "valid"];
const NOT_FOUND_KEYS = ["listing_id", "on_chain_verified", "status", "valid"];

interface ListItem {
  listing_id: string;
  listing_title: string;
  rental_model: string;
  status: string;
  purchased_at: string;
  expires_at: string | null;
  on_chain_listing_id: string;
}
interface ListBody {
  credentials: ListItem[];
  total: number;
}
type Verification = Record<string, unknown>;

type AppLike = ReturnType<typeof buildApp>;

/** Beside the specification's fields every credential found carries its listing's currency (ETH on this
 * marketplace) and a per_query one its balance in wei (decisions 0165, 0185): checked here, then taken
 * off, so the assertions below hold the specification's shapes exactly. */
function withoutCurrency(credential: Record<string, unknown>): Record<string, unknown> {
  if (credential.status === "not_found" && credential.on_chain_verified === false) {
    expect(credential.currency).toBeUndefined();
    return credential;
  }
  const { currency, balance_wei, ...rest } = credential;
  expect(currency).toEqual({ symbol: "ETH", address: null, decimals: 18 });
  if (credential.rental_model === "per_query") expect(balance_wei).toMatch(/^[0-9]+$/);
  else expect(balance_wei).toBeUndefined();
  return rest;
}

async function getJson<T>(app: AppLike, path: string, token: string): Promise<T> {
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  if (Array.isArray(body.credentials)) return { ...body, credentials: (body.credentials as Record<string, unknown>[]).map(withoutCurrency) } as T;
  return withoutCurrency(body) as T;
}

async function indexAll(services: Services, fromBlock: bigint): Promise<void> {
  await catchUp({ tables: services.tables, chain: services.chain, logger: services.logger, fromBlock, confirmations: 0 });
}

const readRow = async (tables: Tables, wallet: Address, listingId: Hex) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.name("credentials"), Key: credentialKey(wallet, listingId), ConsistentRead: true }))).Item;

describe("credentials API on the shared node", () => {
  let ctx: TestContext;
  let world: World | undefined;
  let app: AppLike;
  let m: Market;
  let creator: Account;
  let renter: Account;
  let stranger: Account;
  let token: string;
  const l: Record<"oneTime" | "subscription" | "lowBalance" | "revoked" | "closed" | "perQuery", Hex> = {} as never;
  const bought: Record<string, TxResult> = {};

  beforeAll(async () => {
    const rpcUrl = inject("rpcUrl");
    world = await startWorld({ serve: false });
    ctx = world.ctx;
    app = buildApp(ctx.services);
    m = market({ rpcUrl, marketplace: ctx.config.MARKETPLACE_ADDRESS as Address });
    [creator, renter, stranger] = await Promise.all([fundAccount(rpcUrl), fundAccount(rpcUrl), fundAccount(rpcUrl)]);

    l.oneTime = (await m.createListing(creator, { accessType: "one_time", price: P })).listingId;
    bought.oneTime = await m.purchaseOneTime(renter, l.oneTime);

    l.subscription = (await m.createListing(creator, { accessType: "subscription", price: P })).listingId;
    bought.subscription = await m.purchaseSubscription(renter, l.subscription, DAYS_30);

    l.lowBalance = (await m.createListing(creator, { accessType: "per_query", price: P })).listingId;
    bought.lowBalance = await m.purchasePerQuery(renter, l.lowBalance, 2n * P);
    await m.consumeQuery(ctx.authority, l.lowBalance, renter.address);
    await m.consumeQuery(ctx.authority, l.lowBalance, renter.address);

    l.revoked = (await m.createListing(creator, { accessType: "one_time", price: P })).listingId;
    bought.revoked = await m.purchaseOneTime(renter, l.revoked);
    await m.revoke(creator, l.revoked, renter.address);

    l.closed = (await m.createListing(creator, { accessType: "one_time", price: P })).listingId;
    bought.closed = await m.purchaseOneTime(renter, l.closed);
    await m.closeListing(creator, l.closed);

    l.perQuery = (await m.createListing(creator, { accessType: "per_query", price: P })).listingId;
    bought.perQuery = await m.purchasePerQuery(renter, l.perQuery, 3n * P);

    await indexAll(ctx.services, 0n);
    token = (await signIn(app, renter)).token;
  }, 60_000);

  const list = (query = "") => getJson<ListBody>(app, `/v1/credentials${query}`, token);
  const verify = (id: string, as = token) => getJson<Verification>(app, `/v1/credentials/${id}`, as);

  describe("GET /v1/credentials", () => {
    it("returns every credential with exactly the spec's fields and the total", async () => {
      const body = await list();
      expect(Object.keys(body).sort()).toEqual(["credentials", "total"]);
      expect(body.total).toBe(6);
      expect(body.credentials).toHaveLength(6);
      for (const item of body.credentials) {
        expect(Object.keys(item).sort()).toEqual(LIST_ITEM_KEYS);
        expect(typeof item.listing_title).toBe("string");
        expect(item.listing_title.length).toBeGreaterThan(0);
        expect(item.listing_id).toMatch(/^lst_[0-9a-f]{64}$/);
        expect(item.on_chain_listing_id).toMatch(/^0x[0-9a-f]{64}$/);
        expect(item.listing_id).toBe(`lst_${item.on_chain_listing_id.slice(2)}`);
      }
      const byId = new Map(body.credentials.map((item) => [item.on_chain_listing_id, item]));
      const expectItem = (id: Hex, rental_model: string, status: string, purchase: TxResult, expires_at: string | null) =>
        expect(byId.get(id)).toMatchObject({ listing_id: apiId(id), rental_model, status, purchased_at: iso(purchase.blockTime), expires_at, on_chain_listing_id: id });
      expectItem(l.oneTime, "one_time", "active", bought.oneTime!, null);
      expectItem(l.subscription, "subscription", "active", bought.subscription!, iso(bought.subscription!.blockTime + Number(DAYS_30)));
      expectItem(l.lowBalance, "per_query", "low_balance", bought.lowBalance!, null);
      expectItem(l.revoked, "one_time", "revoked", bought.revoked!, null);
      expectItem(l.closed, "one_time", "listing_closed", bought.closed!, null);
      expectItem(l.perQuery, "per_query", "active", bought.perQuery!, null);
      // Newest purchase first.
      const times = body.credentials.map((item) => item.purchased_at);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it("filters by status", async () => {
      const ids = async (status: string) => {
        const body = await list(`?status=${status}`);
        expect(body.total).toBe(body.credentials.length);
        for (const item of body.credentials) expect(item.status).toBe(status);
        return body.credentials.map((item) => item.on_chain_listing_id).sort();
      };
      expect(await ids("active")).toEqual([l.oneTime, l.subscription, l.perQuery].sort());
      expect(await ids("low_balance")).toEqual([l.lowBalance]);
      expect(await ids("expired")).toEqual([]);
      expect(await ids("revoked")).toEqual([l.revoked]);
      expect(await ids("listing_closed")).toEqual([l.closed]);
    });

    it("pages with limit and offset, the total counting every match", async () => {
      const all = (await list()).credentials;
      const pages: ListItem[] = [];
      for (let offset = 0; offset < 8; offset += 2) {
        const page = await list(`?limit=2&offset=${offset}`);
        expect(page.total).toBe(6);
        expect(page.credentials).toHaveLength(Math.max(0, Math.min(2, 6 - offset)));
        pages.push(...page.credentials);
      }
      expect(pages).toEqual(all);
      expect((await list("?limit=100")).credentials).toEqual(all);
      expect((await list("?offset=5")).credentials).toEqual(all.slice(5));
      const filtered = await list("?status=active&limit=2&offset=2");
      expect(filtered.total).toBe(3);
      expect(filtered.credentials).toHaveLength(1);
      const single = await list("?limit=1");
      expect(single).toEqual({ credentials: [all[0]], total: 6 });
    });

    it("lists nothing for a wallet without credentials", async () => {
      const { token: strangerToken } = await signIn(app, stranger);
      expect(await getJson<ListBody>(app, "/v1/credentials", strangerToken)).toEqual({ credentials: [], total: 0 });
    });
  });

  describe("GET /v1/credentials/{listing_id}", () => {
    it("answers a valid credential with the spec's valid shape, for the lst_ and the 0x id alike", async () => {
      for (const [id, model] of [
        [l.oneTime, "one_time"],
        [l.subscription, "subscription"],
        [l.perQuery, "per_query"],
      ] as const) {
        const expected = { listing_id: apiId(id), rental_model: model, status: "active", valid: true, on_chain_listing_id: id, on_chain_verified: true };
        const body = await verify(apiId(id));
        expect(Object.keys(body).sort()).toEqual(VALID_KEYS);
        expect(body).toEqual(expected);
        expect(await verify(id)).toEqual(expected);
        expect(await verify(`0x${id.slice(2).toUpperCase()}`)).toEqual(expected);
      }
    });

    it("answers no credential with the not_found shape (unknown listing, and a listing the wallet never bought)", async () => {
      const unknown = toHex(randomBytes(32));
      expect(await verify(apiId(unknown))).toEqual({ listing_id: apiId(unknown), valid: false, status: "not_found", on_chain_verified: false });
      const { token: strangerToken } = await signIn(app, stranger);
      const body = await verify(apiId(l.oneTime), strangerToken);
      expect(Object.keys(body).sort()).toEqual(NOT_FOUND_KEYS);
      expect(body).toEqual({ listing_id: apiId(l.oneTime), valid: false, status: "not_found", on_chain_verified: false });
      expect(await readRow(ctx.services.tables, stranger.address, l.oneTime)).toBeUndefined();
    });

    it("answers a per_query rental with zero balance as low_balance, valid false; a top-up makes it active", async () => {
      const body = await verify(apiId(l.lowBalance));
      expect(Object.keys(body).sort()).toEqual(VALID_KEYS);
      expect(body).toEqual({ listing_id: apiId(l.lowBalance), rental_model: "per_query", status: "low_balance", valid: false, on_chain_listing_id: l.lowBalance, on_chain_verified: true });

      await m.topUpBalance(renter, l.lowBalance, P);
      // The chain answers before the indexer has seen the top-up, and the record follows it.
      expect(await verify(apiId(l.lowBalance))).toMatchObject({ status: "active", valid: true });
      expect(await readRow(ctx.services.tables, renter.address, l.lowBalance)).toMatchObject({ balance_wei: P.toString(), revoked: false });
      await indexAll(ctx.services, 0n);
      expect(await readRow(ctx.services.tables, renter.address, l.lowBalance)).toMatchObject({ balance_wei: P.toString(), revoked: false });
    });

    it("answers a revoked credential with status revoked, valid false", async () => {
      const body = await verify(apiId(l.revoked));
      expect(body).toEqual({ listing_id: apiId(l.revoked), rental_model: "one_time", status: "revoked", valid: false, on_chain_listing_id: l.revoked, on_chain_verified: true });
    });

    it("answers a credential on a closed listing with status listing_closed, valid false", async () => {
      const body = await verify(apiId(l.closed));
      expect(body).toEqual({ listing_id: apiId(l.closed), rental_model: "one_time", status: "listing_closed", valid: false, on_chain_listing_id: l.closed, on_chain_verified: true });
    });

    describe("when the local record disagrees with the chain, the chain wins and the record is repaired", () => {
      const tables = () => ctx.services.tables;

      it("recreates a deleted record", async () => {
        const before = await readRow(tables(), renter.address, l.oneTime);
        expect(before).toBeDefined();
        await tables().doc.send(new DeleteCommand({ TableName: tables().name("credentials"), Key: credentialKey(renter.address, l.oneTime) }));
        expect((await list()).total).toBe(5);

        expect(await verify(apiId(l.oneTime))).toMatchObject({ status: "active", valid: true, rental_model: "one_time" });
        const after = await readRow(tables(), renter.address, l.oneTime);
        expect(after).toMatchObject({
          wallet: renter.address.toLowerCase(),
          on_chain_listing_id: l.oneTime,
          rental_model: "one_time",
          purchased_at: iso(bought.oneTime!.blockTime),
          expires_at: null,
          revoked: false,
        });
        const listed = await list();
        expect(listed.total).toBe(6);
        expect(listed.credentials.find((item) => item.on_chain_listing_id === l.oneTime)).toMatchObject({ status: "active", purchased_at: iso(bought.oneTime!.blockTime), expires_at: null });
      });

      const alter = (wallet: Address, id: Hex, set: Record<string, unknown>) =>
        tables().doc.send(
          new UpdateCommand({
            TableName: tables().name("credentials"),
            Key: credentialKey(wallet, id),
            UpdateExpression: `SET ${Object.keys(set).map((_, i) => `#k${i} = :v${i}`).join(", ")}`,
            ExpressionAttributeNames: Object.fromEntries(Object.keys(set).map((k, i) => [`#k${i}`, k])),
            ExpressionAttributeValues: Object.fromEntries(Object.values(set).map((v, i) => [`:v${i}`, v])),
          }),
        );

      it("corrects an altered balance and revocation flag (per_query)", async () => {
        // The index says revoked with a huge balance; the chain says 3P, not revoked.
        await alter(renter.address, l.perQuery, { balance_wei: "999999999999999999999", revoked: true });
        expect((await list("?status=revoked")).credentials.map((c) => c.on_chain_listing_id)).toContain(l.perQuery);
        expect(await verify(apiId(l.perQuery))).toEqual({ listing_id: apiId(l.perQuery), rental_model: "per_query", status: "active", valid: true, on_chain_listing_id: l.perQuery, on_chain_verified: true });
        expect(await readRow(tables(), renter.address, l.perQuery)).toMatchObject({ balance_wei: (3n * P).toString(), revoked: false, rental_model: "per_query" });
      });

      it("corrects a revocation the index missed (one_time)", async () => {
        await alter(renter.address, l.revoked, { revoked: false });
        expect((await list("?status=active")).credentials.map((c) => c.on_chain_listing_id)).toContain(l.revoked);
        expect(await verify(apiId(l.revoked))).toMatchObject({ status: "revoked", valid: false, rental_model: "one_time" });
        expect(await readRow(tables(), renter.address, l.revoked)).toMatchObject({ revoked: true });
      });

      it("corrects an expiry and model that make the index say expired (subscription)", async () => {
        await alter(renter.address, l.subscription, { rental_model: "subscription", expires_at: 1 });
        expect((await list("?status=expired")).credentials.map((c) => c.on_chain_listing_id)).toEqual([l.subscription]);
        expect(await verify(apiId(l.subscription))).toEqual({ listing_id: apiId(l.subscription), rental_model: "subscription", status: "active", valid: true, on_chain_listing_id: l.subscription, on_chain_verified: true });
        expect(await readRow(tables(), renter.address, l.subscription)).toMatchObject({
          rental_model: "subscription",
          expires_at: bought.subscription!.blockTime + Number(DAYS_30),
          revoked: false,
        });
      });

      it("leaves every credential of the wallet as the chain says after the repairs", async () => {
        const listed = await list();
        expect(listed.total).toBe(6);
        const status = Object.fromEntries(listed.credentials.map((c) => [c.on_chain_listing_id, c.status]));
        expect(status).toEqual({
          [l.oneTime]: "active",
          [l.subscription]: "active",
          [l.lowBalance]: "active",
          [l.revoked]: "revoked",
          [l.closed]: "listing_closed",
          [l.perQuery]: "active",
        });
      });

      it("answers the chain's rental_model, not a wrong one from the index, and repairs it", async () => {
        const other = await fundAccount(inject("rpcUrl"));
        const id = (await m.createListing(creator, { accessType: "one_time", price: P })).listingId;
        await m.purchaseOneTime(other, id);
        await indexAll(ctx.services, 0n);
        const { token: otherToken } = await signIn(app, other);
        // The index now claims a subscription far from expiry: status still "active" on both sides.
        await alter(other.address, id, { rental_model: "subscription", expires_at: 4_000_000_000 });
        expect(await verify(apiId(id), otherToken)).toEqual({ listing_id: apiId(id), rental_model: "one_time", status: "active", valid: true, on_chain_listing_id: id, on_chain_verified: true });
        expect(await readRow(tables(), other.address, id)).toMatchObject({ rental_model: "one_time", expires_at: null });
      });

      it("repairs a per_query balance that disagrees with the chain even when both are nonzero", async () => {
        const other = await fundAccount(inject("rpcUrl"));
        await m.purchasePerQuery(other, l.perQuery, 2n * P);
        await indexAll(ctx.services, 0n);
        const { token: otherToken } = await signIn(app, other);
        await alter(other.address, l.perQuery, { balance_wei: "7" });
        expect(await verify(apiId(l.perQuery), otherToken)).toMatchObject({ status: "active", valid: true });
        expect(await readRow(tables(), other.address, l.perQuery)).toMatchObject({ balance_wei: (2n * P).toString() });
      });

      it("removes a phantom record the chain does not know", async () => {
        const phantom = toHex(randomBytes(32));
        await tables().doc.send(
          new PutCommand({
            TableName: tables().name("credentials"),
            Item: {
              ...credentialKey(renter.address, phantom),
              wallet: renter.address.toLowerCase(),
              on_chain_listing_id: phantom,
              gsi1pk: `listing#${phantom}`,
              gsi1sk: `wallet#${renter.address.toLowerCase()}`,
              rental_model: "one_time",
              purchased_at: new Date().toISOString(),
              expires_at: null,
              revoked: false,
              position: "000000000001:000000",
            },
          }),
        );
        expect((await list()).total).toBe(7);
        expect(await verify(apiId(phantom))).toEqual({ listing_id: apiId(phantom), valid: false, status: "not_found", on_chain_verified: false });
        expect(await readRow(tables(), renter.address, phantom)).toBeUndefined();
        expect((await list()).total).toBe(6);
      });
    });
  });
});

describe("expired subscription (own node, chain time moves)", () => {
  let node: ChainNode;
  let env: ServicesOn;
  let app: AppLike;
  let creator: Account;
  let renter: Account;
  let token: string;
  let listingId: Hex;
  let purchase: TxResult;

  beforeAll(async () => {
    node = await startChain({ port: await freePort() });
    env = await createServicesOn({ rpcUrl: node.rpcUrl, dynamoEndpoint: inject("dynamoEndpoint") });
    app = buildApp(env.services);
    [creator, renter] = await Promise.all([fundAccount(node.rpcUrl), fundAccount(node.rpcUrl)]);
    listingId = (await env.market.createListing(creator, { accessType: "subscription", price: P })).listingId;
    purchase = await env.market.purchaseSubscription(renter, listingId, DAYS_30);
    await indexAll(env.services, env.deployBlock);
    token = (await signIn(app, renter)).token;
  }, 90_000);

  afterAll(async () => {
    await node?.stop();
  });

  it("answers the expired shape with expired_at once chain time passes the expiry, and active again after a renewal", async () => {
    const expiresAt = purchase.blockTime + Number(DAYS_30);
    expect(await getJson<Verification>(app, `/v1/credentials/${apiId(listingId)}`, token)).toMatchObject({ status: "active", valid: true });

    const test = createTestClient({ mode: "hardhat", transport: http(node.rpcUrl) });
    await test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt) });
    await test.mine({ blocks: 1 });

    const body = await getJson<Verification>(app, `/v1/credentials/${apiId(listingId)}`, token);
    expect(Object.keys(body).sort()).toEqual(EXPIRED_KEYS);
    expect(body).toEqual({
      listing_id: apiId(listingId),
      rental_model: "subscription",
      status: "expired",
      valid: false,
      expired_at: iso(expiresAt),
      on_chain_listing_id: listingId,
      on_chain_verified: true,
    });
    // Nothing disagreed (the expiry is the same on both sides): the record is as the indexer wrote it.
    expect(await readRow(env.services.tables, renter.address, listingId)).toMatchObject({ expires_at: expiresAt, revoked: false, position: purchase.lastPosition });

    // An expired record that went missing locally is recreated with its expiry.
    await env.services.tables.doc.send(new DeleteCommand({ TableName: env.services.tables.name("credentials"), Key: credentialKey(renter.address, listingId) }));
    expect(await getJson<Verification>(app, `/v1/credentials/${apiId(listingId)}`, token)).toEqual(body);
    expect(await readRow(env.services.tables, renter.address, listingId)).toMatchObject({ rental_model: "subscription", expires_at: expiresAt, purchased_at: iso(purchase.blockTime) });

    const renewed = await env.market.renewSubscription(renter, listingId, DAYS_30);
    const after = await getJson<Verification>(app, `/v1/credentials/${apiId(listingId)}`, token);
    expect(after).toEqual({ listing_id: apiId(listingId), rental_model: "subscription", status: "active", valid: true, on_chain_listing_id: listingId, on_chain_verified: true });
    // Renewed from the time of renewal, not from the old expiry. (Chain time on this node is a month
    // ahead of the wall clock, so the index's own view of the old expiry still reads active: the
    // indexer, not the verification, brings the new expiry in.)
    await indexAll(env.services, env.deployBlock);
    expect(await readRow(env.services.tables, renter.address, listingId)).toMatchObject({ expires_at: renewed.blockTime + Number(DAYS_30) });
  });
});
