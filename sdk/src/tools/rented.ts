// The caller's rented agents as tools: one tool per active rental credential, named after the agent,
// described by its listing, taking {task, input?}.
import type { AgentRentalClient } from "../client.ts";
import type { Credential, Listing } from "../types.ts";
import { AGENT_TOOL_NAME, agentToolDescription, agentToolSchemas, nameAgentTools, UNKNOWN_AGENT_SCHEMAS, type AgentToolSchemas, type JsonSchemaObject } from "@agent-rental/core/agent-tools";

/** A rented agent offered as its own tool. */
export interface RentedAgentTool {
  /** A tool name valid for MCP and the common function-calling APIs: `^[a-z0-9_]{1,64}$`. */
  name: string;
  /** The listing's title. */
  title: string;
  /** The listing's title and description. */
  description: string;
  /** The agent to run (its listing id). */
  agent_id: string;
  listing: Listing;
  credential: Credential;
  /** The tool's schemas from the agent's own input and output schemas (its public metadata); a generic
   * {task, input} when the metadata could not be read. */
  schemas: AgentToolSchemas;
}

/** The parameters of a per-agent tool: task required, input optional. */
export const RENTED_AGENT_TOOL_PARAMETERS = {
  type: "object",
  properties: {
    task: { type: "string", minLength: 1, maxLength: 32768, description: "What the agent should do, in natural language." },
    input: { type: "object", additionalProperties: true, description: "Structured input for the agent, shaped by its input schema. Omit when the task says everything." },
  },
  required: ["task"],
  additionalProperties: false,
} as const satisfies JsonSchemaObject;

export interface ListRentedAgentToolsOptions {
  signal?: AbortSignal;
  /** Names already taken (default: the generic tool's name). */
  reserved?: string[];
  /** Called for a credential whose listing cannot be offered (not found, not active, or the lookup failed). */
  onSkip?: (credential: Credential, reason: string) => void;
}

/** Every active credential of the caller, page by page. */
async function activeCredentials(client: AgentRentalClient, signal: AbortSignal | undefined): Promise<Credential[]> {
  const all: Credential[] = [];
  for (let offset = 0; ; ) {
    const page = await client.credentials.list({ status: "active", limit: 100, offset }, signal ? { signal } : {});
    all.push(...page.credentials);
    offset += page.credentials.length;
    if (page.credentials.length === 0 || offset >= page.total) return all;
  }
}

/**
 * Lists the caller's active rental credentials and looks up each listing: one tool per rented agent
 * whose listing is active. Names are unique: a clash gets the start of the on-chain id appended.
 */
export async function listRentedAgentTools(client: AgentRentalClient, options: ListRentedAgentToolsOptions = {}): Promise<RentedAgentTool[]> {
  const { signal } = options;
  const credentials = await activeCredentials(client, signal);
  const found: { credential: Credential; listing: Listing; schemas: AgentToolSchemas }[] = [];
  for (let i = 0; i < credentials.length; i += 5) {
    const batch = credentials.slice(i, i + 5);
    const listings = await Promise.all(
      batch.map((credential) =>
        client.listings.get(credential.listing_id, signal ? { signal } : {}).then(
          async (listing) => ({ listing, schemas: await schemasOf(client, listing, signal) }),
          (error: unknown) => {
            if (signal?.aborted) throw error;
            return { error: error instanceof Error ? error.message : String(error) };
          },
        ),
      ),
    );
    listings.forEach((result, j) => {
      const credential = batch[j]!;
      if ("error" in result) options.onSkip?.(credential, `the listing could not be read: ${result.error}`);
      else if (result.listing.status !== "active") options.onSkip?.(credential, `the listing is ${result.listing.status}`);
      else found.push({ credential, listing: result.listing, schemas: result.schemas });
    });
  }
  const names = nameAgentTools(found.map(({ listing }) => ({ id: listing.id, title: listing.title, on_chain_id: listing.on_chain_id })), options.reserved ?? [AGENT_TOOL_NAME]);
  return found
    .map(({ credential, listing, schemas }) => ({ name: names.get(listing.id)!, title: listing.title, description: agentToolDescription(listing.title, listing.description), agent_id: listing.id, listing, credential, schemas }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The agent's tool schemas from its public metadata; the generic ones when it cannot be read. */
async function schemasOf(client: AgentRentalClient, listing: Listing, signal: AbortSignal | undefined): Promise<AgentToolSchemas> {
  try {
    const metadata = await client.listings.metadata(listing.metadata_uri, signal ? { signal } : {});
    return agentToolSchemas(metadata.input_schema, metadata.output_schema);
  } catch (error) {
    if (signal?.aborted) throw error;
    return UNKNOWN_AGENT_SCHEMAS;
  }
}
