// Where the dashboard finds the API and the chain. In the cloud they are given at build time
// (VITE_API_URL, VITE_CHAIN_ID, VITE_RPC_URL, VITE_MARKETPLACE_ADDRESS, VITE_CHAIN_NAME); the local
// stack serves them at /config.json on the API's own origin, since its chain is new on every start.
import { getAddress, type Address } from "viem";

export interface DashboardConfig {
  apiUrl: string;
  chainId: number;
  chainName: string;
  rpcUrl: string;
  marketplace: Address;
  /** The TokenMarketplace (listings priced in a token), where one is deployed. */
  tokenMarketplace: Address | null;
  explorerUrl: string | null;
  /** Local development: agents may point at private hosts (the manifest editor checks the same). */
  allowPrivateAgentHosts: boolean;
}

interface RawConfig {
  api_url?: string;
  chain_id?: number | string;
  chain_name?: string;
  rpc_url?: string;
  marketplace_address?: string;
  token_marketplace_address?: string | null;
  explorer_url?: string | null;
  allow_private_agent_hosts?: boolean;
}

function fromBuild(): RawConfig | null {
  const env = import.meta.env;
  if (!env.VITE_CHAIN_ID) return null;
  return {
    api_url: env.VITE_API_URL as string | undefined,
    chain_id: env.VITE_CHAIN_ID as string,
    chain_name: env.VITE_CHAIN_NAME as string | undefined,
    rpc_url: env.VITE_RPC_URL as string | undefined,
    marketplace_address: env.VITE_MARKETPLACE_ADDRESS as string | undefined,
    token_marketplace_address: (env.VITE_TOKEN_MARKETPLACE_ADDRESS as string | undefined) ?? null,
    explorer_url: (env.VITE_EXPLORER_URL as string | undefined) ?? null,
  };
}

export async function loadDashboardConfig(): Promise<DashboardConfig> {
  let raw = fromBuild();
  if (!raw) {
    const res = await fetch("/config.json", { cache: "no-store" });
    if (!res.ok) throw new Error(`The dashboard's configuration (/config.json) answered ${res.status}.`);
    raw = (await res.json()) as RawConfig;
  }
  const chainId = Number(raw.chain_id);
  if (!Number.isInteger(chainId) || chainId <= 0 || !raw.rpc_url || !raw.marketplace_address) {
    throw new Error("The dashboard's configuration names no chain id, RPC URL or marketplace address.");
  }
  return {
    apiUrl: (raw.api_url ?? window.location.origin).replace(/\/+$/, ""),
    chainId,
    chainName: raw.chain_name ?? (chainId === 31337 ? "Local chain" : `Chain ${chainId}`),
    rpcUrl: raw.rpc_url,
    marketplace: getAddress(raw.marketplace_address),
    tokenMarketplace: raw.token_marketplace_address ? getAddress(raw.token_marketplace_address) : null,
    explorerUrl: raw.explorer_url ?? null,
    allowPrivateAgentHosts: raw.allow_private_agent_hosts === true,
  };
}
