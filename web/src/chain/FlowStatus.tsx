// The progress of a contract write, announced to screen readers as it moves.
import type { ReactNode } from "react";
import type { FlowState } from "./useContractFlow.ts";
import { useDashboardConfig } from "../lib/context.tsx";
import { shortHex } from "../ui/format.ts";

export function TxLink({ hash }: { hash: string }) {
  const { explorerUrl } = useDashboardConfig();
  return explorerUrl ? (
    <a href={`${explorerUrl.replace(/\/$/, "")}/tx/${hash}`} target="_blank" rel="noreferrer" className="mono">
      {shortHex(hash, 8)}
    </a>
  ) : (
    <code title={hash}>{shortHex(hash, 8)}</code>
  );
}

export function FlowStatus({ state, after }: { state: FlowState; after?: ReactNode }) {
  let body: ReactNode = null;
  switch (state.step) {
    case "idle":
      return <div role="status" aria-live="polite" />;
    case "simulating":
      body = <div className="notice">Checking the transaction…</div>;
      break;
    case "confirm":
      body = <div className="notice notice-warn">Confirm in your wallet.</div>;
      break;
    case "pending":
      body = <div className="notice">Pending: transaction <TxLink hash={state.hash} /> sent, waiting for confirmation…</div>;
      break;
    case "confirmed":
      body = (
        <div className="notice notice-ok">
          Confirmed: transaction <TxLink hash={state.hash} />. {after}
        </div>
      );
      break;
    case "failed":
      body = (
        <div className={`notice ${state.error.rejected ? "notice-warn" : "notice-error"}`}>
          {state.error.message}
          {state.error.contractError ? <span className="request-id">Contract error: <code>{state.error.contractError}</code></span> : null}
        </div>
      );
      break;
  }
  return (
    <div role="status" aria-live="polite">
      {body}
    </div>
  );
}
