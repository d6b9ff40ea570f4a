// The catalogue search component: ranking, typo and prefix matching, filters, sorts and paging on a
// small fixture with exact expected orders; upsert/remove leaving no stale results; parameter
// validation (one case per rule); and a randomized cross-check against the naive full scan.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../errors.ts";
import { createSearchIndex, parseSearchQuery, type SearchDocument, type SearchIndex, type SearchQuery } from "./index.ts";
import { createNaiveSearch, prng, syntheticListings, typo } from "../../../bench/search.ts";
import { CATEGORIES, RENTAL_MODELS, SEARCH_SORTS } from "@agent-rental/core/vocabulary";
import { tokenize, withinOneEdit } from "./tokenize.ts";

const id = (n: number) => `lst_${n.toString(16).padStart(64, "0")}`;

function doc(n: number, fields: Partial<SearchDocument>): SearchDocument {
  return {
    id: id(n),
    title: "",
    description: "",
    category: ["coding"],
    rental_model: "one_time",
    price_eth: 0.01,
    rating: 3,
    review_count: 0,
    run_count: 0,
    success_rate: 1,
    published_at: "2025-01-01T00:00:00.000Z",
    last_updated: "2025-01-01T00:00:00.000Z",
    sample_output: [],
    searchable: true,
    ...fields,
  };
}

// A..F searchable, H not. Ties on purpose: B and E share price, rating, reviews and date; A and C
// share rating and reviews; C and D share a date.
const A = doc(1, {
  title: "Contract review assistant",
  description: "Reads agreements and flags risky clauses.",
  category: ["legal"],
  price_eth: 0.05,
  rating: 4.5,
  review_count: 10,
  published_at: "2025-03-01T00:00:00Z",
  sample_output: ["Clause 4.2 exposes the buyer to unlimited liability."],
});
const B = doc(2, {
  title: "Clause checker",
  description: "Checks every contract clause against your playbook.",
  category: ["legal"],
  rental_model: "subscription",
  price_eth: 0.1,
  rating: 4.8,
  review_count: 3,
  published_at: "2025-01-01T00:00:00Z",
});
const C = doc(3, {
  title: "Meeting summarizer",
  description: "Turns long meetings into action items.",
  category: ["content", "research"],
  rental_model: "per_query",
  price_eth: 0.01,
  rating: 4.5,
  review_count: 10,
  published_at: "2025-05-01T00:00:00Z",
  sample_output: ["Three decisions, two owners, one deadline."],
});
const D = doc(4, {
  title: "Invoice extractor",
  description: "Pulls totals and due dates from invoices.",
  category: ["finance"],
  rental_model: "per_query",
  price_eth: 0.02,
  rating: 3.9,
  review_count: 40,
  published_at: "2025-05-01T00:00:00Z",
});
const E = doc(5, {
  title: "Sales outreach writer",
  description: "Writes cold emails for sales teams.",
  category: ["sales", "content"],
  rental_model: "subscription",
  price_eth: 0.1,
  rating: 4.8,
  review_count: 3,
  published_at: "2025-01-01T00:00:00Z",
});
const F = doc(6, {
  title: "Python refactoring bot",
  description: "Refactors legacy code and writes tests.",
  category: ["coding"],
  price_eth: 0.3,
  rating: 2,
  review_count: 1,
  published_at: "2025-06-01T00:00:00Z",
});
const H = doc(7, { title: "Contract drafting", description: "Drafts contracts.", category: ["legal"], rating: 5, review_count: 99, searchable: false });

function fixture(): SearchIndex {
  const index = createSearchIndex();
  for (const d of [A, B, C, D, E, F, H]) index.upsert(d);
  return index;
}
const q = (fields: Partial<SearchQuery>): SearchQuery => ({ sort: "relevance", limit: 20, offset: 0, ...fields });
const search = (index: SearchIndex, fields: Partial<SearchQuery>) => index.search(q(fields));
const ids = (...docs: SearchDocument[]) => docs.map((d) => d.id);

describe("search: ranking and matching", () => {
  it("ranks a title match above a description-only match", () => {
    expect(search(fixture(), { q: "contract" })).toEqual({ ids: ids(A, B), total: 2 });
  });

  it("tolerates one typo in a term of 5+ characters (an adjacent swap)", () => {
    expect(search(fixture(), { q: "contarct" })).toEqual({ ids: ids(A, B), total: 2 });
    expect(search(fixture(), { q: "invoise" }).ids).toEqual(ids(D));
  });

  it("does not apply typo tolerance to short terms", () => {
    expect(search(fixture(), { q: "bto" }).total).toBe(0);
  });

  it("matches prefixes", () => {
    expect(search(fixture(), { q: "summar" })).toEqual({ ids: ids(C), total: 1 });
    expect(search(fixture(), { q: "refact" })).toEqual({ ids: ids(F), total: 1 });
  });

  it("requires every query term (AND) and searches category and sample outputs", () => {
    expect(search(fixture(), { q: "clause legal" }).ids).toEqual(ids(B, A));
    expect(search(fixture(), { q: "liability" }).ids).toEqual(ids(A));
    expect(search(fixture(), { q: "research" }).ids).toEqual(ids(C));
    expect(search(fixture(), { q: "contract python" }).total).toBe(0);
  });

  it("breaks relevance ties by rating, then id", () => {
    const index = createSearchIndex();
    for (const [n, rating] of [[7, 3], [9, 4], [8, 4]] as const) index.upsert(doc(n, { title: "Tax helper", rating }));
    expect(search(index, { q: "tax" }).ids).toEqual([id(8), id(9), id(7)]);
  });

  it("folds case and diacritics", () => {
    expect(tokenize("Résumé-WRITER, v2")).toEqual(["resume", "writer", "v2"]);
    expect(search(fixture(), { q: "CONTRÀCT" }).ids).toEqual(ids(A, B));
  });

  it("counts one edit as one insertion, deletion, substitution or adjacent swap", () => {
    expect(withinOneEdit("contract", "contarct")).toBe(true);
    expect(withinOneEdit("contract", "contracts")).toBe(true);
    expect(withinOneEdit("contract", "contact")).toBe(true);
    expect(withinOneEdit("contract", "contrakt")).toBe(true);
    expect(withinOneEdit("contract", "cnotarct")).toBe(false);
    expect(withinOneEdit("contract", "contra")).toBe(false);
  });
});

describe("search: filters, sorts, paging", () => {
  it("lists every searchable document in the fallback order without a query", () => {
    // rating desc, review_count desc, published_at desc, id asc
    expect(search(fixture(), {})).toEqual({ ids: ids(B, E, C, A, D, F), total: 6 });
    expect(search(fixture(), { q: "  !! " })).toEqual({ ids: ids(B, E, C, A, D, F), total: 6 });
  });

  it.each([
    ["rating", [B, E, A, C, D, F]],
    ["price_asc", [C, D, A, B, E, F]],
    ["price_desc", [F, B, E, A, D, C]],
    ["newest", [F, C, D, A, B, E]],
  ] as const)("sorts by %s with ties broken by id", (sort, expected) => {
    expect(search(fixture(), { sort })).toEqual({ ids: ids(...expected), total: 6 });
  });

  it("sorts text matches by each sort", () => {
    const index = fixture();
    expect(search(index, { q: "writes", sort: "relevance" }).total).toBe(2);
    expect(search(index, { q: "writes", sort: "rating" }).ids).toEqual(ids(E, F));
    expect(search(index, { q: "writes", sort: "price_asc" }).ids).toEqual(ids(E, F));
    expect(search(index, { q: "writes", sort: "price_desc" }).ids).toEqual(ids(F, E));
    expect(search(index, { q: "writes", sort: "newest" }).ids).toEqual(ids(F, E));
  });

  it.each([
    ["category", { category: "legal" }, [B, A]],
    ["category (second of two)", { category: "content" }, [E, C]],
    ["rental_model", { rental_model: "subscription" }, [B, E]],
    ["min_price and max_price, inclusive", { min_price: 0.05, max_price: 0.1 }, [B, E, A]],
    ["min_price alone", { min_price: 0.1 }, [B, E, F]],
    ["max_price alone", { max_price: 0.02 }, [C, D]],
    ["min_rating, inclusive", { min_rating: 4.5 }, [B, E, C, A]],
    ["filters combined with AND", { category: "content", rental_model: "subscription" }, [E]],
    ["a filter with a text query", { q: "contract", rental_model: "subscription" }, [B]],
    ["a filter with a text query and a sort", { q: "clause", category: "legal", sort: "price_desc" }, [B, A]],
  ] as [string, Partial<SearchQuery>, SearchDocument[]][])("filters by %s", (_name, filters, expected) => {
    expect(search(fixture(), filters)).toEqual({ ids: ids(...expected), total: expected.length });
  });

  it("pages with limit and offset; total counts matches before paging", () => {
    const index = fixture();
    expect(search(index, { sort: "price_asc", limit: 2, offset: 2 })).toEqual({ ids: ids(A, B), total: 6 });
    expect(search(index, { sort: "price_asc", limit: 2, offset: 5 })).toEqual({ ids: ids(F), total: 6 });
    expect(search(index, { sort: "price_asc", limit: 2, offset: 10 })).toEqual({ ids: [], total: 6 });
    expect(search(index, { q: "contract", limit: 1, offset: 1 })).toEqual({ ids: ids(B), total: 2 });
    expect(search(index, { category: "legal", limit: 1, offset: 1 })).toEqual({ ids: ids(A), total: 2 });
  });
});

describe("search: updates", () => {
  it("never returns a non-searchable document", () => {
    const index = fixture();
    expect(search(index, { q: "drafting" }).total).toBe(0);
    expect(search(index, { q: "contract" }).ids).not.toContain(H.id);
    expect(search(index, { category: "legal", sort: "rating" }).ids).toEqual(ids(B, A));
    expect(index.size()).toBe(7);
  });

  it("upsert replaces a document: new text and keys, no stale postings or positions", () => {
    const index = fixture();
    index.upsert({ ...A, title: "Tax filing helper", description: "Prepares quarterly filings.", price_eth: 0.5, rating: 1 });
    expect(search(index, { q: "contract" })).toEqual({ ids: ids(B), total: 1 });
    expect(search(index, { q: "tax" }).ids).toEqual(ids(A));
    expect(search(index, { sort: "price_asc" }).ids).toEqual(ids(C, D, B, E, F, A));
    expect(search(index, {}).ids).toEqual(ids(B, E, C, D, F, A));
    expect(index.size()).toBe(7);
  });

  it("upsert with only live figures changed keeps the text and moves the document in the orders", () => {
    const index = fixture();
    index.upsert({ ...F, rating: 5, run_count: 500 });
    expect(search(index, { sort: "rating" }).ids).toEqual(ids(F, B, E, A, C, D));
    expect(search(index, { q: "python" }).ids).toEqual(ids(F));
  });

  it("upsert toggles searchable both ways", () => {
    const index = fixture();
    index.upsert({ ...B, searchable: false });
    expect(search(index, { q: "contract" }).ids).toEqual(ids(A));
    expect(search(index, {}).total).toBe(5);
    index.upsert({ ...H, searchable: true });
    expect(search(index, { q: "contract" }).ids).toEqual(ids(H, A));
    expect(search(index, {}).ids[0]).toBe(H.id);
  });

  it("remove removes", () => {
    const index = fixture();
    expect(index.remove(B.id)).toBe(true);
    expect(index.remove(B.id)).toBe(false);
    expect(search(index, { q: "contract" })).toEqual({ ids: ids(A), total: 1 });
    expect(search(index, { q: "clause" }).ids).toEqual(ids(A));
    expect(search(index, {})).toEqual({ ids: ids(E, C, A, D, F), total: 5 });
    expect(index.size()).toBe(6);
    index.upsert(B);
    expect(search(index, { q: "contract" }).ids).toEqual(ids(A, B));
  });

  it("refuses documents whose keys cannot be ordered", () => {
    expect(() => createSearchIndex().upsert(doc(1, { price_eth: Number.NaN }))).toThrow(/price_eth/);
    expect(() => createSearchIndex().upsert(doc(1, { published_at: "yesterday" }))).toThrow(/published_at/);
  });
});

// Decision 0190: prices compare within one currency. ETH listings keep the specification's order and
// come first; each token's listings follow together, by symbol; a currency filter names the unit of the
// price bounds, which are otherwise in ETH and keep ETH listings only.
describe("search: prices across currencies", () => {
  const eth1 = doc(21, { price_eth: 0.01 });
  const eth2 = doc(22, { price_eth: 0.5 });
  const usdc1 = doc(23, { price_eth: 0.25, currency: "USDC" });
  const usdc2 = doc(24, { price_eth: 3, currency: "USDC" });
  const rent = doc(25, { price_eth: 20, currency: "RENT" });
  const mixed = () => {
    const index = createSearchIndex();
    for (const d of [usdc2, rent, eth2, usdc1, eth1]) index.upsert(d);
    return index;
  };

  it("sorts by price within each currency: ETH first, then tokens by symbol", () => {
    expect(search(mixed(), { sort: "price_asc" }).ids).toEqual(ids(eth1, eth2, rent, usdc1, usdc2));
    expect(search(mixed(), { sort: "price_desc" }).ids).toEqual(ids(eth2, eth1, rent, usdc2, usdc1));
  });

  it("keeps one currency's listings with currency, its bounds in that currency", () => {
    expect(search(mixed(), { sort: "price_asc", currency: "USDC" })).toEqual({ ids: ids(usdc1, usdc2), total: 2 });
    expect(search(mixed(), { sort: "price_desc", currency: "ETH" })).toEqual({ ids: ids(eth2, eth1), total: 2 });
    expect(search(mixed(), { currency: "USDC", min_price: 1 }).ids).toEqual(ids(usdc2));
    expect(search(mixed(), { currency: "DAI" }).total).toBe(0);
  });

  it("reads price bounds without a currency as ETH: a token listing never passes them by its number", () => {
    // 0.25 USDC is between 0.1 and 1 as a number, and is no ETH price.
    expect(search(mixed(), { sort: "price_asc", min_price: 0.1, max_price: 1 }).ids).toEqual(ids(eth2));
    expect(search(mixed(), { sort: "price_asc", max_price: 100 }).ids).toEqual(ids(eth1, eth2));
  });

  it("moves a listing whose currency changes to its new group", () => {
    const index = mixed();
    index.upsert({ ...rent, currency: "ZED" });
    expect(search(index, { sort: "price_asc" }).ids).toEqual(ids(eth1, eth2, usdc1, usdc2, { ...rent }));
    index.upsert({ ...rent, currency: undefined as unknown as string });
    expect(search(index, { sort: "price_desc" }).ids).toEqual(ids(rent, eth2, eth1, usdc2, usdc1));
  });

  it("parses currency as an upper-case symbol", () => {
    expect(parseSearchQuery({ currency: "usdc" })).toMatchObject({ currency: "USDC" });
    expect(parseSearchQuery({ currency: "" })).not.toHaveProperty("currency");
  });
});

describe("parseSearchQuery", () => {
  it("applies the defaults and ignores unknown parameters", () => {
    expect(parseSearchQuery({ utm_source: "x" })).toEqual({ sort: "relevance", limit: 20, offset: 0 });
  });

  it("parses every parameter", () => {
    expect(
      parseSearchQuery({ q: " contract review ", category: "legal", rental_model: "per_query", min_price: "0.01", max_price: "1", min_rating: "4.5", sort: "price_asc", limit: "100", offset: "40" }),
    ).toEqual({ q: "contract review", category: "legal", rental_model: "per_query", min_price: 0.01, max_price: 1, min_rating: 4.5, sort: "price_asc", limit: 100, offset: 40 });
    expect(parseSearchQuery({ q: "", category: "", limit: "" })).toEqual({ sort: "relevance", limit: 20, offset: 0 });
  });

  it.each([
    ["category", { category: "gardening" }],
    ["rental_model", { rental_model: "hourly" }],
    ["sort", { sort: "popular" }],
    ["limit", { limit: "0" }],
    ["limit", { limit: "101" }],
    ["limit", { limit: "2.5" }],
    ["limit", { limit: "ten" }],
    ["offset", { offset: "-1" }],
    ["offset", { offset: "10001" }],
    ["offset", { offset: "1e3" }],
    ["min_price", { min_price: "-0.1" }],
    ["min_price", { min_price: "abc" }],
    ["max_price", { max_price: "Infinity" }],
    ["min_price", { min_price: "2", max_price: "1" }],
    ["min_rating", { min_rating: "5.1" }],
    ["min_rating", { min_rating: "-1" }],
    ["q", { q: "x".repeat(201) }],
    ["currency", { currency: "US-DC" }],
    ["currency", { currency: "A".repeat(12) }],
  ] as [string, Record<string, string>][])("refuses a bad %s: %j", (name, params) => {
    let error: unknown;
    try {
      parseSearchQuery(params);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("invalid_request");
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain(name);
  });
});

describe("search: randomized cross-check against the naive full scan", () => {
  const randomQuery = (random: () => number, docs: SearchDocument[]): SearchQuery => {
    const query: SearchQuery = {
      sort: SEARCH_SORTS[Math.floor(random() * SEARCH_SORTS.length)]!,
      limit: 1 + Math.floor(random() * 30),
      offset: random() < 0.3 ? Math.floor(random() * 60) : 0,
    };
    if (random() < 0.3) query.category = CATEGORIES[Math.floor(random() * CATEGORIES.length)]!;
    if (random() < 0.2) query.rental_model = RENTAL_MODELS[Math.floor(random() * RENTAL_MODELS.length)]!;
    if (random() < 0.2) query.min_price = Math.round(random() * 200) / 1000;
    if (random() < 0.2) query.max_price = (query.min_price ?? 0) + Math.round(random() * 300) / 1000;
    if (random() < 0.2) query.min_rating = Math.round(random() * 50) / 10;
    const kind = random();
    const source = docs[Math.floor(random() * docs.length)]!;
    const words = tokenize(`${source.title} ${source.description}`);
    const word = words[Math.floor(random() * words.length)] ?? "agent";
    if (kind < 0.35) return query; // filters and sort only
    if (kind < 0.7) return { ...query, q: word }; // a single exact term
    if (kind < 0.8) return { ...query, q: word.length >= 5 ? typo(word, random) : word };
    if (kind < 0.9) return { ...query, q: word.slice(0, 3 + Math.floor(random() * 3)) };
    return { ...query, q: `${word} ${words[Math.floor(random() * words.length)] ?? ""}` };
  };

  // smallMatchSet 0 sends every text query down the large-match paths (heap, walk of an order).
  it.each([[{}], [{ smallMatchSet: 0 }]])("equals the naive scan on 2,000 documents and 200 queries, after upserts and removes (%j)", (options) => {
    const random = prng(2024);
    const { docs } = syntheticListings(2000, 5, 600);
    const index = createSearchIndex(options);
    for (const d of docs) index.upsert(d);
    // Replace some texts and keys, toggle some, remove some: the index must hold no trace of the old.
    const current = new Map(docs.map((d) => [d.id, d]));
    for (let i = 0; i < 300; i++) {
      const target = docs[Math.floor(random() * docs.length)]!;
      const other = docs[Math.floor(random() * docs.length)]!;
      const replaced = { ...target, title: other.title, description: random() < 0.5 ? other.description : target.description, price_eth: other.price_eth, rating: other.rating, searchable: random() < 0.85 };
      index.upsert(replaced);
      current.set(target.id, replaced);
    }
    for (let i = 0; i < 100; i++) {
      const target = docs[Math.floor(random() * docs.length)]!;
      index.remove(target.id);
      current.delete(target.id);
    }
    const live = [...current.values()];
    expect(index.size()).toBe(live.length);
    const naive = createNaiveSearch(live);
    let nonEmpty = 0;
    for (let i = 0; i < 200; i++) {
      const query = randomQuery(random, live);
      const expected = naive(query);
      expect(index.search(query), JSON.stringify(query)).toEqual(expected);
      if (expected.total > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it.each([[{}], [{ smallMatchSet: 0 }]])("equals the naive scan with upserts interleaved between queries (incremental order updates) (%j)", (options) => {
    const random = prng(77);
    const { docs } = syntheticListings(800, 9, 400);
    const index = createSearchIndex(options);
    for (const d of docs) index.upsert(d);
    const current = new Map(docs.map((d) => [d.id, d]));
    for (let i = 0; i < 60; i++) {
      for (let j = Math.floor(random() * 5); j > 0; j--) {
        const target = docs[Math.floor(random() * docs.length)]!;
        if (random() < 0.15) {
          index.remove(target.id);
          current.delete(target.id);
          continue;
        }
        // One change at a time, so each key (and the text) is exercised alone.
        const base = current.get(target.id) ?? target;
        const change: Partial<SearchDocument>[] = [
          { rating: Math.round(random() * 50) / 10 },
          { price_eth: Math.round(random() * 500) / 1000 },
          { review_count: Math.floor(random() * 20) },
          { published_at: new Date(Date.UTC(2025, 0, 1) + Math.floor(random() * 30) * 86_400_000).toISOString() },
          { title: `${base.title} extra` },
          { description: docs[Math.floor(random() * docs.length)]!.description },
          { run_count: base.run_count + 1 },
          { searchable: !base.searchable },
        ];
        const changed = { ...base, ...change[Math.floor(random() * change.length)]! };
        index.upsert(changed);
        current.set(target.id, changed);
      }
      const live = [...current.values()];
      const naive = createNaiveSearch(live);
      for (let k = 0; k < 3; k++) {
        const query = randomQuery(random, live);
        expect(index.search(query), JSON.stringify(query)).toEqual(naive(query));
      }
    }
  });
});
