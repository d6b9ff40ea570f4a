// Renting a listing priced in a token (on the TokenMarketplace): the amount in the token, and how it is
// paid, read from the chain before anything is asked; then as few wallet confirmations as the token
// allows: with EIP-3009 (USDC) or EIP-2612 (permit) one signature and one transaction, otherwise an
// approval and the purchase (the shared core's purchaseInToken). Done when the TokenMarketplace holds
// the credential (per-task: a balance) for the wallet.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useConfig, useConnection, type Config } from "wagmi";
import { getBlock, readContract, signTypedData, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import { formatUnits, type Address, type Hash } from "viem";
import { purchaseInToken, quoteTokenPurchase, TOKEN_PURCHASE_ABI, type PurchaseKind, type TokenPurchasePort, type TokenPurchaseQuote } from "@agent-rental/core/tokens";
import type { RentalModel } from "@agent-rental/sdk";
import { onChainId, SUBSCRIPTION_DAYS, DAY } from "../chain/abi.ts";
import { explainError, type ExplainedError } from "../chain/errors.ts";
import { TxLink } from "../chain/FlowStatus.tsx";
import { useDashboardConfig } from "../lib/context.tsx";

const CREDENTIAL_STATUS = [{ type: "function", name: "credentialStatus", stateMutability: "view", inputs: [{ name: "listingId", type: "bytes32" }, { name: "buyer", type: "address" }], outputs: [{ name: "", type: "uint8" }] }] as const;

const PAID_WITH: Record<TokenPurchaseQuote["path"], string> = {
  authorization: "One signature (EIP-3009) and one transaction: no separate approval.",
  permit: "One signature (EIP-2612 permit) and one transaction: no separate approval.",
  approve: "Two transactions: an approval of the amount, then the purchase.",
};

/** The wallet and the chain through wagmi, as the shared core's purchase port. */
export function wagmiPurchasePort(wagmi: Config, account: Address, chainId: number): TokenPurchasePort {
  return {
    account,
    chainId,
    readContract: (call) => readContract(wagmi, call as never),
    chainTime: async () => (await getBlock(wagmi)).timestamp,
    signTypedData: (data) => signTypedData(wagmi, { account, ...data } as never),
    writeContract: (call) => writeContract(wagmi, { account, chainId, ...call } as never),
    waitForTransaction: async (hash) => {
      const receipt = await waitForTransactionReceipt(wagmi, { hash, chainId });
      if (receipt.status !== "success") throw new Error(`The transaction ${hash} was reverted.`);
    },
  };
}

type Step = { step: "idle" } | { step: "confirm" } | { step: "pending"; hash: Hash } | { step: "active"; hash: Hash } | { step: "failed"; error: ExplainedError };

/** What a rent panel does: a first purchase, a subscription's renewal, a per-task balance's top-up. */
export type RentMode = "rent" | "renew" | "top_up";

export function TokenRentPanel({ listingId, model, mode, onDone }: { listingId: string; model: RentalModel; mode: RentMode; onDone?: () => void }) {
  const { address } = useConnection();
  const wagmi = useConfig();
  const { tokenMarketplace, chainId } = useDashboardConfig();
  const [days, setDays] = useState<number>(30);
  const [runs, setRuns] = useState<number>(model === "per_query" ? (mode === "top_up" ? 5 : 3) : 1);
  const [state, setState] = useState<Step>({ step: "idle" });
  const kind: PurchaseKind = mode === "top_up" ? "top_up" : mode === "renew" ? "renewal" : model === "one_time" ? "one_time" : model === "subscription" ? "subscription" : "per_query";
  const validRuns = model !== "per_query" || (Number.isInteger(runs) && runs >= 1 && runs <= 10_000);
  const price = useQuery({
    queryKey: ["token-price", listingId, tokenMarketplace],
    enabled: tokenMarketplace !== null,
    queryFn: async () => ((await readContract(wagmi, { address: tokenMarketplace!, abi: TOKEN_PURCHASE_ABI, functionName: "listings", args: [onChainId(listingId)] } as never)) as readonly [bigint, ...unknown[]])[0],
  });
  const arg = model === "subscription" ? BigInt(days * DAY) : model === "per_query" ? (price.data ?? 0n) * BigInt(validRuns ? runs : 1) : 0n;
  const request = tokenMarketplace ? { tokenMarketplace, listingId: onChainId(listingId), kind, arg } : null;
  const quote = useQuery({
    queryKey: ["token-quote", listingId, kind, arg.toString(), address ?? "none"],
    enabled: request !== null && price.data !== undefined,
    queryFn: () => quoteTokenPurchase(wagmiPurchasePort(wagmi, address ?? "0x0000000000000000000000000000000000000001", chainId), request!),
  });
  const amount = quote.data ? `${formatUnits(quote.data.due, quote.data.decimals)} ${quote.data.symbol}` : undefined;

  const submit = async () => {
    if (!address || !request) return;
    setState({ step: "confirm" });
    try {
      const port = wagmiPurchasePort(wagmi, address, chainId);
      const sending: TokenPurchasePort = { ...port, writeContract: async (call) => {
        const hash = await port.writeContract(call);
        setState({ step: "pending", hash });
        return hash;
      } };
      const result = await purchaseInToken(sending, request);
      const hash = result.transactions.at(-1)!;
      const status = await readContract(wagmi, { address: request.tokenMarketplace, abi: CREDENTIAL_STATUS, functionName: "credentialStatus", args: [request.listingId, address] });
      if (status !== 1) throw new Error("The purchase was confirmed, but the token marketplace reports no active rental for this wallet.");
      setState({ step: "active", hash });
      onDone?.();
    } catch (error) {
      setState({ step: "failed", error: explainError(error) });
    }
  };

  if (!tokenMarketplace) return <div className="notice notice-warn">This dashboard is not configured with the token marketplace, so listings priced in tokens cannot be rented here.</div>;
  const verb = mode === "top_up" ? "Top up" : mode === "renew" ? "Renew" : "Rent";
  const busy = state.step === "confirm" || state.step === "pending";
  return (
    <div className="stack">
      {model === "subscription" ? (
        <fieldset>
          <legend>Duration</legend>
          <div className="row">
            {SUBSCRIPTION_DAYS.map((d) => (
              <label key={d} className="row" style={{ fontWeight: 500 }}>
                <input type="radio" name={`token-days-${listingId}-${mode}`} value={d} checked={days === d} onChange={() => setDays(d)} /> {d} days
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      {model === "per_query" ? (
        <div className="field">
          <label htmlFor={`token-runs-${mode}-${listingId}`}>Number of runs</label>
          <input id={`token-runs-${mode}-${listingId}`} type="number" min={1} max={10000} step={1} value={Number.isNaN(runs) ? "" : runs} onChange={(e) => setRuns(e.target.valueAsNumber)} />
        </div>
      ) : null}
      <div className="spread">
        <span>You pay</span>
        <strong className="price" data-testid="exact-cost">
          {amount ?? (quote.isError || price.isError ? "price unavailable" : "…")}
        </strong>
      </div>
      <p className="hint" data-testid="payment-path">{quote.data ? PAID_WITH[quote.data.path] : "Reading how the token is paid…"} Plus network gas, in ETH.</p>
      <button className="btn btn-primary" onClick={() => void submit()} disabled={!address || !quote.data || !validRuns || busy}>
        {verb} for {amount ?? "…"}
      </button>
      {state.step !== "idle" ? (
        <div role="status" aria-live="polite" className="stack">
          {state.step === "failed" ? (
            <div className={`notice ${state.error.rejected ? "notice-warn" : "notice-error"}`}>
              {state.error.message}
              {state.error.contractError ? <span className="request-id">Contract error: <code>{state.error.contractError}</code></span> : null}
            </div>
          ) : (
            <ol className="steps" aria-label="Progress">
              <li className={state.step === "confirm" ? "current" : "done"}>
                <span aria-hidden="true">{state.step === "confirm" ? "…" : "✓"}</span> Confirm in your wallet
              </li>
              <li className={state.step === "pending" ? "current" : state.step === "active" ? "done" : ""}>
                <span aria-hidden="true">{state.step === "active" ? "✓" : state.step === "pending" ? "…" : "○"}</span> {state.step === "pending" || state.step === "active" ? <>Pending: <TxLink hash={state.hash} /></> : "Pending"}
              </li>
              <li className={state.step === "active" ? "done" : ""}>
                <span aria-hidden="true">{state.step === "active" ? "✓" : "○"}</span> {mode === "top_up" ? "Balance updated" : "Credential active"}
              </li>
            </ol>
          )}
        </div>
      ) : null}
    </div>
  );
}
