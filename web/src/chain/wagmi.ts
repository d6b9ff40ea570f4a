// The wagmi configuration for the configured chain. Wallets are discovered by EIP-6963 (each
// injected wallet announces itself with its own name and icon); the `injected` connector is the
// window.ethereum fallback for wallets that do not announce. No connector needs an outside service.
import { createConfig, http, injected } from "wagmi";
import { defineChain, type Chain } from "viem";
import type { DashboardConfig } from "../config.ts";

export function chainOf(config: DashboardConfig): Chain {
  return defineChain({
    id: config.chainId,
    name: config.chainName,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
    ...(config.explorerUrl ? { blockExplorers: { default: { name: "Explorer", url: config.explorerUrl } } } : {}),
    testnet: true,
  });
}

export function createWagmiConfig(config: DashboardConfig) {
  const chain = chainOf(config);
  return createConfig({
    chains: [chain],
    connectors: [injected({ shimDisconnect: true })],
    multiInjectedProviderDiscovery: true,
    transports: { [chain.id]: http(config.rpcUrl, { batch: false }) },
    // The local chain mines a block per transaction; a second is plenty for the page to follow it.
    pollingInterval: config.chainId === 31337 ? 500 : 4_000,
  });
}

export type WagmiConfig = ReturnType<typeof createWagmiConfig>;
