// Creator analytics at scale: one listing with 1,000,000 runs' worth of roll-ups (a year of day items, the
// last 62 days of hour items, the packs of both (a day's hours, a month's days: decision 0210), its
// lifetime item, 1,000 renters) on dynalite, then the reads behind GET
// /v1/creators/me/listings/{listing_id}/analytics for each range it answers, against baselines measured
// in the same run: one GetItem (the floor of any request) and, for what roll-ups avoid, a scan of the
// listing's runs (10,000 run records read, extrapolated to 1,000,000). Then the write cost at
// settlement: what `settlementRecorded` adds to a run's settlement (it hands the fact over and returns),
// against the settlement's own write (one conditional UpdateItem of the run), and the background
// application of the fact (its conditional writes and pack copies) for reference.
// Targets: request p95 <= 200 ms; write cost at settlement p95 <= 1 ms.
// Run: npm run bench -- analytics   (about 5 minutes on a quiet 2-core machine)
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { createTables, ensureTables } from "../src/adapters/tables/dynamo.ts";
import { startDynamo } from "../local/emulators.ts";
import { freePort } from "../local/ports.ts";
import { createLogger } from "../src/logger.ts";
import { readAnalytics, type Range } from "../src/analytics/figures.ts";
import { getLifetime, putRollupItem, rollupPk } from "../src/analytics/rollup.store.ts";
import { applyFact, LATENCY_BOUNDS_MS, runTargets, runToken } from "../src/analytics/rollups.ts";
import { rollupsSettled } from "../src/analytics/record.ts";
import { rebuiltTopItem } from "../src/analytics/top-renters.ts";
import { packEntryOf, rebuiltPacks } from "../src/analytics/packs.ts";
import { settlementRecorded } from "../src/execution/money/settlement.ts";
import { prng } from "./search.ts";
import { ms, summarize } from "./stats.ts";

const RUNS = 1_000_000;
const RENTERS = 1_000;
/** Hour items are written for the last 62 days only: a request reads at most 31 days of hours (a range
 * query by sort key, so older hour items are never read); day items cover the whole year. */
const HOUR_DAYS = 62;
const DAYS = 365;
const PRICE = 1_000_000_000_000_000n;
const FEE = PRICE / 40n;

async function timed(n: number, work: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times;
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

export async function runAnalyticsBench(): Promise<string[]> {
  const rows: string[] = [];
  const dynamo = await startDynamo({ port: await freePort() });
  const prefix = "bench_";
  const tables = createTables({ region: "us-east-1", prefix, endpoint: dynamo.endpoint });
  try {
    await ensureTables(tables, prefix);
    const random = prng(30);
    const listing = `0x${"5a".repeat(32)}` as const;
    const pk = rollupPk(listing);
    const end = Date.UTC(2030, 0, 1);
    const start = end - DAYS * 86_400_000;

    // 1,000,000 runs spread over a year of hours (busier by day than by night), as hour and day items.
    const seedStart = performance.now();
    const hours = DAYS * 24;
    const weights = Array.from({ length: hours }, (_, h) => 0.5 + Math.sin(((h % 24) / 24) * Math.PI) + random());
    const total = weights.reduce((a, b) => a + b, 0);
    const items: { sk: string; counters: Record<string, bigint> }[] = [];
    const days = new Map<string, Record<string, bigint>>();
    let placed = 0;
    for (let h = 0; h < hours; h++) {
      const runs = h === hours - 1 ? RUNS - placed : Math.floor((weights[h]! / total) * RUNS);
      placed += runs;
      const failed = Math.floor(runs * 0.04);
      const counters: Record<string, bigint> = {
        runs_completed: BigInt(runs - failed),
        runs_failed: BigInt(failed),
        fail_timeout: BigInt(Math.floor(failed / 2)),
        fail_agent_error: BigInt(failed - Math.floor(failed / 2)),
        runs_logged: BigInt(runs),
        charged_wei: BigInt(runs - failed) * PRICE,
        gross_per_query: BigInt(runs - failed) * PRICE,
        fee_per_query: BigInt(runs - failed) * FEE,
        charges: BigInt(runs - failed),
        lat_count: BigInt(runs),
        lat_sum_ms: BigInt(runs) * 900n,
      };
      for (let b = 0; b <= LATENCY_BOUNDS_MS.length; b++) counters[`lat_b${b}`] = BigInt(Math.floor(runs / (LATENCY_BOUNDS_MS.length + 1)));
      const iso = new Date(start + h * 3_600_000).toISOString();
      if (h >= hours - HOUR_DAYS * 24) items.push({ sk: `h#${iso.slice(0, 13)}`, counters });
      const day = days.get(iso.slice(0, 10)) ?? {};
      for (const [name, value] of Object.entries(counters)) day[name] = (day[name] ?? 0n) + value;
      days.set(iso.slice(0, 10), day);
    }
    for (const [day, counters] of days) items.push({ sk: `d#${day}`, counters });
    const months = new Map<string, Record<string, bigint>>();
    for (const [day, counters] of days) {
      const month = months.get(day.slice(0, 7)) ?? {};
      for (const [name, value] of Object.entries(counters)) month[name] = (month[name] ?? 0n) + value;
      months.set(day.slice(0, 7), month);
    }
    for (const [month, counters] of months) items.push({ sk: `m#${month}`, counters });
    const lifetime: Record<string, bigint> = {};
    for (const counters of days.values()) for (const [name, value] of Object.entries(counters)) lifetime[name] = (lifetime[name] ?? 0n) + value;
    items.push({ sk: "t#all", counters: lifetime });
    const renters = new Map<string, Record<string, bigint>>();
    for (let r = 0; r < RENTERS; r++) {
      const wallet = `0x${r.toString(16).padStart(40, "0")}`;
      const counters = { spend_wei: BigInt(Math.floor(random() * 1000)) * PRICE, runs: BigInt(Math.floor(random() * 1000)), purchases: 1n, rev: 2n };
      renters.set(`r#${wallet}`, counters);
      items.push({ sk: `r#${wallet}`, counters });
    }
    // The hour and day items' packs (the day's hours, the month's days), as the writers keep them.
    for (const item of items) if (packEntryOf(item.sk)) item.counters.pv = 1n;
    const packs = rebuiltPacks(new Map(items.map((item) => [item.sk, item.counters])));
    for (const [sk, pack] of packs) items.push({ sk, counters: pack as Record<string, bigint> });
    await inParallel(items, 16, (item) => putRollupItem(tables, pk, { sk: item.sk, ...item.counters }));
    // The listing's kept top renters and renter count, as the writers keep them.
    await putRollupItem(tables, pk, { sk: "top", ...rebuiltTopItem(renters) });
    // The baseline's runs: 10,000 run records of the listing, as the runs table holds them.
    const runItems = Array.from({ length: 5_000 }, (_, i) => ({ pk: `bench-runs#${listing}`, sk: `run_${i.toString().padStart(32, "0")}`, status: "completed", cost_wei: PRICE.toString(), duration_ms: 900, finished_at: new Date(start + i * 3_000_000).toISOString(), wallet: `0x${(i % RENTERS).toString(16).padStart(40, "0")}` }));
    await inParallel(runItems, 16, (item) => tables.doc.send(new PutCommand({ TableName: tables.name("analytics"), Item: item })));
    rows.push(`seeded: ${items.length + 1} roll-up items (${HOUR_DAYS * 24} hours, ${days.size} days, ${months.size} months, ${packs.size} packs of hours and days, lifetime, ${RENTERS} renters and their top item) for ${RUNS.toLocaleString("en")} runs over a year, and 5,000 run records, in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);

    // Baselines.
    const getItem = summarize(await timed(200, () => tables.doc.send(new GetCommand({ TableName: tables.name("analytics"), Key: { pk, sk: "t#all" } }))));
    const scanRuns = summarize(await timed(3, async () => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await tables.doc.send(new QueryCommand({ TableName: tables.name("analytics"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": `bench-runs#${listing}` }, ExclusiveStartKey: startKey }));
        startKey = out.LastEvaluatedKey;
      } while (startKey);
    }));
    rows.push(`baseline: one GetItem p50 ${ms(getItem.p50)} p95 ${ms(getItem.p95)} (n=${getItem.n})`);
    rows.push(`baseline: reading 5,000 run records p50 ${ms(scanRuns.p50)} (n=${scanRuns.n}); 1,000,000 runs ≈ ${(scanRuns.p50 * 200 / 1000).toFixed(1)} s`);

    // The request's reads: the range's buckets, the top item, the lifetime item.
    const to = new Date(end - 1);
    const ranges: [string, Range][] = [
      ["last 24 hours by hour", { from: new Date(end - 86_400_000), to, granularity: "hour" }],
      ["31 days by hour (744 points)", { from: new Date(end - 31 * 86_400_000 + 3_600_000), to, granularity: "hour" }],
      ["30 days by day (default)", { from: new Date(end - 30 * 86_400_000), to, granularity: "day" }],
      ["a year by day (365 points)", { from: new Date(start), to, granularity: "day" }],
      ["12 months by month", { from: new Date(start), to, granularity: "month" }],
    ];
    let worst = 0;
    for (const [name, range] of ranges) {
      const request = () => Promise.all([readAnalytics(tables, [listing], range), getLifetime(tables, listing)]);
      const check = (await request())[0];
      const counted = check.series.reduce((sum, p) => sum + Number(p.runs.completed + p.runs.failed), 0);
      await timed(3, request);
      const s = summarize(await timed(30, request));
      worst = Math.max(worst, s.p95);
      rows.push(`request ${name.padEnd(30)} p50 ${ms(s.p50)} p95 ${ms(s.p95)} max ${ms(s.max)}  ratio p95/GetItem ${(s.p95 / getItem.p95).toFixed(1)}x  vs reading the runs ${(scanRuns.p50 * 200 / s.p95).toFixed(0)}x faster  (runs in range ${counted.toLocaleString("en")}, n=${s.n})`);
    }
    rows.push(`target: request p95 <= 200 ms: worst ${ms(worst)} ${worst <= 200 ? "met" : "MISSED"}`);

    // The write cost at settlement.
    const logger = createLogger("error");
    const services = { tables, logger };
    const settledRun = (i: number) => ({
      run_id: `run_${i.toString(16).padStart(32, "0")}`,
      on_chain_id: `0x${"6b".repeat(32)}` as `0x${string}`,
      wallet: `0x${(i % 50).toString(16).padStart(40, "0")}` as `0x${string}`,
      rental_model: "per_query" as const,
      status: "completed" as const,
      duration_ms: 800 + (i % 400),
      cost_wei: PRICE.toString(),
      finished_at: new Date(end + i * 1000).toISOString(),
    });
    const settlementWrite = summarize(await timed(200, async () => {
      const key = { pk: `bench-run#${Math.random()}`, sk: "run" };
      await tables.doc.send(new UpdateCommand({ TableName: tables.name("analytics"), Key: key, UpdateExpression: "SET settlement = :s, cost_wei = :c", ConditionExpression: "attribute_not_exists(settlement) OR settlement = :p", ExpressionAttributeValues: { ":s": "settled", ":c": "1", ":p": "pending" } }));
    }));
    let i = 0;
    const added: number[] = [];
    for (let n = 0; n < 1_000; n++) {
      const run = settledRun(i++);
      const t0 = performance.now();
      settlementRecorded(services, run);
      added.push(performance.now() - t0);
      // Settlements arrive one after another, as runs end; let the background keep up every 50.
      if (n % 50 === 49) await rollupsSettled();
    }
    await rollupsSettled();
    const hook = summarize(added);
    const applyTimes = summarize(await timed(100, async () => {
      const run = settledRun(i++);
      await applyFact(tables, runToken(run.run_id), runTargets({ ...run, cost_wei: PRICE }));
    }));
    rows.push(`baseline: the settlement's own write (one conditional UpdateItem) p50 ${ms(settlementWrite.p50)} p95 ${ms(settlementWrite.p95)} (n=${settlementWrite.n})`);
    rows.push(`write cost at settlement (settlementRecorded) p50 ${(hook.p50 * 1000).toFixed(0)} µs p95 ${(hook.p95 * 1000).toFixed(0)} µs max ${ms(hook.max)}  ratio p95/settlement write ${(hook.p95 / settlementWrite.p95).toFixed(3)}  (n=${hook.n})`);
    rows.push(`background application of a run's fact (its conditional writes and two pack copies, off the answer path) p50 ${ms(applyTimes.p50)} p95 ${ms(applyTimes.p95)} (n=${applyTimes.n})`);
    rows.push(`target: write cost at settlement p95 <= 1 ms: ${(hook.p95 * 1000).toFixed(0)} µs ${hook.p95 <= 1 ? "met" : "MISSED"}`);
    return rows;
  } finally {
    tables.raw.destroy();
    await dynamo.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) for (const row of await runAnalyticsBench()) console.log(row);
