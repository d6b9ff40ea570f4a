// Query execution over a DocumentColumns. With text: each query term expands to vocabulary terms
// (exact, prefix, one typo), their posting lists are scanned, a document keeps its best-scoring
// expansion per query term, and only documents matching every query term survive (AND). Then filters,
// and the page is cut by a bounded heap (relevance), a sort of a small match set, or a walk of the
// precomputed order. Without text: a walk of the precomputed order with filter checks. Scratch arrays
// are per index and reused; epochs mark which query or term last touched a slot, so nothing is cleared
// between queries.
import { bm25, idf } from "./score.ts";
import { CATEGORY_BIT, MODEL_CODE, type DocumentColumns } from "./columns.ts";
import type { SlotComparator } from "./orders.ts";
import { queryTerms } from "./tokenize.ts";
import type { SearchQuery, SearchResult } from "./types.ts";

/** Matches marked with this hit count have passed every term and every filter. */
const MATCHED = 255;
/** Default for SearchIndexOptions.smallMatchSet. */
export const SMALL_MATCH_SET = 4096;

interface Filters {
  any: boolean;
  categoryBit: number;
  model: number;
  minPrice: number;
  maxPrice: number;
  /** The currency asked for ("" ETH), or null for every currency. */
  currency: string | null;
  /** The currency price bounds are in ("" ETH), or null without bounds: other currencies do not pass. */
  boundsCurrency: string | null;
  minRating: number;
}

export class QueryRunner {
  private capacity = 0;
  private queryMark = new Uint32Array(0);
  private termMark = new Uint32Array(0);
  private hits = new Uint8Array(0);
  private score = new Float64Array(0);
  private best = new Float64Array(0);
  private candidates = new Int32Array(0);
  private heap = new Int32Array(0);
  private epoch = 0;
  private matchEpoch = 0;
  private readonly byRelevance: SlotComparator;

  constructor(
    private readonly columns: DocumentColumns,
    private readonly smallMatchSet = SMALL_MATCH_SET,
  ) {
    this.byRelevance = (a, b) => this.score[b]! - this.score[a]! || columns.rating[b]! - columns.rating[a]! || columns.compareId(a, b);
  }

  run(query: SearchQuery): SearchResult {
    const columns = this.columns;
    columns.prepare();
    this.fit();
    const limit = Math.max(0, Math.floor(query.limit));
    const offset = Math.max(0, Math.floor(query.offset));
    const filters = toFilters(query);
    const terms = queryTerms(query.q);
    const order = columns.orders[query.sort];

    if (terms.length === 0) {
      if (!filters.any) {
        return { ids: this.idsOf(order.slots, offset, Math.min(order.length, offset + limit)), total: order.length };
      }
      const ids: string[] = [];
      let total = 0;
      for (let i = 0; i < order.length; i++) {
        const slot = order.slots[i]!;
        if (!this.passes(slot, filters)) continue;
        if (total >= offset && total < offset + limit) ids.push(columns.ids[slot]!);
        total++;
      }
      return { ids, total };
    }

    const matched = this.match(terms, filters);
    const end = Math.min(matched, offset + limit);
    if (offset >= end) return { ids: [], total: matched };
    const all = this.candidates.subarray(0, matched);
    if (query.sort === "relevance") {
      const top = matched <= this.smallMatchSet ? all.sort(this.byRelevance) : this.topK(all, end, this.byRelevance);
      return { ids: this.idsOf(top, offset, end), total: matched };
    }
    if (matched <= this.smallMatchSet || matched * 16 <= columns.searchableCount) {
      return { ids: this.idsOf(all.sort(order.compare), offset, end), total: matched };
    }
    // Many matches: walk the precomputed order until the page is full.
    const ids: string[] = [];
    const epoch = this.matchEpoch;
    for (let i = 0, seen = 0; i < order.length && seen < end; i++) {
      const slot = order.slots[i]!;
      if (this.queryMark[slot] !== epoch || this.hits[slot] !== MATCHED) continue;
      if (seen >= offset) ids.push(columns.ids[slot]!);
      seen++;
    }
    return { ids, total: matched };
  }

  /** Scores and AND-matches the terms, applies filters; leaves the matches in `candidates[0..n)`
   * with their scores in `score` and returns n. */
  private match(terms: string[], filters: Filters): number {
    const columns = this.columns;
    const n = columns.searchableCount;
    if (n === 0) return 0;
    const average = columns.totalLength / n;
    const { vocabulary, postings, gen, length } = columns;
    const { queryMark, termMark, hits, score, best, candidates } = this;
    const queryEpoch = this.nextEpoch();
    let count = 0;
    for (let t = 0; t < terms.length; t++) {
      const expansion = vocabulary.expand(terms[t]!, postings.df);
      const termEpoch = this.nextEpoch();
      count = 0;
      for (let e = 0; e < expansion.termIds.length; e++) {
        const termId = expansion.termIds[e]!;
        const list = postings.list(termId);
        if (!list) continue;
        const weight = expansion.weights[e]!;
        const termIdf = idf(postings.df[termId]!, n);
        const { slots, gens, tfs } = list;
        for (let j = 0; j < list.length; j++) {
          const slot = slots[j]!;
          if (gens[j] !== gen[slot]) continue;
          if (t > 0 && (queryMark[slot] !== queryEpoch || hits[slot] !== t)) continue;
          const s = weight * bm25(tfs[j]!, length[slot]!, average, termIdf);
          if (termMark[slot] !== termEpoch) {
            termMark[slot] = termEpoch;
            best[slot] = s;
            candidates[count++] = slot;
          } else if (s > best[slot]!) best[slot] = s;
        }
      }
      if (count === 0) return 0;
      for (let i = 0; i < count; i++) {
        const slot = candidates[i]!;
        if (t === 0) {
          queryMark[slot] = queryEpoch;
          hits[slot] = 1;
          score[slot] = best[slot]!;
        } else {
          hits[slot]!++;
          score[slot]! += best[slot]!;
        }
      }
    }
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const slot = candidates[i]!;
      if (filters.any && !this.passes(slot, filters)) continue;
      hits[slot] = MATCHED;
      candidates[kept++] = slot;
    }
    this.matchEpoch = queryEpoch; // the walk of an order recognises matches by the query's epoch
    return kept;
  }

  /** The k best of slots under compare, sorted: a max-heap of the k best so far, worst on top. */
  private topK(slots: Int32Array, k: number, compare: SlotComparator): Int32Array {
    if (this.heap.length < k) this.heap = new Int32Array(Math.max(k, 128));
    const heap = this.heap;
    let size = 0;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      if (size < k) {
        let at = size++;
        heap[at] = slot;
        while (at > 0) {
          const parent = (at - 1) >> 1;
          if (compare(heap[at]!, heap[parent]!) <= 0) break;
          heap[at] = heap[parent]!;
          heap[parent] = slot;
          at = parent;
        }
      } else if (compare(slot, heap[0]!) < 0) {
        let at = 0;
        heap[0] = slot;
        for (;;) {
          const left = 2 * at + 1;
          if (left >= size) break;
          const right = left + 1;
          const worse = right < size && compare(heap[right]!, heap[left]!) > 0 ? right : left;
          if (compare(heap[worse]!, slot) <= 0) break;
          heap[at] = heap[worse]!;
          heap[worse] = slot;
          at = worse;
        }
      }
    }
    return heap.subarray(0, size).sort(compare);
  }

  private passes(slot: number, f: Filters): boolean {
    const columns = this.columns;
    if (f.categoryBit !== 0 && (columns.categories[slot]! & f.categoryBit) === 0) return false;
    if (f.model >= 0 && columns.model[slot] !== f.model) return false;
    if (f.currency !== null && columns.currency[slot] !== f.currency) return false;
    if (f.boundsCurrency !== null && columns.currency[slot] !== f.boundsCurrency) return false;
    const price = columns.price[slot]!;
    return price >= f.minPrice && price <= f.maxPrice && columns.rating[slot]! >= f.minRating;
  }

  private idsOf(slots: Int32Array, from: number, to: number): string[] {
    const ids: string[] = [];
    for (let i = from; i < to; i++) ids.push(this.columns.ids[slots[i]!]!);
    return ids;
  }

  private nextEpoch(): number {
    if (this.epoch >= 0xfffffff0) {
      this.queryMark.fill(0);
      this.termMark.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  /** Grows the scratch arrays to the columns' capacity. */
  private fit(): void {
    const capacity = this.columns.capacity;
    if (capacity <= this.capacity) return;
    this.capacity = capacity;
    this.queryMark = new Uint32Array(capacity);
    this.termMark = new Uint32Array(capacity);
    this.hits = new Uint8Array(capacity);
    this.score = new Float64Array(capacity);
    this.best = new Float64Array(capacity);
    this.candidates = new Int32Array(capacity);
  }
}

function toFilters(query: SearchQuery): Filters {
  const filters: Filters = {
    any: false,
    categoryBit: query.category ? CATEGORY_BIT[query.category] : 0,
    model: query.rental_model ? MODEL_CODE[query.rental_model] : -1,
    minPrice: query.min_price ?? -Infinity,
    maxPrice: query.max_price ?? Infinity,
    // ETH is "" in the columns; a token by its symbol.
    currency: query.currency === undefined ? null : query.currency === "ETH" ? "" : query.currency,
    boundsCurrency: null,
    minRating: query.min_rating ?? -Infinity,
  };
  const bounded = query.min_price !== undefined || query.max_price !== undefined;
  // Bounds are numbers in one currency: the one asked for, else ETH (the specification's unit).
  if (bounded) filters.boundsCurrency = filters.currency ?? "";
  filters.any = filters.categoryBit !== 0 || filters.model >= 0 || bounded || filters.currency !== null || query.min_rating !== undefined;
  return filters;
}
