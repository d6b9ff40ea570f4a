// Posting lists: for each term id, the document slots holding it with their weighted term frequency.
// Deletion is lazy: each entry carries the generation its slot had when indexed, and a slot's
// generation moves on whenever its text is re-indexed or dropped, so old entries simply stop
// matching. A list is compacted once its stale entries outnumber its live ones, which keeps scans
// O(live postings) amortized. `df` counts live entries only.

interface PostingList {
  slots: Int32Array;
  gens: Uint32Array;
  tfs: Uint16Array;
  length: number;
  stale: number;
}

export class Postings {
  private lists: (PostingList | undefined)[] = [];
  /** Live document frequency per term id. */
  df = new Int32Array(1024);

  list(termId: number): PostingList | undefined {
    return this.lists[termId];
  }

  add(termId: number, slot: number, gen: number, tf: number): void {
    if (termId >= this.df.length) {
      const grown = new Int32Array(Math.max(termId + 1, this.df.length * 2));
      grown.set(this.df);
      this.df = grown;
    }
    let list = this.lists[termId];
    if (!list) {
      list = { slots: new Int32Array(4), gens: new Uint32Array(4), tfs: new Uint16Array(4), length: 0, stale: 0 };
      this.lists[termId] = list;
    }
    if (list.length === list.slots.length) grow(list, list.length * 2);
    list.slots[list.length] = slot;
    list.gens[list.length] = gen;
    list.tfs[list.length] = tf;
    list.length++;
    this.df[termId]!++;
  }

  /** One entry of termId became stale (its slot's generation moved on). */
  retire(termId: number, slotGens: Uint32Array): void {
    const list = this.lists[termId];
    if (!list) return;
    this.df[termId]!--;
    list.stale++;
    if (list.stale > 16 && list.stale > list.length - list.stale) compact(list, slotGens);
  }
}

function grow(list: PostingList, capacity: number): void {
  const slots = new Int32Array(capacity);
  const gens = new Uint32Array(capacity);
  const tfs = new Uint16Array(capacity);
  slots.set(list.slots.subarray(0, list.length));
  gens.set(list.gens.subarray(0, list.length));
  tfs.set(list.tfs.subarray(0, list.length));
  list.slots = slots;
  list.gens = gens;
  list.tfs = tfs;
}

function compact(list: PostingList, slotGens: Uint32Array): void {
  let kept = 0;
  for (let i = 0; i < list.length; i++) {
    const slot = list.slots[i]!;
    if (list.gens[i] !== slotGens[slot]) continue;
    list.slots[kept] = slot;
    list.gens[kept] = list.gens[i]!;
    list.tfs[kept] = list.tfs[i]!;
    kept++;
  }
  list.length = kept;
  list.stale = 0;
  if (list.slots.length > 64 && kept < list.slots.length / 4) grow(list, Math.max(4, kept * 2));
}
