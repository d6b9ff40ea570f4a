// Connected apps: every app the wallet approved (signed in with OAuth), what it may do, when it last
// used its access, and Revoke, which ends its access at once (its next request is refused).
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useClient, useSdkQuery } from "../api/hooks.ts";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading } from "../ui/notices.tsx";
import { formatTime } from "../ui/format.ts";
import { EditSpendLimits, SpendLimitSummary } from "../ui/SpendLimits.tsx";
import type { ConnectedApp } from "@agent-rental/sdk";

const SCOPE_WORDS: Record<string, string> = { "tasks:run": "Run tasks", "credentials:read": "See rentals", "listings:read": "Read the catalogue" };

export function ConnectedAppsPage() {
  return (
    <div className="stack">
      <div>
        <h1>Connected apps</h1>
        <p className="muted">Apps you approved to act for your wallet: chat apps and agents that connect by URL. Revoking one ends its access at once.</p>
      </div>
      <RequireSignIn what="see your connected apps">
        <Apps />
      </RequireSignIn>
    </div>
  );
}

function Apps() {
  const apps = useSdkQuery(["/v1/oauth/apps"], async (client) => ({ apps: await client.apps.list() }));
  if (apps.isPending) return <Loading label="Loading your apps" />;
  if (apps.isError) return <ErrorNote error={apps.error} title="Your apps could not be loaded" />;
  if (apps.data.apps.length === 0) return <Empty>No connected apps. Paste this service's MCP URL into an app (Claude, ChatGPT, any MCP client) to connect one.</Empty>;
  return (
    <div className="card table-wrap">
      <table>
        <caption className="visually-hidden">Your connected apps</caption>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">May</th>
            <th scope="col">Approved</th>
            <th scope="col">Last used</th>
            <th scope="col">Spending limit</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {apps.data.apps.map((app) => (
            <tr key={app.app_id}>
              <td>
                <strong>{app.name ?? "An app with no name"}</strong>
                <div className="muted small">
                  {app.kind === "metadata_document" ? "identified by its website" : "self-registered"}
                  {app.redirect_host ? ` · returns to ${app.redirect_host}` : ""}
                </div>
              </td>
              <td>{app.scopes.map((s) => SCOPE_WORDS[s] ?? s).join(", ")}</td>
              <td>{formatTime(app.approved_at)}</td>
              <td>{app.last_used_at ? formatTime(app.last_used_at) : "Never"}</td>
              <td>
                <SpendLimitSummary limits={app.spend_limits} testId={`app-limit-${app.app_id}`} />
              </td>
              <td>
                <div className="row">
                  <EditSpendLimits what={app.name ?? "this app"} of={{ app: app.app_id }} limits={app.spend_limits} queryPath="/v1/oauth/apps" />
                  <RevokeApp app={app} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RevokeApp({ app }: { app: ConnectedApp }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const name = app.name ?? "this app";
  const revoke = useMutation({
    mutationFn: () => client.apps.revoke(app.app_id),
    onSuccess: () => void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[2] === "/v1/oauth/apps" }),
  });
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <button className="btn btn-small btn-danger" aria-label={`Revoke ${name}`}>
          Revoke
        </button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog stack">
          <AlertDialog.Title>Revoke {name}?</AlertDialog.Title>
          <AlertDialog.Description>Its next request is refused. To use it again you approve it again.</AlertDialog.Description>
          {revoke.error ? <ErrorNote error={revoke.error} /> : null}
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <AlertDialog.Cancel asChild>
              <button className="btn">Cancel</button>
            </AlertDialog.Cancel>
            <button className="btn btn-danger" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
              Revoke access
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
