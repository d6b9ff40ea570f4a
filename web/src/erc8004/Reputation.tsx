// A listing's ERC-8004 identity (its agent id and registry) and reputation as GET
// /v1/listings/{listing_id}/reputation gives it: the verified rating (feedback from paying renters,
// one per completed run, proven by the run's on-chain receipt), the feedback that does not count, and
// the off-chain ratings from before on-chain feedback, apart. The newest feedback is listed with its
// verdict in words.
import type { Listing, Reputation } from "@agent-rental/sdk";
import { FEEDBACK_REASON_MEANINGS } from "@agent-rental/core/vocabulary";
import { useSdkQuery } from "../api/hooks.ts";
import { TxLink } from "../chain/FlowStatus.tsx";
import { ErrorNote, Loading } from "../ui/notices.tsx";
import { countOf, shortHex } from "../ui/format.ts";
import { parseAgentRegistry } from "../chain/registries.ts";

export type Feedback = Reputation["feedback"][number];

/** How many of the newest feedback the listing page shows. */
const SHOWN = 5;

/** Why a feedback does not count, in words (the vocabulary's meanings of the API's reasons). */
export function reasonWords(reason: string | null): string {
  return (FEEDBACK_REASON_MEANINGS as Record<string, string>)[reason ?? ""] ?? reason ?? "";
}

/** A score of 0-100 as stars out of 5 (score / 20), to one decimal. */
export function starsOf(score: number): string {
  return (Math.round((score / 20) * 10) / 10).toFixed(1);
}

export function reviewsText(count: number): string {
  return countOf(count, "verified review");
}

/** The listing's reputation query (shared by the pages that show or change it). */
export function useReputation(listingId: string, options: { refetchInterval?: number | false } = {}) {
  return useSdkQuery([`/v1/listings/${encodeURIComponent(listingId)}/reputation`, { limit: SHOWN }], (client, signal) => client.listings.reputation(listingId, { limit: SHOWN }, { signal }), {
    refetchInterval: options.refetchInterval ?? false,
  });
}

export function Erc8004Identity({ listing }: { listing: Listing }) {
  const reputation = useReputation(listing.id);
  const registry = listing.erc8004 ? parseAgentRegistry(listing.erc8004.agent_registry) : null;
  return (
    <div className="stack">
      {listing.erc8004 ? (
        <dl className="small" style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: ".25rem 1rem", margin: 0 }} data-testid="erc8004-identity">
          <dt className="muted">Agent id</dt>
          <dd style={{ margin: 0 }} className="mono">
            {listing.erc8004.agent_id}
          </dd>
          <dt className="muted">Identity registry</dt>
          <dd style={{ margin: 0, wordBreak: "break-all" }} className="mono" title={listing.erc8004.agent_registry}>
            {registry ? `eip155:${registry.chainId}:${shortHex(registry.address, 6)}` : listing.erc8004.agent_registry}
          </dd>
        </dl>
      ) : (
        <p className="muted small" data-testid="erc8004-identity">
          Not registered as an ERC-8004 agent yet: feedback can be given once its creator registers it.
        </p>
      )}
      {reputation.isPending ? (
        <Loading label="Loading the reputation" />
      ) : reputation.isError ? (
        <ErrorNote error={reputation.error} title="The reputation could not be loaded" />
      ) : (
        <ReputationFigures reputation={reputation.data} />
      )}
    </div>
  );
}

function ReputationFigures({ reputation: r }: { reputation: Reputation }) {
  return (
    <div className="stack">
      <dl className="small" style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: ".25rem 1rem", margin: 0 }} data-testid="reputation">
        <dt className="muted">Verified rating</dt>
        <dd style={{ margin: 0 }} data-testid="verified-rating">
          {r.review_count === 0 ? "No verified feedback yet" : `★ ${r.rating.toFixed(1)} from ${reviewsText(r.review_count)}`}
        </dd>
        <dt className="muted">Unverified feedback</dt>
        <dd style={{ margin: 0 }} data-testid="unverified-count">
          {r.unverified_count === 0 ? "None" : `${r.unverified_count} (not counted: no proof of a paid, completed run)`}
        </dd>
        <dt className="muted">Before on-chain feedback</dt>
        <dd style={{ margin: 0 }} data-testid="before-on-chain">
          {r.before_on_chain.review_count === 0 ? "No ratings" : `★ ${r.before_on_chain.rating.toFixed(1)} from ${countOf(r.before_on_chain.review_count, "rating")} (shown apart, not counted)`}
        </dd>
      </dl>
      <p className="hint">
        Only feedback from a renter's wallet that carries the receipt of that renter's paid, completed run counts, once per run; anyone can recompute it from the chain (verifyReputation in the SDK).
      </p>
      {r.feedback.length > 0 ? (
        <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }} aria-label="Newest on-chain feedback">
          {r.feedback.map((f) => (
            <li key={`${f.client}#${f.feedback_index}`} className="small">
              <strong role="img" aria-label={`${starsOf(f.value)} of 5 stars`}>
                ★ {starsOf(f.value)}
              </strong>{" "}
              {f.verified ? <span className="tag tag-accent">verified</span> : <span className="tag">not counted: {reasonWords(f.reason)}</span>}{" "}
              <span className="muted mono">{shortHex(f.client, 4)}</span> <span className="muted">transaction</span> <TxLink hash={f.tx_hash} />
              {f.text ? <p style={{ margin: ".2rem 0 0" }}>{f.text}</p> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
