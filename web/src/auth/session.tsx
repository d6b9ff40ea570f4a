// Sign-in: the spec's challenge → personal_sign → JWT. The session belongs to one wallet: it is
// dropped when the wallet disconnects or switches account, renewed (a new signature) shortly before
// expires_at, and never used past it. Kept in sessionStorage so a reload keeps the tab signed in.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useAccountEffect, useConnection, useSignMessage } from "wagmi";
import { getAddress, type Address } from "viem";
import { useQueryClient } from "@tanstack/react-query";
import { AgentRentalError } from "@agent-rental/sdk";
import { dashboardClient } from "../api/sdk.ts";
import { useDashboardConfig } from "../lib/context.tsx";
import { explainError } from "../chain/errors.ts";

export interface Session {
  wallet: Address;
  token: string;
  /** When the token lapses, in seconds on this browser's clock (see localExpiry). */
  expiresAt: number;
}

/** The token's `expires_at` moved onto this browser's clock. The server's clock and the browser's may
 * disagree by minutes; timing the renewal by the server's figure on a fast browser clock would renew
 * at once, get a token that again looks nearly lapsed, and ask for signatures in a loop. The token's
 * `iat` is the server's time of issue, which is now here, so the lifetime is what carries over. */
function localExpiry(token: string, expiresAt: number): number {
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { iat?: unknown };
    if (typeof payload.iat === "number" && payload.iat <= expiresAt) return Math.floor(Date.now() / 1000) + (expiresAt - payload.iat);
  } catch {
    // Not a JWT we can read: the server's figure is the best there is.
  }
  return expiresAt;
}

interface SessionApi {
  session: Session | null;
  signingIn: boolean;
  /** What the user should know about the session in plain words: a refused signature (nothing
   * changed), a switched account, a lapsed sign-in. */
  notice: string | null;
  /** The last sign-in failure: an API error (with its request id) or the wallet's, in plain words. */
  problem: Error | null;
  signIn(): Promise<void>;
  signOut(reason?: string): void;
}

const STORAGE_KEY = "agent-market.session";
/** Renew this long before the token's end, so no request goes out with a token about to lapse. */
const RENEW_BEFORE_MS = 120_000;

const SessionContext = createContext<SessionApi | null>(null);

function readStored(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    return s.expiresAt * 1000 > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const config = useDashboardConfig();
  const { address } = useConnection();
  const signMessage = useSignMessage();
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | null>(readStored);
  const [signingIn, setSigningIn] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<Error | null>(null);
  const renewing = useRef(false);

  const store = useCallback(
    (next: Session | null) => {
      setSession(next);
      if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
      else sessionStorage.removeItem(STORAGE_KEY);
      // What one wallet could read is not shown to the next.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] === "auth" });
    },
    [queryClient],
  );

  const signOut = useCallback(
    (reason?: string) => {
      store(null);
      setNotice(reason ?? null);
      setProblem(null);
    },
    [store],
  );

  const signIn = useCallback(async () => {
    if (!address) return;
    setSigningIn(true);
    setNotice(null);
    setProblem(null);
    try {
      const wallet = getAddress(address);
      // The SDK's sign-in (the challenge, then the token, without a token), the wallet signing with wagmi.
      const client = dashboardClient(config.apiUrl);
      const token = await client.signIn({ address: wallet, signMessage: ({ message }) => signMessage.mutateAsync({ account: wallet, message }) });
      store({ wallet, token: token.token, expiresAt: localExpiry(token.token, token.expires_at) });
    } catch (error) {
      if (error instanceof AgentRentalError) {
        setProblem(error);
      } else {
        const explained = explainError(error);
        if (explained.rejected) setNotice("You rejected the sign-in signature in your wallet. You are not signed in, and nothing changed.");
        else setProblem(new Error(explained.message));
      }
    } finally {
      setSigningIn(false);
    }
  }, [address, config.apiUrl, signMessage.mutateAsync, store]);

  // Dropped on account change; kept while the wallet reconnects after a reload.
  useEffect(() => {
    if (session && address && getAddress(address) !== session.wallet) signOut("Your wallet switched accounts, so you were signed out. Sign in again with the new account.");
  }, [address, session, signOut]);
  useAccountEffect({ onDisconnect: () => signOut() });

  // Renew shortly before expiry (a new signature); drop the token when it lapses.
  useEffect(() => {
    if (!session) return;
    const msLeft = session.expiresAt * 1000 - Date.now();
    const renew = setTimeout(() => {
      if (renewing.current) return;
      renewing.current = true;
      void signIn().finally(() => (renewing.current = false));
    }, Math.max(0, msLeft - RENEW_BEFORE_MS));
    const lapse = setTimeout(() => signOut("Your sign-in expired. Sign in again to continue."), Math.max(0, msLeft));
    return () => {
      clearTimeout(renew);
      clearTimeout(lapse);
    };
  }, [session, signIn, signOut]);

  const value = useMemo(() => ({ session, signingIn, notice, problem, signIn, signOut }), [session, signingIn, notice, problem, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionApi {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error("useSession outside SessionProvider");
  return ctx;
}
