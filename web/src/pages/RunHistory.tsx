// A rental's run history (GET /v1/runs: the wallet's runs of the listing, newest first, a page at a
// time): when each ran, its status, cost and whether its receipt is in the on-chain run log; a
// completed run can be rated from here ("Rate this run" in a dialog), also long after it ran.
import { useState } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { RunList, RunSummary } from "@agent-rental/sdk";
import { useClient } from "../api/hooks.ts";
import { useSession } from "../auth/session.tsx";
import { Empty, ErrorNote, Loading, MorePages, StatusBadge } from "../ui/notices.tsx";
import { formatAmount, formatTime } from "../ui/format.ts";
import { RateRun } from "../erc8004/RateRun.tsx";

const PAGE = 5;

function useRunPages(listingId: string, enabled: boolean) {
  const client = useClient();
  const { session } = useSession();
  return useInfiniteQuery({
    queryKey: ["auth", session?.wallet, "/v1/runs", { listing_id: listingId, pages: PAGE }],
    queryFn: ({ pageParam, signal }): Promise<RunList> => client.runs.list(listingId, { limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) }, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    enabled: Boolean(session) && enabled,
  });
}

/** The runs of one rental, read when the person opens them. */
export function RunHistory({ listingId, title }: { listingId: string; title: string }) {
  const [open, setOpen] = useState(false);
  const runs = useRunPages(listingId, open);
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Your runs</summary>
      <div className="stack" style={{ marginTop: ".5rem" }}>
        {!open ? null : runs.isPending ? (
          <Loading label="Loading your runs" />
        ) : !runs.data ? (
          <ErrorNote error={runs.error} title="Your runs could not be loaded" />
        ) : runs.data.pages[0]!.runs.length === 0 ? (
          <Empty>No runs of {title} yet.</Empty>
        ) : (
          <>
            <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }} aria-label={`Your runs of ${title}`}>
              {runs.data.pages.flatMap((p) => p.runs).map((run) => (
                <li key={run.run_id}>
                  <RunRow run={run} title={title} />
                </li>
              ))}
            </ul>
            <MorePages query={runs} what="runs" small />
          </>
        )}
      </div>
    </details>
  );
}

function RunRow({ run, title }: { run: RunSummary; title: string }) {
  return (
    <div className="row small" style={{ justifyContent: "space-between" }}>
      <span className="row">
        <StatusBadge status={run.status} />
        <span>{formatTime(run.created_at)}</span>
        <span className="muted">{formatAmount(BigInt(run.cost_wei), run.currency)}</span>
        <span className="muted">{run.receipt ? `receipt in run batch ${run.receipt.batch_index}` : "receipt not logged yet"}</span>
        <span className="mono muted" title={run.run_id}>
          {run.run_id.slice(0, 12)}…
        </span>
      </span>
      {run.status === "completed" ? <RateDialog run={run} title={title} /> : null}
    </div>
  );
}

function RateDialog({ run, title }: { run: RunSummary; title: string }) {
  return (
    <Dialog.Root>
      <Dialog.Trigger asChild>
        <button className="btn btn-small" aria-label={`Rate this run of ${formatTime(run.created_at)}`}>
          Rate this run
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog stack">
          <Dialog.Title>Rate this run of {title}</Dialog.Title>
          <Dialog.Description className="muted small">
            Run <span className="mono">{run.run_id}</span>, {formatTime(run.created_at)}.
          </Dialog.Description>
          <RateRun runId={run.run_id} listingId={run.listing_id} titled={false} />
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <Dialog.Close asChild>
              <button className="btn">Close</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
