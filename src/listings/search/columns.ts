// The index's documents in memory: one slot per document, with its filter and sort keys in typed
// columns, its terms in the posting lists, and its place in each precomputed order. Upsert and remove
// keep all three in step; nothing here allocates per document at query time.
import { Postings } from "./postings.ts";
import { SortedOrder, type SlotComparator } from "./orders.ts";
import { analyzeDocument } from "./score.ts";
import { CATEGORIES, RENTAL_MODELS, SEARCH_SORTS, type Category, type RentalModel, type SearchSort } from "@agent-rental/core/vocabulary";
import type { SearchDocument } from "./types.ts";
import { Vocabulary } from "./vocabulary.ts";

/** Each category's bit in a slot's category mask. */
export const CATEGORY_BIT = Object.fromEntries(CATEGORIES.map((c, i) => [c, 1 << i])) as Record<Category, number>;
/** Each rental model's code in the rental-model column. */
export const MODEL_CODE = Object.fromEntries(RENTAL_MODELS.map((m, i) => [m, i])) as Record<RentalModel, number>;

/** Upserts beyond this many between two queries mark the orders stale (one re-sort beats many moves). */
const INCREMENTAL_ORDER_UPDATES = 256;

export class DocumentColumns {
  /** slot → document id ("" for a free slot). */
  ids: string[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  capacity = 0;
  price = new Float64Array(0);
  /** slot → the currency's symbol, "" for ETH: price orders group by it (ETH first, then by symbol). */
  currency: string[] = [];
  rating = new Float64Array(0);
  reviews = new Float64Array(0);
  published = new Float64Array(0);
  categories = new Uint8Array(0);
  model = new Uint8Array(0);
  searchable = new Uint8Array(0);
  /** Generation of each slot's indexed text; posting entries of older generations are stale. */
  gen = new Uint32Array(0);
  /** Weighted length of each slot's text. */
  length = new Float64Array(0);
  /** Each searchable slot's [termId, tf, termId, tf, ...], by term id: what to retire on change. */
  private readonly termsOf: (Int32Array | undefined)[] = [];

  readonly vocabulary = new Vocabulary();
  readonly postings = new Postings();
  searchableCount = 0;
  totalLength = 0;
  private changesSinceQuery = 0;

  readonly compareId: SlotComparator = (a, b) => {
    const x = this.ids[a]!;
    const y = this.ids[b]!;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  readonly compareCurrency: SlotComparator = (a, b) => {
    const x = this.currency[a] ?? "";
    const y = this.currency[b] ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  };
  /** One order per sort; "relevance" holds the order used when there is no text query. */
  readonly orders: Record<SearchSort, SortedOrder> = {
    relevance: new SortedOrder(
      (a, b) =>
        this.rating[b]! - this.rating[a]! ||
        this.reviews[b]! - this.reviews[a]! ||
        this.published[b]! - this.published[a]! ||
        this.compareId(a, b),
    ),
    rating: new SortedOrder((a, b) => this.rating[b]! - this.rating[a]! || this.compareId(a, b)),
    // Prices compare within a currency: ETH listings first, in the specification's order, then each
    // token's listings together, by symbol (decision 0190).
    price_asc: new SortedOrder((a, b) => this.compareCurrency(a, b) || this.price[a]! - this.price[b]! || this.compareId(a, b)),
    price_desc: new SortedOrder((a, b) => this.compareCurrency(a, b) || this.price[b]! - this.price[a]! || this.compareId(a, b)),
    newest: new SortedOrder((a, b) => this.published[b]! - this.published[a]! || this.compareId(a, b)),
  };

  size(): number {
    return this.slotOf.size;
  }

  upsert(doc: SearchDocument): void {
    const published = checkDocument(doc);
    let slot = this.slotOf.get(doc.id);
    const wasIn = slot !== undefined && this.searchable[slot] === 1;
    if (slot === undefined) {
      slot = this.allocate();
      this.ids[slot] = doc.id;
      this.slotOf.set(doc.id, slot);
    }
    const nowIn = doc.searchable;
    let terms: Int32Array | undefined;
    let length = 0;
    if (nowIn) {
      const analyzed = analyzeDocument(doc);
      terms = this.encode(analyzed.terms);
      length = analyzed.length;
    }
    const textSame = wasIn && nowIn && length === this.length[slot] && sameTerms(this.termsOf[slot], terms);
    const keysSame =
      wasIn &&
      nowIn &&
      this.price[slot] === doc.price_eth &&
      this.currency[slot] === (doc.currency ?? "") &&
      this.rating[slot] === doc.rating &&
      this.reviews[slot] === doc.review_count &&
      this.published[slot] === published;

    this.noteChange();
    if (wasIn && !keysSame) for (const sort of SEARCH_SORTS) if (this.orders[sort].valid) this.orders[sort].remove(slot);
    if (wasIn && !textSame) this.unindex(slot);

    this.price[slot] = doc.price_eth;
    this.currency[slot] = doc.currency ?? "";
    this.rating[slot] = doc.rating;
    this.reviews[slot] = doc.review_count;
    this.published[slot] = published;
    let mask = 0;
    for (const category of doc.category) if (Object.hasOwn(CATEGORY_BIT, category)) mask |= CATEGORY_BIT[category as Category];
    this.categories[slot] = mask;
    this.model[slot] = MODEL_CODE[doc.rental_model];
    this.searchable[slot] = nowIn ? 1 : 0;
    this.searchableCount += (nowIn ? 1 : 0) - (wasIn ? 1 : 0);

    if (nowIn && !textSame) this.index(slot, terms!, length);
    if (nowIn && !keysSame) for (const sort of SEARCH_SORTS) if (this.orders[sort].valid) this.orders[sort].insert(slot);
  }

  remove(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    if (this.searchable[slot] === 1) {
      this.noteChange();
      for (const sort of SEARCH_SORTS) if (this.orders[sort].valid) this.orders[sort].remove(slot);
      this.unindex(slot);
      this.searchable[slot] = 0;
      this.searchableCount--;
    }
    this.slotOf.delete(id);
    this.ids[slot] = "";
    this.free.push(slot);
    return true;
  }

  /** Called before each query: re-sorts any order a burst of upserts left stale. */
  prepare(): void {
    this.changesSinceQuery = 0;
    let stale = false;
    for (const sort of SEARCH_SORTS) stale ||= !this.orders[sort].valid;
    if (!stale) return;
    const slots = new Int32Array(this.searchableCount);
    let n = 0;
    for (let slot = 0; slot < this.ids.length; slot++) if (this.searchable[slot] === 1) slots[n++] = slot;
    for (const sort of SEARCH_SORTS) if (!this.orders[sort].valid) this.orders[sort].rebuild(slots);
  }

  private noteChange(): void {
    if (++this.changesSinceQuery === INCREMENTAL_ORDER_UPDATES) for (const sort of SEARCH_SORTS) this.orders[sort].valid = false;
  }

  private index(slot: number, terms: Int32Array, length: number): void {
    const gen = this.gen[slot]!;
    for (let i = 0; i < terms.length; i += 2) this.postings.add(terms[i]!, slot, gen, terms[i + 1]!);
    this.termsOf[slot] = terms;
    this.length[slot] = length;
    this.totalLength += length;
  }

  private unindex(slot: number): void {
    this.gen[slot]!++;
    const terms = this.termsOf[slot];
    if (terms) for (let i = 0; i < terms.length; i += 2) this.postings.retire(terms[i]!, this.gen);
    this.termsOf[slot] = undefined;
    this.totalLength -= this.length[slot]!;
    this.length[slot] = 0;
  }

  private encode(terms: Map<string, number>): Int32Array {
    const pairs: [number, number][] = [];
    for (const [term, tf] of terms) pairs.push([this.vocabulary.intern(term), tf]);
    pairs.sort((a, b) => a[0] - b[0]);
    const out = new Int32Array(pairs.length * 2);
    pairs.forEach(([id, tf], i) => {
      out[2 * i] = id;
      out[2 * i + 1] = tf;
    });
    return out;
  }

  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const slot = this.ids.length;
    this.ids.push("");
    if (slot >= this.capacity) this.grow(Math.max(1024, this.capacity * 2));
    return slot;
  }

  private grow(capacity: number): void {
    const widen = <T extends Float64Array | Uint8Array | Uint32Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.price = widen(this.price, (n) => new Float64Array(n));
    this.rating = widen(this.rating, (n) => new Float64Array(n));
    this.reviews = widen(this.reviews, (n) => new Float64Array(n));
    this.published = widen(this.published, (n) => new Float64Array(n));
    this.length = widen(this.length, (n) => new Float64Array(n));
    this.categories = widen(this.categories, (n) => new Uint8Array(n));
    this.model = widen(this.model, (n) => new Uint8Array(n));
    this.searchable = widen(this.searchable, (n) => new Uint8Array(n));
    this.gen = widen(this.gen, (n) => new Uint32Array(n));
    this.capacity = capacity;
  }
}

function sameTerms(a: Int32Array | undefined, b: Int32Array | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Refuses documents whose keys would break the orders (NaN sorts nowhere); returns published_at in ms. */
function checkDocument(doc: SearchDocument): number {
  const published = Date.parse(doc.published_at);
  const problems: string[] = [];
  if (typeof doc.id !== "string" || doc.id.length === 0) problems.push("id");
  if (!Number.isFinite(doc.price_eth)) problems.push("price_eth");
  if (!Number.isFinite(doc.rating)) problems.push("rating");
  if (!Number.isFinite(doc.review_count)) problems.push("review_count");
  if (!Number.isFinite(published)) problems.push("published_at");
  if (!Object.hasOwn(MODEL_CODE, doc.rental_model)) problems.push("rental_model");
  if (problems.length) throw new TypeError(`search document ${String(doc.id)}: invalid ${problems.join(", ")}`);
  return published;
}
