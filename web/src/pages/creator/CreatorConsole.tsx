// The creator console: apply and see the application's status; register an agent (manifest editor
// with the server's own validation, the job followed, the listing created on-chain, its review
// followed); and manage my listings.
import { useSdkQuery } from "../../api/hooks.ts";
import type { CreatorAgent, CreatorProfile } from "@agent-rental/sdk";
import { RequireSignIn } from "../../ui/Layout.tsx";
import { ErrorNote, Loading, StatusBadge } from "../../ui/notices.tsx";
import { formatTime } from "../../ui/format.ts";
import { Apply } from "./Apply.tsx";
import { RegisterAgent } from "./RegisterAgent.tsx";
import { MyListings } from "./MyListings.tsx";

export function CreatorConsole() {
  return (
    <div className="stack">
      <h1>Creator console</h1>
      <RequireSignIn what="list your agents">
        <Console />
      </RequireSignIn>
    </div>
  );
}

function Console() {
  // `profile` is null while the wallet has never applied.
  const me = useSdkQuery(["/v1/creators/me"], (client) => client.creators.me(), {
    refetchInterval: (q) => {
      const d = q.state.data as { profile: CreatorProfile | null; agents: CreatorAgent[] } | undefined;
      return d && (d.profile?.status === "pending" || d.agents.some((a) => a.review_status === "pending")) ? 2000 : false;
    },
  });
  if (me.isPending) return <Loading label="Loading your creator profile" />;
  if (me.isError) return <ErrorNote error={me.error} title="Your creator profile could not be loaded" />;
  const profile = me.data?.profile;
  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="application">
        <h2 id="application">Creator application</h2>
        {profile ? (
          <div className="stack">
            <p>
              <strong>{profile.display_name}</strong> · <span data-testid="creator-status"><StatusBadge status={profile.status} /></span> <span className="muted small">applied {formatTime(profile.applied_at)}</span>
            </p>
            {profile.status === "pending" ? <p className="muted">The review team reads every application during the beta. This page updates when it is decided.</p> : null}
            {profile.status === "rejected" ? (
              <>
                <div className="notice notice-error">Rejected: {profile.reason}</div>
                <Apply onApplied={() => void me.refetch()} again />
              </>
            ) : null}
          </div>
        ) : (
          <Apply onApplied={() => void me.refetch()} />
        )}
      </section>
      {profile?.status === "approved" ? (
        <>
          <RegisterAgent onRegistered={() => void me.refetch()} agents={me.data?.agents ?? []} />
          <MyListings agents={me.data?.agents ?? []} />
        </>
      ) : null}
    </div>
  );
}
