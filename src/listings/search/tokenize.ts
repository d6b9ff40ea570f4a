// Text to terms, and the edit-distance test behind typo tolerance. One definition shared by the
// index, the naive reference scan (bench/search.ts) and the tests, so both sides tokenize alike.

/** Longer tokens are cut to this many characters. */
export const MAX_TOKEN_LENGTH = 40;
/** Only the first distinct terms of a query count; bounds the cost of a query. */
export const MAX_QUERY_TERMS = 10;

const SPLIT = /[^\p{L}\p{N}]+/u;
const MARKS = /\p{M}+/gu;
const ASCII = /^[\x00-\x7f]*$/;

/** Lowercased letter/digit runs, diacritics removed ("Résumé-writer" → ["resume", "writer"]). */
export function tokenize(text: string): string[] {
  const folded = ASCII.test(text) ? text.toLowerCase() : text.normalize("NFKD").replace(MARKS, "").toLowerCase();
  const out: string[] = [];
  for (const token of folded.split(SPLIT)) {
    if (token.length > 0) out.push(token.length > MAX_TOKEN_LENGTH ? token.slice(0, MAX_TOKEN_LENGTH) : token);
  }
  return out;
}

/** The distinct terms of a query in first-seen order, at most MAX_QUERY_TERMS. */
export function queryTerms(q: string | undefined): string[] {
  if (!q) return [];
  const seen = new Set<string>();
  for (const term of tokenize(q)) {
    if (seen.size >= MAX_QUERY_TERMS) break;
    seen.add(term);
  }
  return [...seen];
}

/** True when a and b are at most one edit apart: one insertion, deletion, substitution, or swap of
 * two adjacent characters (optimal string alignment distance <= 1). */
export function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la === lb) {
    let first = -1;
    for (let i = 0; i < la; i++) {
      if (a.charCodeAt(i) === b.charCodeAt(i)) continue;
      if (first >= 0) {
        // A second mismatch: only an adjacent swap (ab ↔ ba) still counts as one edit.
        return i === first + 1 && a[first] === b[i] && a[i] === b[first] && a.slice(i + 1) === b.slice(i + 1);
      }
      first = i;
    }
    return true;
  }
  if (Math.abs(la - lb) !== 1) return false;
  const [short, long] = la < lb ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && short.charCodeAt(i) === long.charCodeAt(i)) i++;
  return short.slice(i) === long.slice(i + 1);
}

/** The distinct strings made by deleting one character of term. */
export function deletions(term: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < term.length; i++) out.add(term.slice(0, i) + term.slice(i + 1));
  return [...out];
}
