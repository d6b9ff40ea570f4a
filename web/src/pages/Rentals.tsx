// My rentals: every credential with its status, expiry and time left, per-task balance in runs,
// renew / top up / request and withdraw the unspent balance where the contract allows them, and the
// rental's runs (each completed one can be rated on-chain). A rental of a listing priced in a token is
// read from and paid on the TokenMarketplace, its amounts shown in the token.
import { useState } from "react";
import { Link } from "react-router";
import * as Dialog from "@radix-ui/react-dialog";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useBlock, useConnection, useReadContract } from "wagmi";
import { useClient } from "../api/hooks.ts";
import { useSession } from "../auth/session.tsx";
import type { Credential } from "@agent-rental/sdk";
import { marketplaceAbi, onChainId, tokenMarketplaceAbi } from "../chain/abi.ts";
import { ContractDialog } from "../chain/ContractDialog.tsx";
import { useDashboardConfig } from "../lib/context.tsx";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, MorePages, StatusBadge } from "../ui/notices.tsx";
import { MODEL_LABEL, countOf, formatAmount, formatTime, timeLeft } from "../ui/format.ts";
import { RentPanel } from "./Rent.tsx";
import { RunHistory } from "./RunHistory.tsx";

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
  const client = useClient();
  const { session } = useSession();
  return useInfiniteQuery({
    queryKey: ["auth", session?.wallet, "/v1/credentials", { pages: PAGE }],
    queryFn: ({ pageParam, signal }): Promise<CredentialPage> => client.credentials.list({ limit: PAGE, offset: pageParam }, { signal }),
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
      <MorePages query={list} what="rentals" />
    </div>
  );
}

/** The contract that holds the rental: the Marketplace, or the TokenMarketplace for a listing priced in a
 * token. The reads below have the same names, arguments and results on both (the TokenMarketplace's
 * `listings` adds the token after `createdAt`: decoded with its own ABI, the price and status used here
 * sit at the same places). */
function useMarket(credential: Credential) {
  const { marketplace, tokenMarketplace } = useDashboardConfig();
  const token = credential.currency.address !== null;
  return { address: token ? (tokenMarketplace ?? undefined) : marketplace, abi: (token ? tokenMarketplaceAbi : marketplaceAbi) as typeof marketplaceAbi, market: token ? ("token" as const) : ("eth" as const) };
}

function useBalance(credential: Credential) {
  const market = useMarket(credential);
  const { address } = useConnection();
  return useReadContract({
    address: market.address,
    abi: market.abi,
    functionName: "perQueryBalances",
    args: [onChainId(credential.listing_id), address!],
    query: { enabled: credential.rental_model === "per_query" && Boolean(address) && Boolean(market.address) },
  });
}

/** The listing's on-chain price and status (0 none, 1 active, 2 paused, 3 closed). */
function useListingTerms(credential: Credential) {
  const market = useMarket(credential);
  return useReadContract({ address: market.address, abi: market.abi, functionName: "listings", args: [onChainId(credential.listing_id)], query: { enabled: credential.rental_model === "per_query" && Boolean(market.address), select: (l) => ({ price: l[0], status: l[3] }) } });
}

/** The contract's BALANCE_WITHDRAWAL_DELAY: a requested withdrawal can be made this long after the request. */
const WITHDRAWAL_DELAY_SECONDS = 3600;

/** Where the renter stands with taking the unspent balance back, by the contract's rules: */
export type Exit =
  /** withdrawUnspentBalance would succeed now (the listing closed, the renter revoked, or the requested hour passed). */
  | { kind: "withdraw"; reason: string }
  /** The renter may leave: requestBalanceWithdrawal, then withdraw an hour later. */
  | { kind: "request"; reason: string }
  /** Requested: withdrawable from `at` (Unix seconds). */
  | { kind: "pending"; at: number }
  /** Nothing to take, or prepaid credit at the agreed price that covers a run (not refundable). */
  | { kind: "none" };

export function exitOf(
  record: { balance: bigint; isRevoked: boolean; depositPrice: bigint; withdrawalRequested: boolean },
  terms: { price: bigint; status: number },
  requestedAt: number | undefined,
  nowSeconds: number,
): Exit {
  if (record.balance === 0n) return { kind: "none" };
  // The creator's own acts: the balance comes back at once, no request needed.
  if (terms.status === 3) return { kind: "withdraw", reason: "the listing is closed." };
  if (record.isRevoked) return { kind: "withdraw", reason: "the creator revoked your access." };
  if (record.withdrawalRequested) {
    const at = (requestedAt ?? Number.MAX_SAFE_INTEGER - WITHDRAWAL_DELAY_SECONDS) + WITHDRAWAL_DELAY_SECONDS;
    return nowSeconds >= at ? { kind: "withdraw", reason: "the hour since your request has passed." } : { kind: "pending", at };
  }
  if (terms.status === 2) return { kind: "request", reason: "the listing is paused." };
  if (terms.price > record.depositPrice) return { kind: "request", reason: "the price rose above the price of your last deposit." };
  if (record.balance < terms.price) return { kind: "request", reason: "the balance no longer covers one run." };
  return { kind: "none" };
}

/** When the connected wallet asked to withdraw this balance (only read while a request is pending). */
function useRequestedAt(credential: Credential, requested: boolean) {
  const market = useMarket(credential);
  const { address } = useConnection();
  return useReadContract({ address: market.address, abi: market.abi, functionName: "withdrawalRequestedAt", args: [onChainId(credential.listing_id), address!], query: { enabled: requested && Boolean(address) && Boolean(market.address) } });
}

function RentalRow({ credential: c, onChanged }: { credential: Credential; onChanged: () => void }) {
  const record = useBalance(c);
  const terms = useListingTerms(c);
  const requestedAt = useRequestedAt(c, record.data?.[4] === true);
  // The chain's time judges the hour, not the browser's: the latest block's, or the clock if later.
  const block = useBlock({ query: { enabled: record.data?.[4] === true } });
  const balance = { data: record.data?.[0], refetch: () => Promise.all([record.refetch(), terms.refetch(), requestedAt.refetch(), block.refetch()]) };
  const runsLeft = balance.data !== undefined && terms.data?.price ? balance.data / terms.data.price : undefined;
  const nowSeconds = Math.max(Math.floor(Date.now() / 1000), Number(block.data?.timestamp ?? 0n));
  const exit: Exit =
    record.data && terms.data
      ? exitOf({ balance: record.data[0], isRevoked: record.data[2], depositPrice: record.data[3], withdrawalRequested: record.data[4] }, terms.data, requestedAt.data === undefined ? undefined : Number(requestedAt.data), nowSeconds)
      : { kind: "none" };
  // A pending withdrawal admits no new run: the chain says so before the index (the list) has caught up.
  const status = exit.kind === "pending" && c.status === "active" ? "low_balance" : c.status;
  const [open, setOpen] = useState<null | "renew" | "top_up">(null);
  // The amount a withdrawal dialog offers, kept while it is open: the balance it empties drops to 0
  // the moment the withdrawal confirms, and the dialog stays to say so.
  const [withdrawing, setWithdrawing] = useState<bigint | null>(null);
  // The same for a withdrawal request: the row stops offering one once it is confirmed.
  const [requesting, setRequesting] = useState<{ amount: bigint; reason: string } | null>(null);
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
            <StatusBadge status={status} />
            <span className="muted">Rented {formatTime(c.purchased_at)}</span>
          </div>
        </div>
        <div className="row">
          {status === "active" ? (
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
          {c.rental_model === "per_query" && ((exit.kind === "withdraw" && balance.data) || withdrawing !== null) ? (
            <WithdrawUnspent credential={c} amount={withdrawing ?? balance.data ?? 0n} reason={exit.kind === "withdraw" ? exit.reason : null} open={withdrawing !== null} onOpenChange={(o) => setWithdrawing(o ? balance.data ?? 0n : null)} onDone={refresh} />
          ) : null}
          {c.rental_model === "per_query" && ((exit.kind === "request" && withdrawing === null) || requesting !== null) ? (
            <RequestWithdrawal
              credential={c}
              amount={requesting?.amount ?? balance.data ?? 0n}
              reason={requesting?.reason ?? (exit.kind === "request" ? exit.reason : "")}
              open={requesting !== null}
              onOpenChange={(o) => setRequesting(o ? { amount: balance.data ?? 0n, reason: exit.kind === "request" ? exit.reason : "" } : null)}
              onDone={refresh}
            />
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
              {runsLeft === undefined ? "…" : `${countOf(runsLeft, "run")} left`}
              {balance.data !== undefined ? <span className="muted"> ({formatAmount(balance.data, c.currency)})</span> : null}
            </dd>
            {exit.kind === "pending" ? (
              <>
                <dt className="muted">Withdrawal</dt>
                <dd style={{ margin: 0 }} data-testid="withdrawal-pending">
                  Requested: withdrawable from {formatTime(exit.at)}. No new run is admitted on this balance meanwhile; a top-up cancels the request.
                </dd>
              </>
            ) : null}
          </>
        )}
      </dl>
      <RunHistory listingId={c.listing_id} title={c.listing_title} />
      <Dialog.Root open={open !== null} onOpenChange={(o) => !o && setOpen(null)}>
        <Dialog.Portal>
          <Dialog.Overlay className="dialog-overlay" />
          <Dialog.Content className="dialog stack">
            <Dialog.Title>
              {open === "renew" ? "Renew" : "Top up"} {c.listing_title}
            </Dialog.Title>
            <Dialog.Description className="muted small">
              {open === "renew" ? "Extends the subscription from now (or from its current end, while it runs)." : "Adds runs to your prepaid balance."}
              {c.currency.address ? ` Paid in ${c.currency.symbol}, the listing's currency.` : null}
            </Dialog.Description>
            {open ? <RentPanel listingId={c.listing_id} model={c.rental_model} mode={open} onDone={refresh} currency={c.currency} /> : null}
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

/** Leaving takes two steps: the request now, the withdrawal an hour later, so a run admitted before the
 * request still settles (its output was already on its way to you). */
function RequestWithdrawal(props: { credential: Credential; amount: bigint; reason: string; open: boolean; onOpenChange(open: boolean): void; onDone: () => void }) {
  const { credential, amount, reason, ...dialog } = props;
  return (
    <ContractDialog
      {...dialog}
      trigger="Request withdrawal"
      title="Take the unspent balance back?"
      description={`You may leave now: ${reason} The ${formatAmount(amount, credential.currency)} can be withdrawn an hour after you ask, once runs you started before have been charged; no new run is admitted on it meanwhile, and a top-up cancels the request.`}
      confirm="Request withdrawal"
      request={{ functionName: "requestBalanceWithdrawal", args: [onChainId(credential.listing_id)], market: credential.currency.address ? "token" : "eth" }}
    />
  );
}

function WithdrawUnspent(props: { credential: Credential; amount: bigint; reason: string | null; open: boolean; onOpenChange(open: boolean): void; onDone: () => void }) {
  const { credential, amount, reason, ...dialog } = props;
  return (
    <ContractDialog
      {...dialog}
      trigger="Withdraw unspent"
      title="Withdraw the unspent balance?"
      description={`${formatAmount(amount, credential.currency)} returns to your wallet and the balance drops to 0 runs; the rental stays yours, so a top-up (at the current price) makes it usable again.`}
      confirm={`Withdraw ${formatAmount(amount, credential.currency)}`}
      request={{ functionName: "withdrawUnspentBalance", args: [onChainId(credential.listing_id)], market: credential.currency.address ? "token" : "eth" }}
    >
      <p className="hint">
        {reason ? `The contract allows it now: ${reason} ` : null}(It returns a per-task balance at once when the listing is closed or the creator revoked your access, and an hour after you ask when the listing is paused, the price rose above the price of your last deposit, or the balance no longer covers a run; otherwise the balance is prepaid runs.)
      </p>
    </ContractDialog>
  );
}
