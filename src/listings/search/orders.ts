// Precomputed sort orders: for each sort, the searchable slots kept sorted by a total comparator
// (every chain ends on the id), so a query without text walks an order instead of sorting, and a
// text query with many matches walks it too. Upserts move one slot with a binary search and a memmove
// (O(n) bytes, microseconds at 100,000); a burst of upserts without queries in between marks the
// order stale instead, and the next query re-sorts once.

export type SlotComparator = (a: number, b: number) => number;

export class SortedOrder {
  slots = new Int32Array(1024);
  length = 0;
  valid = true;

  constructor(readonly compare: SlotComparator) {}

  insert(slot: number): void {
    if (this.length === this.slots.length) {
      const grown = new Int32Array(this.slots.length * 2);
      grown.set(this.slots);
      this.slots = grown;
    }
    const at = this.lowerBound(slot);
    this.slots.copyWithin(at + 1, at, this.length);
    this.slots[at] = slot;
    this.length++;
  }

  /** Removes slot; its sort keys must still be the ones it was inserted with. */
  remove(slot: number): void {
    const at = this.lowerBound(slot);
    if (this.slots[at] !== slot || at >= this.length) throw new Error("search order out of step with its keys");
    this.slots.copyWithin(at, at + 1, this.length);
    this.length--;
  }

  /** Re-sorts from scratch over the given slots. */
  rebuild(slots: Int32Array): void {
    if (this.slots.length < slots.length) this.slots = new Int32Array(Math.max(1024, slots.length * 2));
    this.slots.set(slots);
    this.length = slots.length;
    this.slots.subarray(0, this.length).sort(this.compare);
    this.valid = true;
  }

  private lowerBound(slot: number): number {
    let lo = 0;
    let hi = this.length;
    const compare = this.compare;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.slots[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
