// My rentals: every credential with its status, expiry and time left, per-task balance in runs, and
// renew / top up / withdraw-unspent where the contract allows them.
import { useState } from "react";
import { Link } from "react-router";
import * as Dialog from "@radix-ui/react-dialog";
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { useConnection, useReadContract } from "wagmi";
import { useAuthQuery } from "../api/hooks.ts";
import type { Credential } from "../api/types.ts";
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

function Rentals() {
  const list = useAuthQuery<{ credentials: Credential[]; total: number }>("/v1/credentials", { limit: 100 });
  if (list.isPending) return <Loading label="Loading your rentals" />;
  if (list.isError) return <ErrorNote error={list.error} title="Your rentals could not be loaded" />;
  if (list.data.credentials.length === 0)
    return (
      <Empty>
        You have no rentals yet. <Link to="/">Browse agents</Link> to rent one.
      </Empty>
    );
  return (
    <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
      {list.data.credentials.map((c) => (
        <li key={c.listing_id}>
          <RentalRow credential={c} onChanged={() => void list.refetch()} />
        </li>
      ))}
    </ul>
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
    query: { enabled: credential.rental_model === "per_query" && Boolean(address), select: (b) => b[0] },
  });
}

function RentalRow({ credential: c, onChanged }: { credential: Credential; onChanged: () => void }) {
  const balance = useBalance(c);
  const price = useOnChainPrice(c.listing_id);
  const runsLeft = balance.data !== undefined && price.data ? balance.data / price.data : undefined;
  const [open, setOpen] = useState<null | "renew" | "top_up">(null);
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
          {c.rental_model === "per_query" && balance.data !== undefined && balance.data > 0n ? <WithdrawUnspent credential={c} amount={balance.data} onDone={refresh} /> : null}
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

function WithdrawUnspent({ credential, amount, onDone }: { credential: Credential; amount: bigint; onDone: () => void }) {
  const flow = useContractFlow();
  return (
    <AlertDialog.Root onOpenChange={(o) => !o && flow.state.step !== "idle" && flow.reset()}>
      <AlertDialog.Trigger asChild>
        <button className="btn btn-small">Withdraw unspent</button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog stack">
          <AlertDialog.Title>Withdraw the unspent balance?</AlertDialog.Title>
          <AlertDialog.Description>
            {formatWei(amount)} returns to your wallet and this per-task rental ends: runs need a new rental afterwards.
          </AlertDialog.Description>
          <p className="hint">The contract allows it once the listing is paused or closed, the creator revoked your access, the price rose above what you paid, or the balance no longer covers a run.</p>
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
