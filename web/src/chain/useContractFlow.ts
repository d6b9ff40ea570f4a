// A contract write as the user follows it: simulated first (a revert is decoded and shown before the
// wallet is asked, so a refused rental costs nothing), then "confirm in your wallet", then pending
// with the hash, then confirmed. Errors are said in plain words; a wallet rejection changes nothing.
import { useCallback, useState } from "react";
import { useConfig, useConnection } from "wagmi";
import { simulateContract, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import type { Abi, ContractFunctionArgs, ContractFunctionName, Hash } from "viem";
import { marketplaceAbi } from "./abi.ts";
import { explainError, type ExplainedError } from "./errors.ts";
import { useDashboardConfig } from "../lib/context.tsx";

type Writable = ContractFunctionName<typeof marketplaceAbi, "nonpayable" | "payable">;

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
}

export function useContractFlow() {
  const wagmi = useConfig();
  const { address } = useConnection();
  const { marketplace } = useDashboardConfig();
  const [state, setState] = useState<FlowState>({ step: "idle" });

  const run = useCallback(
    async <F extends Writable>(request: WriteRequest<F>): Promise<Hash | null> => {
      let hash: Hash | undefined;
      try {
        if (!address) throw new Error("Connect your wallet first.");
        setState({ step: "simulating" });
        const simulated = await simulateContract(wagmi, {
          address: marketplace,
          abi: marketplaceAbi as Abi,
          functionName: request.functionName,
          args: request.args as readonly unknown[],
          account: address,
          ...(request.value !== undefined ? { value: request.value } : {}),
        });
        setState({ step: "confirm" });
        hash = await writeContract(wagmi, simulated.request as Parameters<typeof writeContract>[1]);
        setState({ step: "pending", hash });
        const receipt = await waitForTransactionReceipt(wagmi, { hash });
        if (receipt.status !== "success") throw new Error("The transaction was reverted on-chain; no ETH beyond gas was spent.");
        setState({ step: "confirmed", hash });
        return hash;
      } catch (error) {
        setState({ step: "failed", error: explainError(error), ...(hash ? { hash } : {}) });
        return null;
      }
    },
    [wagmi, address, marketplace],
  );

  const reset = useCallback(() => setState({ step: "idle" }), []);
  return { state, run, reset, busy: state.step === "simulating" || state.step === "confirm" || state.step === "pending" };
}
