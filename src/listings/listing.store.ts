// Agent records and what hangs off them, in the `listings` table (docs/design/data-model.md):
//   - the agent (a registered listing): `listing#<on-chain id>` / `agent`, in gsi1 under
//     `creator#<creator>` / `agent#<listing_id>`, so a creator's agents are one query;
//   - the agent id alias: `agent#<agent_id>` / `alias` → listing_id, written once at registration;
//   - the listing review queue: `listing-review#pending` / `<created_at>#<listing_id>`.
// The figures on the agent record (`stats_*`) are written by src/listings/stats.ts.
import { GetCommand, PutCommand, QueryCommand, DeleteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, scanAll, batchGet, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import type { ReviewStatus } from "@agent-rental/core/vocabulary";

/** A registered agent (a listing off-chain), as stored. */
export interface AgentRecord {
  listing_id: string;
  agent_id: string;
  creator: string;
  name: string;
  description: string;
  category: string;
  metadata_uri: string;
  review_status: ReviewStatus;
  review_reason?: string | null;
  approved_at?: string;
  created_at: string;
  sample_output?: string[];
  /** Live figures (src/listings/stats.ts): top-level attributes, so one update can create or
   * increment them on any agent record. */
  stats_run_count?: number;
  stats_success_count?: number;
  stats_rating_sum?: number;
  stats_review_count?: number;
  stats_last_run_at?: string;
  /** Changes applied to the figures whose source item is not yet marked as applied. */
  stats_in_flight?: Set<string>;
}

/** The agent record's key. Ids are lower-cased, whatever the caller passed. */
export const agentKey = (onChainId: string) => ({ pk: `listing#${onChainId.toLowerCase()}`, sk: "agent" });
const aliasKey = (agentId: string) => ({ pk: `agent#${agentId}`, sk: "alias" });
const REVIEW_QUEUE = "listing-review#pending";
const reviewEntryKey = (createdAt: string, listingId: string) => ({ pk: REVIEW_QUEUE, sk: `${createdAt}#${listingId}` });
const creatorIndex = (creator: string) => `creator#${creator.toLowerCase()}`;

/** No agent record for the listing. */
export class AgentNotFoundError extends Error {
  constructor(readonly onChainId: string) {
    super(`no agent record for listing ${onChainId}`);
    this.name = "AgentNotFoundError";
  }
}

/** The agent record as stored: the catalogue's fields plus registration's (logic, kind, secrets). */
export type StoredAgent = AgentRecord & Record<string, unknown>;

/** The agent record, or null. `consistent` for a read that must see a write just made. */
export async function getAgent(tables: Tables, onChainId: string, options: { consistent?: boolean } = {}): Promise<StoredAgent | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("listings"), Key: agentKey(onChainId), ...(options.consistent ? { ConsistentRead: true } : {}) }));
  return (out.Item as StoredAgent | undefined) ?? null;
}

/**
 * Records a newly registered agent. Returns false when the listing already has one: the first writer
 * wins, so a redelivered registration message keeps the agent (and the sealed logic it names) that an
 * earlier delivery recorded.
 */
export async function putAgent(tables: Tables, onChainId: string, agent: { listing_id: string; creator: string } & Record<string, unknown>): Promise<boolean> {
  return applied(tables.doc.send(
    new PutCommand({
      TableName: tables.name("listings"),
      Item: { ...agentKey(onChainId), ...agent, creator: agent.creator.toLowerCase(), gsi1pk: creatorIndex(agent.creator), gsi1sk: `agent#${agent.listing_id}` },
      // First writer wins (see above).
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  ));
}

/** Names the listing by its agent id. Unconditional: an agent id names one listing for good, so a
 * repeated write writes the same item. */
export async function putAgentAlias(tables: Tables, agentId: string, listingId: string): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("listings"), Item: { ...aliasKey(agentId), listing_id: listingId } }));
}

/** The listing id an agent id names, or null. */
export async function getAgentAlias(tables: Tables, agentId: string): Promise<string | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("listings"), Key: aliasKey(agentId) }));
  return (out.Item?.listing_id as string | undefined) ?? null;
}

/** A creator's agents (every review status unless `approvedOnly`). Read from gsi1: eventually consistent. */
export async function listAgentsOfCreator(tables: Tables, creator: string, options: { approvedOnly?: boolean } = {}): Promise<StoredAgent[]> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("listings"),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :c",
      ExpressionAttributeValues: { ":c": creatorIndex(creator), ...(options.approvedOnly ? { ":a": "approved" } : {}) },
      ...(options.approvedOnly ? { FilterExpression: "review_status = :a" } : {}),
    }),
  );
  return (out.Items ?? []) as StoredAgent[];
}

/** Every approved agent record (the catalogue's source, read in full and cached by its caller). */
export async function scanApprovedAgents(tables: Tables): Promise<StoredAgent[]> {
  return scanAll<StoredAgent>(tables, { TableName: tables.name("listings"), FilterExpression: "sk = :agent AND review_status = :approved", ExpressionAttributeValues: { ":agent": "agent", ":approved": "approved" } });
}

/** Agent names by listing id (`0x…` API form), for the listings that have an agent record. */
export async function getAgentNames(tables: Tables, onChainIds: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(onChainIds.map((id) => id.toLowerCase()))];
  const agents = await batchGet(tables, "listings", unique.map(agentKey), { projection: "listing_id, #n", names: { "#n": "name" } });
  return new Map(agents.map((agent) => [agent.listing_id as string, agent.name as string]));
}

/** What a tool list shows of an agent: its description and its public metadata's address. */
export interface AgentSummary {
  listing_id: string;
  description?: string;
  metadata_uri?: string;
}

/** The summaries of the listings that have an agent record, by listing id (`lst_…` API form). */
export async function getAgentSummaries(tables: Tables, onChainIds: string[]): Promise<Map<string, AgentSummary>> {
  const unique = [...new Set(onChainIds.map((id) => id.toLowerCase()))];
  const agents = await batchGet(tables, "listings", unique.map(agentKey), { projection: "listing_id, description, metadata_uri" });
  return new Map(agents.map((agent) => [agent.listing_id as string, agent as unknown as AgentSummary]));
}

/** Records a review decision and returns the agent record as it now stands. The first approval sets
 * `approved_at` (the listing's first publication), kept for good. Throws AgentNotFoundError. */
export async function setAgentReview(tables: Tables, onChainId: string, status: AgentRecord["review_status"], reason: string | null, reviewedAt: string): Promise<StoredAgent> {
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("listings"),
        Key: agentKey(onChainId),
        UpdateExpression: `SET review_status = :s, review_reason = :r, reviewed_at = :now${status === "approved" ? ", approved_at = if_not_exists(approved_at, :now)" : ""}`,
        // A review needs a registered agent: never create a partial record.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":s": status, ":r": reason, ":now": reviewedAt },
        ReturnValues: "ALL_NEW",
      }),
    );
    return out.Attributes as StoredAgent;
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new AgentNotFoundError(onChainId);
    throw error;
  }
}

/** Names a listing secret's sealed blob and wrapped data key on the agent record. Throws AgentNotFoundError. */
export async function setAgentSecret(tables: Tables, onChainId: string, kind: "provider_key" | "webhook_secret", secret: { wrapped: string; blob: string; setAt: string }): Promise<void> {
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("listings"),
        Key: agentKey(onChainId),
        UpdateExpression: "SET #wrapped = :wrapped, #blob = :blob, #setAt = :now",
        // A secret belongs to a registered agent: never create a record holding only a secret.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: { "#wrapped": `${kind}_wrapped`, "#blob": `${kind}_blob`, "#setAt": `${kind}_set_at` },
        ExpressionAttributeValues: { ":wrapped": secret.wrapped, ":blob": secret.blob, ":now": secret.setAt },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new AgentNotFoundError(onChainId);
    throw error;
  }
}

/** Puts an agent in the review queue. Idempotent: the entry's key is the agent's creation time and id. */
export async function putReviewEntry(tables: Tables, listingId: string, createdAt: string): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("listings"), Item: { ...reviewEntryKey(createdAt, listingId), listing_id: listingId, created_at: createdAt } }));
}

/** The oldest 100 agents waiting for review. */
export async function listReviewEntries(tables: Tables): Promise<{ listing_id: string; created_at: string }[]> {
  const out = await tables.doc.send(new QueryCommand({ TableName: tables.name("listings"), KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": REVIEW_QUEUE }, Limit: 100 }));
  return (out.Items ?? []).map((i) => ({ listing_id: i.listing_id as string, created_at: i.created_at as string }));
}

export async function deleteReviewEntry(tables: Tables, listingId: string, createdAt: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("listings"), Key: reviewEntryKey(createdAt, listingId) }));
}
