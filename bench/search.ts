// Catalogue search over 100,000 synthetic listings: the index (src/listings/search) beside a naive
// full scan of the same data computing the same results in the same run. Reports index build time
// and memory, then p50/p95/max per query class (text + filters under each sort, filter-only, typo,
// prefix, a very common word), the naive scan's figures on a sample of the same queries, the ratio,
// and asserts both return identical pages on that sample. Target: p95 < 10 ms per query.
// Run: node --import tsx bench/search.ts   (or: npm run bench -- search, once bench/run.ts lists it)
// Also exports the synthetic data and the naive reference for test/listings/search.test.ts.
import v8 from "node:v8";
import vm from "node:vm";
import { createSearchIndex } from "../src/listings/search/index.ts";
import { analyzeDocument, bm25, idf, MATCH_WEIGHT, MAX_PREFIX_EXPANSIONS, PREFIX_MIN_LENGTH, TYPO_MAX_LENGTH, TYPO_MIN_LENGTH } from "../src/listings/search/score.ts";
import { queryTerms, withinOneEdit } from "../src/listings/search/tokenize.ts";
import type { SearchDocument, SearchQuery, SearchResult } from "../src/listings/search/types.ts";
import { CATEGORIES, RENTAL_MODELS, SEARCH_SORTS } from "@agent-rental/core/vocabulary";
import { summarize } from "./stats.ts";

/** Deterministic PRNG (mulberry32): a function returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DOMAIN = (
  "agent contract contracts review summarize summary summaries invoice invoices tax audit compliance legal clause " +
  "lawsuit patent trademark research report reports analysis analyst market markets stock stocks portfolio risk " +
  "forecast budget revenue sales lead leads outreach email emails prospect crm pipeline content blog article " +
  "articles copywriting seo social media post posts newsletter code coding python typescript javascript rust " +
  "refactor refactoring test tests testing debug bug bugs deploy api database sql query data dataset datasets " +
  "scrape scraper extract extraction translate translation document documents pdf spreadsheet finance financial " +
  "accounting bookkeeping payroll crypto ethereum wallet trading strategy quarterly earnings filing filings memo " +
  "brief briefs citation citations academic paper papers literature survey customer support ticket tickets chat " +
  "assistant writer writing editor editing proofread grammar style tone brand campaign ads marketing competitor " +
  "pricing product launch roadmap startup pitch deck investor due diligence merger acquisition negotiation"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa ti vo be da fi gu ho ja ke li mo nu pa qui re so tu va we xi yo za bar cor den fel gar hol".split(" ");

/** A vocabulary of the domain words plus `size` pseudo-words, most frequent first (Zipf-sampled). */
export function syntheticVocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>(DOMAIN);
  while (words.size < DOMAIN.length + size) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
    words.add(word);
  }
  const list = [...words];
  // Shuffle the pseudo-words among the domain words so frequent ranks hold both kinds.
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

function zipfSampler(n: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cumulative[i] = sum += 1 / (i + 1) ** 1.05;
  return () => {
    const target = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** `count` deterministic listings: titles 3-8 words, descriptions 30-80, one to three sample outputs;
 * prices, ratings and dates drawn from small sets so sorts meet ties. */
export function syntheticListings(count: number, seed = 1, vocabularySize = 3000): { docs: SearchDocument[]; vocabulary: string[] } {
  const random = prng(seed);
  const vocabulary = syntheticVocabulary(vocabularySize, random);
  const pick = zipfSampler(vocabulary.length, random);
  const words = (min: number, max: number) => {
    const n = min + Math.floor(random() * (max - min + 1));
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(vocabulary[pick()]!);
    return out.join(" ");
  };
  const hex = () => Math.floor(random() * 0x100000000).toString(16).padStart(8, "0");
  const docs: SearchDocument[] = [];
  for (let i = 0; i < count; i++) {
    const categories = new Set([CATEGORIES[Math.floor(random() * CATEGORIES.length)]!]);
    if (random() < 0.3) categories.add(CATEGORIES[Math.floor(random() * CATEGORIES.length)]!);
    const title = words(3, 8);
    docs.push({
      id: `lst_${Array.from({ length: 8 }, hex).join("")}`,
      title: title.charAt(0).toUpperCase() + title.slice(1),
      description: `${words(30, 80)}.`,
      category: [...categories],
      rental_model: RENTAL_MODELS[Math.floor(random() * RENTAL_MODELS.length)]!,
      price_eth: Math.round((random() ** 2 * 0.5 + 0.001) * 1000) / 1000,
      rating: Math.round(random() * 50) / 10,
      review_count: Math.floor(random() ** 3 * 500),
      run_count: Math.floor(random() * 10_000),
      success_rate: Math.round(random() * 100) / 100,
      published_at: new Date(Date.UTC(2025, 0, 1) + Math.floor(random() * 400) * 86_400_000).toISOString(),
      last_updated: new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 100) * 86_400_000).toISOString(),
      sample_output: Array.from({ length: 1 + Math.floor(random() * 3) }, () => words(8, 20)),
      searchable: random() < 0.9,
    });
  }
  return { docs, vocabulary };
}

interface NaiveDoc {
  doc: SearchDocument;
  terms: Map<string, number>;
  length: number;
  published: number;
}

/** The reference: prepares each searchable document's weighted terms once, then answers every query
 * by scanning all documents, expanding query terms by scanning the whole vocabulary, and sorting
 * every match. Same ranking rules as the index (docs/reference/search.md), none of its data structures. */
export function createNaiveSearch(all: SearchDocument[]): (query: SearchQuery) => SearchResult {
  const docs: NaiveDoc[] = all
    .filter((doc) => doc.searchable)
    .map((doc) => ({ doc, ...analyzeDocument(doc), published: Date.parse(doc.published_at) }));
  const df = new Map<string, number>();
  let totalLength = 0;
  for (const d of docs) {
    totalLength += d.length;
    for (const term of d.terms.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  }
  const vocabulary = [...df.keys()].sort();
  const average = totalLength / docs.length;
  const byId = (a: NaiveDoc, b: NaiveDoc) => (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0);
  const orders: Record<string, (a: NaiveDoc, b: NaiveDoc) => number> = {
    relevance: (a, b) => b.doc.rating - a.doc.rating || b.doc.review_count - a.doc.review_count || b.published - a.published || byId(a, b),
    rating: (a, b) => b.doc.rating - a.doc.rating || byId(a, b),
    price_asc: (a, b) => a.doc.price_eth - b.doc.price_eth || byId(a, b),
    price_desc: (a, b) => b.doc.price_eth - a.doc.price_eth || byId(a, b),
    newest: (a, b) => b.published - a.published || byId(a, b),
  };
  const expand = (term: string): [string, number][] => {
    const out: [string, number][] = [];
    if (df.has(term)) out.push([term, MATCH_WEIGHT.exact]);
    if (term.length >= PREFIX_MIN_LENGTH) {
      let prefixed = vocabulary.filter((v) => v !== term && v.startsWith(term));
      if (prefixed.length > MAX_PREFIX_EXPANSIONS) prefixed = prefixed.sort((a, b) => df.get(b)! - df.get(a)!).slice(0, MAX_PREFIX_EXPANSIONS);
      for (const v of prefixed) out.push([v, MATCH_WEIGHT.prefix]);
    }
    if (term.length >= TYPO_MIN_LENGTH && term.length <= TYPO_MAX_LENGTH) {
      const taken = new Set(out.map(([v]) => v));
      for (const v of vocabulary) if (!taken.has(v) && v.length <= TYPO_MAX_LENGTH && withinOneEdit(term, v)) out.push([v, MATCH_WEIGHT.typo]);
    }
    return out;
  };
  return (query) => {
    const terms = queryTerms(query.q).map(expand);
    const scores = new Map<NaiveDoc, number>();
    const matches: NaiveDoc[] = [];
    for (const d of docs) {
      const doc = d.doc;
      if (query.category && !doc.category.includes(query.category)) continue;
      if (query.rental_model && doc.rental_model !== query.rental_model) continue;
      if (query.min_price !== undefined && doc.price_eth < query.min_price) continue;
      if (query.max_price !== undefined && doc.price_eth > query.max_price) continue;
      if (query.min_rating !== undefined && doc.rating < query.min_rating) continue;
      let score = 0;
      let all = true;
      for (const expansion of terms) {
        let best = -Infinity;
        for (const [term, weight] of expansion) {
          const tf = d.terms.get(term);
          if (tf !== undefined) best = Math.max(best, weight * bm25(tf, d.length, average, idf(df.get(term)!, docs.length)));
        }
        if (best === -Infinity) {
          all = false;
          break;
        }
        score += best;
      }
      if (!all) continue;
      scores.set(d, score);
      matches.push(d);
    }
    const compare =
      terms.length > 0 && query.sort === "relevance"
        ? (a: NaiveDoc, b: NaiveDoc) => scores.get(b)! - scores.get(a)! || b.doc.rating - a.doc.rating || byId(a, b)
        : orders[query.sort]!;
    matches.sort(compare);
    return { ids: matches.slice(query.offset, query.offset + query.limit).map((d) => d.doc.id), total: matches.length };
  };
}

/** A mutated copy of word: one adjacent swap, substitution, deletion or insertion. */
export function typo(word: string, random: () => number): string {
  const i = Math.floor(random() * (word.length - 1));
  const letter = String.fromCharCode(97 + Math.floor(random() * 26));
  switch (Math.floor(random() * 4)) {
    case 0:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    case 1:
      return word.slice(0, i) + letter + word.slice(i + 1);
    case 2:
      return word.slice(0, i) + word.slice(i + 1);
    default:
      return word.slice(0, i) + letter + word.slice(i);
  }
}

type QueryMaker = (random: () => number) => SearchQuery;

function queryClasses(vocabulary: string[]): [string, QueryMaker][] {
  const pickOf = <T extends string>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)]!;
  // Mid-frequency words (ranks 20..400) make realistic text queries; the top 5 are the common case.
  const word = (random: () => number) => vocabulary[20 + Math.floor(random() * 380)]!;
  const long = vocabulary.slice(0, 600).filter((w) => w.length >= 6);
  const textFilters = (sort: SearchQuery["sort"]): QueryMaker => (random) => ({
    q: random() < 0.5 ? word(random) : `${word(random)} ${vocabulary[Math.floor(random() * 60)]!}`,
    category: pickOf(CATEGORIES, random),
    min_price: 0.01,
    max_price: Math.round(random() * 400 + 50) / 1000,
    min_rating: Math.floor(random() * 4),
    sort,
    limit: 20,
    offset: random() < 0.2 ? 20 : 0,
  });
  return [
    ...SEARCH_SORTS.map((sort): [string, QueryMaker] => [`text + filters, sort ${sort}`, textFilters(sort)]),
    ["filter-only (category, max_price), fallback order", (r) => ({ category: pickOf(CATEGORIES, r), max_price: 0.2, sort: "relevance", limit: 20, offset: 0 })],
    ["filter-only (rental_model, min_rating), price_asc", (r) => ({ rental_model: pickOf(RENTAL_MODELS, r), min_rating: 3, sort: "price_asc", limit: 20, offset: 40 })],
    ["no query, no filter, newest", () => ({ sort: "newest", limit: 20, offset: 0 })],
    ["typo query (one edit), relevance", (r) => ({ q: typo(pickOf(long, r), r), sort: "relevance", limit: 20, offset: 0 })],
    ["prefix query (first 4 letters), relevance", (r) => ({ q: pickOf(long, r).slice(0, 4), sort: "relevance", limit: 20, offset: 0 })],
    ["most common word, no filter, relevance", () => ({ q: vocabulary[0]!, sort: "relevance", limit: 20, offset: 0 })],
    ["most common word, no filter, rating", () => ({ q: vocabulary[1]!, sort: "rating", limit: 20, offset: 0 })],
  ];
}

const gc: () => void = (() => {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
})();
/** JS heap plus typed-array backing stores (which live outside the heap), after a full GC. */
const heapMb = () => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.arrayBuffers) / 1e6;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

export async function runSearchBench(options: { listings?: number; queries?: number; naiveSample?: number } = {}): Promise<string[]> {
  const n = options.listings ?? 100_000;
  const perClass = options.queries ?? 200;
  const naiveSample = options.naiveSample ?? 20;
  const target = 10;
  const rows: string[] = [];
  const { docs, vocabulary } = syntheticListings(n, 42);
  const searchable = docs.filter((d) => d.searchable).length;
  rows.push(`corpus: ${n} synthetic listings (${searchable} searchable), vocabulary ${vocabulary.length} words, titles 3-8 words, descriptions 30-80`);

  const before = heapMb();
  const index = createSearchIndex();
  let started = performance.now();
  for (const doc of docs) index.upsert(doc);
  const upsertMs = performance.now() - started;
  started = performance.now();
  index.search({ sort: "relevance", limit: 1, offset: 0 });
  const settleMs = performance.now() - started;
  const indexMb = heapMb() - before;
  rows.push(`build: upsert ${n} in ${upsertMs.toFixed(0)} ms (${((upsertMs * 1000) / n).toFixed(1)} µs each) + first query sorting the five orders ${settleMs.toFixed(0)} ms; index memory (heap + typed arrays) ${indexMb.toFixed(0)} MB`);

  started = performance.now();
  const naive = createNaiveSearch(docs);
  rows.push(`naive reference: prepared (tokenized once) in ${(performance.now() - started).toFixed(0)} ms`);

  const random = prng(7);
  // Warm-up: every class a few times.
  const classes = queryClasses(vocabulary);
  for (let i = 0; i < 20; i++) for (const [, make] of classes) index.search(make(random));

  rows.push("");
  rows.push(`| query class (n=${perClass} each; naive n=${naiveSample}) | index p50 | p95 | max | naive p50 | naive p95 | ratio p50 | mean total | p95 < ${target} ms |`);
  rows.push("|---|---|---|---|---|---|---|---|---|");
  let allMet = true;
  let compared = 0;
  for (const [name, make] of classes) {
    const queries = Array.from({ length: perClass }, () => make(random));
    const times: number[] = [];
    const results: SearchResult[] = [];
    for (const query of queries) {
      const t0 = performance.now();
      results.push(index.search(query));
      times.push(performance.now() - t0);
    }
    const naiveTimes: number[] = [];
    for (let i = 0; i < naiveSample; i++) {
      const t0 = performance.now();
      const expected = naive(queries[i]!);
      naiveTimes.push(performance.now() - t0);
      const got = results[i]!;
      if (got.total !== expected.total || got.ids.join() !== expected.ids.join()) {
        throw new Error(`index and naive scan disagree on ${JSON.stringify(queries[i])}: ${JSON.stringify(got)} vs ${JSON.stringify(expected)}`);
      }
      compared++;
    }
    const s = summarize(times);
    const b = summarize(naiveTimes);
    const met = s.p95 < target;
    allMet &&= met;
    const meanTotal = results.reduce((sum, r) => sum + r.total, 0) / results.length;
    rows.push(`| ${name} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.max)} | ${ms(b.p50)} | ${ms(b.p95)} | ${(b.p50 / s.p50).toFixed(0)}x | ${meanTotal.toFixed(0)} | ${met ? "met" : "MISSED"} |`);
  }
  rows.push("");
  rows.push(`identical results (ids and total) on all ${compared} sampled queries; target p95 < ${target} ms ${allMet ? "met in every class" : "MISSED in some class"}`);

  // Live figures: re-upserting a listing with a new rating (orders move, text unchanged), between queries.
  const updates: number[] = [];
  const live = prng(11);
  for (let i = 0; i < 1000; i++) {
    const doc = docs[Math.floor(live() * docs.length)]!;
    const changed = { ...doc, rating: Math.round(live() * 50) / 10, run_count: doc.run_count + 1 };
    const t0 = performance.now();
    index.upsert(changed);
    updates.push(performance.now() - t0);
    if (i % 10 === 0) index.search({ sort: "rating", limit: 20, offset: 0 });
  }
  const u = summarize(updates);
  rows.push(`live update (re-upsert with a new rating and run_count, n=${u.n}): p50 ${ms(u.p50)}, p95 ${ms(u.p95)}, max ${ms(u.max)}`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`# search  (${new Date().toISOString()}, node ${process.version})`);
  for (const row of await runSearchBench()) console.log(row);
}
