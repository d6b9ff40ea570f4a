// My listings: runs, success rate, rating and escrowed earnings; pause and resume, update price and
// metadata, set the provider key, rotate the webhook secret (shown once), withdraw earnings, close.
import { useCallback, useState } from "react";
import { Link } from "react-router";
import { useMutation } from "@tanstack/react-query";
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { useClient, useSdkQuery } from "../../api/hooks.ts";
import type { CreatorAgent } from "@agent-rental/sdk";
import { CHAIN_LISTING_STATUSES, onChainId, rentalModelOf } from "../../chain/abi.ts";
import { useContractFlow } from "../../chain/useContractFlow.ts";
import { FlowStatus } from "../../chain/FlowStatus.tsx";
import { useListingMetadata } from "../../lib/metadata.ts";
import { Empty, ErrorNote, StatusBadge } from "../../ui/notices.tsx";
import { MODEL_LABEL, countOf, percent } from "../../ui/format.ts";
import { useOnChainListing, type ListingMoney } from "./listingOnChain.ts";
import { Erc8004Registration } from "../../erc8004/Registration.tsx";


export function MyListings({ agents }: { agents: CreatorAgent[] }) {
  return (
    <section className="stack" aria-labelledby="my-listings">
      <h2 id="my-listings">My listings</h2>
      {agents.length === 0 ? <Empty>No agents registered yet.</Empty> : agents.map((a) => <ListingRow key={a.listing_id} agent={a} />)}
    </section>
  );
}

function ListingRow({ agent }: { agent: CreatorAgent }) {
  const onChain = useOnChainListing(agent.listing_id);
  const { exists, listing, money } = onChain;
  // A closed listing stays readable (status closed): its ERC-8004 registration file follows it too.
  const published = useSdkQuery([`/v1/listings/${agent.listing_id}`], (client, signal) => client.listings.get(agent.listing_id, { signal }), { enabled: agent.review_status === "approved" && exists, retry: false });
  const metadata = useListingMetadata(agent.metadata_uri);
  const status = listing ? CHAIN_LISTING_STATUSES[listing.status] ?? "none" : "none";
  const escrow = listing?.escrow ?? 0n;
  // Each subscription payment vests over its own paid period: only this much can leave the escrow now.
  const withdrawable = onChain.withdrawable;
  const refresh = onChain.refetch;
  const refetchPublished = useCallback(() => void published.refetch(), [published.refetch]);
  const title = metadata.data?.name ? metadata.data.name.split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ") : agent.agent_id;
  return (
    <article className="card stack" aria-labelledby={`l-${agent.listing_id}`}>
      <div className="stack">
        <div>
          <h3 id={`l-${agent.listing_id}`}>{published.data ? <Link to={`/listings/${agent.listing_id}`}>{title}</Link> : title}</h3>
          <div className="row small">
            <span className="mono muted">{agent.agent_id}</span>
            {listing ? <span className="tag tag-accent">{MODEL_LABEL[rentalModelOf(listing.accessType)]}</span> : null}
            {exists ? <StatusBadge status={status} /> : <span className="tag">not on-chain yet</span>}
            <span>
              Review: <StatusBadge status={agent.review_status} />
            </span>
          </div>
          {agent.review_reason ? <p className="small">Reviewer: {agent.review_reason}</p> : null}
        </div>
        {listing && money ? (
          <div className="stats">
            <span data-testid="price">Price {money.format(listing.price)}</span>
            <span data-testid="escrow">Escrow {money.format(escrow)}</span>
            {withdrawable !== undefined ? <span data-testid="withdrawable">Withdrawable {money.format(withdrawable)}</span> : null}
            {published.data ? (
              <>
                <span>{countOf(published.data.run_count, "run")}</span>
                <span>{published.data.run_count ? `${percent(published.data.success_rate)} success` : "No runs yet"}</span>
                <span>{published.data.review_count === 0 ? "No ratings yet" : `★ ${published.data.rating.toFixed(1)} (${published.data.review_count})`}</span>
              </>
            ) : null}
          </div>
        ) : null}
      </div>
      {onChain.error ? <ErrorNote error={onChain.error} /> : null}
      {published.data ? (
        <section className="stack" aria-label={`ERC-8004 registration of ${title}`}>
          <h4 style={{ margin: 0 }}>ERC-8004 agent</h4>
          <Erc8004Registration listing={published.data} chainStatus={exists ? status : undefined} refetchListing={refetchPublished} registerAt={`/listings/${agent.listing_id}`} />
        </section>
      ) : null}
      {listing && money && status !== "closed" ? (
        <details>
          <summary>Manage</summary>
          <div className="stack" style={{ marginTop: ".75rem" }}>
            <ListingActions
              listingId={agent.listing_id}
              title={title}
              status={status}
              subscription={listing.accessType === 1}
              price={listing.price}
              metadataUri={listing.metadataUri}
              money={money}
              registeredUri={agent.metadata_uri}
              escrow={escrow}
              withdrawable={withdrawable ?? 0n}
              onChanged={refresh}
            />
            <ListingSecrets listingId={agent.listing_id} />
          </div>
        </details>
      ) : null}
    </article>
  );
}

function ListingActions(props: { listingId: string; title: string; status: string; subscription: boolean; price: bigint; metadataUri: string; registeredUri: string; escrow: bigint; withdrawable: bigint; money: ListingMoney; onChanged: () => void }) {
  const { listingId, title, status, subscription, price, metadataUri, registeredUri, escrow, withdrawable, money, onChanged } = props;
  const { market, format } = money;
  const flow = useContractFlow();
  const [newPrice, setNewPrice] = useState(money.toText(price));
  const [newUri, setNewUri] = useState(metadataUri);
  const id = onChainId(listingId);
  const then = (h: string | null) => h && onChanged();
  // In wei for an ETH listing, in the token's smallest unit for a token listing.
  const priceWei = money.parse(newPrice);
  const vesting = escrow - withdrawable;
  return (
    <div className="stack">
      <div className="row">
        <button className="btn btn-small" disabled={flow.busy} onClick={() => void flow.run({ functionName: "setListingActive", args: [id, status !== "active"], market }).then(then)}>
          {status === "active" ? "Pause listing" : "Resume listing"}
        </button>
        <button className="btn btn-small" disabled={flow.busy || withdrawable === 0n} onClick={() => void flow.run({ functionName: "withdrawEarnings", args: [id, withdrawable], market }).then(then)}>
          Withdraw {format(withdrawable)}
        </button>
        <CloseListing
          title={title}
          escrow={escrow}
          vesting={vesting}
          format={format}
          busy={flow.busy}
          onClose={() => void flow.run({ functionName: escrow === 0n ? "closeListing" : "closeListingAndWithdraw", args: [id], market }).then(then)}
        />
      </div>
      <p className="hint" data-testid="close-rule">
        {subscription ? "Each subscription payment vests over the period its renter paid for; only the vested part can be withdrawn. " : "Earnings can be withdrawn any time. "}
        Closing is final and ends every rental; a listing closes, active or paused, once its escrow is empty, and its earnings can be withdrawn in the same step.{" "}
        {subscription && vesting > 0n ? `${format(vesting)} of this listing's escrow is still vesting: it can close once the periods its renters paid for have passed. ` : ""}
        A per-task run in flight when the listing closes is not charged (pause first and let runs settle if that matters). Unspent per-task balances stay the renters' to withdraw.
      </p>
      <form
        className="row"
        style={{ alignItems: "flex-end" }}
        onSubmit={(e) => {
          e.preventDefault();
          if (priceWei !== null) void flow.run({ functionName: "updateListing", args: [id, priceWei, newUri.trim()], market }).then(then);
        }}
      >
        <div className="field">
          <label htmlFor={`price-${listingId}`}>Price ({money.symbol})</label>
          <input id={`price-${listingId}`} inputMode="decimal" value={newPrice} onChange={(e) => setNewPrice(e.target.value)} aria-invalid={priceWei === null} />
        </div>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor={`uri-${listingId}`}>Metadata URI</label>
          <input id={`uri-${listingId}`} value={newUri} onChange={(e) => setNewUri(e.target.value)} aria-describedby={`uri-hint-${listingId}`} />
          <span className="hint" id={`uri-hint-${listingId}`}>
            {newUri.trim() === registeredUri
              ? "The metadata the service registered for this agent."
              : `Not the metadata the service registered for this agent (${registeredUri}): while the on-chain URI differs, the listing is out of the catalogue and renters cannot find it.`}
          </span>
        </div>
        <button className="btn btn-small" type="submit" disabled={flow.busy || priceWei === null}>
          Update listing
        </button>
      </form>
      <FlowStatus state={flow.state} />
    </div>
  );
}

/** Closing is final: it asks first. With earnings in escrow it offers to withdraw them and close in one
 * transaction (closeListingAndWithdraw); while part of a subscription listing's escrow is still vesting it
 * says so and sends nothing. */
function CloseListing({ title, escrow, vesting, format, busy, onClose }: { title: string; escrow: bigint; vesting: bigint; format: (units: bigint) => string; busy: boolean; onClose: () => void }) {
  const blocked = vesting > 0n;
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <button className="btn btn-small btn-danger" disabled={busy}>
          Close listing
        </button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog stack">
          <AlertDialog.Title>Close {title}?</AlertDialog.Title>
          <AlertDialog.Description>
            {blocked
              ? `A listing closes only once its escrow is empty, and ${format(vesting)} of it is still vesting: the periods this listing's subscribers paid for have not passed yet. It can close once they have.`
              : escrow > 0n
                ? `Closing is final: every rental of this listing stops working and it leaves the marketplace; renters keep their unspent per-task balances. The escrow holds ${format(escrow)} of earnings: they are withdrawn to your wallet in the same transaction.`
                : "Closing is final: every rental of this listing stops working and it leaves the marketplace; renters keep their unspent per-task balances."}
          </AlertDialog.Description>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <AlertDialog.Cancel asChild>
              <button className="btn">{blocked ? "OK" : "Cancel"}</button>
            </AlertDialog.Cancel>
            {blocked ? null : (
              <AlertDialog.Action asChild>
                <button className="btn btn-danger" onClick={onClose}>
                  {escrow > 0n ? `Withdraw ${format(escrow)} and close` : "Close for good"}
                </button>
              </AlertDialog.Action>
            )}
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** How an agent runs, when known: the console then offers only that kind's secret (the API does not say
 * it today, so both are offered). */
type AgentKind = "declarative" | "connected";

function ListingSecrets({ listingId, kind }: { listingId: string; kind?: AgentKind }) {
  const client = useClient();
  const [key, setKey] = useState("");
  const setProviderKey = useMutation({ mutationFn: () => client.listings.setProviderKey(listingId, key), onSuccess: () => setKey("") });
  const [copied, setCopied] = useState(false);
  const rotate = useMutation({ mutationFn: () => client.listings.rotateWebhookSecret(listingId), onSuccess: () => setCopied(false) });
  return (
    <div className="stack">
      <p className="hint">A declarative agent runs on your model-provider key; a connected agent (one with an entrypoint_url) verifies the service's calls with its webhook secret.</p>
      {kind !== "declarative" && (
        <div className="stack">
          <div className="row">
            <button className="btn btn-small" disabled={rotate.isPending} onClick={() => rotate.mutate()} aria-describedby={`wh-hint-${listingId}`}>
              Rotate webhook secret
            </button>
            <span className="hint" id={`wh-hint-${listingId}`}>
              Connected agents only. The new secret is shown once; the old one stops working at once.
            </span>
          </div>
          {rotate.data ? (
            <div className="notice notice-warn stack" role="alert">
              <span>
                New webhook secret, shown once: store it with your agent now (the old one stopped working). <code className="key-reveal">{rotate.data.webhook_secret}</code>
              </span>
              <div className="row">
                <button className="btn btn-small" type="button" onClick={() => void navigator.clipboard?.writeText(rotate.data.webhook_secret).then(() => setCopied(true), () => setCopied(false))}>
                  {copied ? "Copied" : "Copy secret"}
                </button>
                <button className="btn btn-small" type="button" onClick={() => (rotate.reset(), setCopied(false))}>
                  I stored it
                </button>
              </div>
            </div>
          ) : null}
          {rotate.error ? <ErrorNote error={rotate.error} /> : null}
        </div>
      )}
      {kind !== "connected" && (
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
            <span className="hint" id={`pk-hint-${listingId}`}>Declarative agents only. Stored encrypted for this listing's runs only; never shown again.</span>
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
