// My listings: runs, success rate, rating and escrowed earnings; pause and resume, update price and
// metadata, set the provider key, rotate the webhook secret (shown once), withdraw earnings, close.
import { useState } from "react";
import { Link } from "react-router";
import { useMutation } from "@tanstack/react-query";
import { useReadContract } from "wagmi";
import { parseEther, formatEther } from "viem";
import { useApi, useAuthQuery } from "../../api/hooks.ts";
import type { CreatorAgent, Listing } from "../../api/types.ts";
import { marketplaceAbi, onChainId } from "../../chain/abi.ts";
import { useContractFlow } from "../../chain/useContractFlow.ts";
import { FlowStatus } from "../../chain/FlowStatus.tsx";
import { useDashboardConfig } from "../../lib/context.tsx";
import { useListingMetadata } from "../../lib/metadata.ts";
import { Empty, ErrorNote, StatusBadge } from "../../ui/notices.tsx";
import { MODEL_LABEL, formatWei, percent } from "../../ui/format.ts";

const STATUS = ["none", "active", "paused", "closed"] as const;
const MODELS = ["one_time", "subscription", "per_query"] as const;

export function MyListings({ agents }: { agents: CreatorAgent[] }) {
  return (
    <section className="stack" aria-labelledby="my-listings">
      <h2 id="my-listings">My listings</h2>
      {agents.length === 0 ? <Empty>No agents registered yet.</Empty> : agents.map((a) => <ListingRow key={a.listing_id} agent={a} />)}
    </section>
  );
}

function ListingRow({ agent }: { agent: CreatorAgent }) {
  const { marketplace } = useDashboardConfig();
  const onChain = useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId(agent.listing_id)] });
  const published = useAuthQuery<Listing>(`/v1/listings/${agent.listing_id}`, undefined, { enabled: agent.review_status === "approved", retry: false });
  const metadata = useListingMetadata(agent.metadata_uri);
  const exists = onChain.data && onChain.data[3] !== 0;
  const status = onChain.data ? STATUS[onChain.data[3]] ?? "none" : "none";
  const escrow = onChain.data?.[1] ?? 0n;
  const refresh = () => void onChain.refetch();
  const title = metadata.data?.name ? metadata.data.name.split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ") : agent.agent_id;
  return (
    <article className="card stack" aria-labelledby={`l-${agent.listing_id}`}>
      <div className="spread">
        <div>
          <h3 id={`l-${agent.listing_id}`}>{published.data ? <Link to={`/listings/${agent.listing_id}`}>{title}</Link> : title}</h3>
          <div className="row small">
            <span className="mono muted">{agent.agent_id}</span>
            {exists ? <span className="tag tag-accent">{MODEL_LABEL[MODELS[onChain.data![2]] ?? "one_time"]}</span> : null}
            {exists ? <StatusBadge status={status} /> : <span className="tag">not on-chain yet</span>}
            <span>
              Review: <StatusBadge status={agent.review_status} />
            </span>
          </div>
          {agent.review_reason ? <p className="small">Reviewer: {agent.review_reason}</p> : null}
        </div>
        {exists ? (
          <div className="stats">
            <span>Price {formatWei(onChain.data![0])}</span>
            <span data-testid="escrow">Escrow {formatWei(escrow)}</span>
            {published.data ? (
              <>
                <span>{published.data.run_count} runs</span>
                <span>{published.data.run_count ? percent(published.data.success_rate) : "—"} success</span>
                <span>★ {published.data.rating.toFixed(1)}</span>
              </>
            ) : null}
          </div>
        ) : null}
      </div>
      {onChain.isError ? <ErrorNote error={onChain.error} /> : null}
      {exists && status !== "closed" ? (
        <details>
          <summary>Manage</summary>
          <div className="stack" style={{ marginTop: ".75rem" }}>
            <ListingActions listingId={agent.listing_id} status={status} price={onChain.data![0]} metadataUri={onChain.data![6]} escrow={escrow} onChanged={refresh} />
            <ListingSecrets listingId={agent.listing_id} />
          </div>
        </details>
      ) : null}
    </article>
  );
}

function ListingActions({ listingId, status, price, metadataUri, escrow, onChanged }: { listingId: string; status: string; price: bigint; metadataUri: string; escrow: bigint; onChanged: () => void }) {
  const flow = useContractFlow();
  const [newPrice, setNewPrice] = useState(formatEther(price));
  const [newUri, setNewUri] = useState(metadataUri);
  const id = onChainId(listingId);
  const then = (h: string | null) => h && onChanged();
  let priceWei: bigint | null = null;
  try {
    priceWei = parseEther(newPrice.trim());
  } catch {
    priceWei = null;
  }
  return (
    <div className="stack">
      <div className="row">
        <button className="btn btn-small" disabled={flow.busy} onClick={() => void flow.run({ functionName: "setListingActive", args: [id, status !== "active"] }).then(then)}>
          {status === "active" ? "Pause listing" : "Resume listing"}
        </button>
        <button className="btn btn-small" disabled={flow.busy || escrow === 0n} onClick={() => void flow.run({ functionName: "withdrawEarnings", args: [id, escrow] }).then(then)}>
          Withdraw {formatWei(escrow)}
        </button>
        <button className="btn btn-small btn-danger" disabled={flow.busy} onClick={() => void flow.run({ functionName: "closeListing", args: [id] }).then(then)}>
          Close listing
        </button>
      </div>
      <p className="hint">
        Closing is final and ends every rental. Pause first; the contract refuses to close while its escrow holds ETH renters paid for a period still running. Withdraw earnings any time.
      </p>
      <form
        className="row"
        style={{ alignItems: "flex-end" }}
        onSubmit={(e) => {
          e.preventDefault();
          if (priceWei !== null) void flow.run({ functionName: "updateListing", args: [id, priceWei, newUri.trim()] }).then(then);
        }}
      >
        <div className="field">
          <label htmlFor={`price-${listingId}`}>Price (ETH)</label>
          <input id={`price-${listingId}`} inputMode="decimal" value={newPrice} onChange={(e) => setNewPrice(e.target.value)} aria-invalid={priceWei === null} />
        </div>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor={`uri-${listingId}`}>Metadata URI</label>
          <input id={`uri-${listingId}`} value={newUri} onChange={(e) => setNewUri(e.target.value)} />
        </div>
        <button className="btn btn-small" type="submit" disabled={flow.busy || priceWei === null}>
          Update listing
        </button>
      </form>
      <FlowStatus state={flow.state} />
    </div>
  );
}

function ListingSecrets({ listingId }: { listingId: string }) {
  const api = useApi();
  const [key, setKey] = useState("");
  const setProviderKey = useMutation({ mutationFn: () => api(`/v1/listings/${listingId}/provider-key`, { method: "PUT", body: { provider_key: key } }), onSuccess: () => setKey("") });
  const rotate = useMutation({ mutationFn: () => api<{ webhook_secret: string }>(`/v1/listings/${listingId}/webhook-secret`, { method: "POST" }) });
  return (
    <div className="stack">
      <p className="hint">A declarative agent runs on your model-provider key; a connected agent verifies the service's calls with its webhook secret.</p>
      {(
        <div className="stack">
          <div className="row">
            <button className="btn btn-small" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
              Rotate webhook secret
            </button>
          </div>
          {rotate.data ? (
            <div className="notice notice-warn" role="alert">
              New webhook secret, shown once (the old one stops working): <code className="key-reveal">{rotate.data.webhook_secret}</code>
            </div>
          ) : null}
          {rotate.error ? <ErrorNote error={rotate.error} /> : null}
        </div>
      )}
      {(
        <form
          className="row"
          style={{ alignItems: "flex-end" }}
          onSubmit={(e) => {
            e.preventDefault();
            setProviderKey.mutate();
          }}
        >
          <div className="field" style={{ flex: 1, minWidth: 220 }}>
            <label htmlFor={`pk-${listingId}`}>Model-provider key</label>
            <input id={`pk-${listingId}`} type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} aria-describedby={`pk-hint-${listingId}`} />
            <span className="hint" id={`pk-hint-${listingId}`}>Stored encrypted for this listing's runs only; never shown again.</span>
          </div>
          <button className="btn btn-small" type="submit" disabled={!key || setProviderKey.isPending}>
            Set provider key
          </button>
        </form>
      )}
      {setProviderKey.isSuccess ? <div className="notice notice-ok" role="status">Provider key saved.</div> : null}
      {setProviderKey.error ? <ErrorNote error={setProviderKey.error} /> : null}
    </div>
  );
}
