// The term dictionary: term ↔ id, a sorted view for prefix lookups and a deletion index (each term
// of TYPO_MIN_LENGTH..TYPO_MAX_LENGTH characters filed under its one-character deletions) for typo
// lookups, so expanding a query term costs a binary search plus O(term length) map reads, never a
// scan of the vocabulary. Terms are never dropped; a term whose document frequency falls to zero is
// skipped at query time.
import { MATCH_WEIGHT, MAX_PREFIX_EXPANSIONS, PREFIX_MIN_LENGTH, TYPO_MAX_LENGTH, TYPO_MIN_LENGTH } from "./score.ts";
import { deletions, withinOneEdit } from "./tokenize.ts";

/** The vocabulary terms a query term stands for, with the weight of each kind of match. */
export interface Expansion {
  termIds: number[];
  weights: number[];
}

export class Vocabulary {
  /** id → term */
  readonly terms: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Term ids in term order; terms added since the last query wait in `pending`. */
  private sorted: number[] = [];
  private pending: number[] = [];
  private readonly byDeletion = new Map<string, number[]>();

  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** The id of term, adding it when new. */
  intern(term: string): number {
    let id = this.ids.get(term);
    if (id !== undefined) return id;
    id = this.terms.length;
    this.terms.push(term);
    this.ids.set(term, id);
    this.pending.push(id);
    if (term.length >= TYPO_MIN_LENGTH && term.length <= TYPO_MAX_LENGTH) {
      for (const variant of deletions(term)) {
        const list = this.byDeletion.get(variant);
        if (list) list.push(id);
        else this.byDeletion.set(variant, [id]);
      }
    }
    return id;
  }

  /** Exact, prefix and typo matches of a query term among terms with df > 0. Same rule as the naive
   * reference: exact; else the MAX_PREFIX_EXPANSIONS most frequent terms it begins (ties
   * alphabetical); else terms within one edit. */
  expand(term: string, df: ArrayLike<number>): Expansion {
    const termIds: number[] = [];
    const weights: number[] = [];
    const exact = this.ids.get(term);
    if (exact !== undefined && (df[exact] ?? 0) > 0) {
      termIds.push(exact);
      weights.push(MATCH_WEIGHT.exact);
    }
    if (term.length >= PREFIX_MIN_LENGTH) {
      this.settle();
      const prefixed: number[] = [];
      const terms = this.terms;
      for (let i = this.lowerBound(term); i < this.sorted.length; i++) {
        const id = this.sorted[i]!;
        const candidate = terms[id]!;
        if (!candidate.startsWith(term)) break;
        if (id !== exact && (df[id] ?? 0) > 0) prefixed.push(id);
      }
      if (prefixed.length > MAX_PREFIX_EXPANSIONS) {
        // `prefixed` is alphabetical; a stable sort by df keeps ties alphabetical.
        prefixed.sort((a, b) => (df[b] ?? 0) - (df[a] ?? 0));
        prefixed.length = MAX_PREFIX_EXPANSIONS;
      }
      for (const id of prefixed) {
        termIds.push(id);
        weights.push(MATCH_WEIGHT.prefix);
      }
    }
    if (term.length >= TYPO_MIN_LENGTH && term.length <= TYPO_MAX_LENGTH) {
      const seen = new Set(termIds);
      const consider = (id: number | undefined) => {
        if (id === undefined || seen.has(id)) return;
        seen.add(id);
        const candidate = this.terms[id]!;
        if ((df[id] ?? 0) > 0 && candidate.length <= TYPO_MAX_LENGTH && withinOneEdit(term, candidate)) {
          termIds.push(id);
          weights.push(MATCH_WEIGHT.typo);
        }
      };
      // Insertions (term is a deletion of a longer term); deletions (a deletion of term is a term);
      // substitutions and swaps (both share a deletion).
      for (const id of this.byDeletion.get(term) ?? []) consider(id);
      for (const variant of deletions(term)) {
        consider(this.ids.get(variant));
        for (const id of this.byDeletion.get(variant) ?? []) consider(id);
      }
    }
    return { termIds, weights };
  }

  /** Folds pending terms into the sorted view: one by one when few, by a full sort when many. */
  private settle(): void {
    if (this.pending.length === 0) return;
    const terms = this.terms;
    if (this.pending.length < 64) {
      for (const id of this.pending) this.sorted.splice(this.lowerBound(terms[id]!), 0, id);
    } else {
      this.sorted = this.sorted.concat(this.pending);
      this.sorted.sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1));
    }
    this.pending = [];
  }

  private lowerBound(term: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[this.sorted[mid]!]! < term) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
