// The frame of every page: header (brand, navigation, wallet), the wrong-chain and sign-in notices,
// and the page itself.
import { Suspense, useEffect, useRef } from "react";
import { NavLink, Outlet, useLocation } from "react-router";
import { useConnection } from "wagmi";
import { WalletButton } from "./Wallet.tsx";
import { ChainBanner } from "./ChainBanner.tsx";
import { RateLimitBanner } from "./RateLimitBanner.tsx";
import { useSession } from "../auth/session.tsx";
import { ErrorNote, Loading } from "./notices.tsx";

const NAV = [
  { to: "/", label: "Browse", end: true },
  { to: "/rentals", label: "My rentals" },
  { to: "/run", label: "Run a task" },
  { to: "/keys", label: "API keys" },
  { to: "/apps", label: "Connected apps" },
  { to: "/creator", label: "Creator", end: true },
  { to: "/creator/analytics", label: "Analytics" },
  { to: "/review", label: "Review" },
];

export function Layout() {
  const { notice, problem } = useSession();
  const location = useLocation();
  const first = useRef(true);
  // After a navigation, focus moves to the new page's content (screen readers announce it); not on load.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById("main")?.focus({ preventScroll: true });
  }, [location.pathname]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="header">
        <div className="header-inner">
          <NavLink to="/" className="brand" aria-label="Agent Market home">
            <span className="brand-mark" aria-hidden="true">
              ▲
            </span>
            Agent Market
          </NavLink>
          <nav className="nav" aria-label="Main">
            {NAV.map((n) => (
              <NavLink key={n.to} to={n.to} end={n.end ?? false}>
                {n.label}
              </NavLink>
            ))}
          </nav>
          <div className="wallet-area">
            <WalletButton />
          </div>
        </div>
      </header>
      <div className="banner">
        <ChainBanner />
        <RateLimitBanner />
        {notice ? (
          <div className="notice notice-warn" role="status">
            {notice}
          </div>
        ) : null}
        {problem ? <ErrorNote error={problem} title="Sign-in failed" /> : null}
      </div>
      <main id="main" className="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}

/** Pages that read the API need a signed-in wallet (the API requires a token on every read). */
export function RequireSignIn({ what, children }: { what: string; children: React.ReactNode }) {
  const { address } = useConnection();
  const { session, signIn, signingIn } = useSession();
  if (session) return <>{children}</>;
  return (
    <div className="card stack" style={{ maxWidth: 560 }}>
      <h2>Sign in to {what}</h2>
      <p className="muted">
        The marketplace's API answers signed-in wallets only. Connect a wallet, then sign a one-time message (no transaction, no gas) to start a one-hour session.
      </p>
      <div className="row">{address ? <button className="btn btn-primary" onClick={() => void signIn()} disabled={signingIn}>{signingIn ? "Waiting for your signature…" : "Sign in"}</button> : <WalletButton primary />}</div>
    </div>
  );
}
