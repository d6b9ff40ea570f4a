// Browse: free-text search, filters, sort and pages, all in the URL so a link shares a search.
import { useEffect, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { keepPreviousData } from "@tanstack/react-query";
import { useAuthQuery, usePublicQuery } from "../api/hooks.ts";
import type { Currencies, ListingSearchResult as ListingSearch, ListingSummary } from "@agent-rental/sdk";
import { CATEGORIES } from "@agent-rental/core/vocabulary";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading } from "../ui/notices.tsx";
import { MODEL_LABEL, PRICE_SUFFIX, countOf, formatPrice, percent } from "../ui/format.ts";
import { RentalModelOptions } from "../ui/RentalModelOptions.tsx";

const PAGE_SIZE = 12;
const SORTS = [
  ["relevance", "Relevance"],
  ["rating", "Rating"],
  ["price_asc", "Price: low to high"],
  ["price_desc", "Price: high to low"],
  ["newest", "Newest"],
] as const;

/** The symbols listings may be priced in here (GET /v1/currencies): ETH first, then the allowlist's tokens. */
function useCurrencySymbols(): string[] {
  const currencies = usePublicQuery<Currencies>("/v1/currencies");
  return currencies.data?.currencies.map((c) => c.symbol) ?? ["ETH"];
}

/** "ETH", "ETH or USDC", "ETH, USDC or RENT". */
function orList(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

export function BrowsePage() {
  const symbols = useCurrencySymbols();
  return (
    <div className="stack">
      <div>
        <h1>Rent an agent</h1>
        <p className="muted">Agents that deliver finished work. Pay in {orList(symbols)}, run tasks from this page or the API.</p>
      </div>
      <RequireSignIn what="browse the marketplace">
        <Browse />
      </RequireSignIn>
    </div>
  );
}

function Browse() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get("page") ?? "1") || 1);
  const query = {
    q: params.get("q") ?? undefined,
    category: params.get("category") ?? undefined,
    rental_model: params.get("rental_model") ?? undefined,
    min_price: params.get("min_price") ?? undefined,
    max_price: params.get("max_price") ?? undefined,
    currency: params.get("currency") ?? undefined,
    min_rating: params.get("min_rating") ?? undefined,
    sort: params.get("sort") ?? undefined,
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  };
  const search = useAuthQuery<ListingSearch>("/v1/listings", query, { placeholderData: keepPreviousData });
  const symbols = useCurrencySymbols();
  const [text, setText] = useState(query.q ?? "");
  useEffect(() => setText(params.get("q") ?? ""), [params]);

  const update = (changes: Record<string, string | null>) => {
    // From the URL as it is now, not as this render saw it: a second filter chosen before the page
    // re-renders must keep the first (react-router's functional form also reads the render's params).
    const next = new URLSearchParams(window.location.search);
    for (const [k, v] of Object.entries(changes)) if (v) next.set(k, v); else next.delete(k);
    if (!("page" in changes)) next.delete("page");
    setParams(next);
  };
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    update({ q: text.trim() || null });
  };

  const total = search.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <div className="stack">
      <form role="search" onSubmit={onSearch} className="row" aria-label="Search agents">
        <label htmlFor="q" className="visually-hidden">
          Search agents
        </label>
        <input id="q" type="search" placeholder="Search agents, e.g. contract review" value={text} onChange={(e) => setText(e.target.value)} style={{ flex: 1, minWidth: 200 }} />
        <button className="btn btn-primary" type="submit">
          Search
        </button>
      </form>
      <div className="layout-browse">
        <aside className="card stack" aria-label="Filters">
          <div className="field">
            <label htmlFor="category">Category</label>
            <select id="category" value={query.category ?? ""} onChange={(e) => update({ category: e.target.value || null })}>
              <option value="">All categories</option>
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {c[0]!.toUpperCase() + c.slice(1)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="rental_model">Rental model</label>
            <select id="rental_model" value={query.rental_model ?? ""} onChange={(e) => update({ rental_model: e.target.value || null })}>
              <option value="">Any</option>
              <RentalModelOptions />
            </select>
          </div>
          <div className="field">
            <label htmlFor="currency">Currency</label>
            <select id="currency" value={query.currency ?? ""} onChange={(e) => update({ currency: e.target.value || null })}>
              <option value="">Any</option>
              {symbols.map((symbol) => (
                <option key={symbol} value={symbol}>
                  {symbol}
                </option>
              ))}
            </select>
          </div>
          <fieldset>
            <legend>Price ({query.currency ?? "ETH"})</legend>
            <div className="row" style={{ flexWrap: "nowrap" }}>
              <div className="field">
                <label htmlFor="min_price" className="small">Min</label>
                <input id="min_price" inputMode="decimal" defaultValue={query.min_price ?? ""} key={`min${query.min_price}`} onBlur={(e) => update({ min_price: e.target.value.trim() || null })} />
              </div>
              <div className="field">
                <label htmlFor="max_price" className="small">Max</label>
                <input id="max_price" inputMode="decimal" defaultValue={query.max_price ?? ""} key={`max${query.max_price}`} onBlur={(e) => update({ max_price: e.target.value.trim() || null })} />
              </div>
            </div>
            {!query.currency && (query.min_price || query.max_price) ? (
              <p className="hint" id="currency-hint">
                Bounds in ETH keep ETH listings only: pick a currency to bound prices in a token.
              </p>
            ) : null}
          </fieldset>
          <div className="field">
            <label htmlFor="min_rating">Minimum rating</label>
            <select id="min_rating" value={query.min_rating ?? ""} onChange={(e) => update({ min_rating: e.target.value || null })}>
              <option value="">Any</option>
              {[4.5, 4, 3, 2].map((r) => (
                <option key={r} value={r}>
                  {r}★ and up
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="sort">Sort by</label>
            <select id="sort" value={query.sort ?? "relevance"} onChange={(e) => update({ sort: e.target.value === "relevance" ? null : e.target.value })}>
              {SORTS.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </div>
          {[...params.keys()].length > 0 ? (
            <button className="btn btn-small" style={{ justifySelf: "start" }} onClick={() => setParams(new URLSearchParams())}>
              Clear all
            </button>
          ) : null}
        </aside>
        <section aria-label="Results" className="stack">
          {search.isPending ? (
            <Loading label="Loading agents" />
          ) : search.isError ? (
            <ErrorNote error={search.error} title="Search failed" />
          ) : search.data.listings.length === 0 ? (
            <Empty>No agent matches this search. Try fewer filters or other words.</Empty>
          ) : (
            <>
              <p className="muted small" role="status">
                {total} {total === 1 ? "agent" : "agents"}
                {query.q ? ` for “${query.q}”` : ""}
              </p>
              <ul className="grid" style={{ listStyle: "none", padding: 0, margin: 0 }}>
                {search.data.listings.map((l) => (
                  <li key={l.id}>
                    <ListingCard listing={l} />
                  </li>
                ))}
              </ul>
              {pages > 1 ? (
                <nav className="pager" aria-label="Pages">
                  <button className="btn btn-small" disabled={page <= 1} onClick={() => update({ page: String(page - 1) })}>
                    Previous
                  </button>
                  <span className="small">
                    Page {page} of {pages}
                  </span>
                  <button className="btn btn-small" disabled={page >= pages} onClick={() => update({ page: String(page + 1) })}>
                    Next
                  </button>
                </nav>
              ) : null}
            </>
          )}
        </section>
      </div>
    </div>
  );
}

function ListingCard({ listing }: { listing: ListingSummary }) {
  return (
    <article className="card listing-card" data-testid="listing-card">
      <div className="tags">
        {listing.category.map((c) => (
          <span key={c} className="tag">
            {c}
          </span>
        ))}
        <span className="tag tag-accent">{MODEL_LABEL[listing.rental_model]}</span>
      </div>
      <h3>
        <Link to={`/listings/${listing.id}`}>{listing.title}</Link>
      </h3>
      <p className="muted small clamp">{listing.description}</p>
      <div className="spread">
        <span className="price">
          {formatPrice(listing)} <span className="muted small">{PRICE_SUFFIX[listing.rental_model]}</span>
        </span>
        {listing.review_count === 0 ? (
          <span className="small muted">No ratings yet</span>
        ) : (
          <span className="small" aria-label={`Rated ${listing.rating.toFixed(1)} of 5 from ${countOf(listing.review_count, "review")}`}>
            ★ {listing.rating.toFixed(1)} <span className="muted">({listing.review_count})</span>
          </span>
        )}
      </div>
      <div className="stats">
        <span>{countOf(listing.run_count, "run")}</span>
        <span>{listing.run_count > 0 ? `${percent(listing.success_rate)} success` : "No runs yet"}</span>
        <span>by {listing.creator.display_name}</span>
      </div>
    </article>
  );
}
