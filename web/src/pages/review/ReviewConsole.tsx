// The review console (the protocol authority): creator applications and listings awaiting review,
// with what a reviewer needs to decide (title, creator, description, schemas, sample outputs), and
// approve or reject with a reason.
import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useReadContract } from "wagmi";
import { useApi, useAuthQuery } from "../../api/hooks.ts";
import type { CreatorProfile } from "../../api/types.ts";
import { ApiError } from "../../api/client.ts";
import { marketplaceAbi, onChainId, rentalModelOf } from "../../chain/abi.ts";
import { useDashboardConfig } from "../../lib/context.tsx";
import { useListingMetadata } from "../../lib/metadata.ts";
import { RequireSignIn } from "../../ui/Layout.tsx";
import { Empty, ErrorNote, Loading } from "../../ui/notices.tsx";
import { MODEL_LABEL, formatTime, formatWei } from "../../ui/format.ts";

export function ReviewConsole() {
  return (
    <div className="stack">
      <h1>Review console</h1>
      <p className="muted">For the protocol authority: decide creator applications and new listings before they reach renters.</p>
      <RequireSignIn what="review">
        <Review />
      </RequireSignIn>
    </div>
  );
}

function Review() {
  const creators = useAuthQuery<{ applications: CreatorProfile[] }>("/v1/reviews/creators", { status: "pending" }, { refetchInterval: 3000 });
  const listings = useAuthQuery<{ listings: { listing_id: string; created_at: string }[] }>("/v1/reviews/listings", undefined, { refetchInterval: 3000 });
  if (creators.error instanceof ApiError && creators.error.status === 403) return <ErrorNote error={creators.error} title="Only the protocol authority reviews" />;
  return (
    <div className="stack">
      <section className="stack" aria-labelledby="apps">
        <h2 id="apps">Creator applications</h2>
        {creators.isPending ? <Loading label="Loading applications" /> : creators.isError ? <ErrorNote error={creators.error} /> : creators.data.applications.length === 0 ? <Empty>No application waits for review.</Empty> : (
          creators.data.applications.map((a) => (
            <Decision key={a.wallet} path={`/v1/reviews/creators/${a.wallet}`} name={a.display_name} onDone={() => void creators.refetch()}>
              <h3>{a.display_name}</h3>
              <p className="small muted">
                Wallet <span className="mono">{a.wallet}</span> · applied {formatTime(a.applied_at)}
              </p>
            </Decision>
          ))
        )}
      </section>
      <section className="stack" aria-labelledby="pending-listings">
        <h2 id="pending-listings">Listings awaiting review</h2>
        {listings.isPending ? <Loading label="Loading listings" /> : listings.isError ? <ErrorNote error={listings.error} /> : listings.data.listings.length === 0 ? <Empty>No listing waits for review.</Empty> : (
          listings.data.listings.map((l) => <PendingListing key={l.listing_id} listingId={l.listing_id} createdAt={l.created_at} onDone={() => void listings.refetch()} />)
        )}
      </section>
    </div>
  );
}

function PendingListing({ listingId, createdAt, onDone }: { listingId: string; createdAt: string; onDone: () => void }) {
  const { marketplace } = useDashboardConfig();
  const onChain = useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId(listingId)] });
  const exists = onChain.data && onChain.data[3] !== 0;
  const metadata = useListingMetadata(exists ? onChain.data![6] : null);
  const m = metadata.data;
  const title = m ? m.name.split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ") : listingId;
  const samples = (m?.output_schema.examples ?? []).slice(0, 3);
  return (
    <Decision path={`/v1/reviews/listings/${listingId}`} name={title} onDone={onDone}>
      <h3>{title}</h3>
      <p className="small muted">
        Registered {formatTime(createdAt)} · <span className="mono">{listingId.slice(0, 14)}…</span>
      </p>
      {!exists ? (
        <div className="notice small">Not on-chain yet: the creator has not created the listing. Its details appear once they do.</div>
      ) : (
        <>
          <p className="small">
            Creator <span className="mono">{onChain.data![4]}</span> · {MODEL_LABEL[rentalModelOf(onChain.data![2])]} at {formatWei(onChain.data![0])}
          </p>
          {metadata.isError ? <ErrorNote error={metadata.error} /> : null}
          {m ? (
            <>
              <p>
                <span className="tag">{m.category}</span> {m.description}
              </p>
              <details>
                <summary>Input and output schemas</summary>
                <pre>{JSON.stringify({ input_schema: m.input_schema, output_schema: m.output_schema }, null, 2)}</pre>
              </details>
              {samples.length ? (
                <div>
                  <strong className="small">Sample outputs</strong>
                  {samples.map((s, i) => (
                    <pre key={i}>{JSON.stringify(s, null, 2)}</pre>
                  ))}
                </div>
              ) : (
                <p className="small muted">No sample outputs.</p>
              )}
            </>
          ) : null}
        </>
      )}
    </Decision>
  );
}

function Decision({ path, name, onDone, children }: { path: string; name: string; onDone: () => void; children: React.ReactNode }) {
  const api = useApi();
  const [reason, setReason] = useState("");
  const decide = useMutation({
    mutationFn: (decision: "approve" | "reject") => api(path, { method: "POST", body: { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) } }),
    onSuccess: onDone,
  });
  const id = `reason-${path.replace(/[^a-z0-9]/gi, "")}`;
  return (
    <article className="card stack" aria-label={name}>
      {children}
      <div className="field">
        <label htmlFor={id}>Reason (required to reject; the creator reads it)</label>
        <input id={id} value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
      </div>
      {decide.error ? <ErrorNote error={decide.error} /> : null}
      <div className="row">
        <button className="btn btn-primary" disabled={decide.isPending} onClick={() => decide.mutate("approve")}>
          Approve
        </button>
        <button className="btn btn-danger" disabled={decide.isPending || !reason.trim()} onClick={() => decide.mutate("reject")}>
          Reject
        </button>
      </div>
    </article>
  );
}
