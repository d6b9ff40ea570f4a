// API keys, as the spec describes them: New API Key → a label → confirm with a wallet signature →
// the key shown once, with a copy button and a warning. The list shows label, prefix, created and
// last used; revoking asks for confirmation, and the key is refused from its next request on.
import { useState } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useConnection, useSignMessage } from "wagmi";
import { useClient, useSdkQuery } from "../api/hooks.ts";
import { AgentRentalError, type ApiKey, type SpendLimitInput } from "@agent-rental/sdk";
import { explainError } from "../chain/errors.ts";
import { RequireSignIn } from "../ui/Layout.tsx";
import { Empty, ErrorNote, Loading, StatusBadge } from "../ui/notices.tsx";
import { formatTime } from "../ui/format.ts";
import { AlertsSection } from "./Alerts.tsx";
import { draftOf, EditSpendLimits, limitsOf, SpendLimitFields, SpendLimitSummary, useLimitCurrencies, type LimitDraft } from "../ui/SpendLimits.tsx";

export function KeysPage() {
  return (
    <div className="stack">
      <div className="spread">
        <div>
          <h1>API keys</h1>
          <p className="muted">Keys act for your wallet from servers and scripts. Keep them server side: never in browser code or a public repository.</p>
        </div>
      </div>
      <RequireSignIn what="manage API keys">
        <Keys />
        <AlertsSection />
      </RequireSignIn>
    </div>
  );
}

function Keys() {
  const keys = useSdkQuery(["/v1/keys"], async (client) => ({ keys: await client.keys.list() }));
  return (
    <div className="stack">
      <div>
        <NewKey onCreated={() => void keys.refetch()} />
      </div>
      {keys.isPending ? (
        <Loading label="Loading your keys" />
      ) : keys.isError ? (
        <ErrorNote error={keys.error} title="Your keys could not be loaded" />
      ) : keys.data.keys.length === 0 ? (
        <Empty>No API keys yet. Create one to call the API from your own code.</Empty>
      ) : (
        <div className="card table-wrap">
          <table>
            <caption className="visually-hidden">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Spending limit</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => (
                <tr key={k.key_id}>
                  <td>{k.label}</td>
                  <td className="mono">{k.prefix}</td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>{k.last_used_at ? formatTime(k.last_used_at) : "Never"}</td>
                  <td>
                    <SpendLimitSummary limits={k.spend_limits} testId={`key-limit-${k.key_id}`} />
                  </td>
                  <td>
                    {k.revoked ? (
                      <StatusBadge status="revoked" />
                    ) : (
                      <div className="row">
                        <EditSpendLimits what={k.label} of={{ key: k.key_id }} limits={k.spend_limits} queryPath="/v1/keys" />
                        <RevokeKey apiKey={k} onRevoked={() => void keys.refetch()} />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function NewKey({ onCreated }: { onCreated: () => void }) {
  const client = useClient();
  const { address } = useConnection();
  const signMessage = useSignMessage();
  const [open, setOpen] = useState(false);
  const [label, setLabel] = useState("");
  const currencies = useLimitCurrencies();
  const [limits, setLimits] = useState<LimitDraft>(() => draftOf([], currencies));
  const [limitProblem, setLimitProblem] = useState<string | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: async (spendLimits: SpendLimitInput[]) => {
      // The connected wallet signs the key's challenge.
      const signer = { address: address!, signMessage: ({ message }: { message: string }) => signMessage.mutateAsync({ account: address!, message }) };
      return client.keys.create(label.trim(), signer, spendLimits.length > 0 ? { spendLimits } : {});
    },
    onSuccess: (k) => {
      setCreated(k.key);
      onCreated();
    },
  });
  const problem = create.error ? (create.error instanceof AgentRentalError ? null : explainError(create.error)) : null;
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      setCreated(null);
      setLabel("");
      setLimits(draftOf([], currencies));
      setLimitProblem(null);
      setCopied(false);
      create.reset();
    }
  };
  return (
    <Dialog.Root open={open} onOpenChange={close}>
      <Dialog.Trigger asChild>
        <button className="btn btn-primary">New API Key</button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog stack" onInteractOutside={(e) => created && e.preventDefault()}>
          <Dialog.Title>{created ? "Your new API key" : "New API Key"}</Dialog.Title>
          {created ? (
            <>
              <Dialog.Description>Copy it now: this is the only time it is shown. Anyone holding it acts as your wallet.</Dialog.Description>
              <div className="notice notice-warn" role="alert">
                Store it in a server-side secret (an environment variable or a secrets manager). It cannot be shown again; if you lose it, revoke it and create another.
              </div>
              <code className="key-reveal" data-testid="new-api-key" aria-label="New API key">
                {created}
              </code>
              <div className="row" style={{ justifyContent: "flex-end" }}>
                <button
                  className="btn"
                  onClick={() => {
                    void navigator.clipboard?.writeText(created).then(() => setCopied(true), () => setCopied(false));
                  }}
                >
                  {copied ? "Copied" : "Copy key"}
                </button>
                <Dialog.Close asChild>
                  <button className="btn btn-primary">I stored it</button>
                </Dialog.Close>
              </div>
              <span role="status" className="visually-hidden">{copied ? "Key copied to the clipboard" : ""}</span>
            </>
          ) : (
            <form
              className="stack"
              onSubmit={(e) => {
                e.preventDefault();
                const parsed = limitsOf(limits, currencies);
                if ("problem" in parsed) return setLimitProblem(parsed.problem);
                setLimitProblem(null);
                create.mutate(parsed.limits);
              }}
            >
              <Dialog.Description className="muted">Name it after where it will be used. You confirm with a wallet signature: no transaction, no gas.</Dialog.Description>
              <div className="field">
                <label htmlFor="key-label">Label</label>
                <input id="key-label" required maxLength={64} value={label} onChange={(e) => setLabel(e.target.value)} placeholder="e.g. production backend" />
              </div>
              <SpendLimitFields draft={limits} onChange={setLimits} idPrefix="new-key-limit" currencies={currencies} />
              {limitProblem ? <div className="notice notice-error" role="alert">{limitProblem}</div> : null}
              {create.isPending ? <div className="notice notice-warn" role="status">Confirm with your wallet signature…</div> : null}
              {create.error instanceof AgentRentalError ? <ErrorNote error={create.error} /> : null}
              {problem ? <div className={`notice ${problem.rejected ? "notice-warn" : "notice-error"}`} role="alert">{problem.rejected ? "You rejected the signature in your wallet. No key was created." : problem.message}</div> : null}
              <div className="row" style={{ justifyContent: "flex-end" }}>
                <Dialog.Close asChild>
                  <button className="btn" type="button">
                    Cancel
                  </button>
                </Dialog.Close>
                <button className="btn btn-primary" type="submit" disabled={!label.trim() || create.isPending}>
                  Create key
                </button>
              </div>
            </form>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function RevokeKey({ apiKey, onRevoked }: { apiKey: ApiKey; onRevoked: () => void }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => client.keys.revoke(apiKey.key_id),
    onSuccess: () => {
      onRevoked();
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[2] === "/v1/keys" });
    },
  });
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <button className="btn btn-small btn-danger" aria-label={`Revoke ${apiKey.label}`}>
          Revoke
        </button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog stack">
          <AlertDialog.Title>Revoke “{apiKey.label}”?</AlertDialog.Title>
          <AlertDialog.Description>Its next request gets 401. This cannot be undone; anything using it needs a new key.</AlertDialog.Description>
          {revoke.error ? <ErrorNote error={revoke.error} /> : null}
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <AlertDialog.Cancel asChild>
              <button className="btn">Cancel</button>
            </AlertDialog.Cancel>
            <button className="btn btn-danger" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
              Revoke key
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
