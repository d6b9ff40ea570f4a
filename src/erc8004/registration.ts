// A creator registers a listing as an ERC-8004 agent from their own wallet; the service writes the
// registration file and hands back the unsigned transaction. Two steps, because the file names the
// agent's id and the registry assigns it at registration:
//  1. without agent_id: a file without `registrations`, and `register(agentURI, metadata)`;
//  2. with the agent_id the Registered event gave (owned by the creator): the complete file, and
//     `setAgentURI(agentId, agentURI)`. The same call keeps the file current later (`active` follows
//     the listing's status; docs/design/decisions/0080-erc8004-registration-is-the-creators-own.md).
import { encodeFunctionData, toHex, type Address, type Hex } from "viem";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { readAgentOwner } from "../chain/read-agent.ts";
import { agentCardUrl } from "../a2a/card.ts";
import { parseListingId } from "../listings/ids.ts";
import { x402TokenOf } from "../listings/currency.ts";
import { marketAddress } from "../chain/client.ts";
import { loadListing, type Listing } from "../listings/catalogue.ts";
import { getAgent } from "../listings/listing.store.ts";
import { caip10, listingImage, MCP_VERSION, REGISTRATION_TYPE, storeContentAddressed, type RegistrationFile } from "./files.ts";
import { putRegistrationFileLink } from "./registration-file.store.ts";

/** The on-chain metadata entry a registration carries: the marketplace listing the agent is. */
export const LISTING_METADATA_KEY = "marketplaceListing";

export interface PreparedRegistration {
  listing_id: string;
  agent_id: string | null;
  agent_registry: string;
  agent_uri: string;
  registration_file: RegistrationFile;
  transaction: { to: Address; data: Hex };
}

/** The registration file of a listing as it is now. `x402`: the listing is payable by x402 (a per-task
 * listing priced in an EIP-3009 token: `x402TokenOf`), which `x402Support` says, and a second MCP
 * service names the endpoint that takes x402 (POST /v1/mcp/x402; decision 0230). */
export function buildRegistrationFile(options: { listing: Listing; agentId: string; apiBase: string; dashboardBase: string; registrations: { agentId: number; agentRegistry: string }[]; x402: boolean }): RegistrationFile {
  const { listing } = options;
  return {
    type: REGISTRATION_TYPE,
    name: listing.title,
    description: listing.description,
    image: listingImage(listing.title),
    services: [
      { name: "A2A", endpoint: agentCardUrl(options.apiBase, options.agentId), version: "1.0" },
      { name: "MCP", endpoint: `${options.apiBase}/v1/mcp`, version: MCP_VERSION },
      // A payer with only a wallet has no OAuth token for /v1/mcp: its MCP endpoint takes x402 instead.
      ...(options.x402 ? [{ name: "MCP", endpoint: `${options.apiBase}/v1/mcp/x402`, version: MCP_VERSION }] : []),
      { name: "web", endpoint: `${options.dashboardBase}/listings/${listing.id}` },
    ],
    x402Support: options.x402,
    active: listing.status === "active",
    registrations: options.registrations,
    supportedTrust: ["reputation"],
  };
}

/**
 * POST /v1/listings/{listing_id}/erc8004: the creator's registration file and transaction.
 * Errors: 400 invalid_listing_id, invalid_request (an agent_id that is not the creator's agent),
 * 404 listing_not_found (unknown, unpublished, or another creator's), 503 service_unavailable (no
 * registries configured).
 */
export async function prepareRegistration(services: Services, wallet: string, listingIdParam: string, body: { agent_id?: string | undefined }, apiBase: string): Promise<PreparedRegistration> {
  const registries = services.chain.erc8004;
  if (!registries) throw new ApiError("service_unavailable", "ERC-8004 registries are not configured on this service.");
  const onChainId = parseListingId(listingIdParam);
  const [listing, agent] = await Promise.all([loadListing(services.tables, onChainId), getAgent(services.tables, onChainId)]);
  if (!listing || !agent || listing.creator.id.toLowerCase() !== wallet.toLowerCase()) throw new ApiError("listing_not_found", `No published listing ${listingIdParam} of this creator.`);
  const agentRegistry = caip10(services.config.CHAIN_ID, registries.identityRegistry);
  let agentId: bigint | null = null;
  if (body.agent_id !== undefined) {
    agentId = BigInt(body.agent_id);
    const owner = await readAgentOwner(services.chain, agentId);
    if (!owner || owner.toLowerCase() !== wallet.toLowerCase()) {
      throw new ApiError("invalid_request", `Invalid request body: agent_id: agent ${body.agent_id} of ${agentRegistry} does not exist or is not this wallet's.`);
    }
  }
  const dashboardBase = (services.config.DASHBOARD_URL ?? apiBase).replace(/\/+$/, "");
  const file = buildRegistrationFile({
    listing,
    agentId: agent.agent_id,
    apiBase,
    dashboardBase,
    // Agent ids are sequential token ids: a JSON number, as the ERC writes them.
    registrations: agentId === null ? [] : [{ agentId: Number(agentId), agentRegistry }],
    x402: x402TokenOf(services.chain, listing) !== null,
  });
  const stored = await storeContentAddressed(services, file);
  await putRegistrationFileLink(services.tables, stored.cid, onChainId);
  const data =
    agentId === null
      ? encodeFunctionData({
          abi: identityRegistryAbi,
          functionName: "register",
          args: [stored.uri, [{ metadataKey: LISTING_METADATA_KEY, metadataValue: toHex(`${caip10(services.config.CHAIN_ID, marketAddress(services.chain, listing.currency.address === null ? "eth" : "token"))}:${onChainId}`) }]],
        })
      : encodeFunctionData({ abi: identityRegistryAbi, functionName: "setAgentURI", args: [agentId, stored.uri] });
  return {
    listing_id: listing.id,
    agent_id: agentId === null ? null : agentId.toString(),
    agent_registry: agentRegistry,
    agent_uri: stored.uri,
    registration_file: file,
    transaction: { to: registries.identityRegistry, data },
  };
}
