// Loading, empty and error states, the same everywhere. An API error shows its message and request id.
import type { ReactNode } from "react";
import { AgentRentalError } from "@agent-rental/sdk";

export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const api = error instanceof AgentRentalError ? error : null;
  // viem's errors carry a one-line shortMessage beside a message of many lines (docs links, version).
  const short = (error as { shortMessage?: unknown } | null)?.shortMessage;
  // The SDK's error for an API that could not be reached names the request; the page says it plainly.
  const unreachable = api?.status === 0 && api.code === "connection_failed";
  const message = unreachable ? "Could not reach the API. Check your connection and try again." : typeof short === "string" ? short : error instanceof Error ? error.message : String(error);
  return (
    <div className="notice notice-error" role="alert">
      {title ? <strong>{title}: </strong> : null}
      {message}
      {api?.requestId ? <span className="request-id">Request id: <code>{api.requestId}</code></span> : null}
    </div>
  );
}

export function Notice({ kind = "info", children, live = false }: { kind?: "info" | "ok" | "warn" | "error"; children: ReactNode; live?: boolean }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === "error" ? "alert" : live ? "status" : undefined}>
      {children}
    </div>
  );
}

export function Loading({ label = "Loading" }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="stack">
      <span className="visually-hidden">{label}…</span>
      <div className="skeleton" aria-hidden="true" />
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="notice">{children}</div>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-${status}`}>{status.replace(/_/g, " ")}</span>;
}

/** The foot of a list read a page at a time (TanStack Query's infinite query): why the next page failed,
 * if it did, and "Show more <what>" while there are more. */
export function MorePages({ query, what, small = false }: { query: { error: unknown; hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage(): Promise<unknown> }; what: string; small?: boolean }) {
  return (
    <>
      {query.error ? <ErrorNote error={query.error} title={`More ${what} could not be loaded`} /> : null}
      {query.hasNextPage ? (
        <div>
          <button className={small ? "btn btn-small" : "btn"} onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : `Show more ${what}`}
          </button>
        </div>
      ) : null}
    </>
  );
}
