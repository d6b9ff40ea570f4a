// Run a task: pick a rented agent, fill its input (a form from its input schema and the raw JSON
// beside it, kept in step; tabs on narrow screens), and watch the run stream in; it ends with status,
// cost, duration, run id and, once logged, the run's on-chain receipt. A stopped or dropped stream
// resumes from its last event.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { Link, useSearchParams } from "react-router";
import * as Tabs from "@radix-ui/react-tabs";
import { useQueryClient } from "@tanstack/react-query";
import { useClient, useSdkQuery } from "../api/hooks.ts";
import { useAllCredentials } from "../api/credentials.ts";
import { AgentRentalError, type ExecuteRequest, type Run, type RunDetail } from "@agent-rental/sdk";
import { useSession } from "../auth/session.tsx";
import { useDashboardConfig } from "../lib/context.tsx";
import { metadataPath, useListingMetadata } from "../lib/metadata.ts";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, StatusBadge } from "../ui/notices.tsx";
import { SchemaForm, formable, type JsonSchema } from "../ui/SchemaForm.tsx";
import { formatAmount, jsonText } from "../ui/format.ts";
import { TxLink } from "../chain/FlowStatus.tsx";
import { useReadContract } from "wagmi";
import { marketplaceAbi, onChainId, tokenMarketplaceAbi } from "../chain/abi.ts";
import { RateRun } from "../erc8004/RateRun.tsx";

export function PlaygroundPage() {
  return (
    <div className="stack">
      <h1>Run a task</h1>
      <RequireSignIn what="run tasks">
        <Playground />
      </RequireSignIn>
    </div>
  );
}

function Playground() {
  const [params, setParams] = useSearchParams();
  const rentals = useAllCredentials();
  const usable = (rentals.data?.credentials ?? []).filter((c) => c.status === "active");
  // The agent in use stays picked when its rental stops being active (its last run spent the
  // balance): the finished run's output and summary stay on screen rather than vanish.
  const [picked, setPicked] = useState<string | null>(null);
  const agent = params.get("agent") ?? picked ?? usable[0]?.listing_id ?? "";
  useEffect(() => {
    if (agent && picked !== agent) setPicked(agent);
  }, [agent, picked]);
  const inactive = agent && rentals.data && !usable.some((c) => c.listing_id === agent) ? rentals.data.credentials.find((c) => c.listing_id === agent) : undefined;
  if (rentals.isPending) return <Loading label="Loading your rentals" />;
  if (rentals.isError) return <ErrorNote error={rentals.error} />;
  if (!agent)
    return (
      <Empty>
        You hold no active rental. <Link to="/">Rent an agent</Link> first, or renew or top up one in <Link to="/rentals">My rentals</Link>.
      </Empty>
    );
  return (
    <div className="stack">
      <div className="field" style={{ maxWidth: 480 }}>
        <label htmlFor="agent">Agent</label>
        <select id="agent" value={agent} onChange={(e) => setParams({ agent: e.target.value })}>
          {usable.map((c) => (
            <option key={c.listing_id} value={c.listing_id}>
              {c.listing_title}
            </option>
          ))}
          {agent && !usable.some((c) => c.listing_id === agent) ? <option value={agent}>{inactive?.listing_title ?? agent}</option> : null}
        </select>
      </div>
      {inactive ? (
        <div className="notice notice-warn" role="status">
          Your rental of {inactive.listing_title} is {inactive.status.replace(/_/g, " ")}: runs need a top-up or renewal in <Link to="/rentals">My rentals</Link>.
        </div>
      ) : null}
      {agent ? <RunForm key={agent} listingId={agent} currency={rentals.data.credentials.find((c) => c.listing_id === agent)?.currency ?? ETH_CURRENCY} /> : null}
    </div>
  );
}

/** Wide enough for the form and the raw JSON side by side; below it they are two tabs. */
const SIDE_BY_SIDE = "(min-width: 1200px)";

function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    () => window.matchMedia(query).matches,
  );
}

function RawEditor({ raw, rawError, onChange, hasExample }: { raw: string; rawError: string | null; onChange: (text: string) => void; hasExample: boolean }) {
  return (
    <div className="field">
      <label htmlFor="raw-input">Input (JSON)</label>
      <textarea id="raw-input" className="code" spellCheck={false} value={raw} onChange={(e) => onChange(e.target.value)} aria-invalid={rawError ? true : undefined} aria-describedby="raw-hint" />
      <span className={`hint${rawError ? " hint-error" : ""}`} id="raw-hint">
        {rawError ?? (hasExample ? "Shape follows the agent's input schema; edits here fill the form." : "Any JSON the agent's input schema accepts.")}
      </span>
    </div>
  );
}

type Phase = "idle" | "streaming" | "reconnecting" | "dropped" | "stopped" | "done" | "error";

/** Between two attempts to follow a dropped stream: while the browser is offline, wait until it is
 * back (at most 30 s), else back off a little, so a short outage does not spend every retry at once.
 * `navigator.onLine` is also polled: not every browser (nor every network change) fires `online`. */
function beforeRetry(attempt: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      clearInterval(poll);
      window.removeEventListener("online", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const offline = !navigator.onLine;
    const timer = setTimeout(done, offline ? 30_000 : 300 * (attempt + 1));
    const poll = setInterval(() => offline && navigator.onLine && done(), 500);
    if (offline) window.addEventListener("online", done);
    signal.addEventListener("abort", done);
  });
}

/** A listing's currency as credentials carry it: ETH (the Marketplace) or a token (the TokenMarketplace). */
interface RunCurrency {
  symbol: string;
  address: string | null;
  decimals: number;
}
const ETH_CURRENCY: RunCurrency = { symbol: "ETH", address: null, decimals: 18 };

function RunForm({ listingId, currency }: { listingId: string; currency: RunCurrency }) {
  const config = useDashboardConfig();
  const { session } = useSession();
  const client = useClient();
  const queryClient = useQueryClient();
  // The agent's metadata URI from its contract (the TokenMarketplace for a listing priced in a token), not
  // the catalogue: a rental stays usable (and its form shown) while its listing is paused or otherwise
  // out of search.
  const { marketplace, tokenMarketplace } = config;
  const inToken = currency.address !== null;
  const ethListing = useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId(listingId)], query: { enabled: !inToken, select: (l) => ({ metadataUri: l[6] }) } });
  const tokenListing = useReadContract({ address: tokenMarketplace ?? undefined, abi: tokenMarketplaceAbi, functionName: "listings", args: [onChainId(listingId)], query: { enabled: inToken && tokenMarketplace !== null, select: (l) => ({ metadataUri: l[7] }) } });
  const listing = inToken ? tokenListing : ethListing;
  const metadata = useListingMetadata(listing.data?.metadataUri);
  const schema = metadata.data?.input_schema as JsonSchema | undefined;
  const [task, setTask] = useState("");
  // One input, two editors: the form edits `input`, the raw JSON editor edits `raw`; each edit is
  // carried to the other (the raw text is what is sent, so it always holds the latest edit).
  const [input, setInput] = useState<Record<string, unknown>>({});
  const [raw, setRaw] = useState("{}");
  const [rawError, setRawError] = useState<string | null>(null);
  // Bumped when the raw editor changes the input, so the form shows the new values.
  const [formRevision, setFormRevision] = useState(0);
  const [tab, setTab] = useState("form");
  const wide = useMediaQuery(SIDE_BY_SIDE);
  const [output, setOutput] = useState("");
  const [phase, setPhase] = useState<Phase>("idle");
  const [run, setRun] = useState<Run | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const lastEventId = useRef<string | null>(null);
  const idempotencyKey = useRef<string>("");
  const abort = useRef<AbortController | null>(null);
  const body = useRef<{ agent_id: string; task: string; input?: unknown }>({ agent_id: listingId, task: "" });

  useEffect(() => () => abort.current?.abort(), []);
  // The editors appear once the input schema is known (a form when it describes an object's fields,
  // the raw JSON alone otherwise), so nothing typed is lost to an editor that is replaced.
  const editors: "loading" | "form" | "raw" =
    listing.isError || metadata.isError || (inToken && tokenMarketplace === null)
      ? "raw"
      : listing.isPending
        ? "loading"
        : !metadataPath(listing.data.metadataUri)
          ? "raw"
          : metadata.isPending
            ? "loading"
            : formable(schema)
              ? "form"
              : "raw";
  const editForm = (next: Record<string, unknown>) => {
    setInput(next);
    setRaw(JSON.stringify(next, null, 2));
    setRawError(null);
  };
  const editRaw = (text: string) => {
    setRaw(text);
    try {
      const parsed = text.trim() ? (JSON.parse(text) as unknown) : {};
      setRawError(null);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        setInput(parsed as Record<string, unknown>);
        setFormRevision((r) => r + 1);
      }
    } catch {
      setRawError("Not valid JSON yet: the run needs valid JSON.");
    }
  };

  const receipt = useSdkQuery(run ? [`/v1/runs/${run.run_id}`] : null, (client, signal) => client.runs.get(run!.run_id, { signal }), {
    // Run-log batches are minutes apart in production: ask often at first, then back off to every
    // 15 s, so a page left open does not spend the wallet's rate limit on waiting.
    refetchInterval: (q) => ((q.state.data as RunDetail | undefined)?.receipt ? false : Math.min(15_000, 1500 * 2 ** Math.max(0, q.state.dataUpdateCount - 1))),
  });

  /** One connection's worth of the run's events, through the SDK: the execute stream, or (resuming a
   * run whose id is known) its events after the last one seen. The SDK resumes nothing itself here
   * (`resumes: 0`): a drop ends the connection, and the page decides when to try again. Resolves true
   * once `done` arrived, false when the connection dropped first. */
  const connect = async (resume: boolean, signal: AbortSignal): Promise<boolean> => {
    const runIdKnown = resume ? runIdRef.current : null;
    const events = runIdKnown
      ? client.runs.events(runIdKnown, { ...(lastEventId.current ? { lastEventId: lastEventId.current } : {}), signal, resumes: 0 })
      : client.executeStream(body.current as ExecuteRequest, { idempotencyKey: idempotencyKey.current, signal, resumes: 0, onRunId: (id) => ((runIdRef.current = id), setRunId(id)) });
    try {
      for await (const event of events) {
        if (event.type === "output") {
          if (event.id) lastEventId.current = event.id;
          if (event.delta) setOutput((o) => o + event.delta);
          continue;
        }
        const r = event.run;
        runIdRef.current = r.run_id;
        setRunId(r.run_id);
        setRun(r);
        if (typeof r.output === "string" && r.output && !lastEventId.current) setOutput(r.output);
        else if (r.output && typeof r.output === "object") setOutput(jsonText(r.output));
        return true;
      }
      return false;
    } catch (e) {
      // A dropped connection (or one that could not be made) is for the caller to retry; a refusal
      // and the user's stop are not.
      if (!signal.aborted && e instanceof AgentRentalError && (e.code === "stream_interrupted" || e.code === "connection_failed")) return false;
      throw e;
    }
  };

  const follow = async (resume: boolean) => {
    if (!session) return;
    const controller = new AbortController();
    abort.current = controller;
    setPhase("streaming");
    setError(null);
    // A dropped connection is retried a few times on its own, each from the last event seen.
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        const done = await connect(resume || attempt > 0, controller.signal);
        if (done) {
          setPhase("done");
          void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === "auth" && q.queryKey[2] === "/v1/credentials" });
          return;
        }
      } catch (e) {
        if (controller.signal.aborted) {
          setPhase("stopped");
          return;
        }
        setError(e);
        setPhase("error");
        return;
      }
      resume = true;
      if (attempt < 3) {
        setPhase("reconnecting");
        await beforeRetry(attempt, controller.signal);
        setPhase("streaming");
        if (controller.signal.aborted) {
          setPhase("stopped");
          return;
        }
      }
    }
    setPhase("dropped");
  };
  const runIdRef = useRef<string | null>(null);

  const start = () => {
    let value: unknown;
    try {
      value = raw.trim() ? JSON.parse(raw) : undefined;
    } catch {
      setRawError("The input is not valid JSON: fix it before running.");
      return;
    }
    body.current = { agent_id: listingId, task: task.trim(), ...(value !== undefined && !(typeof value === "object" && value && Object.keys(value).length === 0) ? { input: value } : {}) };
    idempotencyKey.current = crypto.randomUUID();
    lastEventId.current = null;
    runIdRef.current = null;
    setRunId(null);
    setRun(null);
    setOutput("");
    void follow(false);
  };

  const streaming = phase === "streaming" || phase === "reconnecting";
  const canResume = (phase === "stopped" || phase === "dropped") && (runIdRef.current || idempotencyKey.current);
  const examples = useMemo(() => (schema?.examples?.[0] ? jsonText(schema.examples[0]) : null), [schema]);

  return (
    <div className="layout-two">
      <form
        className="card stack"
        aria-label="New run"
        onSubmit={(e) => {
          e.preventDefault();
          start();
        }}
      >
        <div className="field">
          <label htmlFor="task">Task</label>
          <textarea id="task" rows={3} style={{ minHeight: 80 }} required value={task} onChange={(e) => setTask(e.target.value)} placeholder="Describe the work, e.g. Review this contract" />
        </div>
        {metadata.isError ? <ErrorNote error={metadata.error} /> : null}
        {listing.isError ? <ErrorNote error={listing.error} title="The agent's listing could not be read from the chain" /> : null}
        {editors === "loading" ? (
          <Loading label="Loading the agent's input schema" />
        ) : editors === "raw" || !schema ? (
          <RawEditor raw={raw} rawError={rawError} onChange={editRaw} hasExample={Boolean(examples)} />
        ) : wide ? (
          <div className="editor-pair">
            <fieldset className="stack">
              <legend>Input</legend>
              <SchemaForm key={formRevision} schema={schema} value={input} onChange={editForm} idPrefix="input" />
            </fieldset>
            <RawEditor raw={raw} rawError={rawError} onChange={editRaw} hasExample={Boolean(examples)} />
          </div>
        ) : (
          <Tabs.Root value={tab} onValueChange={setTab}>
            <Tabs.List className="tabs-list" aria-label="Input editor">
              <Tabs.Trigger value="form">Form</Tabs.Trigger>
              <Tabs.Trigger value="json">Raw JSON</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="form">
              <SchemaForm key={formRevision} schema={schema} value={input} onChange={editForm} idPrefix="input" />
            </Tabs.Content>
            <Tabs.Content value="json">
              <RawEditor raw={raw} rawError={rawError} onChange={editRaw} hasExample={Boolean(examples)} />
            </Tabs.Content>
          </Tabs.Root>
        )}
        <div className="row">
          <button className="btn btn-primary" type="submit" disabled={streaming || !task.trim()}>
            {streaming ? "Running…" : "Run"}
          </button>
          {streaming ? (
            <button className="btn" type="button" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : null}
          {canResume ? (
            <button className="btn" type="button" onClick={() => void follow(Boolean(runIdRef.current))}>
              Resume stream
            </button>
          ) : null}
        </div>
      </form>
      <section className="card stack" aria-labelledby="out">
        <div className="spread">
          <h2 id="out">Output</h2>
          <span role="status" aria-live="polite" className="small muted">
            {phase === "streaming" ? "Streaming…" : phase === "reconnecting" ? "Connection lost: reconnecting from the last event…" : phase === "stopped" ? "Stream stopped: resume to get the rest" : phase === "dropped" ? "Connection lost: resume to get the rest" : null}
          </span>
        </div>
        <pre className="output" data-testid="run-output" aria-live="off">
          {output || (phase === "idle" ? "The output appears here as the agent writes it." : "")}
        </pre>
        {error ? <ErrorNote error={error} title={error instanceof AgentRentalError && error.status === 403 ? "The run was refused" : "The run failed to start"} /> : null}
        {run ? (
          <dl className="small" data-testid="run-summary" style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: ".2rem 1rem", margin: 0 }}>
            <dt className="muted">Status</dt>
            <dd style={{ margin: 0 }}>
              <StatusBadge status={run.status} />
              {run.settlement === "pending" ? <span className="muted"> (charge settling)</span> : null}
            </dd>
            <dt className="muted">Cost</dt>
            <dd style={{ margin: 0 }}>{formatAmount(BigInt(run.cost_wei ?? 0), currency)}</dd>
            <dt className="muted">Duration</dt>
            <dd style={{ margin: 0 }}>{(run.duration_ms / 1000).toFixed(2)} s</dd>
            <dt className="muted">Run id</dt>
            <dd style={{ margin: 0 }} className="mono">{run.run_id}</dd>
            {run.error?.message ? (
              <>
                <dt className="muted">Reason</dt>
                <dd style={{ margin: 0 }}>{run.error.message}</dd>
              </>
            ) : null}
            <dt className="muted">On-chain receipt</dt>
            <dd style={{ margin: 0 }} data-testid="run-receipt">
              {receipt.data?.receipt ? (
                <details>
                  <summary>
                    Logged in run batch {String(receipt.data.receipt.batch_index ?? "")}
                    {typeof receipt.data.receipt.tx_hash === "string" ? <> (transaction <TxLink hash={receipt.data.receipt.tx_hash} />)</> : null}
                  </summary>
                  <p className="hint">The receipt and its Merkle proof: anyone can check it against the contract's run log (verifyRunReceipt).</p>
                  <pre>{jsonText(receipt.data.receipt)}</pre>
                </details>
              ) : receipt.isError ? (
                <ErrorNote error={receipt.error} />
              ) : (
                "Waiting for the next run-log batch…"
              )}
            </dd>
          </dl>
        ) : null}
        {run?.status === "completed" && phase === "done" ? <RateRun key={run.run_id} runId={run.run_id} listingId={listingId} /> : null}
        {!run && runId ? (
          <p className="small muted">
            Run id <span className="mono">{runId}</span>
          </p>
        ) : null}
      </section>
    </div>
  );
}
