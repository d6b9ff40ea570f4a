// My rentals: every credential with its status, expiry and time left, per-task balance in runs, and
// renew / top up / withdraw-unspent where the contract allows them.
import { useState } from "react";
import { Link } from "react-router";
import * as Dialog from "@radix-ui/react-dialog";
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useConnection, useReadContract } from "wagmi";
import { useApi } from "../api/hooks.ts";
import { useSession } from "../auth/session.tsx";
import type { Credential } from "@agent-rental/sdk";
import { marketplaceAbi, onChainId } from "../chain/abi.ts";
import { useContractFlow } from "../chain/useContractFlow.ts";
import { FlowStatus } from "../chain/FlowStatus.tsx";
import { useDashboardConfig } from "../lib/context.tsx";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, StatusBadge } from "../ui/notices.tsx";
import { MODEL_LABEL, formatTime, formatWei, timeLeft } from "../ui/format.ts";
import { RentPanel, useOnChainPrice } from "./Rent.tsx";

export function RentalsPage() {
  return (
    <div className="stack">
      <h1>My rentals</h1>
      <RequireSignIn what="see your rentals">
        <Rentals />
      </RequireSignIn>
    </div>
  );
}

const PAGE = 50;
type CredentialPage = { credentials: Credential[]; total: number };

/** The wallet's credentials, newest purchase first, a page at a time. */
function useCredentialPages() {
  const api = useApi();
  const { session } = useSession();
  return useInfiniteQuery({
    queryKey: ["auth", session?.wallet, "/v1/credentials", { pages: PAGE }],
    queryFn: ({ pageParam, signal }) => api<CredentialPage>("/v1/credentials", { query: { limit: PAGE, offset: pageParam }, signal }),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const loaded = pages.reduce((n, p) => n + p.credentials.length, 0);
      return last.credentials.length === PAGE && loaded < last.total ? loaded : undefined;
    },
    enabled: Boolean(session),
  });
}

function Rentals() {
  const list = useCredentialPages();
  if (list.isPending) return <Loading label="Loading your rentals" />;
  if (!list.data) return <ErrorNote error={list.error} title="Your rentals could not be loaded" />;
  // A purchase between two pages shifts the later ones by one: each rental is shown once.
  const credentials = [...new Map(list.data.pages.flatMap((p) => p.credentials).map((c) => [c.listing_id, c])).values()];
  const total = list.data.pages.at(-1)!.total;
  if (credentials.length === 0)
    return (
      <Empty>
        You have no rentals yet. <Link to="/">Browse agents</Link> to rent one.
      </Empty>
    );
  return (
    <div className="stack">
      <p className="muted small" role="status" data-testid="rentals-count">
        {credentials.length < total ? `Showing ${credentials.length} of ${total} rentals` : total === 1 ? "1 rental" : `${total} rentals`}
      </p>
      <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {credentials.map((c) => (
          <li key={c.listing_id}>
            <RentalRow credential={c} onChanged={() => void list.refetch()} />
          </li>
        ))}
      </ul>
      {list.error ? <ErrorNote error={list.error} title="More rentals could not be loaded" /> : null}
      {list.hasNextPage ? (
        <div>
          <button className="btn" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            {list.isFetchingNextPage ? "Loading…" : "Show more rentals"}
          </button>
        </div>
      ) : null}
    </div>
  );
}

function useBalance(credential: Credential) {
  const { marketplace } = useDashboardConfig();
  const { address } = useConnection();
  return useReadContract({
    address: marketplace,
    abi: marketplaceAbi,
    functionName: "perQueryBalances",
    args: [onChainId(credential.listing_id), address!],
    query: { enabled: credential.rental_model === "per_query" && Boolean(address) },
  });
}

/** The listing's on-chain price and status (0 none, 1 active, 2 paused, 3 closed). */
function useListingTerms(credential: Credential) {
  const { marketplace } = useDashboardConfig();
  return useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId(credential.listing_id)], query: { enabled: credential.rental_model === "per_query", select: (l) => ({ price: l[0], status: l[3] }) } });
}

/** Why the contract would return the unspent balance now (withdrawUnspentBalance's own rule), or null
 * when it would refuse: a live balance, at the price it was deposited at, that covers a run is prepaid
 * credit, not refundable. */
export function withdrawableBecause(record: { balance: bigint; isRevoked: boolean; depositPrice: bigint }, terms: { price: bigint; status: number }): string | null {
  if (record.balance === 0n) return null;
  if (terms.status === 3) return "the listing is closed.";
  if (terms.status === 2) return "the listing is paused.";
  if (record.isRevoked) return "the creator revoked your access.";
  if (terms.price > record.depositPrice) return "the price rose above the price of your last deposit.";
  if (record.balance < terms.price) return "the balance no longer covers one run.";
  return null;
}

function RentalRow({ credential: c, onChanged }: { credential: Credential; onChanged: () => void }) {
  const record = useBalance(c);
  const terms = useListingTerms(c);
  const price = useOnChainPrice(c.listing_id, c.rental_model === "per_query");
  const balance = { data: record.data?.[0], refetch: () => Promise.all([record.refetch(), terms.refetch(), price.refetch()]) };
  const runsLeft = balance.data !== undefined && price.data ? balance.data / price.data : undefined;
  const withdrawReason = record.data && terms.data ? withdrawableBecause({ balance: record.data[0], isRevoked: record.data[2], depositPrice: record.data[3] }, terms.data) : null;
  const [open, setOpen] = useState<null | "renew" | "top_up">(null);
  // The amount a withdrawal dialog offers, kept while it is open: the balance it empties drops to 0
  // the moment the withdrawal confirms, and the dialog stays to say so.
  const [withdrawing, setWithdrawing] = useState<bigint | null>(null);
  const refresh = () => {
    void balance.refetch();
    onChanged();
  };
  return (
    <article className="card stack" aria-labelledby={`r-${c.listing_id}`}>
      <div className="spread">
        <div>
          <h2 id={`r-${c.listing_id}`} style={{ marginBottom: ".2rem" }}>
            <Link to={`/listings/${c.listing_id}`}>{c.listing_title}</Link>
          </h2>
          <div className="row small">
            <span className="tag tag-accent">{MODEL_LABEL[c.rental_model]}</span>
            <StatusBadge status={c.status} />
            <span className="muted">Rented {formatTime(c.purchased_at)}</span>
          </div>
        </div>
        <div className="row">
          {c.status === "active" ? (
            <Link className="btn btn-small" to={`/run?agent=${encodeURIComponent(c.listing_id)}`}>
              Run a task
            </Link>
          ) : null}
          {c.rental_model === "subscription" ? (
            <button className="btn btn-small" onClick={() => setOpen("renew")}>
              Renew
            </button>
          ) : null}
          {c.rental_model === "per_query" ? (
            <button className="btn btn-small" onClick={() => setOpen("top_up")}>
              Top up
            </button>
          ) : null}
          {c.rental_model === "per_query" && ((withdrawReason && balance.data) || withdrawing !== null) ? (
            <WithdrawUnspent credential={c} amount={withdrawing ?? balance.data ?? 0n} reason={withdrawReason} open={withdrawing !== null} onOpenChange={(o) => setWithdrawing(o ? balance.data ?? 0n : null)} onDone={refresh} />
          ) : null}
        </div>
      </div>
      <dl className="small" style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: ".2rem 1rem", margin: 0 }}>
        {c.rental_model === "subscription" ? (
          <>
            <dt className="muted">{c.status === "expired" ? "Expired" : "Expires"}</dt>
            <dd style={{ margin: 0 }}>
              {formatTime(c.expires_at)} ({timeLeft(c.expires_at)})
            </dd>
          </>
        ) : c.rental_model === "one_time" ? (
          <>
            <dt className="muted">Expires</dt>
            <dd style={{ margin: 0 }}>Never: permanent access</dd>
          </>
        ) : (
          <>
            <dt className="muted">Balance</dt>
            <dd style={{ margin: 0 }} data-testid="runs-left">
              {runsLeft === undefined ? "…" : `${runsLeft.toString()} ${runsLeft === 1n ? "run" : "runs"} left`}
              {balance.data !== undefined ? <span className="muted"> ({formatWei(balance.data)})</span> : null}
            </dd>
          </>
        )}
      </dl>
      <Dialog.Root open={open !== null} onOpenChange={(o) => !o && setOpen(null)}>
        <Dialog.Portal>
          <Dialog.Overlay className="dialog-overlay" />
          <Dialog.Content className="dialog stack">
            <Dialog.Title>
              {open === "renew" ? "Renew" : "Top up"} {c.listing_title}
            </Dialog.Title>
            <Dialog.Description className="muted small">
              {open === "renew" ? "Extends the subscription from now (or from its current end, while it runs)." : "Adds runs to your prepaid balance."}
            </Dialog.Description>
            {open ? <RentPanel listingId={c.listing_id} model={c.rental_model} mode={open} onDone={refresh} /> : null}
            <div className="row" style={{ justifyContent: "flex-end" }}>
              <Dialog.Close asChild>
                <button className="btn">Close</button>
              </Dialog.Close>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </article>
  );
}

function WithdrawUnspent(props: { credential: Credential; amount: bigint; reason: string | null; open: boolean; onOpenChange(open: boolean): void; onDone: () => void }) {
  const { credential, amount, reason, open, onOpenChange, onDone } = props;
  const flow = useContractFlow();
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(o) => {
        if (!o && flow.state.step !== "idle") flow.reset();
        onOpenChange(o);
      }}
    >
      <AlertDialog.Trigger asChild>
        <button className="btn btn-small">Withdraw unspent</button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog stack">
          <AlertDialog.Title>Withdraw the unspent balance?</AlertDialog.Title>
          <AlertDialog.Description>
            {formatWei(amount)} returns to your wallet and the balance drops to 0 runs; the rental stays yours, so a top-up (at the current price) makes it usable again.
          </AlertDialog.Description>
          <p className="hint">
            {reason ? `The contract allows it now: ${reason} ` : null}(It returns a per-task balance when the listing is paused or closed, the creator revoked your access, the price rose above the price of your last deposit, or the balance no longer covers a run; otherwise the balance is prepaid runs.)
          </p>
          <FlowStatus state={flow.state} />
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <AlertDialog.Cancel asChild>
              <button className="btn">{flow.state.step === "confirmed" ? "Close" : "Cancel"}</button>
            </AlertDialog.Cancel>
            {flow.state.step !== "confirmed" ? (
              <button className="btn btn-danger" disabled={flow.busy} onClick={() => void flow.run({ functionName: "withdrawUnspentBalance", args: [onChainId(credential.listing_id)] }).then((h) => h && onDone())}>
                Withdraw {formatWei(amount)}
              </button>
            ) : null}
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
