// Discovery with nothing but the chain: the ERC-8004 Identity Registry's agents (its Registered events,
// newest first), each agent's registration file (tokenURI → ipfs://<cid> → the gateway), the first one
// that says `x402Support: true`, and its A2A Agent Card (resolved by @a2a-js/sdk), which must declare the
// A2A x402 payments extension with what one run costs.
import { getAbiItem, getAddress, type Address, type PublicClient } from "viem";
import { DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import type { AgentCard } from "@a2a-js/sdk";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import type { AgentSettings } from "./settings.ts";

/** The A2A x402 payments extension (google-agentic-commerce/a2a-x402, spec v0.2). */
export const X402_EXTENSION_URI = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

export interface RegistrationFile {
  name: string;
  x402Support?: boolean;
  active?: boolean;
  services: { name: string; endpoint: string; version?: string }[];
}

/** What one run costs, as the card's x402 extension says (x402 v2, scheme exact). */
export interface X402Terms {
  network: `eip155:${number}`;
  asset: Address;
  amount: string;
  payTo: Address;
  extra: { name: string; version: string };
}

export interface Discovered {
  agentId: bigint;
  file: RegistrationFile;
  card: AgentCard;
  terms: X402Terms;
  /** The service's API base and the agent's id there, from the card's A2A endpoint `{api}/a2a/{agent_id}`. */
  apiBase: string;
  serviceAgentId: string;
}

const REGISTERED = getAbiItem({ abi: identityRegistryAbi, name: "Registered" });

/** The bytes behind an ipfs:// URI, through the gateway. */
export async function readIpfs(settings: AgentSettings, uri: string): Promise<Uint8Array | null> {
  if (!uri.startsWith("ipfs://")) return null;
  const response = await fetch(`${settings.ipfsGateway}${uri.slice("ipfs://".length)}`, { signal: AbortSignal.timeout(15_000) });
  return response.ok ? new Uint8Array(await response.arrayBuffer()) : null;
}

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

/** The newest registered agent whose registration file says x402Support (and matches the name asked for). */
async function findPayableAgent(client: PublicClient, settings: AgentSettings): Promise<{ agentId: bigint; file: RegistrationFile }> {
  const logs = await client.getLogs({ address: settings.identityRegistry, event: REGISTERED, fromBlock: settings.fromBlock, toBlock: "latest", strict: true });
  console.log(`Identity Registry ${settings.identityRegistry}: ${logs.length} agents registered`);
  for (const log of logs.reverse()) {
    const agentId = log.args.agentId;
    const uri = await client.readContract({ address: settings.identityRegistry, abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] });
    const bytes = await readIpfs(settings, uri).catch(() => null);
    if (!bytes) continue;
    const file = JSON.parse(new TextDecoder().decode(bytes)) as RegistrationFile;
    if (file.x402Support !== true || file.active === false) continue;
    if (settings.listingName && !slug(file.name).includes(slug(settings.listingName))) continue;
    return { agentId, file };
  }
  throw new Error(`No registered agent ${settings.listingName ? `named ${settings.listingName} ` : ""}says x402Support: true.`);
}

/** The card's x402 extension's terms; throws when the card does not advertise x402. */
function x402TermsOf(card: AgentCard): X402Terms {
  const extension = card.capabilities?.extensions?.find((e) => e.uri === X402_EXTENSION_URI);
  const params = extension?.params as (Partial<X402Terms> & { x402Version?: number; scheme?: string }) | undefined;
  if (!params || params.x402Version !== 2 || params.scheme !== "exact" || !params.network || !params.asset || !params.amount || !params.payTo || !params.extra) {
    throw new Error(`The Agent Card of ${card.name} does not advertise x402 v2 (exact) as its payment extension.`);
  }
  return { network: params.network, asset: getAddress(params.asset), amount: params.amount, payTo: getAddress(params.payTo), extra: params.extra };
}

export async function discover(client: PublicClient, settings: AgentSettings): Promise<Discovered> {
  const { agentId, file } = await findPayableAgent(client, settings);
  const a2a = file.services.find((s) => s.name === "A2A");
  if (!a2a) throw new Error(`The registration file of agent ${agentId} names no A2A service.`);
  const card = await new DefaultAgentCardResolver().resolve(a2a.endpoint, a2a.endpoint);
  const terms = x402TermsOf(card);
  const endpoint = card.supportedInterfaces?.[0]?.url;
  const match = endpoint ? /^(.*)\/a2a\/([^/]+)$/.exec(endpoint) : null;
  if (!match) throw new Error(`The Agent Card of ${card.name} has no A2A endpoint of the form {api}/a2a/{agent_id}.`);
  return { agentId, file, card, terms, apiBase: match[1]!, serviceAgentId: match[2]! };
}
