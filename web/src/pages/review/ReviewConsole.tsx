// The review console (the protocol authority): creator applications and listings awaiting review,
// with what a reviewer needs to decide (title, creator and display name, description, schemas, sample
// outputs), and approve or reject with a reason.
import { useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useReadContract } from "wagmi";
import { getAddress, isAddressEqual } from "viem";
import { useClient, useSdkQuery } from "../../api/hooks.ts";
import type { ReviewDecision } from "@agent-rental/sdk";
import { useSession } from "../../auth/session.tsx";
import { marketplaceAbi, rentalModelOf } from "../../chain/abi.ts";
import { useOnChainListing } from "../creator/listingOnChain.ts";
import { useDashboardConfig } from "../../lib/context.tsx";
import { useListingMetadata } from "../../lib/metadata.ts";
import { sampleOutputsOf } from "../../lib/samples.ts";
import { RequireSignIn } from "../../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, Notice } from "../../ui/notices.tsx";
import { MODEL_LABEL, formatTime, jsonText, prettyJson, shortHex } from "../../ui/format.ts";

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

/** The console asks the API only for the marketplace's authority, read from the contract: any other
 * wallet is told so without a request the API would refuse. */
function Review() {
  const { marketplace } = useDashboardConfig();
  const { session } = useSession();
  const authority = useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "authority" });
  if (authority.isPending) return <Loading label="Reading the marketplace's authority" />;
  if (authority.isError) return <ErrorNote error={authority.error} title="The marketplace's authority could not be read from the chain" />;
  if (!session || !isAddressEqual(session.wallet, authority.data)) {
    return (
      <Notice kind="warn">
        <strong>Only the protocol authority reviews.</strong> This wallet ({shortHex(session?.wallet ?? "", 4)}) is not the marketplace's authority (<span className="mono">{shortHex(authority.data, 4)}</span>); sign in with the authority's wallet to decide applications and listings.
      </Notice>
    );
  }
  return <Queues />;
}

function Queues() {
  const creators = useSdkQuery(["/v1/reviews/creators", { status: "pending" }], async (client) => ({ applications: await client.reviews.creators("pending") }), { refetchInterval: 3000 });
  const listings = useSdkQuery(["/v1/reviews/listings"], async (client) => ({ listings: await client.reviews.listings() }), { refetchInterval: 3000 });
  // Display names of approved creators, for the listings awaiting review (a listing's creator is approved).
  const approved = useSdkQuery(["/v1/reviews/creators", { status: "approved" }], async (client) => ({ applications: await client.reviews.creators("approved") }), { enabled: (listings.data?.listings.length ?? 0) > 0 });
  const names = useMemo(() => new Map((approved.data?.applications ?? []).map((a) => [getAddress(a.wallet), a.display_name])), [approved.data]);
  return (
    <div className="stack">
      <section className="stack" aria-labelledby="apps">
        <h2 id="apps">Creator applications</h2>
        {creators.isPending ? <Loading label="Loading applications" /> : creators.isError ? <ErrorNote error={creators.error} /> : creators.data.applications.length === 0 ? <Empty>No application waits for review.</Empty> : (
          creators.data.applications.map((a) => (
            <Decision key={a.wallet} of={{ creator: a.wallet }} name={a.display_name} onDone={() => void creators.refetch()}>
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
          listings.data.listings.map((l) => <PendingListing key={l.listing_id} listingId={l.listing_id} createdAt={l.created_at} creatorNames={names} onDone={() => void listings.refetch()} />)
        )}
      </section>
    </div>
  );
}

function PendingListing({ listingId, createdAt, creatorNames, onDone }: { listingId: string; createdAt: string; creatorNames: Map<string, string>; onDone: () => void }) {
  // From its own contract: the Marketplace for a listing priced in ETH, the TokenMarketplace for one in a token.
  const onChain = useOnChainListing(listingId);
  const exists = onChain.exists;
  const metadata = useListingMetadata(exists ? onChain.listing!.metadataUri : null);
  const m = metadata.data;
  const title = m ? m.name.split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ") : listingId;
  const samples = useMemo(() => (m ? sampleOutputsOf(m) : null), [m]);
  const creator = exists ? getAddress(onChain.listing!.creator) : null;
  return (
    <Decision of={{ listing: listingId }} name={title} onDone={onDone}>
      <h3>{title}</h3>
      <p className="small muted">
        Registered {formatTime(createdAt)} · <span className="mono">{listingId.slice(0, 14)}…</span>
      </p>
      {!exists ? (
        <div className="notice small">Not on-chain yet: the creator has not created the listing. Its details appear once they do.</div>
      ) : (
        <>
          <p className="small">
            Creator <strong data-testid="review-creator-name">{creatorNames.get(creator!) ?? "(no approved creator profile)"}</strong> <span className="mono">{creator}</span> · {MODEL_LABEL[rentalModelOf(onChain.listing!.accessType)]} at {onChain.money!.format(onChain.listing!.price)}
          </p>
          {metadata.isError ? <ErrorNote error={metadata.error} /> : null}
          {m ? (
            <>
              <p>
                <span className="tag">{m.category}</span> {m.description}
              </p>
              <details>
                <summary>Input and output schemas</summary>
                <pre>{jsonText({ input_schema: m.input_schema, output_schema: m.output_schema })}</pre>
              </details>
              {samples === null ? (
                <p className="small muted">The sample outputs could not be derived from this metadata.</p>
              ) : (
                <div data-testid="review-samples">
                  <strong className="small">Sample outputs{m.output_schema.examples ? "" : " (generated from the output schema)"}</strong>
                  {samples.map((s, i) => (
                    <pre key={i}>{prettyJson(s)}</pre>
                  ))}
                </div>
              )}
            </>
          ) : null}
        </>
      )}
    </Decision>
  );
}

function Decision({ of, name, onDone, children }: { of: { creator: string } | { listing: string }; name: string; onDone: () => void; children: React.ReactNode }) {
  const client = useClient();
  const [reason, setReason] = useState("");
  const decide = useMutation({
    mutationFn: async (decision: ReviewDecision["decision"]): Promise<unknown> => {
      const body: ReviewDecision = { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) };
      return "creator" in of ? client.reviews.reviewCreator(of.creator, body) : client.reviews.reviewListing(of.listing, body);
    },
    onSuccess: onDone,
  });
  const path = "creator" in of ? `/v1/reviews/creators/${of.creator}` : `/v1/reviews/listings/${of.listing}`;
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
