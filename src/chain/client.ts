// The chain port: a viem public client for the configured network, the marketplace address and, where
// one is deployed, the token marketplace's with the tokens it takes.
import { createPublicClient, defineChain, http, type Address, type Chain, type HttpTransportConfig, type PublicClient } from "viem";
import { baseSepolia, hardhat, sepolia } from "viem/chains";
import type { TokenInfo } from "@agent-rental/core/tokens";

export interface ChainClient {
  client: PublicClient;
  chain: Chain;
  marketplace: Address;
  /** ERC-8004's registries, when configured (both or neither). */
  erc8004?: { identityRegistry: Address; reputationRegistry: Address };
  /** The TokenMarketplace (listings priced in a token, x402 settlement), when configured. */
  tokenMarketplace?: Address;
  /** The tokens listings may be priced in (the TOKENS setting). */
  tokens?: ChainToken[];
}

/** A token of the allowlist as the service knows it (the shared core's TokenInfo). `eip3009`: the token
 * implements EIP-3009 under its EIP-712 domain (`name`, `version`): its per-task listings are payable by
 * x402. */
export interface ChainToken extends TokenInfo {
  eip3009: boolean;
}

/** Which contract a listing lives on: the Marketplace (priced in ETH) or the TokenMarketplace (priced in
 * one token of the allowlist). A listing's id names one contract's listing only (TokenMarketplace ids hash
 * a domain first), and a listing never moves: the chain listing row's `token` says which. */
export type Market = "eth" | "token";

/** The address of `market`'s contract. A token listing on a service configured without the
 * TokenMarketplace cannot be served; callers only get here for listings the index holds from it. */
export function marketAddress(chain: Pick<ChainClient, "marketplace" | "tokenMarketplace">, market: Market): Address {
  if (market === "eth") return chain.marketplace;
  if (!chain.tokenMarketplace) throw new Error("This service is configured without a TokenMarketplace (TOKEN_MARKETPLACE_ADDRESS).");
  return chain.tokenMarketplace;
}

/** The configured token at `address`, if any. */
export function tokenAt(chain: Pick<ChainClient, "tokens">, address: string): ChainToken | undefined {
  const wanted = address.toLowerCase();
  return chain.tokens?.find((token) => token.address.toLowerCase() === wanted);
}

const KNOWN_CHAINS: Record<number, Chain> = { [hardhat.id]: hardhat, [baseSepolia.id]: baseSepolia, [sepolia.id]: sepolia };

/** The viem chain for a chain id, with the configured RPC URL. */
export function chainFor(chainId: number, rpcUrl: string): Chain {
  const known = KNOWN_CHAINS[chainId];
  const base = known ?? defineChain({ id: chainId, name: `chain-${chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  return { ...base, rpcUrls: { default: { http: [rpcUrl] } } };
}

/** `fetchFn`: the fetch the transport sends JSON-RPC with (the service passes one that times each call). */
export function createChainClient(options: {
  rpcUrl: string;
  chainId: number;
  marketplace: Address;
  erc8004?: { identityRegistry: Address; reputationRegistry: Address };
  tokenMarketplace?: Address;
  tokens?: ChainToken[];
  fetchFn?: HttpTransportConfig["fetchFn"];
}): ChainClient {
  const chain = chainFor(options.chainId, options.rpcUrl);
  const client = createPublicClient({ chain, transport: http(options.rpcUrl, { timeout: 10_000, retryCount: 1, batch: { wait: 0 }, ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}) }), pollingInterval: 250 });
  return { client: client as PublicClient, chain, marketplace: options.marketplace, ...(options.erc8004 ? { erc8004: options.erc8004 } : {}), ...(options.tokenMarketplace ? { tokenMarketplace: options.tokenMarketplace } : {}), ...(options.tokens ? { tokens: options.tokens } : {}) };
}
