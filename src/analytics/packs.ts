// Packed series (decision 0210): a listing's day holds its 24 hours, and its month its days, each as one
// text attribute of a pack item, so 31 days by hour reads 32 items and a year by day 13 instead of 744
// and 365 (a read costs by the attribute, not by the item: docs/benchmarks/analytics.md).
//   - `hp#<YYYY-MM-DD>`: `hHH` the hour's counters as text, `vHH` the hour item's `pv` it was copied at;
//   - `dp#<YYYY-MM>`: `dDD` the day's counters as text, `vDD` the day item's `pv`.
// The hour and day items stay the source: every write to one adds 1 to its `pv`, and the writer then
// copies what it reads back of the item into its pack entry, if the entry's version is lower. Every
// writer copies after its own write, so the last copy of an item is of its final state and no older copy
// can replace a newer one: the packs equal their items once the writers are done, as the rebuild's do.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { getRollupItem, putPackEntry, type RollupItem } from "./rollup.store.ts";

/** Bookkeeping attributes, never figures: the version a pack compares (`pv`) and the fact tokens. */
export const PACK_VERSION = "pv";

/** The pack item and entry an hour (`h#YYYY-MM-DDTHH`) or day (`d#YYYY-MM-DD`) item is copied into. */
export function packEntryOf(sk: string): { sk: string; entry: string; version: string } | null {
  if (sk.startsWith("h#")) return { sk: `hp#${sk.slice(2, 12)}`, entry: `h${sk.slice(13, 15)}`, version: `v${sk.slice(13, 15)}` };
  if (sk.startsWith("d#")) return { sk: `dp#${sk.slice(2, 9)}`, entry: `d${sk.slice(10, 12)}`, version: `v${sk.slice(10, 12)}` };
  return null;
}

/** An item's counters as text: `name=value` pairs sorted by name, zeros and bookkeeping left out. */
export function encodeCounters(item: Record<string, unknown>): string {
  return Object.entries(item)
    .filter((e): e is [string, bigint] => typeof e[1] === "bigint" && e[1] !== 0n && e[0] !== PACK_VERSION)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join(",");
}

export function decodeCounters(text: string): Map<string, bigint> {
  const counters = new Map<string, bigint>();
  if (!text) return counters;
  let start = 0;
  while (start < text.length) {
    const at = text.indexOf("=", start);
    let end = text.indexOf(",", at);
    if (end === -1) end = text.length;
    const digits = text.slice(at + 1, end);
    // Up to 15 digits a number holds exactly, and converts faster than text.
    counters.set(text.slice(start, at), digits.length < 16 ? BigInt(Number(digits)) : BigInt(digits));
    start = end + 1;
  }
  return counters;
}

/** Copies an hour or day item, as it is now, into its pack entry (a newer copy is never replaced). */
export async function copyIntoPack(tables: Tables, pk: string, sk: string): Promise<void> {
  const entry = packEntryOf(sk);
  if (!entry) return;
  const item = await getRollupItem(tables, pk, sk);
  if (!item || typeof item[PACK_VERSION] !== "bigint") return;
  await putPackEntry(tables, pk, entry.sk, { entry: entry.entry, version: entry.version, text: encodeCounters(item), pv: item[PACK_VERSION] });
}

/** The pack items of a partition's rebuilt hour and day items (each entry at the item's `pv`). */
export function rebuiltPacks(partition: Map<string, Record<string, bigint | string>>): Map<string, Record<string, bigint | string>> {
  const packs = new Map<string, Record<string, bigint | string>>();
  for (const [sk, item] of partition) {
    const entry = packEntryOf(sk);
    if (!entry) continue;
    const pack = packs.get(entry.sk) ?? {};
    pack[entry.entry] = encodeCounters(item);
    pack[entry.version] = item[PACK_VERSION] ?? 0n;
    packs.set(entry.sk, pack);
  }
  return packs;
}

/** The periods' counters unpacked from pack items: hours (`YYYY-MM-DDTHH`) or days (`YYYY-MM-DD`). */
export function unpack(items: RollupItem[]): Map<string, Map<string, bigint>> {
  const periods = new Map<string, Map<string, bigint>>();
  for (const item of items) {
    const base = item.sk.slice(3);
    const hours = item.sk.startsWith("hp#");
    for (const [name, value] of Object.entries(item)) {
      if (typeof value !== "string" || !/^[hd]\d\d$/.test(name)) continue;
      periods.set(hours ? `${base}T${name.slice(1)}` : `${base}-${name.slice(1)}`, decodeCounters(value));
    }
  }
  return periods;
}
