// A listing: everything the detail endpoint returns, its sample outputs, the agent's input and output
// schemas (from its public metadata), ratings, what the price means, and renting it.
import { useCallback, useState } from "react";
import { Link, useParams } from "react-router";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useClient, useSdkQuery } from "../api/hooks.ts";
import type { Rating, RatingList } from "@agent-rental/sdk";
import { useSession } from "../auth/session.tsx";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, MorePages, StatusBadge } from "../ui/notices.tsx";
import { MODEL_LABEL, PRICE_MEANING, PRICE_SUFFIX, countOf, formatTime, formatPrice, jsonText, percent, prettyJson, shortHex } from "../ui/format.ts";
import { useListingMetadata } from "../lib/metadata.ts";
import { RentPanel } from "./Rent.tsx";
import { Erc8004Identity } from "../erc8004/Reputation.tsx";
import { Erc8004Registration } from "../erc8004/Registration.tsx";

export function ListingPage() {
  return (
    <RequireSignIn what="see this agent">
      <ListingView />
    </RequireSignIn>
  );
}

function ListingView() {
  const { id = "" } = useParams();
  const listing = useSdkQuery([`/v1/listings/${encodeURIComponent(id)}`], (client, signal) => client.listings.get(id, { signal }));
  const credential = useSdkQuery([`/v1/credentials/${encodeURIComponent(id)}`], (client, signal) => client.credentials.verify(id, { signal }));
  const ratings = useRatings(id);
  const metadata = useListingMetadata(listing.data?.metadata_uri);
  const { session } = useSession();
  // A rental just confirmed: the panel turns into "Your rental", and says so.
  const [rented, setRented] = useState(false);
  const onRented = () => {
    setRented(true);
    void credential.refetch();
  };

  const refetchListing = useCallback(() => void listing.refetch(), [listing.refetch]);

  if (listing.isPending) return <Loading label="Loading the listing" />;
  if (listing.isError) return <ErrorNote error={listing.error} title="This listing could not be loaded" />;
  const l = listing.data;
  const held = credential.data && credential.data.status !== "not_found";
  return (
    <div className="stack">
      <p className="small">
        <Link to="/">← All agents</Link>
      </p>
      <div className="layout-two">
        <div className="stack">
          <div className="card stack">
            <div className="tags">
              {l.category.map((c) => (
                <span key={c} className="tag">
                  {c}
                </span>
              ))}
              <span className="tag tag-accent">{MODEL_LABEL[l.rental_model]}</span>
              <StatusBadge status={l.status} />
            </div>
            <h1>{l.title}</h1>
            <p>{l.description}</p>
            <div className="stats" data-testid="listing-stats">
              <span>{l.review_count === 0 ? "No ratings yet" : `★ ${l.rating.toFixed(1)} (${countOf(l.review_count, "review")})`}</span>
              <span>{countOf(l.run_count, "run")}</span>
              <span>{l.run_count > 0 ? `${percent(l.success_rate)} success` : "No runs yet"}</span>
            </div>
            <dl className="small" style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: ".25rem 1rem", margin: 0 }}>
              <dt className="muted">Creator</dt>
              <dd style={{ margin: 0 }}>
                {l.creator.display_name} <span className="muted mono">{shortHex(l.creator.id, 4)}</span> · {l.creator.listing_count} listings
              </dd>
              <dt className="muted">Published</dt>
              <dd style={{ margin: 0 }}>{formatTime(l.published_at)}</dd>
              <dt className="muted">Updated</dt>
              <dd style={{ margin: 0 }}>{formatTime(l.last_updated)}</dd>
              <dt className="muted">Listing id</dt>
              <dd style={{ margin: 0 }} className="mono">{shortHex(l.id, 8)}</dd>
              <dt className="muted">On-chain id</dt>
              <dd style={{ margin: 0 }} className="mono">{shortHex(l.on_chain_id, 8)}</dd>
              <dt className="muted">Metadata</dt>
              <dd style={{ margin: 0, wordBreak: "break-all" }} className="mono">{l.metadata_uri}</dd>
            </dl>
          </div>
          <section className="card stack" aria-labelledby="samples">
            <h2 id="samples">Sample outputs</h2>
            {l.sample_output.length === 0 ? <p className="muted">No samples.</p> : l.sample_output.map((s, i) => <pre key={i}>{prettyJson(s)}</pre>)}
          </section>
          <section className="card stack" aria-labelledby="schemas">
            <h2 id="schemas">Input and output</h2>
            {metadata.isPending ? <Loading label="Loading the agent's schemas" /> : metadata.isError ? <ErrorNote error={metadata.error} /> : (
              <>
                <h3>Input schema</h3>
                <pre>{jsonText(metadata.data.input_schema)}</pre>
                <h3>Output schema</h3>
                <pre>{jsonText(metadata.data.output_schema)}</pre>
                <p className="small muted">Times out after {metadata.data.timeout_seconds ?? 60} s.</p>
              </>
            )}
          </section>
          <section className="card stack" aria-labelledby="erc8004">
            <h2 id="erc8004">ERC-8004 identity and reputation</h2>
            <Erc8004Identity listing={l} />
            {session && session.wallet.toLowerCase() === l.creator.id.toLowerCase() ? <Erc8004Registration listing={l} refetchListing={refetchListing} /> : null}
          </section>
          <section className="card stack" aria-labelledby="ratings">
            <h2 id="ratings">Ratings</h2>
            <p className="hint">Renters' ratings kept by the service, before on-chain feedback: shown apart, not part of the verified rating.</p>
            {held && session && session.wallet.toLowerCase() !== l.creator.id.toLowerCase() ? (
              <RateListing listingId={l.id} mine={ratings.data?.pages.flatMap((p) => p.ratings).find((r) => r.wallet.toLowerCase() === session.wallet.toLowerCase())} />
            ) : null}
            {ratings.isPending ? <Loading label="Loading ratings" /> : !ratings.data ? <ErrorNote error={ratings.error} /> : ratings.data.pages[0]!.ratings.length === 0 ? <Empty>No ratings yet.</Empty> : (
              <>
                <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }} data-testid="ratings">
                  {ratings.data.pages.flatMap((p) => p.ratings).map((r) => (
                    <li key={r.wallet}>
                      <strong role="img" aria-label={`${r.rating} of 5 stars`}>{"★".repeat(r.rating)}{"☆".repeat(5 - r.rating)}</strong> <span className="muted small mono">{shortHex(r.wallet, 4)}</span>
                      {session && r.wallet.toLowerCase() === session.wallet.toLowerCase() ? <span className="tag">you</span> : null} <span className="muted small">{formatTime(r.created_at)}</span>
                      {r.comment ? <p>{r.comment}</p> : null}
                    </li>
                  ))}
                </ul>
                <MorePages query={ratings} what="ratings" small />
              </>
            )}
          </section>
        </div>
        <aside className="card stack" aria-labelledby="rent">
          <h2 id="rent">{held ? "Your rental" : `Rent ${l.title}`}</h2>
          <div>
            <span className="price">{formatPrice(l)}</span> <span className="muted">{PRICE_SUFFIX[l.rental_model]}</span>
            <p className="hint">{PRICE_MEANING[l.rental_model]}</p>
          </div>
          {credential.isError ? <ErrorNote error={credential.error} /> : null}
          {held ? (
            <div className="stack">
              {rented ? (
                <div className="notice notice-ok" role="status">
                  ✓ Credential active: the rental is confirmed on-chain and the API accepts your runs.
                </div>
              ) : null}
              <p>
                Status: <StatusBadge status={credential.data!.status} /> <Link to="/rentals">Manage in My rentals</Link>
              </p>
              {credential.data!.valid ? (
                <Link className="btn btn-primary" to={`/run?agent=${encodeURIComponent(l.id)}`}>
                  Run a task
                </Link>
              ) : null}
              {l.rental_model === "per_query" ? <RentPanel listingId={l.id} model={l.rental_model} currency={l.currency} mode="top_up" onDone={() => void credential.refetch()} /> : null}
              {l.rental_model === "subscription" ? <RentPanel listingId={l.id} model={l.rental_model} currency={l.currency} mode="renew" onDone={() => void credential.refetch()} /> : null}
            </div>
          ) : l.status !== "active" ? (
            <div className="stack">
              <div className="notice notice-warn">This listing is {l.status}: it takes no new rentals right now.</div>
              <RentPanel listingId={l.id} model={l.rental_model} currency={l.currency} mode="rent" onDone={onRented} />
            </div>
          ) : (
            <RentPanel listingId={l.id} model={l.rental_model} currency={l.currency} mode="rent" onDone={onRented} />
          )}
        </aside>
      </div>
    </div>
  );
}

const RATINGS_PAGE = 5;

/** The listing's ratings, newest first, a page at a time (the API's next_cursor). */
function useRatings(listingId: string) {
  const client = useClient();
  const { session } = useSession();
  const path = `/v1/listings/${encodeURIComponent(listingId)}/ratings`;
  return useInfiniteQuery({
    queryKey: ["auth", session?.wallet, path, { pages: true }],
    queryFn: ({ pageParam, signal }): Promise<RatingList> => client.listings.ratings(listingId, { limit: RATINGS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) }, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    enabled: Boolean(session),
  });
}

const MAX_COMMENT = 1000;

/** A renter's rating, 1 to 5 stars and an optional comment. The API allows it once the wallet has a
 * completed run of the listing (and refuses the creator): its refusal is shown as it says it. Rating
 * again replaces the earlier rating. */
function RateListing({ listingId, mine }: { listingId: string; mine: Rating | undefined }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [stars, setStars] = useState<number>(mine?.rating ?? 0);
  const [comment, setComment] = useState(mine?.comment ?? "");
  const rate = useMutation({
    mutationFn: () => client.listings.rate(listingId, stars, comment.trim() ? comment.trim() : undefined),
    onSuccess: () => void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === "auth" && typeof q.queryKey[2] === "string" && q.queryKey[2].startsWith(`/v1/listings/${listingId}`) }),
  });
  return (
    <form
      className="stack"
      aria-label="Your rating"
      onSubmit={(e) => {
        e.preventDefault();
        if (stars > 0) rate.mutate();
      }}
    >
      <fieldset className="stars">
        <legend>{mine ? "Your rating (rating again replaces it)" : "Rate this agent"}</legend>
        {[1, 2, 3, 4, 5].map((n) => (
          <label key={n} className="star">
            <input type="radio" name={`rating-${listingId}`} value={n} checked={stars === n} onChange={() => setStars(n)} />
            <span aria-hidden="true">{n <= stars ? "★" : "☆"}</span>
            <span className="visually-hidden">{n === 1 ? "1 star" : `${n} stars`}</span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor={`comment-${listingId}`}>Comment (optional)</label>
        <textarea id={`comment-${listingId}`} rows={2} maxLength={MAX_COMMENT} value={comment} onChange={(e) => setComment(e.target.value)} aria-describedby={`comment-hint-${listingId}`} />
        <span className="hint" id={`comment-hint-${listingId}`}>
          Plain text, up to {MAX_COMMENT} characters. Only renters with a completed run can rate.
        </span>
      </div>
      <div className="row">
        <button className="btn btn-small" type="submit" disabled={stars === 0 || rate.isPending}>
          {rate.isPending ? "Saving…" : mine ? "Update rating" : "Submit rating"}
        </button>
      </div>
      {rate.isSuccess ? (
        <div className="notice notice-ok" role="status">
          Thanks: your rating is saved.
        </div>
      ) : null}
      {rate.error ? <ErrorNote error={rate.error} title="The rating was not saved" /> : null}
    </form>
  );
}
