// Choosing a wallet: every EIP-6963 wallet by its own name and icon, and window.ethereum as the
// fallback when no wallet announces itself. Then sign in, or sign out and disconnect.
import { useState } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { useConnect, useConnection, useConnectors, useDisconnect } from "wagmi";
import type { Connector } from "wagmi";
import { useSession } from "../auth/session.tsx";
import { explainError } from "../chain/errors.ts";
import { shortHex } from "./format.ts";

function visibleConnectors(connectors: readonly Connector[]): Connector[] {
  const announced = connectors.filter((c) => c.type === "injected" && c.id !== "injected");
  if (announced.length > 0) return announced;
  const hasInjected = typeof window !== "undefined" && "ethereum" in window && Boolean((window as { ethereum?: unknown }).ethereum);
  return hasInjected ? connectors.filter((c) => c.id === "injected") : [];
}

export function WalletButton({ primary = false }: { primary?: boolean }) {
  const { address, isConnected, connector } = useConnection();
  const connectors = useConnectors();
  const connect = useConnect();
  const disconnect = useDisconnect();
  const { session, signIn, signingIn, signOut } = useSession();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  if (isConnected && address) {
    return (
      <div className="row">
        <span className="small muted" title={address}>
          {connector?.icon ? <img src={connector.icon} alt="" width={16} height={16} style={{ verticalAlign: "middle", marginRight: 4 }} /> : null}
          <span className="mono" aria-label={`Connected wallet ${address}`}>{shortHex(address, 4)}</span>
        </span>
        {session ? (
          <span className="status status-active" aria-label="Signed in">
            Signed in
          </span>
        ) : (
          <button className="btn btn-primary btn-small" onClick={() => void signIn()} disabled={signingIn}>
            {signingIn ? "Waiting for signature…" : "Sign in"}
          </button>
        )}
        <button
          className="btn btn-small"
          onClick={() => {
            signOut();
            disconnect.mutate({});
          }}
        >
          Disconnect
        </button>
      </div>
    );
  }

  const list = visibleConnectors(connectors);
  return (
    <Dialog.Root open={open} onOpenChange={(o) => (setOpen(o), setProblem(null))}>
      <Dialog.Trigger asChild>
        <button className={`btn ${primary ? "btn-primary" : "btn-primary btn-small"}`}>Connect wallet</button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog stack">
          <Dialog.Title>Connect a wallet</Dialog.Title>
          <Dialog.Description className="muted small">Any browser wallet works. Connecting shares your address only; nothing is signed or sent.</Dialog.Description>
          {list.length === 0 ? (
            <div className="notice">No browser wallet found. Install one (any EVM wallet), then reload this page.</div>
          ) : (
            <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
              {list.map((c) => (
                <li key={c.uid}>
                  <button
                    className="btn connector"
                    disabled={connect.isPending}
                    onClick={() => {
                      setProblem(null);
                      connect.mutate({ connector: c }, { onSuccess: () => setOpen(false), onError: (e) => setProblem(explainError(e).rejected ? "You declined the connection in your wallet. Nothing changed." : explainError(e).message) });
                    }}
                  >
                    {c.icon ? <img src={c.icon} alt="" /> : <span aria-hidden="true">◆</span>}
                    {c.id === "injected" ? "Browser wallet" : c.name}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {problem ? (
            <div className="notice notice-warn" role="alert">
              {problem}
            </div>
          ) : null}
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <Dialog.Close asChild>
              <button className="btn">Cancel</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
