// Ranking: how a document's fields become weighted term frequencies, and the BM25 formula over them.
// Field weights are integers so a document's weighted length and the corpus total are exact sums,
// which lets the naive reference scan reproduce the index's scores bit for bit.
import { tokenize } from "./tokenize.ts";
import type { SearchDocument } from "./types.ts";

/** Each field's weight in the weighted term frequency and document length (BM25F-style). */
export const FIELD_WEIGHT = { title: 3, category: 2, description: 1, sample_output: 1 } as const;
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** A query term's score on a vocabulary term found exactly, by prefix, or within one edit. */
export const MATCH_WEIGHT = { exact: 1, prefix: 0.8, typo: 0.6 } as const;
/** Query terms this long or longer also match vocabulary terms they begin. */
export const PREFIX_MIN_LENGTH = 3;
/** At most this many prefix expansions per query term: the most frequent, then alphabetical. */
export const MAX_PREFIX_EXPANSIONS = 64;
/** Query terms of TYPO_MIN_LENGTH..TYPO_MAX_LENGTH characters match vocabulary terms (of at most
 * TYPO_MAX_LENGTH) one edit away. */
export const TYPO_MIN_LENGTH = 5;
export const TYPO_MAX_LENGTH = 32;
/** Weighted term frequencies are stored in 16 bits. */
export const MAX_WEIGHTED_TF = 65_535;

export interface AnalyzedDocument {
  /** term → weighted term frequency (sum over fields of weight × occurrences). */
  terms: Map<string, number>;
  /** Weighted length: sum over fields of weight × tokens. */
  length: number;
}

/** The weighted terms of a document's text fields (title, description, category, sample outputs). */
export function analyzeDocument(doc: Pick<SearchDocument, "title" | "description" | "category" | "sample_output">): AnalyzedDocument {
  const terms = new Map<string, number>();
  let length = 0;
  const add = (text: string, weight: number) => {
    for (const token of tokenize(text)) {
      terms.set(token, Math.min(MAX_WEIGHTED_TF, (terms.get(token) ?? 0) + weight));
      length += weight;
    }
  };
  add(doc.title, FIELD_WEIGHT.title);
  add(doc.description, FIELD_WEIGHT.description);
  for (const category of doc.category) add(category, FIELD_WEIGHT.category);
  for (const sample of doc.sample_output) add(sample, FIELD_WEIGHT.sample_output);
  return { terms, length };
}

/** Inverse document frequency of a term held by df of n documents (never negative). */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** BM25 of one term in one document: weighted tf, weighted length, the corpus mean length, idf. */
export function bm25(tf: number, length: number, averageLength: number, termIdf: number): number {
  return (termIdf * (tf * (BM25_K1 + 1))) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength));
}
