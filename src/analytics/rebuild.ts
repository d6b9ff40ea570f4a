// The rebuild: every roll-up recomputed from the sources alone (the marketplace's events on the chain,
// up to the last block the indexer counted, and the runs table's finished runs and receipts), with the
// same target functions the live writers use. `compare` tells where the live roll-ups differ from it;
// `writeRebuild` replaces them (run it while the writers are quiet: it owns the partitions it writes).
import { randomUUID } from "node:crypto";
import { encodeOutcome } from "./adjust.ts";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { getMarketplaceLogs } from "../chain/get-marketplace-logs.ts";
import { getChainFactsCursor } from "../credentials/cursor.store.ts";
import { chainFactsFromLogs } from "./chain-facts.ts";
import { chainTargets, chainToken, receiptTargets, receiptToken, runTargets, runToken, type ChainFact, type SettledRunFact } from "./rollups.ts";
import { feedbackRevokedToken, feedbackTargets, feedbackToken, scanCountedFeedback } from "./feedback-facts.ts";
import { rebuiltTopItem } from "./top-renters.ts";
import { PACK_VERSION, packEntryOf, rebuiltPacks } from "./packs.ts";
import { TOP_SK, deleteRollupItems, putAppliedFacts, putRollupItem, queryPartitionPk, rollupPk, type RollupItem, type RollupTarget } from "./rollup.store.ts";
import { creatorOf, rebuiltCreatorPartitions } from "./creator-renters.ts";
import { listAgentsOfCreator } from "../listings/listing.store.ts";
import { parseListingId } from "../listings/ids.ts";
import { scanFinishedRuns } from "../execution/runs/run.store.ts";

/** Rebuilt items by partition, then by sort key: counters (bigint) and attributes set once (string). */
export type Rebuilt = Map<string, Map<string, Record<string, bigint | string>>>;

export interface RebuildSources {
  tables: Tables;
  chain: Pick<ChainClient, "client" | "marketplace">;
  deployBlock: bigint;
  /** Only these listings (on-chain ids); all when absent. */
  listings?: string[];
}

export interface RebuildResult {
  items: Rebuilt;
  tokens: string[];
  /** What a counted fact records beside its token: a run's outcome (adjust.ts), this rebuild's epoch. */
  details: Map<string, Record<string, string>>;
  /** The last block counted (the indexer's cursor − 1); null before its first round. */
  block: bigint | null;
}

function fold(into: Rebuilt, target: RollupTarget): void {
  let partition = into.get(target.pk);
  if (!partition) into.set(target.pk, (partition = new Map()));
  const item = partition.get(target.sk) ?? {};
  for (const [name, amount] of Object.entries(target.add)) {
    if (amount === 0n) continue;
    item[name] = ((item[name] as bigint | undefined) ?? 0n) + amount;
  }
  for (const [name, value] of Object.entries(target.setOnce ?? {})) if (item[name] === undefined) item[name] = value;
  partition.set(target.sk, item);
}

/** Recomputes the roll-ups from the chain and the runs table. */
export async function rebuildRollups(sources: RebuildSources, chunk = 5_000n): Promise<RebuildResult> {
  // A creator's renters span its listings: one listing asked for brings its creator's others.
  const only = sources.listings ? await withSiblings(sources.tables, sources.listings) : undefined;
  const wanted = (id: string) => !only || only.has(id.toLowerCase());
  const items: Rebuilt = new Map();
  const tokens: string[] = [];
  const details = new Map<string, Record<string, string>>();
  // Adjustments after this rebuild are named apart from any before it (adjust.ts).
  const epoch = randomUUID();
  const next = await getChainFactsCursor(sources.tables, sources.chain.marketplace, sources.deployBlock);
  const block = next === null || next === 0n ? null : next - 1n;

  // The chain, in order, up to the block the analytics counted (final blocks only).
  const facts: Omit<ChainFact, "first">[] = [];
  if (block !== null) {
    for (let from = sources.deployBlock; from <= block; from += chunk) {
      const to = from + chunk - 1n < block ? from + chunk - 1n : block;
      facts.push(...(await chainFactsFromLogs(sources.chain, await getMarketplaceLogs(sources.chain as ChainClient, from, to))));
    }
  }
  const firstPurchase = new Map<string, string>();
  for (const fact of facts) {
    if (!fact.wallet || !wanted(fact.on_chain_id)) continue;
    const key = `${fact.on_chain_id}|${fact.wallet}`;
    const seen = firstPurchase.get(key);
    if (fact.event.kind === "purchase" && (seen === undefined || fact.position < seen)) firstPurchase.set(key, fact.position);
  }
  for (const fact of facts) {
    if (!wanted(fact.on_chain_id)) continue;
    const first = fact.event.kind === "purchase" && fact.wallet ? firstPurchase.get(`${fact.on_chain_id}|${fact.wallet}`) === fact.position : undefined;
    for (const target of chainTargets({ ...fact, ...(first === undefined ? {} : { first }) })) fold(items, target);
    tokens.push(chainToken(fact.id));
  }

  // The runs whose settlement is recorded, and those whose receipt is logged.
  for (const run of await scanFinishedRuns(sources.tables)) {
    if (!wanted(run.on_chain_id) || !run.finished_at || run.settlement === "pending" || (run.status !== "completed" && run.status !== "failed")) continue;
    const settled: SettledRunFact = {
      run_id: run.run_id,
      on_chain_id: run.on_chain_id.toLowerCase() as `0x${string}`,
      wallet: run.wallet,
      rental_model: run.rental_model,
      status: run.status,
      ...(run.status === "failed" && run.error ? { failure_code: run.error.code } : {}),
      duration_ms: run.duration_ms ?? 0,
      ...(run.first_output_ms === undefined ? {} : { first_output_ms: run.first_output_ms }),
      cost_wei: BigInt(run.cost_wei || "0"),
      finished_at: run.finished_at,
    };
    for (const target of runTargets(settled)) fold(items, target);
    tokens.push(runToken(run.run_id));
    details.set(runToken(run.run_id), { outcome: encodeOutcome(settled), epoch, listing: settled.on_chain_id });
    if (run.log_state === "logged") {
      for (const target of receiptTargets({ run_id: run.run_id, on_chain_id: run.on_chain_id.toLowerCase() as `0x${string}`, finished_at: run.finished_at })) fold(items, target);
      tokens.push(receiptToken(run.run_id));
    }
  }
  // Verified feedback, and its revocations, as the ERC-8004 indexer recorded them.
  for (const item of await scanCountedFeedback(sources.tables)) {
    if (!wanted(item.listing)) continue;
    for (const target of feedbackTargets(item, 1n)) fold(items, target);
    tokens.push(feedbackToken(item));
    if (item.revoked) {
      for (const target of feedbackTargets(item, -1n)) fold(items, target);
      tokens.push(feedbackRevokedToken(item));
    }
  }

  // Each listing's packed series (its hour and day items, each at version 1), and its top renters and
  // renter count, from its rebuilt renter items.
  for (const partition of items.values()) {
    for (const [sk, item] of partition) if (packEntryOf(sk)) item[PACK_VERSION] = 1n;
    for (const [sk, pack] of rebuiltPacks(partition)) partition.set(sk, pack);
    const renters = new Map([...partition.entries()].filter(([sk]) => sk.startsWith("r#")));
    if (renters.size > 0) partition.set(TOP_SK, rebuiltTopItem(renters));
  }
  for (const [pk, partition] of await rebuiltCreatorPartitions(sources.tables, items)) items.set(pk, partition);
  return { items, tokens, details, block };
}

async function withSiblings(tables: Tables, listings: string[]): Promise<Set<string>> {
  const ids = new Set(listings.map((id) => id.toLowerCase()));
  for (const id of [...ids]) {
    const creator = await creatorOf(tables, id);
    if (creator) for (const agent of await listAgentsOfCreator(tables, creator)) ids.add(parseListingId(agent.listing_id).toLowerCase());
  }
  return ids;
}

/** A live item as the rebuild would write it: its counters and set-once attributes, no bookkeeping. */
function comparable(item: RollupItem | Record<string, bigint | string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(item)) {
    // Bookkeeping, not figures: the exactly-once tokens, the top item's version, which fact created a renter,
    // and the versions packs compare (packs.ts).
    if (name === "pk" || name === "sk" || name === "in_flight" || name === "ver" || name === "first_token" || name === PACK_VERSION || /^v\d\d$/.test(name) || value === undefined) continue;
    if (typeof value === "bigint" && value === 0n) continue;
    out[name] = typeof value === "bigint" ? `${value}n` : String(value);
  }
  return out;
}

export interface RollupDifference {
  listing: string;
  sk: string;
  live: Record<string, string> | null;
  rebuilt: Record<string, string> | null;
}

/** Where the live roll-ups of `listings` differ from the rebuild (empty: identical). */
export async function compareWithLive(tables: Tables, rebuilt: RebuildResult, listings: string[]): Promise<RollupDifference[]> {
  const differences: RollupDifference[] = [];
  // The listings' partitions, and the partitions of their creators' renters.
  const creators = [...rebuilt.items.keys()].filter((pk) => pk.startsWith("croll#"));
  for (const pk of [...listings.map(rollupPk), ...creators]) {
    const listing = pk.slice(pk.indexOf("#") + 1);
    const live = new Map((await queryPartitionPk(tables, pk)).map((item) => [item.sk, comparable(item)]));
    const fresh = new Map([...(rebuilt.items.get(pk) ?? new Map<string, Record<string, bigint | string>>()).entries()].map(([sk, item]) => [sk, comparable(item)]));
    for (const sk of new Set([...live.keys(), ...fresh.keys()])) {
      const a = live.get(sk) ?? null;
      const b = fresh.get(sk) ?? null;
      if (JSON.stringify(sortKeys(a)) !== JSON.stringify(sortKeys(b))) differences.push({ listing, sk, live: a, rebuilt: b });
    }
  }
  return differences;
}

const sortKeys = (value: Record<string, string> | null) => (value ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : 1))) : null);

/** Replaces the live roll-ups of the rebuilt partitions with the rebuild, and records every counted
 * fact as applied (so a replay after the rebuild counts nothing twice). */
export async function writeRebuild(tables: Tables, rebuilt: RebuildResult): Promise<{ items: number; facts: number }> {
  let written = 0;
  for (const [pk, partition] of rebuilt.items) {
    const stale = (await queryPartitionPk(tables, pk)).filter((item) => !partition.has(item.sk));
    await deleteRollupItems(tables, pk, stale.map((item) => item.sk));
    for (const [sk, item] of partition) {
      // A rebuilt renter (of a listing or a creator) was created by no live fact: no later fact counts it as new.
      await putRollupItem(tables, pk, { sk, ...item, ...(sk.startsWith("r#") ? { first_token: "rebuild" } : {}) });
      written++;
    }
  }
  await putAppliedFacts(tables, rebuilt.tokens, rebuilt.details);
  return { items: written, facts: rebuilt.tokens.length };
}
