// A listing's top renters, kept as its renter items change, so a request reads one item instead of every
// renter (docs/design/analytics.md, decision 0152). The `top` item of a listing's roll-up partition holds
// the TOP_KEPT renters ranked by spend (then wallet), each with the revision of its renter item it was
// copied from, and the listing's renter count.
//
// Exact: spend only grows (it is the chain's purchases, renewals and charges, counted once final), and
// the rank is spend then wallet, so a renter outside the list can only enter it through a change of its
// own item, which writes the list. Every writer of a renter item then merges what it reads back of that
// item (its revision at least its own write's) into the list, keeping per wallet the highest revision:
// late or reordered writers never put an older copy back. The renter count grows by one for the fact
// that created the renter item (its `first_token`), once, as part of the same conditional write.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { getRenter, getTopItem, putTopItem, type RollupItem } from "./rollup.store.ts";

/** The renters a listing's top item keeps (a request shows TOP_RENTERS of them). */
export const TOP_KEPT = 50;

/** One kept renter: wallet, spend, runs, purchases, renewals (decimal strings), revision. */
export interface TopEntry {
  wallet: string;
  spend_wei: string;
  runs: string;
  purchases: string;
  renewals: string;
  rev: string;
}

const big = (value: unknown) => (typeof value === "bigint" ? value : 0n);

/** A renter item as a kept entry. */
export function entryOf(item: RollupItem | Record<string, bigint | string>, wallet: string): TopEntry {
  return { wallet, spend_wei: big(item.spend_wei).toString(), runs: big(item.runs).toString(), purchases: big(item.purchases).toString(), renewals: big(item.renewals).toString(), rev: big(item.rev).toString() };
}

/** The rank: spend descending, then wallet ascending (a key no later change of a renter can lower). */
export function byRank(a: { wallet: string; spend_wei: string | bigint }, b: { wallet: string; spend_wei: string | bigint }): number {
  const x = BigInt(a.spend_wei);
  const y = BigInt(b.spend_wei);
  if (x !== y) return x > y ? -1 : 1;
  return a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0;
}

/** The kept list with `entry` merged in (its wallet's newest revision wins), ranked and cut to TOP_KEPT. */
export function mergeEntry(entries: TopEntry[], entry: TopEntry): TopEntry[] {
  const found = entries.find((e) => e.wallet === entry.wallet);
  if (found && BigInt(found.rev) >= BigInt(entry.rev)) return entries;
  return [...entries.filter((e) => e.wallet !== entry.wallet), entry].sort(byRank).slice(0, TOP_KEPT);
}

/** The kept list as stored: a JSON array, fields in a fixed order (the rebuild writes the same text). */
export const encodeEntries = (entries: TopEntry[]) => JSON.stringify(entries.map((e) => ({ wallet: e.wallet, spend_wei: e.spend_wei, runs: e.runs, purchases: e.purchases, renewals: e.renewals, rev: e.rev })));
export const decodeEntries = (text: string | undefined) => (text ? (JSON.parse(text) as TopEntry[]) : []);

/**
 * Merges a renter item, after fact `token` was added to it, into its listing's top item (once per
 * fact: the token goes into the top item's `in_flight` with the write). Safe to call again after a
 * failure or by a second claimant.
 */
export async function updateTopRenters(tables: Tables, onChainId: string, wallet: string, token: string): Promise<void> {
  for (;;) {
    const [renter, top] = await Promise.all([getRenter(tables, onChainId, wallet), getTopItem(tables, onChainId)]);
    if (!renter || top?.in_flight?.has(token)) return;
    const created = renter.first_token === token;
    const before = decodeEntries(top?.entries);
    const after = mergeEntry(before, entryOf(renter, wallet.toLowerCase()));
    if (!created && encodeEntries(after) === encodeEntries(before)) return;
    if (await putTopItem(tables, onChainId, { entries: encodeEntries(after), addRenters: created ? 1n : 0n, seen: top?.ver }, token)) return;
  }
}

/** The top item the rebuild writes for a listing's rebuilt renter items. */
export function rebuiltTopItem(renters: Map<string, Record<string, bigint | string>>): Record<string, bigint | string> {
  const entries = [...renters.entries()].map(([sk, item]) => entryOf(item, sk.slice(2))).sort(byRank).slice(0, TOP_KEPT);
  return { entries: encodeEntries(entries), renters: BigInt(renters.size) };
}

/** A renter's figures across the listings read (what a request lists). */
export interface TopRenter {
  wallet: string;
  spend_wei: bigint;
  runs: bigint;
  purchases: bigint;
  renewals: bigint;
}

function addEntry(into: Map<string, TopRenter>, entry: TopEntry): void {
  const found = into.get(entry.wallet) ?? { wallet: entry.wallet, spend_wei: 0n, runs: 0n, purchases: 0n, renewals: 0n };
  found.spend_wei += BigInt(entry.spend_wei);
  found.runs += BigInt(entry.runs);
  found.purchases += BigInt(entry.purchases);
  found.renewals += BigInt(entry.renewals);
  into.set(entry.wallet, found);
}

const ranked = (renters: Iterable<TopRenter>, n: number) => [...renters].sort(byRank).slice(0, n);

/**
 * The `n` renters who spent most across `onChainIds`, and the renters counted per listing, from their
 * top items: one read per listing. Across listings the kept lists bound what an unlisted renter can
 * have spent; the candidates whose rank those bounds leave open are read exactly, and when the bounds
 * still cannot settle the ranking, every renter item is read (`readAll`): the answer is always exact.
 */
export async function readTopRenters(tables: Tables, onChainIds: string[], n: number, readAll: () => Promise<TopEntry[][]>): Promise<{ top: TopRenter[]; renter_count: number }> {
  const tops = await Promise.all(onChainIds.map((id) => getTopItem(tables, id)));
  const lists = tops.map((top) => decodeEntries(top?.entries));
  const renterCount = tops.reduce((sum, top) => sum + Number(top?.renters ?? 0n), 0);
  // What a renter absent from a listing's list can have spent there: at most its last kept entry.
  const floors = lists.map((list, i) => (BigInt(tops[i]?.renters ?? 0n) > BigInt(list.length) ? BigInt(list.at(-1)!.spend_wei) : -1n));
  const sums = new Map<string, TopRenter>();
  for (const list of lists) for (const entry of list) addEntry(sums, entry);
  const open = (wallet: string) => lists.flatMap((list, i) => (floors[i]! >= 0n && !list.some((e) => e.wallet === wallet) ? [i] : []));
  // One listing's kept list is its ranking's head as it is; lists none of which is cut add up exactly.
  if (lists.length === 1 || floors.every((f) => f < 0n)) return { top: ranked(sums.values(), n), renter_count: renterCount };
  // The n-th best lower bound: a candidate whose upper bound (its sum plus the floors of the lists it is
  // missing from) stays under it cannot rank; the others are read exactly.
  const lowers = ranked(sums.values(), n);
  const bar = lowers.length === n ? lowers.at(-1)!.spend_wei : 0n;
  const exact: TopRenter[] = [];
  for (const candidate of [...sums.values()]) {
    const missing = open(candidate.wallet);
    if (missing.length === 0) {
      exact.push(candidate);
      continue;
    }
    if (candidate.spend_wei + missing.reduce((sum, i) => sum + floors[i]!, 0n) < bar) continue;
    for (const i of missing) {
      const item = await getRenter(tables, onChainIds[i]!, candidate.wallet);
      if (item) addEntry(sums, entryOf(item, candidate.wallet));
    }
    exact.push(sums.get(candidate.wallet)!);
  }
  const top = ranked(exact, n);
  // A renter in no list spent at most the sum of the floors; it cannot rank unless that reaches the last shown.
  const unseen = floors.reduce((sum, f) => sum + (f > 0n ? f : 0n), 0n);
  if (top.length === n && top.at(-1)!.spend_wei > unseen) return { top, renter_count: renterCount };
  const everyone = new Map<string, TopRenter>();
  for (const list of await readAll()) for (const entry of list) addEntry(everyone, entry);
  return { top: ranked(everyone.values(), n), renter_count: renterCount };
}
