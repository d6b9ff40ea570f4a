// Renting: one-time, subscription (30/90/365 days) or per-task (a number of runs), each a contract
// call through the wallet with the exact ETH shown before signing; then the API is polled until it
// sees the change: the new credential, a renewal's new expiry, a top-up's balance. Also renewal and
// top-up of an existing rental.
import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useConfig, useConnection, useReadContract } from "wagmi";
import { readContract } from "wagmi/actions";
import { marketplaceAbi, onChainId, SUBSCRIPTION_DAYS, DAY } from "../chain/abi.ts";
import { useContractFlow } from "../chain/useContractFlow.ts";
import { TxLink } from "../chain/FlowStatus.tsx";
import { useClient } from "../api/hooks.ts";
import { findCredential } from "../api/credentials.ts";
import type { RentalModel } from "@agent-rental/sdk";
import { useDashboardConfig } from "../lib/context.tsx";
import { ErrorNote } from "../ui/notices.tsx";
import { formatTime, formatWei } from "../ui/format.ts";
import { TokenRentPanel, type RentMode } from "./RentToken.tsx";

export type { RentMode };

/** The listing's exact on-chain price per unit (wei). */
export function useOnChainPrice(listingId: string, enabled = true) {
  const { marketplace } = useDashboardConfig();
  return useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId(listingId)], query: { select: (l) => l[0], enabled } });
}

function useSubscriptionCost(listingId: string, days: number, enabled: boolean) {
  const { marketplace } = useDashboardConfig();
  return useReadContract({ address: marketplace, abi: marketplaceAbi, functionName: "subscriptionPrice", args: [onChainId(listingId), BigInt(days * DAY)], query: { enabled } });
}

/** Renting a listing: on the Marketplace in ETH, or on the TokenMarketplace for a listing priced in a
 * token (`currency.address`; RentToken.tsx). */
export function RentPanel(props: { listingId: string; model: RentalModel; mode: RentMode; onDone?: () => void; currency?: { address: string | null } }) {
  return props.currency?.address ? <TokenRentPanel {...props} /> : <EthRentPanel {...props} />;
}

function EthRentPanel({ listingId, model, mode, onDone }: { listingId: string; model: RentalModel; mode: RentMode; onDone?: () => void }) {
  const { address } = useConnection();
  const client = useClient();
  const queryClient = useQueryClient();
  const price = useOnChainPrice(listingId);
  const [days, setDays] = useState<number>(30);
  const [runs, setRuns] = useState<number>(model === "per_query" ? (mode === "top_up" ? 5 : 3) : 1);
  const subscriptionCost = useSubscriptionCost(listingId, days, model === "subscription");
  const flow = useContractFlow();
  const wagmi = useConfig();
  const { marketplace } = useDashboardConfig();
  const [active, setActive] = useState<"waiting" | "active" | null>(null);
  const [verifyError, setVerifyError] = useState<unknown>(null);
  const [slow, setSlow] = useState(false);
  // A renewal's new expiry as the API reports it, once it does.
  const [renewedUntil, setRenewedUntil] = useState<string | null>(null);

  const cost: bigint | undefined =
    model === "subscription" ? subscriptionCost.data : price.data === undefined ? undefined : model === "per_query" ? price.data * BigInt(Math.max(1, runs || 1)) : price.data;
  const validRuns = model !== "per_query" || (Number.isInteger(runs) && runs >= 1 && runs <= 10_000);

  // After the transaction: ask the API until it reports the change. Its verification re-reads the
  // contract (and brings its index up to date), so a valid answer after the confirmation means it
  // accepts runs; a renewal waits further for the list to show the new expiry the contract holds.
  useEffect(() => {
    if (flow.state.step !== "confirmed" || active || !address) return;
    setActive("waiting");
    let stop = false;
    const started = Date.now();
    void (async () => {
      let expiry: bigint | null = null;
      while (!stop) {
        try {
          if (mode === "renew" && expiry === null) {
            const record = await readContract(wagmi, { address: marketplace, abi: marketplaceAbi, functionName: "credentials", args: [onChainId(listingId), address] });
            expiry = BigInt(record[2]);
          }
          const v = await client.credentials.verify(listingId);
          let seen = v.valid;
          if (seen && mode === "renew") {
            const listed = await findCredential(client, listingId);
            seen = listed?.expires_at ? BigInt(Math.floor(Date.parse(listed.expires_at) / 1000)) >= expiry! : false;
            if (seen) setRenewedUntil(listed!.expires_at);
          }
          setVerifyError(null);
          if (seen) {
            setActive("active");
            void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === "auth" });
            onDone?.();
            return;
          }
        } catch (error) {
          setVerifyError(error);
        }
        if (Date.now() - started > 60_000) setSlow(true);
        await new Promise((r) => setTimeout(r, Date.now() - started > 60_000 ? 5_000 : 700));
      }
    })();
    return () => {
      stop = true;
    };
  }, [flow.state.step, active, address, client, listingId, mode, marketplace, onDone, queryClient, wagmi]);

  const submit = () => {
    if (cost === undefined) return;
    setActive(null);
    setVerifyError(null);
    setSlow(false);
    setRenewedUntil(null);
    const id = onChainId(listingId);
    if (mode === "top_up") return void flow.run({ functionName: "topUpBalance", args: [id], value: cost });
    if (mode === "renew") return void flow.run({ functionName: "renewSubscription", args: [id, BigInt(days * DAY)], value: cost });
    if (model === "one_time") return void flow.run({ functionName: "purchaseOneTime", args: [id], value: cost });
    if (model === "subscription") return void flow.run({ functionName: "purchaseSubscription", args: [id, BigInt(days * DAY)], value: cost });
    return void flow.run({ functionName: "purchasePerQuery", args: [id], value: cost });
  };

  const verb = mode === "top_up" ? "Top up" : mode === "renew" ? "Renew" : "Rent";
  const step = flow.state.step;
  const steps: { key: string; label: React.ReactNode; done: boolean; current: boolean }[] = [
    { key: "confirm", label: "Confirm in your wallet", done: ["pending", "confirmed"].includes(step), current: step === "confirm" || step === "simulating" },
    { key: "pending", label: flow.state.step === "pending" || flow.state.step === "confirmed" ? <>Pending: <TxLink hash={flow.state.hash} /></> : "Pending", done: step === "confirmed", current: step === "pending" },
    { key: "confirmed", label: "Confirmed on-chain", done: step === "confirmed", current: false },
    {
      key: "active",
      label: mode === "top_up" ? "Balance updated" : renewedUntil ? `Credential active until ${formatTime(renewedUntil)}` : "Credential active",
      done: active === "active",
      current: active === "waiting",
    },
  ];

  return (
    <div className="stack">
      {model === "subscription" ? (
        <fieldset>
          <legend>Duration</legend>
          <div className="row">
            {SUBSCRIPTION_DAYS.map((d) => (
              <label key={d} className="row" style={{ fontWeight: 500 }}>
                <input type="radio" name={`days-${listingId}-${mode}`} value={d} checked={days === d} onChange={() => setDays(d)} /> {d} days
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      {model === "per_query" ? (
        <div className="field">
          <label htmlFor={`runs-${mode}-${listingId}`}>Number of runs</label>
          <input id={`runs-${mode}-${listingId}`} type="number" min={1} max={10000} step={1} value={Number.isNaN(runs) ? "" : runs} onChange={(e) => setRuns(e.target.valueAsNumber)} aria-describedby={`runs-hint-${listingId}`} />
          <span className="hint" id={`runs-hint-${listingId}`}>Prepaid; each run is debited at the listing's price. Unspent balance can be withdrawn.</span>
        </div>
      ) : null}
      <div className="spread">
        <span>You pay</span>
        <strong className="price" data-testid="exact-cost">
          {cost === undefined ? (price.isError ? "price unavailable" : "…") : formatWei(cost)}
        </strong>
      </div>
      <p className="hint">Plus network gas. Rentals are final once confirmed; a refused transaction costs nothing.</p>
      <button className="btn btn-primary" onClick={submit} disabled={!address || cost === undefined || !validRuns || flow.busy || active === "waiting"}>
        {verb} for {cost === undefined ? "…" : formatWei(cost)}
      </button>
      {step !== "idle" ? (
        <div role="status" aria-live="polite" className="stack">
          {step === "failed" ? (
            <div className={`notice ${flow.state.step === "failed" && flow.state.error.rejected ? "notice-warn" : "notice-error"}`}>
              {flow.state.step === "failed" ? flow.state.error.message : null}
              {flow.state.step === "failed" && flow.state.error.contractError ? <span className="request-id">Contract error: <code>{flow.state.error.contractError}</code></span> : null}
            </div>
          ) : (
            <ol className="steps" aria-label="Progress">
              {steps.map((s) => (
                <li key={s.key} className={s.done ? "done" : s.current ? "current" : ""}>
                  <span aria-hidden="true">{s.done ? "✓" : s.current ? "…" : "○"}</span> {s.label}
                </li>
              ))}
            </ol>
          )}
          {verifyError && active !== "active" ? <ErrorNote error={verifyError} title="Checking the rental with the API" /> : null}
          {slow && active !== "active" ? <div className="notice">Confirmed on-chain; the API has not reported it yet. This page keeps checking, and My rentals shows it once the API does.</div> : null}
        </div>
      ) : null}
    </div>
  );
}
