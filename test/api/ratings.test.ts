// Renter ratings through the API: who may rate, replacing a rating, exact figures under concurrent
// ratings and re-ratings (and after a writer stops half-way), input refusals that change nothing, and
// the newest-first ratings list with its cursor.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { randomBytes } from "node:crypto";
import { buildApp } from "../../src/api/app.ts";
import type { Tables } from "../../src/adapters/tables/dynamo.ts";
import { agentKey } from "../../src/listings/listing.store.ts";
import type { AgentRecord } from "../../src/listings/catalogue.ts";
import { recordRunOutcome } from "../../src/listings/stats.ts";
import { rateListing, ratingKey } from "../../src/listings/ratings.ts";
import { processRegistrationMessage } from "../../src/registration/process.ts";
import { fundedAccount, type TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { signIn } from "../support/auth.ts";
import { approveCreator } from "../support/creators.ts";
import { publishAgent, type PublishedAgent } from "../support/agents.ts";
import type { FinishedRunStatus } from "@agent-rental/core/vocabulary";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let creator: Awaited<ReturnType<typeof fundedAccount>>;
let creatorToken: string;
let seq = 0;

interface Renter {
  account: PrivateKeyAccount;
  token: string;
}

const headers = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function publish(): Promise<PublishedAgent> {
  const name = `rated-agent-${++seq}`;
  return publishAgent(ctx, app, creator, { name, category: "coding", description: `Ratings test agent ${name}.`, model: { provider: "provider_a", model: "m" }, system_prompt: "p", input_schema: { type: "object" }, output_schema: { type: "string", examples: ["done"] } }, "one_time");
}

async function run(listing: PublishedAgent, wallet: string, status: FinishedRunStatus = "completed"): Promise<void> {
  await recordRunOutcome(ctx.services.tables, { run_id: `run_${randomBytes(16).toString("hex")}`, on_chain_id: listing.onChainId, wallet, status, finished_at: new Date().toISOString() });
}

/** A signed-in wallet with one completed run of each listing given. */
async function renter(...listings: PublishedAgent[]): Promise<Renter> {
  const account = privateKeyToAccount(generatePrivateKey());
  for (const listing of listings) await run(listing, account.address);
  return { account, token: (await signIn(app, account)).token };
}

async function rate(listingId: string, token: string, body: unknown): Promise<Response> {
  return app.request(`/v1/listings/${listingId}/rating`, { method: "PUT", headers: headers(token), body: typeof body === "string" ? body : JSON.stringify(body) });
}

async function agentOf(listing: PublishedAgent): Promise<AgentRecord> {
  return (await ctx.services.tables.doc.send(new GetCommand({ TableName: ctx.services.tables.name("listings"), Key: agentKey(listing.onChainId), ConsistentRead: true }))).Item as AgentRecord;
}

/** Every rating item of a listing, straight from the table. */
async function ratingItems(listing: PublishedAgent): Promise<Record<string, unknown>[]> {
  const out = await ctx.services.tables.doc.send(
    new QueryCommand({ TableName: ctx.services.tables.name("runs"), KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": ratingKey(listing.onChainId, "0x").pk }, ConsistentRead: true }),
  );
  return out.Items ?? [];
}

/** The invariant: the figures equal the sum and count of the stored ratings, with nothing pending. */
async function expectExactFigures(listing: PublishedAgent): Promise<void> {
  const items = await ratingItems(listing);
  const agent = await agentOf(listing);
  for (const item of items) {
    expect(item.pending).toBeUndefined();
    expect(item.counted).toBe(item.rating);
  }
  expect(agent.stats_rating_sum ?? 0).toBe(items.reduce((sum, item) => sum + (item.rating as number), 0));
  expect(agent.stats_review_count ?? 0).toBe(items.length);
  expect(agent.stats_in_flight).toBeUndefined();
}

async function expectError(res: Response, status: number, code: string, mentions?: string): Promise<void> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: { code: string; message: string; status: number; request_id: string } };
  expect(body.error).toMatchObject({ code, status });
  expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
  if (mentions) expect(body.error.message).toContain(mentions);
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { CATALOGUE_REFRESH_MS: "0" } });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  creator = await fundedAccount(inject("rpcUrl"));
  creatorToken = (await signIn(app, creator)).token;
  await approveCreator(ctx, app, creator.address, creatorToken, "Rated Works");
});

describe("rating a listing (PUT /v1/listings/{listing_id}/rating)", () => {
  it("lets a renter with a completed run rate, and shows the figures in detail, search and the list", async () => {
    const listing = await publish();
    const alice = await renter(listing);
    const res = await rate(listing.listing_id, alice.token, { rating: 4, comment: "  Solid reviews,\r\nfast.  " });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ listing_id: listing.listing_id, wallet: alice.account.address.toLowerCase(), rating: 4, comment: "Solid reviews,\nfast.", listing: { rating: 4, review_count: 1 } });
    expect(body.created_at).toBe(body.updated_at);

    const bob = await renter(listing);
    expect((await rate(listing.listing_id, bob.token, { rating: 5 })).status).toBe(200);

    // Off-chain ratings are shown apart ("before on-chain feedback"): the listing's own rating is its
    // verified on-chain feedback, which this listing has none of.
    const detail = (await (await app.request(`/v1/listings/${listing.listing_id}`, { headers: headers(alice.token) })).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ rating: 0, review_count: 0 });
    const found = (await (await app.request("/v1/listings?limit=100", { headers: headers(alice.token) })).json()) as { listings: Record<string, unknown>[] };
    expect(found.listings.find((l) => l.id === listing.listing_id)).toMatchObject({ rating: 0, review_count: 0 });
    const reputation = (await (await app.request(`/v1/listings/${listing.listing_id}/reputation`, { headers: headers(alice.token) })).json()) as Record<string, unknown>;
    expect(reputation).toMatchObject({ rating: 0, review_count: 0, before_on_chain: { rating: 4.5, review_count: 2 } });

    const list = (await (await app.request(`/v1/listings/${listing.listing_id}/ratings`, { headers: headers(alice.token) })).json()) as { ratings: Record<string, unknown>[] } & Record<string, unknown>;
    expect(list).toMatchObject({ listing_id: listing.listing_id, rating: 4.5, review_count: 2, next_cursor: null });
    expect(list.ratings.map((r) => [r.wallet, r.rating, r.comment])).toEqual([
      [bob.account.address.toLowerCase(), 5, null],
      [alice.account.address.toLowerCase(), 4, "Solid reviews,\nfast."],
    ]);
    await expectExactFigures(listing);
  });

  it("refuses a wallet without a completed run, one with failed runs only, and the listing's creator", async () => {
    const listing = await publish();
    const stranger = await renter();
    const unlucky = await renter();
    await run(listing, unlucky.account.address, "failed");
    await run(listing, unlucky.account.address, "failed");
    await run(listing, creator.address);
    for (const token of [stranger.token, unlucky.token, creatorToken]) {
      await expectError(await rate(listing.listing_id, token, { rating: 5 }), 403, "rating_not_allowed");
    }
    // A completed run of another listing does not count for this one.
    const other = await publish();
    const elsewhere = await renter(other);
    await expectError(await rate(listing.listing_id, elsewhere.token, { rating: 5 }), 403, "rating_not_allowed");
    expect(await ratingItems(listing)).toEqual([]);
    expect((await agentOf(listing)).stats_review_count).toBeUndefined();
  });

  it("replaces a wallet's rating when it rates again: the sum moves by the difference, the count stays", async () => {
    const listing = await publish();
    const carol = await renter(listing);
    const dave = await renter(listing);
    const first = (await (await rate(listing.listing_id, carol.token, { rating: 5, comment: "Great" })).json()) as Record<string, string>;
    await rate(listing.listing_id, dave.token, { rating: 3 });
    const again = await rate(listing.listing_id, carol.token, { rating: 1 });
    expect(again.status).toBe(200);
    const second = (await again.json()) as Record<string, unknown>;
    // The comment was not sent again, so it is gone; the first rating's time is kept.
    expect(second).toMatchObject({ rating: 1, comment: null, created_at: first.created_at, listing: { rating: 2, review_count: 2 } });
    expect((second.updated_at as string) >= first.updated_at!).toBe(true);
    // The same request again changes nothing but the time.
    expect(((await (await rate(listing.listing_id, carol.token, { rating: 1 })).json()) as Record<string, unknown>).listing).toEqual({ rating: 2, review_count: 2 });
    // A new comment with the same stars.
    expect(((await (await rate(listing.listing_id, carol.token, { rating: 1, comment: "Changed my mind" })).json()) as Record<string, unknown>).comment).toBe("Changed my mind");
    expect(await agentOf(listing)).toMatchObject({ stats_rating_sum: 4, stats_review_count: 2 });
    const list = (await (await app.request(`/v1/listings/${listing.listing_id}/ratings`, { headers: headers(carol.token) })).json()) as { ratings: Record<string, unknown>[] };
    expect(list.ratings.map((r) => [r.wallet, r.rating, r.comment])).toEqual([
      [carol.account.address.toLowerCase(), 1, "Changed my mind"],
      [dave.account.address.toLowerCase(), 3, null],
    ]);
    await expectExactFigures(listing);
  });

  it("keeps rating_sum and review_count exact under concurrent ratings from many wallets and concurrent re-ratings", async () => {
    const listing = await publish();
    const renters = await Promise.all(Array.from({ length: 12 }, () => renter(listing)));
    const firsts = await Promise.all(renters.map((r, i) => rate(listing.listing_id, r.token, { rating: (i % 5) + 1 })));
    expect(firsts.map((res) => res.status)).toEqual(renters.map(() => 200));
    expect(await agentOf(listing)).toMatchObject({ stats_review_count: 12, stats_rating_sum: [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2].reduce((a, b) => a + b, 0) });

    // Every wallet re-rates four times at once, and new wallets rate meanwhile.
    const newcomers = await Promise.all(Array.from({ length: 4 }, () => renter(listing)));
    const responses = await Promise.all([
      ...renters.flatMap((r, i) => [1, 2, 3, 4].map((k) => rate(listing.listing_id, r.token, { rating: ((i + k) % 5) + 1, comment: `take ${k}` }))),
      ...newcomers.map((r) => rate(listing.listing_id, r.token, { rating: 5 })),
    ]);
    expect(responses.every((res) => res.status === 200)).toBe(true);
    const items = await ratingItems(listing);
    expect(items).toHaveLength(16);
    await expectExactFigures(listing);
    // Each wallet's stored rating is one of the ones it sent, with the comment sent with it.
    for (const [i, r] of renters.entries()) {
      const item = items.find((it) => it.sk === r.account.address.toLowerCase())!;
      const k = Number((item.comment as string).replace("take ", ""));
      expect(item.rating).toBe(((i + k) % 5) + 1);
    }
    const list = (await (await app.request(`/v1/listings/${listing.listing_id}/ratings`, { headers: headers(renters[0]!.token) })).json()) as Record<string, number>;
    const sum = items.reduce((s, item) => s + (item.rating as number), 0);
    expect(list).toMatchObject({ review_count: 16, rating: Math.round((sum / 16) * 100) / 100 });
  });

  it("finishes a rating change a stopped writer left half-done, counting it once", async () => {
    const listing = await publish();
    for (const stopAt of ["figures", "marking"] as const) {
      const erin = await renter(listing);
      await rate(listing.listing_id, erin.token, { rating: 2 });
      let crashed = false;
      const real = ctx.services.tables;
      const stopping: Tables = {
        ...real,
        doc: {
          send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
            const expression = String(command.input.UpdateExpression ?? "");
            const hit = stopAt === "figures" ? command.input.TableName === real.name("listings") && expression.startsWith("ADD") : expression.includes("REMOVE pending");
            if (crashed || hit) {
              crashed = true;
              throw new Error("process stopped");
            }
            return real.doc.send(command as never);
          },
        } as unknown as DynamoDBDocumentClient,
      };
      await expect(rateListing({ tables: stopping }, erin.account.address, listing.listing_id, { rating: 5 }, { leaseMs: 200 })).rejects.toThrow("process stopped");
      // Another renter rates meanwhile, unaffected.
      const frank = await renter(listing);
      expect((await rate(listing.listing_id, frank.token, { rating: 4 })).status).toBe(200);
      // The wallet's next rating waits out the stopped claim, finishes its change, then applies its own.
      const next = await rate(listing.listing_id, erin.token, { rating: 3 });
      expect(next.status).toBe(200);
      expect(((await next.json()) as Record<string, unknown>).rating).toBe(3);
      const items = await ratingItems(listing);
      for (const item of items) expect(item.counted).toBe(item.rating);
      const agent = await agentOf(listing);
      expect(agent.stats_rating_sum).toBe(items.reduce((s, item) => s + (item.rating as number), 0));
      expect(agent.stats_review_count).toBe(items.length);
    }
  });
});

describe("refusals", () => {
  it("answers bad input with the right envelope and changes nothing stored", async () => {
    const listing = await publish();
    const grace = await renter(listing);
    await rate(listing.listing_id, grace.token, { rating: 3, comment: "fine" });
    const snapshot = async () => ({ agent: await agentOf(listing), items: await ratingItems(listing) });
    const before = await snapshot();
    const cases: [unknown, string][] = [
      [{ rating: 0 }, "rating"],
      [{ rating: 6 }, "rating"],
      [{ rating: 2.5 }, "rating"],
      [{ rating: "5" }, "rating"],
      [{ rating: null }, "rating"],
      [{}, "rating"],
      [{ comment: "no stars" }, "rating"],
      [{ rating: 4, comment: "x".repeat(1001) }, "comment"],
      [{ rating: 4, comment: 42 }, "comment"],
      [{ rating: 4, comment: "bell\u0007" }, "comment"],
      [{ rating: 4, comments: "misspelt" }, "comments"],
      [[4], "body"],
      ['{"rating": ', "JSON"],
      ["", "body"],
    ];
    for (const [body, field] of cases) {
      await expectError(await rate(listing.listing_id, grace.token, body), 400, "invalid_request", field);
    }
    // The limit counts characters, not UTF-16 units: 1000 emoji pass (below), 1001 do not.
    const emoji = "👍".repeat(1000);
    await expectError(await rate(listing.listing_id, grace.token, { rating: 4, comment: emoji + "!" }), 400, "invalid_request", "comment");
    for (const id of ["lst_123", "abc", `lst_${"G".repeat(64)}`]) {
      await expectError(await rate(id, grace.token, { rating: 4 }), 400, "invalid_listing_id");
      await expectError(await app.request(`/v1/listings/${id}/ratings`, { headers: headers(grace.token) }), 400, "invalid_listing_id");
    }
    const unknown = `lst_${"c".repeat(64)}`;
    await expectError(await rate(unknown, grace.token, { rating: 4 }), 404, "listing_not_found");
    await expectError(await app.request(`/v1/listings/${unknown}/ratings`, { headers: headers(grace.token) }), 404, "listing_not_found");
    await expectError(await app.request(`/v1/listings/${listing.listing_id}/rating`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ rating: 4 }) }), 401, "unauthorized");
    await expectError(await app.request(`/v1/listings/${listing.listing_id}/rating`, { method: "PUT", headers: { authorization: `Bearer ${grace.token}`, "content-type": "text/plain" }, body: "4" }), 415, "unsupported_media_type");
    expect(await snapshot()).toEqual(before);
    expect((await rate(listing.listing_id, grace.token, { rating: 4, comment: emoji })).status).toBe(200);
  });

  it("refuses a listing that is registered but not published", async () => {
    const token = creatorToken;
    const res = await app.request("/v1/agents", {
      method: "POST",
      headers: headers(token),
      body: JSON.stringify({ name: "unlisted-agent", category: "coding", description: "Never listed.", model: { provider: "provider_a", model: "m" }, system_prompt: "p", input_schema: { type: "object" }, output_schema: { type: "string" } }),
    });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    await processRegistrationMessage(ctx.services, JSON.stringify({ job_id }));
    const job = (await (await app.request(`/v1/jobs/${job_id}`, { headers: headers(token) })).json()) as { result: { listing_id: string } };
    const listingId = job.result.listing_id;
    const hopeful = await renter();
    await recordRunOutcome(ctx.services.tables, { run_id: `run_${randomBytes(16).toString("hex")}`, on_chain_id: `0x${listingId.slice(4)}`, wallet: hopeful.account.address, status: "completed", finished_at: new Date().toISOString() });
    await expectError(await rate(listingId, hopeful.token, { rating: 5 }), 404, "listing_not_found");
    await expectError(await app.request(`/v1/listings/${listingId}/ratings`, { headers: headers(hopeful.token) }), 404, "listing_not_found");
  });
});

describe("the ratings list (GET /v1/listings/{listing_id}/ratings)", () => {
  it("pages newest first with a cursor, and refuses bad paging parameters", async () => {
    const listing = await publish();
    const renters: Renter[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await renter(listing);
      renters.push(r);
      expect((await rate(listing.listing_id, r.token, { rating: i + 1, comment: `number ${i}` })).status).toBe(200);
      // Distinct write times, so the order is the order of writing.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    // The first renter rates again: now the most recent.
    await rate(listing.listing_id, renters[0]!.token, { rating: 5, comment: "number 0, again" });
    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const res = await app.request(`/v1/listings/${listing.listing_id}/ratings${query}`, { headers: headers(renters[0]!.token) });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { ratings: { comment: string; created_at: string; updated_at: string }[]; next_cursor: string | null; review_count: number };
      expect(page.review_count).toBe(5);
      pages.push(page.ratings.length);
      seen.push(...page.ratings.map((r) => r.comment));
      cursor = page.next_cursor;
    } while (cursor);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual(["number 0, again", "number 4", "number 3", "number 2", "number 1"]);

    for (const query of ["?limit=0", "?limit=101", "?limit=abc"]) {
      await expectError(await app.request(`/v1/listings/${listing.listing_id}/ratings${query}`, { headers: headers(renters[0]!.token) }), 400, "invalid_request", "limit");
    }
    const foreignCursor = Buffer.from(JSON.stringify(["2030-01-01T00:00:00.000Z#0x" + "1".repeat(40), "0x" + "2".repeat(40)])).toString("base64url");
    for (const bad of ["not-a-cursor", foreignCursor, Buffer.from("{}").toString("base64url")]) {
      await expectError(await app.request(`/v1/listings/${listing.listing_id}/ratings?cursor=${bad}`, { headers: headers(renters[0]!.token) }), 400, "invalid_request", "cursor");
    }
  });

  it("is empty for a listing nobody has rated", async () => {
    const listing = await publish();
    const viewer = await renter();
    const res = await app.request(`/v1/listings/${listing.listing_id}/ratings`, { headers: headers(viewer.token) });
    expect(await res.json()).toEqual({ listing_id: listing.listing_id, rating: 0, review_count: 0, ratings: [], next_cursor: null });
  });
});
