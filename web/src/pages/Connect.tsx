// Connect an app: where an app that signs in with OAuth sends the person (/connect?request=…). They
// connect a wallet and sign in (the wallet sign-in), see which app asks (the name it gives itself, its
// client id, how it identified itself, where the browser returns) and for what (the scopes in words,
// and the agents it will be able to run: their rentals, with each rental model and price), then approve
// or deny. Either way the browser goes back through the authorization server to the app.
import { useEffect, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import type { Credential } from "@agent-rental/sdk";
import { useClient, useSdkQuery } from "../api/hooks.ts";
import { useAllCredentials } from "../api/credentials.ts";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, Notice } from "../ui/notices.tsx";
import { formatTime, MODEL_LABEL, PRICE_SUFFIX } from "../ui/format.ts";
import { draftOf, formatLimitAmount, limitsOf, SpendLimitFields, useLimitCurrencies, type LimitDraft } from "../ui/SpendLimits.tsx";

export function ConnectPage() {
  const [params] = useSearchParams();
  const requestId = params.get("request");
  return (
    <div className="stack" style={{ maxWidth: 720 }}>
      <div>
        <h1>Connect an app</h1>
        <p className="muted">An app asks to act for your wallet. Sign in to see who asks and for what, then approve or deny.</p>
      </div>
      {requestId ? (
        <RequireSignIn what="approve or deny the app">
          <Request requestId={requestId} />
        </RequireSignIn>
      ) : (
        <Notice kind="error">This link names no sign-in request. Start again from the app you are connecting.</Notice>
      )}
    </div>
  );
}

function Request({ requestId }: { requestId: string }) {
  const request = useSdkQuery([`/v1/oauth/requests/${encodeURIComponent(requestId)}`], (client, signal) => client.consentRequests.get(requestId, { signal }), { retry: false });
  const sdk = useClient();
  const currencies = useLimitCurrencies();
  const [limits, setLimits] = useState<LimitDraft>(() => draftOf([], currencies));
  const [limitProblem, setLimitProblem] = useState<string | null>(null);
  const proposed = request.data?.proposed_spend_limits;
  // The app's proposal fills the fields; the person changes or clears them before approving.
  // (Again once the currencies are known: a proposal in a token is then read in its own decimals.)
  useEffect(() => {
    if (proposed) setLimits(draftOf(proposed, currencies));
  }, [proposed, currencies]);
  const decide = useMutation({
    mutationFn: (decision: "approve" | "deny") => {
      if (decision === "deny") return sdk.consentRequests.deny(requestId);
      const parsed = limitsOf(limits, currencies);
      if ("problem" in parsed) {
        setLimitProblem(parsed.problem);
        return Promise.reject(new Error(parsed.problem));
      }
      setLimitProblem(null);
      return sdk.consentRequests.approve(requestId, { spendLimits: parsed.limits });
    },
    // Back through the authorization server, which sends the browser on to the app.
    onSuccess: ({ redirect_to }) => window.location.assign(redirect_to),
  });
  if (request.isPending) return <Loading label="Loading the request" />;
  if (request.isError) return <ErrorNote error={request.error} title="This sign-in request cannot be shown" />;
  const { client, scopes } = request.data;
  const runs = scopes.some((s) => s.scope === "tasks:run");
  const name = client.name ?? "An app with no name";
  return (
    <section className="card stack" aria-labelledby="consent-title">
      <h2 id="consent-title">{name} wants to use your account</h2>
      <dl className="facts">
        <dt>App</dt>
        <dd data-testid="consent-app-name">{name}</dd>
        <dt>Identified</dt>
        <dd data-testid="consent-client-kind">
          {client.kind === "metadata_document"
            ? "by its website: its client id is the address of a document the app publishes on its own site"
            : "by self-registration: anyone can register any name, so check the name and the return address"}
        </dd>
        <dt>Client id</dt>
        <dd className="mono" data-testid="consent-client-id" style={{ wordBreak: "break-all" }}>{client.client_id}</dd>
        <dt>Returns to</dt>
        <dd className="mono" data-testid="consent-redirect-host">{client.redirect_host}</dd>
        <dt>Request expires</dt>
        <dd>{formatTime(request.data.expires_at)}</dd>
      </dl>
      <div>
        <h3>It will be able to</h3>
        <ul aria-label="What the app asks for" data-testid="consent-scopes" style={{ margin: 0, paddingLeft: "1.2rem" }}>
          {scopes.map((s) => (
            <li key={s.scope}>
              {s.description} <span className="muted mono small">({s.scope})</span>
            </li>
          ))}
        </ul>
      </div>
      {runs ? <Agents /> : null}
      {runs ? (
        <div className="stack" data-testid="consent-spend-limit">
          <h3>What it may spend</h3>
          {request.data.proposed_spend_limits.length > 0 ? (
            <p className="small" data-testid="consent-proposed-limit">
              The app proposes a limit of{" "}
              {request.data.proposed_spend_limits.map((l) => `${formatLimitAmount(l.amount, l.currency ?? "ETH", currencies)} ${l.period === "total" ? "in total" : `per ${l.period}`}`).join(", ")}. You decide: change or clear it below.
            </p>
          ) : (
            <p className="muted small">The app proposes no limit. Set one to bound what it can spend on your per-task rentals.</p>
          )}
          <SpendLimitFields draft={limits} onChange={setLimits} idPrefix="consent-limit" currencies={currencies} />
          {limitProblem ? <div className="notice notice-error" role="alert">{limitProblem}</div> : null}
        </div>
      ) : null}
      <Notice>It will never create API keys, rent, rate, or change listings: those stay yours. You can revoke it at any time in Connected apps.</Notice>
      {decide.error && !limitProblem ? <ErrorNote error={decide.error} title="Your decision could not be recorded" /> : null}
      {decide.isSuccess ? <Notice live>Returning to the app…</Notice> : null}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button className="btn" disabled={decide.isPending || decide.isSuccess} onClick={() => decide.mutate("deny")}>
          Deny
        </button>
        <button className="btn btn-primary" disabled={decide.isPending || decide.isSuccess} onClick={() => decide.mutate("approve")}>
          Approve
        </button>
      </div>
    </section>
  );
}

/** The agents an app with tasks:run can run: the wallet's live rentals, with their rental model and price. */
function Agents() {
  const credentials = useAllCredentials();
  if (credentials.isPending) return <Loading label="Loading your rentals" />;
  if (credentials.isError) return <ErrorNote error={credentials.error} title="Your rentals could not be loaded" />;
  const live = credentials.data.credentials.filter((c) => c.status === "active");
  return (
    <div className="stack">
      <h3>Agents it will be able to run</h3>
      {live.length === 0 ? (
        <Empty>You rent no agents yet: it could run none until you rent one.</Empty>
      ) : (
        <div className="table-wrap">
          <table data-testid="consent-agents">
            <caption className="visually-hidden">Your rentals the app could run</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Rental</th>
                <th scope="col">Price</th>
              </tr>
            </thead>
            <tbody>
              {live.map((c) => (
                <AgentRow key={c.listing_id} credential={c} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small">Runs are paid from your rentals exactly as your own: a per-task rental is charged its price for each run.</p>
    </div>
  );
}

function AgentRow({ credential }: { credential: Credential }) {
  const listing = useSdkQuery([`/v1/listings/${encodeURIComponent(credential.listing_id)}`], (client, signal) => client.listings.get(credential.listing_id, { signal }), { staleTime: 60_000 });
  return (
    <tr>
      <td>{credential.listing_title}</td>
      <td>{MODEL_LABEL[credential.rental_model]}</td>
      <td>{listing.data ? `${listing.data.price_eth} ETH ${PRICE_SUFFIX[credential.rental_model]}` : listing.isError ? "unknown" : "…"}</td>
    </tr>
  );
}
