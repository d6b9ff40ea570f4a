// What a heap grew by between two V8 heap snapshots (.heapsnapshot files, as `--heapsnapshot-signal`,
// `v8.writeHeapSnapshot` or the inspector write them): the objects of each constructor (or kind, for
// strings, arrays, code and the like), their count and shallow size in each, sorted by the growth of the
// size. A snapshot is written after a full collection, so what the second holds more is held.
// Run: node --import tsx bench/heap-diff.ts <first.heapsnapshot> <second.heapsnapshot> [rows]
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface Tally {
  count: number;
  size: number;
}

/** Count and shallow size per constructor (objects, closures) or kind (the rest) of one snapshot. */
export function tallyOf(path: string): Map<string, Tally> {
  const heap = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf("type"), fields.indexOf("name"), fields.indexOf("self_size")];
  const tally = new Map<string, Tally>();
  for (let i = 0; i < heap.nodes.length; i += width) {
    const type = types[heap.nodes[i + typeAt]!]!;
    const name = heap.strings[heap.nodes[i + nameAt]!]!;
    const key = type === "object" || type === "closure" || type === "native" ? `${name} (${type})` : `(${type})`;
    const entry = tally.get(key) ?? { count: 0, size: 0 };
    entry.count += 1;
    entry.size += heap.nodes[i + sizeAt]!;
    tally.set(key, entry);
  }
  return tally;
}

/** The rows of the difference, largest growth first. */
export function heapDiff(first: Map<string, Tally>, second: Map<string, Tally>, rows = 30): string[] {
  const keys = new Set([...first.keys(), ...second.keys()]);
  const diff = [...keys].map((key) => {
    const a = first.get(key) ?? { count: 0, size: 0 };
    const b = second.get(key) ?? { count: 0, size: 0 };
    return { key, a, b, grew: b.size - a.size };
  });
  diff.sort((x, y) => y.grew - x.grew);
  const total = (t: Map<string, Tally>) => [...t.values()].reduce((sum, v) => sum + v.size, 0);
  const kb = (bytes: number) => (bytes / 1024).toFixed(0);
  return [
    `heap: ${kb(total(first))} KiB → ${kb(total(second))} KiB`,
    "growth KiB   count before → after   size KiB before → after   constructor (kind)",
    ...diff.slice(0, rows).map((d) => `${kb(d.grew).padStart(10)}   ${`${d.a.count} → ${d.b.count}`.padStart(20)}   ${`${kb(d.a.size)} → ${kb(d.b.size)}`.padStart(23)}   ${d.key}`),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [first, second, rows] = process.argv.slice(2);
  if (!first || !second) throw new Error("usage: heap-diff.ts <first.heapsnapshot> <second.heapsnapshot> [rows]");
  for (const line of heapDiff(tallyOf(first), tallyOf(second), Number(rows ?? 30))) console.log(line);
}
