// The creator analytics roll-ups on the DynamoDB emulator: the kept top renters (exact against every
// renter item, for one listing and across several, with writers racing), a run's outcome adjusted after
// a reorganisation (adjustRunOutcome), lapses from subscription expiries, streams' time to first output,
// verified feedback and its revocation, the rebuild of the top item, a creator's renters across its
// listings (one wallet renting two is one renter), and the packed hour and day series.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createTables, ensureTables, type Tables } from "../../src/adapters/tables/dynamo.ts";
import { applyFact, chainTargets, chainToken, runTargets, runToken, type ChainFact, type SettledRunFact } from "../../src/analytics/rollups.ts";
import { adjustRunOutcome } from "../../src/analytics/adjust.ts";
import { readAnalytics } from "../../src/analytics/figures.ts";
import { getTopItem, queryPartition, queryPartitionPk, queryRenters, rollupPk } from "../../src/analytics/rollup.store.ts";
import { creatorPk, creatorRenterCount, rebuiltCreatorPartitions } from "../../src/analytics/creator-renters.ts";
import { rebuiltPacks } from "../../src/analytics/packs.ts";
import { putAgent } from "../../src/listings/listing.store.ts";
import { byRank, decodeEntries, entryOf, rebuiltTopItem, readTopRenters, TOP_KEPT } from "../../src/analytics/top-renters.ts";
import { recordFeedback, recordFeedbackRevoked, scoreHundredths } from "../../src/analytics/feedback-facts.ts";
import type { FeedbackItem } from "../../src/erc8004/erc8004.store.ts";

let tables: Tables;
beforeAll(async () => {
  const prefix = `rollups_${randomUUID().slice(0, 8)}_`;
  tables = createTables({ region: "us-east-1", prefix, endpoint: inject("dynamoEndpoint") });
  await ensureTables(tables, prefix);
});
afterAll(() => tables?.raw.destroy());

const listingOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as const;
const walletOf = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
let sequence = 0;
const chargeOf = (listing: `0x${string}`, wallet: string, gross: bigint): ChainFact => {
  sequence++;
  return { id: `0x${sequence.toString(16).padStart(64, "0")}:0`, on_chain_id: listing, wallet, at: "2030-03-01T10:00:00.000Z", position: `${sequence}`.padStart(12, "0"), event: { kind: "charge", gross, fee: gross / 40n } };
};
const runOf = (listing: `0x${string}`, wallet: string, extra: Partial<SettledRunFact> = {}): SettledRunFact => ({
  run_id: `run_${randomUUID().replaceAll("-", "")}`,
  on_chain_id: listing,
  wallet,
  rental_model: "per_query",
  status: "completed",
  duration_ms: 640,
  cost_wei: 10n ** 15n,
  finished_at: "2030-03-01T10:30:00.000Z",
  ...extra,
});

/** Facts applied eight at a time, as the writers of several processes would. */
async function applyAll(facts: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < facts.length) await facts[next++]!();
  }));
}

describe("the kept top renters", () => {
  it("one listing: the top item equals a ranking of every renter item, and the rebuild writes the same", async () => {
    const listing = listingOf(1);
    const facts: (() => Promise<unknown>)[] = [];
    // 60 renters (more than the 50 kept), spends drawn so that some tie; runs without spend too.
    for (let r = 0; r < 60; r++) {
      for (let k = 0; k < 1 + (r % 5 === 0 ? 1 : 0); k++) {
        const fact = chargeOf(listing, walletOf(r), BigInt(1 + ((r * 7919) % 13)) * 10n ** 15n);
        facts.push(() => applyFact(tables, chainToken(fact.id), chainTargets(fact)));
      }
      const run = runOf(listing, walletOf(r));
      if (r % 6 === 0) facts.push(() => applyFact(tables, runToken(run.run_id), runTargets(run)));
    }
    await applyAll(facts);
    const renters = await queryRenters(tables, listing);
    expect(renters.length).toBe(60);
    const everyone = renters.map((item) => entryOf(item, item.sk.slice(2))).sort(byRank);
    const top = await getTopItem(tables, listing);
    expect(top?.renters).toBe(60n);
    expect(decodeEntries(top?.entries)).toEqual(everyone.slice(0, TOP_KEPT));
    expect(top?.entries).toBe(rebuiltTopItem(new Map(renters.map((item) => [item.sk, item as Record<string, bigint | string>]))).entries);
    const analytics = await readAnalytics(tables, [listing], { from: new Date("2030-03-01T00:00:00Z"), to: new Date("2030-03-01T23:00:00Z"), granularity: "hour" });
    expect(analytics.renter_count).toBe(60);
    expect(analytics.top_renters.map((r) => r.wallet)).toEqual(everyone.slice(0, 10).map((e) => e.wallet));
  }, 600_000);

  it("several listings: the top ten across them equals the sum of every renter item, whether the bounds settle it or not", async () => {
    const listings = [listingOf(2), listingOf(3)];
    const facts: (() => Promise<unknown>)[] = [];
    // Renter r spends in both listings; the biggest spenders overall are mid-table in each.
    for (let r = 0; r < 60; r++) {
      for (const [i, listing] of listings.entries()) {
        const spend = BigInt(1 + (i === 0 ? (r * 37) % 101 : (r * 53) % 97 + (r % 5 === 0 ? 60 : 0))) * 10n ** 14n;
        const fact = chargeOf(listing, walletOf(1000 + r), spend);
        facts.push(() => applyFact(tables, chainToken(fact.id), chainTargets(fact)));
      }
    }
    await applyAll(facts);
    const sums = new Map<string, bigint>();
    for (const listing of listings) for (const item of await queryRenters(tables, listing)) sums.set(item.sk.slice(2), (sums.get(item.sk.slice(2)) ?? 0n) + (item.spend_wei as bigint));
    const expected = [...sums.entries()].map(([wallet, spend_wei]) => ({ wallet, spend_wei })).sort(byRank).slice(0, 10);
    let fallbacks = 0;
    const readAll = async () => {
      fallbacks++;
      return Promise.all(listings.map(async (id) => (await queryRenters(tables, id)).map((item) => entryOf(item, item.sk.slice(2)))));
    };
    const { top, renter_count } = await readTopRenters(tables, listings, 10, readAll);
    expect(top.map((r) => [r.wallet, r.spend_wei])).toEqual(expected.map((r) => [r.wallet, r.spend_wei]));
    expect(renter_count).toBe(120);
    expect(fallbacks).toBeLessThanOrEqual(1);
  }, 600_000);
});

describe("adjustRunOutcome", () => {
  it("moves a counted run's figures to its new outcome once, with two callers at once, and says unchanged after", async () => {
    const listing = listingOf(4);
    const run = runOf(listing, walletOf(9), { cost_wei: 7n * 10n ** 15n });
    await applyFact(tables, runToken(run.run_id), runTargets(run), { detail: { outcome: (await import("../../src/analytics/adjust.ts")).encodeOutcome(run) } });
    const refused = { ...run, cost_wei: 0n };
    const results = await Promise.all([adjustRunOutcome(tables, refused), adjustRunOutcome(tables, refused)]);
    // Each caller resolves once the figures are the new outcome's; the difference is added once.
    expect(results).toContain("adjusted");
    expect(results.every((r) => r === "adjusted" || r === "unchanged")).toBe(true);
    expect(await adjustRunOutcome(tables, refused)).toBe("unchanged");
    const items = new Map((await queryPartition(tables, listing)).map((item) => [item.sk, item]));
    expect(items.get("h#2030-03-01T10")?.charged_wei ?? 0n).toBe(0n);
    expect(items.get("t#all")?.runs_completed).toBe(1n);
    expect(items.get(`r#${walletOf(9)}`)?.runs).toBe(1n);
    // Charged again in another transaction at another price: the figures follow.
    expect(await adjustRunOutcome(tables, { ...run, cost_wei: 5n * 10n ** 15n })).toBe("adjusted");
    const after = new Map((await queryPartition(tables, listing)).map((item) => [item.sk, item]));
    expect(after.get("d#2030-03-01")?.charged_wei).toBe(5n * 10n ** 15n);
    expect(after.get("m#2030-03")?.charged_wei).toBe(5n * 10n ** 15n);
  }, 120_000);

  it("counts a run never counted", async () => {
    const run = runOf(listingOf(5), walletOf(10));
    expect(await adjustRunOutcome(tables, run)).toBe("counted");
    expect((await queryPartition(tables, listingOf(5))).find((item) => item.sk === "t#all")?.charged_wei).toBe(run.cost_wei);
  });
});

describe("lapses, time to first output and verified feedback", () => {
  const sub = (kind: "purchase" | "renewal", at: string, expires: string, paidFrom?: string): ChainFact => {
    sequence++;
    const s = (iso: string) => BigInt(Date.parse(iso) / 1000);
    const event = kind === "purchase" ? { kind, model: "subscription" as const, gross: 1n, fee: 0n, expires_at: s(expires) } : { kind, gross: 1n, fee: 0n, expires_at: s(expires), paid_from: s(paidFrom!) };
    return { id: `0x${sequence.toString(16).padStart(64, "0")}:1`, on_chain_id: listingOf(6), wallet: walletOf(6), at, position: `${sequence}`.padStart(12, "0"), event };
  };

  it("a term lapses at its expiry; a renewal before it moves the lapse, one after it leaves the lapse counted", async () => {
    const facts = [
      sub("purchase", "2030-01-01T00:00:00Z", "2030-01-10T00:30:00Z"),
      sub("renewal", "2030-01-05T00:00:00Z", "2030-01-20T00:30:00Z", "2030-01-10T00:30:00Z"),
      sub("renewal", "2030-02-01T00:00:00Z", "2030-02-11T00:00:00Z", "2030-02-01T00:00:00Z"),
    ];
    for (const fact of facts) await applyFact(tables, chainToken(fact.id), chainTargets(fact));
    const a = await readAnalytics(tables, [listingOf(6)], { from: new Date("2030-01-01T00:00:00Z"), to: new Date("2030-02-28T00:00:00Z"), granularity: "day" });
    const lapsedOn = (day: string) => a.series.find((f) => f.period === day)!;
    // 2030 is in the future: the terms are lapsing, not yet lapsed.
    expect(lapsedOn("2030-01-10").rentals.lapsing).toBe(0n);
    expect(lapsedOn("2030-01-20").rentals.lapsing).toBe(1n);
    expect(lapsedOn("2030-02-11").rentals.lapsing).toBe(1n);
    expect(a.totals.rentals.lapsing).toBe(2n);
    expect(a.totals.rentals.renewals).toBe(2n);
  });

  it("a past term is lapsed", async () => {
    const fact = { ...sub("purchase", "2020-01-01T00:00:00Z", "2020-01-02T05:00:00Z"), on_chain_id: listingOf(7) };
    await applyFact(tables, chainToken(fact.id), chainTargets(fact));
    const a = await readAnalytics(tables, [listingOf(7)], { from: new Date("2020-01-01T00:00:00Z"), to: new Date("2020-01-03T00:00:00Z"), granularity: "day" });
    expect(a.series.map((f) => f.rentals.lapsed)).toEqual([0n, 1n, 0n]);
  });

  it("streams' time to first output, apart from synchronous runs", async () => {
    const listing = listingOf(8);
    for (const first of [40, 180, undefined]) {
      const run = runOf(listing, walletOf(8), first === undefined ? {} : { first_output_ms: first });
      await applyFact(tables, runToken(run.run_id), runTargets(run));
    }
    const a = await readAnalytics(tables, [listing], { from: new Date("2030-03-01T00:00:00Z"), to: new Date("2030-03-01T12:00:00Z"), granularity: "day" });
    expect(a.totals.time_to_first_output).toEqual({ count: 2n, mean_ms: 110, p50_ms: 50, p95_ms: 200 });
    expect(a.totals.latency.count).toBe(3n);
  });

  it("verified feedback counts by the time it was given, with its score; a revocation takes it out", async () => {
    const listing = listingOf(9);
    const feedback = (sk: string, value: string, decimals: number): FeedbackItem =>
      ({ pk: "feedback#7", sk, agent_id: "7", client: walletOf(1), feedback_index: sk, value, value_decimals: decimals, verdict: "verified", revoked: false, listing, given_at: "2030-04-02T08:00:00.000Z" }) as unknown as FeedbackItem;
    await recordFeedback(tables, feedback("a", "9050", 2));
    await recordFeedback(tables, feedback("a", "9050", 2)); // a replay
    await recordFeedback(tables, feedback("b", "70", 0));
    const read = () => readAnalytics(tables, [listing], { from: new Date("2030-04-01T00:00:00Z"), to: new Date("2030-04-03T00:00:00Z"), granularity: "day" });
    expect((await read()).series[1]!.reputation).toEqual({ verified_feedback: 2n, mean_score: 80.25 });
    await recordFeedbackRevoked(tables, { ...feedback("b", "70", 0), revoked: true });
    await recordFeedbackRevoked(tables, { ...feedback("b", "70", 0), revoked: true });
    expect((await read()).totals.reputation).toEqual({ verified_feedback: 1n, mean_score: 90.5 });
    expect(scoreHundredths("12345", 4)).toBe(123n);
  });
});

describe("a creator's renters across its listings", () => {
  it("a wallet renting two of a creator's listings is one renter of the creator (counted once with writers racing), and the rebuild writes the same", async () => {
    const creator = walletOf(0xc0ffee);
    const listings = [listingOf(20), listingOf(21)];
    for (const listing of listings) await putAgent(tables, listing, { listing_id: `lst_${listing.slice(2)}`, creator });
    const both = walletOf(2000);
    const facts: (() => Promise<unknown>)[] = [];
    // `both` buys and is charged in each listing (facts racing); two other wallets in one listing each.
    for (const listing of listings) {
      for (const fact of [chargeOf(listing, both, 10n ** 15n), chargeOf(listing, both, 2n * 10n ** 15n)]) facts.push(() => applyFact(tables, chainToken(fact.id), chainTargets(fact)));
      const run = runOf(listing, both);
      facts.push(() => applyFact(tables, runToken(run.run_id), runTargets(run)));
    }
    const one = chargeOf(listings[0]!, walletOf(2001), 10n ** 15n);
    const other = chargeOf(listings[1]!, walletOf(2002), 10n ** 15n);
    facts.push(() => applyFact(tables, chainToken(one.id), chainTargets(one)), () => applyFact(tables, chainToken(other.id), chainTargets(other)));
    await applyAll(facts);

    expect(await creatorRenterCount(tables, creator)).toBe(3);
    const range = { from: new Date("2030-03-01T00:00:00Z"), to: new Date("2030-03-01T23:00:00Z"), granularity: "hour" as const };
    // Per listing, each counts its own: two and two (added up over listings, 4; the creator's count, 3).
    expect((await readAnalytics(tables, [listings[0]!], range)).renter_count).toBe(2);
    expect((await readAnalytics(tables, [listings[1]!], range)).renter_count).toBe(2);
    // The rebuild's creator partition equals the live one.
    const live = await queryPartitionPk(tables, creatorPk(creator));
    const rebuilt = await rebuiltCreatorPartitions(tables, new Map(await Promise.all(listings.map(async (l) => [rollupPk(l), new Map((await queryPartition(tables, l)).map((item) => [item.sk, item as Record<string, bigint | string>]))] as const))));
    const partition = rebuilt.get(creatorPk(creator))!;
    expect(partition.get("renters")).toEqual({ renters: 3n });
    expect(live.filter((item) => item.sk.startsWith("r#")).map((item) => [item.sk, item.wallet]).sort()).toEqual([...partition.entries()].filter(([sk]) => sk.startsWith("r#")).map(([sk, item]) => [sk, item.wallet]).sort());
    expect(live.find((item) => item.sk === "renters")?.renters).toBe(3n);
  }, 120_000);
});

describe("packed series", () => {
  it("an hour range and a day range read from the packs equal the hour and day items", async () => {
    const listing = listingOf(30);
    for (const [at, wallet] of [["2030-05-01T03:10:00.000Z", 1], ["2030-05-01T03:50:00.000Z", 2], ["2030-05-02T23:59:00.000Z", 1], ["2030-06-01T00:00:00.000Z", 3]] as const) {
      const run = runOf(listing, walletOf(3000 + wallet), { finished_at: at });
      await applyFact(tables, runToken(run.run_id), runTargets(run));
    }
    const items = await queryPartition(tables, listing);
    const byHour = await readAnalytics(tables, [listing], { from: new Date("2030-05-01T00:00:00Z"), to: new Date("2030-05-03T00:00:00Z"), granularity: "hour" });
    const hours = new Map(byHour.series.filter((p) => p.runs.completed > 0n).map((p) => [p.period, p.runs.completed]));
    expect(hours).toEqual(new Map([["2030-05-01T03", 2n], ["2030-05-02T23", 1n]]));
    for (const [period, count] of hours) expect(items.find((item) => item.sk === `h#${period}`)?.runs_completed).toBe(count);
    const byDay = await readAnalytics(tables, [listing], { from: new Date("2030-04-30T00:00:00Z"), to: new Date("2030-06-01T12:00:00Z"), granularity: "day" });
    expect(byDay.series.filter((p) => p.runs.completed > 0n).map((p) => [p.period, p.runs.completed])).toEqual([["2030-05-01", 2n], ["2030-05-02", 1n], ["2030-06-01", 1n]]);
    expect(byDay.totals.runs.charged_wei).toBe(4n * 10n ** 15n);
    // The packs hold what the rebuild would write for them.
    const partition = new Map(items.map((item) => [item.sk, item as Record<string, bigint | string>]));
    for (const [sk, pack] of rebuiltPacks(partition)) {
      const live = items.find((item) => item.sk === sk)!;
      for (const [name, value] of Object.entries(pack)) if (typeof value === "string") expect(live[name]).toBe(value);
    }
  });
});

describe("amounts per currency (decision 0255)", () => {
  it("an ETH and a USDC listing read together: counts add up, amounts only within their currency; an x402 payment is revenue that moves no balance", async () => {
    const eth = listingOf(900);
    const token = listingOf(901);
    const usdc = { symbol: "USDC", address: "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const, decimals: 6 };
    const at = "2030-07-01T10:00:00.000Z";
    const fact = (listing: `0x${string}`, wallet: string, event: ChainFact["event"]): ChainFact => {
      sequence++;
      return { id: `0x${sequence.toString(16).padStart(64, "0")}:0`, on_chain_id: listing, wallet, at, position: `${sequence}`.padStart(12, "0"), event };
    };
    const facts = [
      fact(eth, walletOf(1), { kind: "deposit", amount: 5n * 10n ** 15n, purchase: true }),
      fact(eth, walletOf(1), { kind: "charge", gross: 10n ** 15n, fee: 25n * 10n ** 12n }),
      fact(token, walletOf(1), { kind: "deposit", amount: 750_000n, purchase: true }),
      fact(token, walletOf(1), { kind: "charge", gross: 250_000n, fee: 6_250n }),
      fact(token, walletOf(2), { kind: "payment", gross: 250_000n, fee: 6_250n }),
    ];
    for (const f of facts) await applyFact(tables, chainToken(f.id), chainTargets(f));
    for (const run of [runOf(eth, walletOf(1), { finished_at: at }), runOf(token, walletOf(1), { cost_wei: 250_000n, finished_at: at }), runOf(token, walletOf(2), { cost_wei: 250_000n, finished_at: at })]) await applyFact(tables, runToken(run.run_id), runTargets(run));

    const range = { from: new Date("2030-07-01T00:00:00Z"), to: new Date("2030-07-01T23:00:00Z"), granularity: "day" as const };
    const both = await readAnalytics(tables, [{ id: eth, currency: { symbol: "ETH", address: null, decimals: 18 } }, { id: token, currency: usdc }], range);
    // Counts of both listings.
    expect(both.totals.runs.completed).toBe(3n);
    expect(both.totals.rentals.charges).toBe(2n);
    expect(both.totals.x402_payments).toBe(1n);
    // The `_wei` figures are the ETH listing's alone.
    expect(both.totals.revenue.gross_wei).toBe(10n ** 15n);
    expect(both.totals.runs.charged_wei).toBe(10n ** 15n);
    expect(both.totals.rentals.deposits_wei).toBe(5n * 10n ** 15n);
    expect(both.totals.by_currency.map((c) => c.currency.symbol)).toEqual(["ETH", "USDC"]);
    const [ethFigures, usdcFigures] = both.totals.by_currency;
    expect(ethFigures!.revenue.gross).toBe(10n ** 15n);
    expect(usdcFigures!.revenue.by_model.per_query).toEqual({ gross: 500_000n, fee: 12_500n, net: 487_500n });
    expect(usdcFigures!.revenue.paid_by_x402).toBe(250_000n);
    expect(usdcFigures!.runs.charged).toBe(500_000n);
    // The payment took nothing from a balance: 750,000 deposited, 250,000 charged from it.
    expect(usdcFigures!.rentals.balance_change).toBe(500_000n);
    expect(both.series[0]!.by_currency[1]!.revenue.gross).toBe(500_000n);
    // Rankings per currency; the ETH one is `top_renters`.
    expect(both.top_renters.map((r) => [r.wallet, r.spend_wei])).toEqual([[walletOf(1), 10n ** 15n]]);
    expect(both.top_renters_by_currency[1]!.renters.map((r) => [r.wallet, r.spend_wei])).toEqual([[walletOf(1), 250_000n], [walletOf(2), 250_000n]]);
    expect(both.renter_count).toBe(3);

    // The token listing alone: no wei at all.
    const alone = await readAnalytics(tables, [{ id: token, currency: usdc }], range);
    expect(alone.totals.revenue.gross_wei).toBe(0n);
    expect(alone.totals.runs.charged_wei).toBe(0n);
    expect(alone.totals.runs.completed).toBe(2n);
    expect(alone.top_renters).toEqual([]);
    expect(alone.totals.by_currency.map((c) => c.revenue.gross)).toEqual([500_000n]);
  });
});
