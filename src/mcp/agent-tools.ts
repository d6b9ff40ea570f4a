// The caller's rented agents as MCP tools, read from the service's own records: one tool per active
// rental credential, named after the agent (the SDK's naming, so the stdio server and the remote
// endpoint offer the same names), with the agent's input and output schemas from its public metadata.
// Metadata is content-addressed (it never changes under its CID), so it and its compiled input
// validator are kept in this process; the credentials are read on each tools/list (a rental can end).
// A tools/call of a per-agent tool takes the wallet's tool list from this process's last listing when
// it is recent and names the tool (listing every credential again cost more than the MCP layer
// itself): the run's admission checks the credential live anyway, so a rental that ended since is
// refused there, with the API's code, and nothing is charged.
import type { ValidateFunction } from "ajv";
import type { Address } from "viem";
import type { Services } from "./services.ts";
import { listCredentials } from "../credentials/list.ts";
import { chainNowOrClock } from "../credentials/chain-time.ts";
import { getAgentSummaries } from "../listings/listing.store.ts";
import { compileJsonSchema } from "@agent-rental/core/manifest";
import { describeSchemaErrors } from "../execution/agent-logic.ts";
import { processCache } from "../cache.ts";
import { agentToolDescription, agentToolSchemas, nameAgentTools, UNKNOWN_AGENT_SCHEMAS } from "@agent-rental/core/agent-tools";
import type { AgentToolEntry } from "@agent-rental/core/mcp";

export interface AgentMetadata {
  description?: unknown;
  input_schema?: unknown;
  output_schema?: unknown;
  tools?: unknown;
  timeout_seconds?: unknown;
}

export interface KnownAgent {
  metadata: AgentMetadata | null;
  validate: ValidateFunction | undefined;
}

const metadataCache = processCache<KnownAgent>(512);
/** Each wallet's last tool list in this process, by wallet (lower case). */
const recentLists = processCache<{ listedAt: number; entries: RentedAgentEntry[] }>(4096);
/** How long a listing names the tools of calls; a call naming no tool of it lists again. */
const RECENT_LIST_MS = 60_000;
const CID = /^ipfs:\/\/(b[a-z2-7]{58,})$/;

/** An agent's public metadata (its schemas) and its input schema's validator, kept in the process. */
export async function knownAgent(services: Services, metadataUri: unknown): Promise<KnownAgent> {
  const cid = typeof metadataUri === "string" ? CID.exec(metadataUri)?.[1] : undefined;
  if (cid === undefined) return { metadata: null, validate: undefined };
  const hit = metadataCache.get(services.blobs, cid);
  if (hit) return hit;
  const bytes = await services.blobs.get(`ipfs/${cid}`);
  let metadata: AgentMetadata | null = null;
  try {
    metadata = bytes ? (JSON.parse(Buffer.from(bytes).toString("utf8")) as AgentMetadata) : null;
  } catch {
    metadata = null;
  }
  const schema = metadata?.input_schema;
  const compiled = schema !== null && typeof schema === "object" && !Array.isArray(schema) ? compileJsonSchema(schema as Record<string, unknown>) : undefined;
  const known = { metadata, validate: compiled?.ok ? compiled.validate : undefined };
  if (bytes) metadataCache.set(services.blobs, cid, known);
  return known;
}

/** A tool entry with the validator of the agent's input schema. */
export interface RentedAgentEntry extends AgentToolEntry {
  /** A message when `input` does not match the agent's input schema. */
  check(input: string | Record<string, unknown> | undefined): string | undefined;
}

/** The wallet's rented agents (active credentials) as tool entries, sorted by name. */
export async function rentedAgentEntries(services: Services, wallet: Address): Promise<RentedAgentEntry[]> {
  const credentials = [];
  // The chain's clock decides which subscriptions are still active, as GET /v1/credentials does.
  const now = await chainNowOrClock(services.chain);
  for (let offset = 0; ; ) {
    const page = await listCredentials(services.tables, wallet, { status: "active", limit: 100, offset }, now);
    credentials.push(...page.credentials);
    offset += page.credentials.length;
    if (page.credentials.length === 0 || offset >= page.total) break;
  }
  if (credentials.length === 0) {
    recentLists.set(services.tables, wallet.toLowerCase(), { listedAt: Date.now(), entries: [] });
    return [];
  }
  const entries = await agentEntries(services, credentials.map((c) => ({ listing_id: c.listing_id, title: c.listing_title, on_chain_id: c.on_chain_listing_id })));
  recentLists.set(services.tables, wallet.toLowerCase(), { listedAt: Date.now(), entries });
  return entries;
}

/** A listing offered as a tool: its id, its title and its on-chain id. */
export interface ToolListing {
  listing_id: string;
  title: string;
  on_chain_id: string;
}

/** Listings as tool entries, sorted by name: each named after its title (the SDK's naming), with its
 * agent's input and output schemas from its public metadata and the validator of its input. */
export async function agentEntries(services: Services, listings: ToolListing[]): Promise<RentedAgentEntry[]> {
  if (listings.length === 0) return [];
  const byListing = await getAgentSummaries(services.tables, listings.map((l) => l.on_chain_id));
  const names = nameAgentTools(listings.map((l) => ({ id: l.listing_id, title: l.title, on_chain_id: l.on_chain_id })));
  const entries = await Promise.all(
    listings.map(async (listing): Promise<RentedAgentEntry> => {
      const record = byListing.get(listing.listing_id);
      const known = await knownAgent(services, record?.metadata_uri);
      const schemas = known.metadata ? agentToolSchemas(known.metadata.input_schema, known.metadata.output_schema) : UNKNOWN_AGENT_SCHEMAS;
      const description = typeof record?.description === "string" ? record.description : typeof known.metadata?.description === "string" ? known.metadata.description : "";
      const inputType = (schemas.agentInputSchema as { type?: unknown } | undefined)?.type;
      return {
        name: names.get(listing.listing_id)!,
        title: listing.title,
        description: agentToolDescription(listing.title, description),
        agent_id: listing.listing_id,
        schemas,
        check(input) {
          if (!known.validate) return undefined;
          // What the run checks too: no input is an empty object (or text) for the agent's schema.
          const value = input ?? (inputType === "object" ? {} : inputType === "string" ? "" : null);
          return known.validate(value) ? undefined : describeSchemaErrors(known.validate);
        },
      };
    }),
  );
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

/** The wallet's tool entries for a call of the tool `toolName`: the recent listing when it names it. */
export async function rentedAgentEntriesForCall(services: Services, wallet: Address, toolName: string): Promise<RentedAgentEntry[]> {
  const recent = recentLists.get(services.tables, wallet.toLowerCase());
  if (recent && Date.now() - recent.listedAt < RECENT_LIST_MS && recent.entries.some((entry) => entry.name === toolName)) return recent.entries;
  return rentedAgentEntries(services, wallet);
}
