// The catalogue's in-memory search index: BM25 over title, description, category and sample outputs
// with prefix and one-typo matching, filters, five sorts and paging, sized for 100,000 listings
// (see docs/reference/search.md). The HTTP route validates with parseSearchQuery and asks this index for ids.
import { QueryRunner } from "./query.ts";
import { DocumentColumns } from "./columns.ts";
import type { SearchIndex } from "./types.ts";

export type { SearchDocument, SearchIndex, SearchQuery, SearchResult } from "./types.ts";
export { parseSearchQuery } from "./validate.ts";

export interface SearchIndexOptions {
  /** Text matches up to this many are sorted outright (default 4096). Above it, relevance keeps a
   * bounded heap of offset + limit, and the other sorts walk their precomputed order when the matches
   * exceed 1/16 of the searchable documents. Results never depend on it; tests lower it to 0 to
   * exercise the large-match paths on a small corpus. */
  smallMatchSet?: number;
}

/** An empty index. Only documents with `searchable: true` are ever returned. Not safe for concurrent
 * mutation from several threads (a Node process has one). */
export function createSearchIndex(options: SearchIndexOptions = {}): SearchIndex {
  const columns = new DocumentColumns();
  const runner = new QueryRunner(columns, options.smallMatchSet);
  return {
    upsert: (doc) => columns.upsert(doc),
    remove: (id) => columns.remove(id),
    size: () => columns.size(),
    search: (query) => runner.run(query),
  };
}
