// "Rate this run": a renter's on-chain feedback for a completed run of theirs. The API writes the
// feedback file (the run's receipt as proof of payment and delivery) and prepares giveFeedback
// (POST /v1/runs/{run_id}/feedback); the renter's wallet sends it to the Reputation Registry; the page
// shows the hash, then, once the service has indexed it, whether it counts and the listing's verified
// rating. Before the run's receipt is in the on-chain run log the API answers receipt_pending: the page
// says so and offers to try again (after the Retry-After the API gave).
import { useEffect, useId, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { AgentRentalError } from "@agent-rental/sdk";
import { useClient } from "../api/hooks.ts";
import { FlowStatus } from "../chain/FlowStatus.tsx";
import { useTransactionFlow } from "../chain/useContractFlow.ts";
import { preparedWrite } from "../chain/registries.ts";
import { ErrorNote } from "../ui/notices.tsx";
import { reasonWords, reviewsText, starsOf, useReputation } from "./Reputation.tsx";

/** The API's limits (POST /v1/runs/{run_id}/feedback): a score 0 to 100 with at most 2 decimals, a comment. */
const MAX_TEXT = 1000;
const SCORE = /^(100(\.0{1,2})?|\d{1,2}(\.\d{1,2})?)$/;

/** The score as typed, when the API would take it; else null. */
export function scoreOf(text: string): number | null {
  const trimmed = text.trim();
  return SCORE.test(trimmed) ? Number(trimmed) : null;
}

type Stage = { kind: "form" } | { kind: "preparing" } | { kind: "pending_receipt"; retryAfter: number; message: string } | { kind: "sending" } | { kind: "sent"; hash: string };

/** `titled`: the form shows its own heading (false inside a dialog, whose title names it). */
export function RateRun({ runId, listingId, titled = true }: { runId: string; listingId: string; titled?: boolean }) {
  const id = useId();
  const client = useClient();
  const queryClient = useQueryClient();
  const flow = useTransactionFlow();
  const [score, setScore] = useState("");
  const [text, setText] = useState("");
  const [stage, setStage] = useState<Stage>({ kind: "form" });
  const [problem, setProblem] = useState<unknown>(null);
  const value = scoreOf(score);
  const typedBadly = score.trim() !== "" && value === null;

  const submit = async () => {
    if (value === null) return;
    setProblem(null);
    flow.reset();
    setStage({ kind: "preparing" });
    let prepared;
    try {
      prepared = await client.runs.feedback(runId, { value, ...(text.trim() ? { text: text.trim() } : {}) });
    } catch (error) {
      if (error instanceof AgentRentalError && error.code === "receipt_pending") {
        setStage({ kind: "pending_receipt", retryAfter: error.retryAfter ?? 5, message: error.message });
        return;
      }
      setProblem(error);
      setStage({ kind: "form" });
      return;
    }
    // The file carries the run's receipt: the run's own view may still be waiting for it.
    void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === "auth" && q.queryKey[2] === `/v1/runs/${runId}` });
    let write;
    try {
      write = preparedWrite("reputation", prepared.transaction, ["giveFeedback"]);
    } catch (error) {
      flow.fail(error instanceof Error ? error.message : String(error));
      setStage({ kind: "form" });
      return;
    }
    setStage({ kind: "sending" });
    const receipt = await flow.run(write);
    setStage(receipt ? { kind: "sent", hash: receipt.transactionHash } : { kind: "form" });
  };

  if (stage.kind === "sent") return <Rated listingId={listingId} hash={stage.hash} flow={flow.state} titled={titled} />;
  return (
    <form
      className="stack"
      aria-label="Rate this run"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {titled ? <h3>Rate this run</h3> : null}
      <p className="hint">
        On-chain feedback in ERC-8004's Reputation Registry, sent by your wallet. It counts toward the listing's rating because its file carries this run's receipt: proof you paid for the run and it completed. One rating per run.
      </p>
      <div className="row" style={{ alignItems: "flex-end" }}>
        <div className="field" style={{ maxWidth: 200 }}>
          <label htmlFor={`${id}-score`}>Score (0 to 100)</label>
          <input
            id={`${id}-score`}
            inputMode="decimal"
            value={score}
            onChange={(e) => setScore(e.target.value)}
            aria-invalid={typedBadly ? true : undefined}
            aria-describedby={`${id}-score-hint`}
            required
          />
          <span className={`hint${typedBadly ? " hint-error" : ""}`} id={`${id}-score-hint`}>
            {typedBadly ? "A number from 0 to 100, with at most 2 decimals." : value !== null ? `Shown as ★ ${starsOf(value)} of 5.` : "100 is 5 stars; 80 is 4."}
          </span>
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-text`}>Comment (optional)</label>
        <textarea id={`${id}-text`} rows={2} maxLength={MAX_TEXT} value={text} onChange={(e) => setText(e.target.value)} aria-describedby={`${id}-text-hint`} />
        <span className="hint" id={`${id}-text-hint`}>
          Plain text, up to {MAX_TEXT} characters; it is stored in the feedback file, public.
        </span>
      </div>
      <div className="row">
        <button className="btn btn-primary btn-small" type="submit" disabled={value === null || stage.kind === "preparing" || stage.kind === "sending" || flow.busy}>
          {stage.kind === "preparing" ? "Preparing…" : "Rate this run"}
        </button>
      </div>
      {stage.kind === "pending_receipt" ? <PendingReceipt stage={stage} onRetry={() => void submit()} /> : null}
      {flow.state.step !== "idle" ? <FlowStatus state={flow.state} /> : null}
      {problem ? <ErrorNote error={problem} title="The rating could not be prepared" /> : null}
    </form>
  );
}

/** The run's receipt is not logged yet: says so, counts down the API's Retry-After, and offers to retry. */
function PendingReceipt({ stage, onRetry }: { stage: { retryAfter: number; message: string }; onRetry: () => void }) {
  const [left, setLeft] = useState(stage.retryAfter);
  useEffect(() => {
    setLeft(stage.retryAfter);
    const timer = setInterval(() => setLeft((n) => Math.max(0, n - 1)), 1000);
    return () => clearInterval(timer);
  }, [stage]);
  return (
    <div className="notice notice-warn stack" role="status" data-testid="receipt-pending">
      <span>
        This run's receipt is not in the on-chain run log yet, so the rating could not carry its proof. Nothing was sent. The run log records receipts every few seconds here (every minute on the public service).
      </span>
      <div className="row">
        <button className="btn btn-small" type="button" onClick={onRetry}>
          {left > 0 ? `Try again (in ${left} s)` : "Try again"}
        </button>
      </div>
    </div>
  );
}

/** After the wallet sent it: the hash, then the verdict and the listing's verified rating once indexed. */
function Rated({ listingId, hash, flow, titled }: { listingId: string; hash: string; flow: ReturnType<typeof useTransactionFlow>["state"]; titled: boolean }) {
  const [since] = useState(() => Date.now());
  const [found, setFound] = useState(false);
  // Read until the service has indexed the feedback (a few seconds), at most two minutes.
  const reputation = useReputation(listingId, { refetchInterval: found || Date.now() - since > 120_000 ? false : 1000 });
  const mine = reputation.data?.feedback.find((f) => f.tx_hash.toLowerCase() === hash.toLowerCase());
  useEffect(() => {
    if (mine && !found) setFound(true);
  }, [mine, found]);
  return (
    <div className="stack" data-testid="run-rated">
      {titled ? <h3>Rate this run</h3> : null}
      <FlowStatus state={flow} after={<>Your feedback is on-chain.</>} />
      {reputation.isError ? <ErrorNote error={reputation.error} title="The listing's reputation could not be read" /> : null}
      {!mine ? (
        <p className="small muted" role="status">
          Waiting for the service to index your feedback…
        </p>
      ) : mine.verified ? (
        <div className="notice notice-ok" role="status" data-testid="rating-result">
          Verified: your rating (★ {starsOf(mine.value)}) counts. The listing's verified rating is now ★ {reputation.data!.rating.toFixed(1)} from {reviewsText(reputation.data!.review_count)}.
        </div>
      ) : (
        <div className="notice notice-warn" role="status" data-testid="rating-result">
          Recorded on-chain but not counted: {reasonWords(mine.reason)}.
        </div>
      )}
    </div>
  );
}
