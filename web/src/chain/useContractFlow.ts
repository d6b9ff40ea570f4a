// A contract write as the user follows it: simulated first (a revert is decoded and shown before the
// wallet is asked, so a refused rental costs nothing), then "confirm in your wallet", then pending
// with the hash, then confirmed. Errors are said in plain words; a wallet rejection changes nothing.
// `useTransactionFlow` does this for any contract (the ERC-8004 registries too); `useContractFlow` is
// the marketplace's, typed by its ABI.
import { useCallback, useState } from "react";
import { useConfig, useConnection } from "wagmi";
import { simulateContract, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import type { Abi, Address, ContractFunctionArgs, ContractFunctionName, Hash, TransactionReceipt } from "viem";
import { marketplaceAbi, tokenMarketplaceAbi } from "./abi.ts";
import { explainError, type ExplainedError } from "./errors.ts";
import { useDashboardConfig } from "../lib/context.tsx";

export type Writable = ContractFunctionName<typeof marketplaceAbi, "nonpayable" | "payable">;

export type FlowState =
  | { step: "idle" }
  | { step: "simulating" }
  | { step: "confirm" }
  | { step: "pending"; hash: Hash }
  | { step: "confirmed"; hash: Hash }
  | { step: "failed"; error: ExplainedError; hash?: Hash };

export interface WriteRequest<F extends Writable> {
  functionName: F;
  args: ContractFunctionArgs<typeof marketplaceAbi, "nonpayable" | "payable", F>;
  value?: bigint;
  /** The contract: the Marketplace (ETH listings; the default) or the TokenMarketplace (listings priced
   * in a token), whose function of the same name takes the same arguments. */
  market?: "eth" | "token";
}

/** A write to any contract: its address and ABI, the function and its arguments. */
export interface ContractWrite {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
  value?: bigint;
}

/** One write at a time, simulated, sent and awaited; `run` resolves to the receipt, or null when it
 * failed or was refused (the state says why). */
export function useTransactionFlow() {
  const wagmi = useConfig();
  const { address } = useConnection();
  const [state, setState] = useState<FlowState>({ step: "idle" });

  const run = useCallback(
    async (request: ContractWrite): Promise<TransactionReceipt | null> => {
      let hash: Hash | undefined;
      try {
        if (!address) throw new Error("Connect your wallet first.");
        setState({ step: "simulating" });
        const simulated = await simulateContract(wagmi, {
          address: request.address,
          abi: request.abi,
          functionName: request.functionName,
          args: request.args,
          account: address,
          ...(request.value !== undefined ? { value: request.value } : {}),
        });
        setState({ step: "confirm" });
        hash = await writeContract(wagmi, simulated.request as Parameters<typeof writeContract>[1]);
        setState({ step: "pending", hash });
        const receipt = await waitForTransactionReceipt(wagmi, { hash });
        if (receipt.status !== "success") throw new Error("The transaction was reverted on-chain; no ETH beyond gas was spent.");
        setState({ step: "confirmed", hash });
        return receipt;
      } catch (error) {
        setState({ step: "failed", error: explainError(error), ...(hash ? { hash } : {}) });
        return null;
      }
    },
    [wagmi, address],
  );

  /** A failure found outside the write (the page's own checks, a signature the wallet refused), shown the same way. */
  const fail = useCallback((error: string | ExplainedError) => setState({ step: "failed", error: typeof error === "string" ? { message: error, rejected: false, contractError: null } : error }), []);
  /** A step before the write the wallet is asked for (a signature): shown as "confirm in your wallet". */
  const confirming = useCallback(() => setState({ step: "confirm" }), []);
  const reset = useCallback(() => setState({ step: "idle" }), []);
  return { state, run, fail, confirming, reset, busy: state.step === "simulating" || state.step === "confirm" || state.step === "pending" };
}

export function useContractFlow() {
  const { marketplace, tokenMarketplace } = useDashboardConfig();
  const flow = useTransactionFlow();
  const { run: runAny } = flow;
  const run = useCallback(
    async <F extends Writable>(request: WriteRequest<F>): Promise<Hash | null> => {
      if (request.market === "token" && !tokenMarketplace) {
        flow.fail("This dashboard is not configured with the token marketplace.");
        return null;
      }
      const contract = request.market === "token" ? { address: tokenMarketplace!, abi: tokenMarketplaceAbi as Abi } : { address: marketplace, abi: marketplaceAbi as Abi };
      const receipt = await runAny({ ...contract, functionName: request.functionName, args: request.args as readonly unknown[], ...(request.value !== undefined ? { value: request.value } : {}) });
      return receipt ? receipt.transactionHash : null;
    },
    [runAny, marketplace, tokenMarketplace, flow.fail],
  );
  return { state: flow.state, run, reset: flow.reset, busy: flow.busy };
}
