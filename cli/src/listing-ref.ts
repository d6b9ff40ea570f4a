// A listing named on the command line: `lst_<64 hex>`, the on-chain id `0x<64 hex>`, or an agent id
// `<name>-<8 hex>` (found among the signed-in creator's agents, then in the catalogue).
import type { Hex } from "viem";
import type { Api } from "./api.ts";
import { CliError, EXIT, usageError } from "./errors.ts";

const LISTING_ID = /^lst_[0-9a-f]{64}$/;
const ON_CHAIN_ID = /^0x[0-9a-fA-F]{64}$/;
const AGENT_ID = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-([0-9a-f]{8})$/;

export interface ListingRef {
  listingId: string;
  onChainId: Hex;
}

export function parseListingRef(value: string): ListingRef | undefined {
  if (LISTING_ID.test(value)) return { listingId: value, onChainId: `0x${value.slice(4)}` };
  if (ON_CHAIN_ID.test(value)) return { listingId: `lst_${value.slice(2).toLowerCase()}`, onChainId: value.toLowerCase() as Hex };
  return undefined;
}

/** `candidates` lists further listing ids to match the agent id's 8 hex against (for example the review queue). */
export async function resolveListing(value: string, api: Api | undefined, candidates?: () => Promise<string[]>): Promise<ListingRef> {
  const direct = parseListingRef(value);
  if (direct) return direct;
  const agent = AGENT_ID.exec(value);
  if (!agent) throw usageError(`${JSON.stringify(value)} is not a listing: give lst_<64 hex>, the on-chain id 0x<64 hex>, or an agent id <name>-<8 hex>.`);
  if (!api) throw usageError(`To use the agent id ${value}, sign in (\`agentrent login\`) or give the listing id (lst_…).`);
  const [, name, prefix] = agent;
  const mine = await api.client.creators.me().catch(() => ({ agents: [] as { agent_id: string; listing_id: string }[] }));
  const own = mine.agents.find((a) => a.agent_id === value);
  if (own) return parseListingRef(own.listing_id)!;
  const extra = candidates ? (await candidates()).filter((id) => id.slice(4, 12) === prefix) : [];
  if (extra.length === 1) return parseListingRef(extra[0]!)!;
  const found = await api.client.listings.search({ q: name!.replace(/-/g, " "), limit: 100 });
  const match = found.listings.find((l) => l.id.slice(4, 12) === prefix);
  if (match) return parseListingRef(match.id)!;
  throw new CliError(`No listing for the agent id ${value} (not among your agents, not in the catalogue). Give the listing id (lst_…) instead.`, EXIT.notFound, "listing_not_found");
}
