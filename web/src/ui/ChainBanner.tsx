// A wallet on another chain is asked to switch (wagmi's injected connector adds the chain with
// wallet_addEthereumChain when the wallet does not know it).
import { useState } from "react";
import { useChainId, useConnection, useSwitchChain } from "wagmi";
import { useDashboardConfig } from "../lib/context.tsx";
import { explainError } from "../chain/errors.ts";

export function ChainBanner() {
  const config = useDashboardConfig();
  const { isConnected, chainId } = useConnection();
  useChainId();
  const switchChain = useSwitchChain();
  const [problem, setProblem] = useState<string | null>(null);
  if (!isConnected || chainId === undefined || chainId === config.chainId) return null;
  return (
    <div className="notice notice-warn row" role="alert">
      <span>
        Your wallet is on chain {chainId}; the marketplace is on {config.chainName} (chain id {config.chainId}).
      </span>
      <button
        className="btn btn-small"
        onClick={() => {
          setProblem(null);
          switchChain.mutate({ chainId: config.chainId }, { onError: (e) => setProblem(explainError(e).message) });
        }}
      >
        Switch to {config.chainName}
      </button>
      {problem ? <span>{problem}</span> : null}
    </div>
  );
}
