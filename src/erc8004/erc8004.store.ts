// The `erc8004` table: what the indexer derives from ERC-8004's registries (docs/design/data-model.md).
// Chain-derived, so the local stack empties it with the other such tables when the chain is fresh.
//   agent#<agentId> / agent          an agent whose URI named one of the service's registration files:
//                                    its owner, URI, the listing the file is of, and the event position
//   listing#<on-chain id> / erc8004  a listing's current agent, every agent it was ever linked to, and
//                                    its reputation figures
//   feedback#<agentId> / <position>  one NewFeedback of a listing's agent and its verdict; gsi1
//                                    (feedbackof#<agentId>#<client>, <index>) finds it for a revocation
//   run#<run id hash> / feedback     the feedback that counts for a run: the first that verified
//   cursor / erc8004#<registry>#<block>  the next block the indexer reads
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, batchGet, queryAll, type Tables } from "../adapters/tables/dynamo.ts";
import type { FeedbackReason } from "@agent-rental/core/vocabulary";

export interface AgentItem {
  pk: string;
  sk: "agent";
  agent_id: string;
  owner: string;
  uri: string;
  /** The on-chain id of the listing the URI's registration file is of; null when it names none. */
  listing: string | null;
  position: string;
}

export interface ListingErc8004Item {
  pk: string;
  sk: "erc8004";
  on_chain_id: string;
  /** The listing's current ERC-8004 agent: the latest registered by the listing's creator whose
   * registration file is of this listing and that the creator still owns; null when none. */
  agent_id: string | null;
  /** Every agent the listing was ever linked to (the current one included): its verified reputation is
   * the feedback of all of them, so nothing its creator does on the registries (registering the file
   * again, transferring the agent, pointing its URI elsewhere) takes a counted rating away. A string set;
   * it only grows. Read it through `listingAgentIds`. */
  agent_ids?: Set<string>;
  /** `eip155:<chainId>:<identity registry>` of the agent. */
  agent_registry?: string | null;
  agent_position: string;
  /** The URI of the agent's current registration file. */
  agent_uri?: string;
  /** Verified feedback: the average rating (0-5, 2 decimals) and its count. */
  rating?: number;
  review_count?: number;
  /** Feedback that does not count (shown apart). */
  unverified_count?: number;
  /** The position up to which (exclusive) the figures count the agent's feedback: readers show no
   * feedback at or after it, so what they list and the figures always agree. */
  counted_through?: string;
}

/** The indexer's verdict on a feedback: verified, or why not (the reasons of the vocabulary that a
 * feedback and its file decide; `revoked` and `agent_not_the_listings` follow from later events). */
export type FeedbackVerdict = "verified" | Exclude<FeedbackReason, "revoked" | "agent_not_the_listings">;

export interface FeedbackItem {
  pk: string;
  sk: string;
  agent_id: string;
  client: string;
  feedback_index: string;
  /** int128 value and its decimals, as given on-chain. */
  value: string;
  value_decimals: number;
  tag1: string;
  tag2: string;
  endpoint: string;
  feedback_uri: string;
  feedback_hash: string;
  tx_hash: string;
  block_number: string;
  verdict: FeedbackVerdict;
  /** The listing the agent's registration file was of when the feedback was given (for a verified
   * feedback: the listing its run receipt is of). Absent on feedback recorded before it was kept. */
  listing?: string;
  run_id?: string;
  receipt?: Record<string, unknown>;
  /** The file's text, for verified feedback. */
  text?: string | null;
  revoked: boolean;
  /** The time of the block that gave it (ISO): the creator analytics' verified feedback over time. */
  given_at?: string;
  gsi1pk: string;
  gsi1sk: string;
}

const agentKey = (agentId: string) => ({ pk: `agent#${agentId}`, sk: "agent" as const });
const listingKey = (onChainId: string) => ({ pk: `listing#${onChainId.toLowerCase()}`, sk: "erc8004" as const });
const runKey = (runRef: string) => ({ pk: `run#${runRef.toLowerCase()}`, sk: "feedback" });
const cursorKey = (registry: string, fromBlock: bigint) => ({ pk: "cursor", sk: `erc8004#${registry.toLowerCase()}#${fromBlock}` });
export const feedbackPk = (agentId: string) => `feedback#${agentId}`;

/** An event's place in the chain, sortable as text. */
export function positionOf(blockNumber: bigint, logIndex: number): string {
  return `${blockNumber.toString().padStart(20, "0")}:${logIndex.toString().padStart(8, "0")}`;
}

export async function getAgentItem(tables: Tables, agentId: string): Promise<AgentItem | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("erc8004"), Key: agentKey(agentId), ConsistentRead: true }));
  return (out.Item as AgentItem | undefined) ?? null;
}

/** Writes an agent's state as of `position`; refused (false) when the item already holds a later one,
 * so a replayed range changes nothing. */
export async function putAgentItem(tables: Tables, item: Omit<AgentItem, "pk" | "sk">): Promise<boolean> {
  return applied(
    tables.doc.send(
      new PutCommand({
        TableName: tables.name("erc8004"),
        Item: { ...agentKey(item.agent_id), ...item },
        ConditionExpression: "attribute_not_exists(pk) OR #position <= :position",
        ExpressionAttributeNames: { "#position": "position" },
        ExpressionAttributeValues: { ":position": item.position },
      }),
    ),
  );
}

export async function getListingErc8004(tables: Tables, onChainId: string): Promise<ListingErc8004Item | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("erc8004"), Key: listingKey(onChainId) }));
  return (out.Item as ListingErc8004Item | undefined) ?? null;
}

/** Many listings' ERC-8004 items, by lower-case on-chain id. */
export async function getListingsErc8004(tables: Tables, onChainIds: string[]): Promise<Map<string, ListingErc8004Item>> {
  const unique = [...new Set(onChainIds.map((id) => id.toLowerCase()))];
  const items = (await batchGet(tables, "erc8004", unique.map(listingKey))) as unknown as ListingErc8004Item[];
  return new Map(items.map((item) => [item.on_chain_id.toLowerCase(), item]));
}

/** The agents whose feedback is the listing's: every agent it was ever linked to, the current one
 * included (docs/design/decisions/0110-a-listings-reputation-outlives-its-agent-ids.md). */
export function listingAgentIds(item: Pick<ListingErc8004Item, "agent_id" | "agent_ids"> | null): string[] {
  const ids = new Set(item?.agent_ids ?? []);
  if (item?.agent_id) ids.add(item.agent_id);
  return [...ids].sort();
}

/**
 * Links a listing to an agent as of `position`, unless a later link or unlink is recorded. The agent is
 * remembered among the listing's agents in any case (a set: a replay adds nothing), so its feedback
 * stays the listing's whatever links come after.
 */
export async function linkListingAgent(tables: Tables, onChainId: string, agentId: string, agentRegistry: string, agentUri: string, position: string): Promise<boolean> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("erc8004"),
      Key: listingKey(onChainId),
      UpdateExpression: "SET on_chain_id = :id ADD agent_ids :agents",
      ExpressionAttributeValues: { ":id": onChainId.toLowerCase(), ":agents": new Set([agentId]) },
    }),
  );
  return applied(
    tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("erc8004"),
        Key: listingKey(onChainId),
        UpdateExpression: "SET on_chain_id = :id, agent_id = :agent, agent_registry = :registry, agent_position = :position, agent_uri = :uri",
        ConditionExpression: "attribute_not_exists(agent_position) OR agent_position <= :position",
        ExpressionAttributeValues: { ":id": onChainId.toLowerCase(), ":agent": agentId, ":registry": agentRegistry, ":position": position, ":uri": agentUri },
      }),
    ),
  );
}

/** Clears a listing's agent if it is still `agentId` (a transfer away from the creator, a URI that no
 * longer names the listing). */
export async function unlinkListingAgent(tables: Tables, onChainId: string, agentId: string, position: string): Promise<boolean> {
  return applied(
    tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("erc8004"),
        Key: listingKey(onChainId),
        UpdateExpression: "SET agent_id = :none, agent_position = :position REMOVE agent_uri",
        ConditionExpression: "agent_id = :agent AND agent_position <= :position",
        ExpressionAttributeValues: { ":none": null, ":agent": agentId, ":position": position },
      }),
    ),
  );
}

/** Sets a listing's reputation figures (recomputed whole from its feedback: a replay writes the same). */
export async function setListingFigures(tables: Tables, onChainId: string, figures: { rating: number; review_count: number; unverified_count: number; counted_through: string }): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("erc8004"),
      Key: listingKey(onChainId),
      UpdateExpression: "SET on_chain_id = :id, rating = :rating, review_count = :reviews, unverified_count = :unverified, counted_through = :through",
      ExpressionAttributeValues: { ":id": onChainId.toLowerCase(), ":rating": figures.rating, ":reviews": figures.review_count, ":unverified": figures.unverified_count, ":through": figures.counted_through },
    }),
  );
}

/** Records a feedback once (a replay finds it and writes nothing). */
export async function putFeedback(tables: Tables, item: Omit<FeedbackItem, "pk" | "gsi1pk" | "gsi1sk">): Promise<boolean> {
  return applied(
    tables.doc.send(
      new PutCommand({
        TableName: tables.name("erc8004"),
        Item: { pk: feedbackPk(item.agent_id), gsi1pk: `feedbackof#${item.agent_id}#${item.client.toLowerCase()}`, gsi1sk: item.feedback_index.padStart(20, "0"), ...item },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    ),
  );
}

export async function getFeedback(tables: Tables, agentId: string, sk: string): Promise<FeedbackItem | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("erc8004"), Key: { pk: feedbackPk(agentId), sk }, ConsistentRead: true }));
  return (out.Item as FeedbackItem | undefined) ?? null;
}

/** Marks a client's feedback revoked; false when no such feedback is recorded. */
export async function revokeFeedback(tables: Tables, agentId: string, client: string, feedbackIndex: string): Promise<FeedbackItem | null> {
  const item = await findFeedback(tables, agentId, client, feedbackIndex);
  if (!item) return null;
  await tables.doc.send(new UpdateCommand({ TableName: tables.name("erc8004"), Key: { pk: item.pk, sk: item.sk }, UpdateExpression: "SET revoked = :t", ExpressionAttributeValues: { ":t": true } }));
  return item;
}

/** The feedback a client gave an agent under its index (as the Reputation Registry numbers them). */
export async function findFeedback(tables: Tables, agentId: string, client: string, feedbackIndex: string): Promise<FeedbackItem | null> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("erc8004"),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :pk AND gsi1sk = :sk",
      ExpressionAttributeValues: { ":pk": `feedbackof#${agentId}#${client.toLowerCase()}`, ":sk": feedbackIndex.padStart(20, "0") },
    }),
  );
  return (out.Items?.[0] as FeedbackItem | undefined) ?? null;
}

/** Every recorded feedback of an agent, in chain order. */
export async function listFeedback(tables: Tables, agentId: string): Promise<FeedbackItem[]> {
  return queryAll<FeedbackItem>(tables, { TableName: tables.name("erc8004"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": feedbackPk(agentId) }, ConsistentRead: true });
}

/** A page of an agent's feedback, newest first, after the sort key `before` (exclusive). */
export async function pageFeedback(tables: Tables, agentId: string, limit: number, before?: string): Promise<FeedbackItem[]> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("erc8004"),
      KeyConditionExpression: before ? "pk = :pk AND sk < :before" : "pk = :pk",
      ExpressionAttributeValues: { ":pk": feedbackPk(agentId), ...(before ? { ":before": before } : {}) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as FeedbackItem[];
}

/**
 * Claims a run for a feedback: the first feedback that verifies for a run counts, and no other ever
 * does. True when this feedback holds the claim (it took it, or a replay finds it its own).
 */
export async function claimRun(tables: Tables, runRef: string, feedback: { agent_id: string; sk: string }): Promise<boolean> {
  const taken = await applied(
    tables.doc.send(
      new PutCommand({
        TableName: tables.name("erc8004"),
        Item: { ...runKey(runRef), agent_id: feedback.agent_id, feedback_sk: feedback.sk },
        // The run's first verified feedback keeps it; a replay of the same event finds its own claim.
        ConditionExpression: "attribute_not_exists(pk) OR (agent_id = :agent AND feedback_sk = :sk)",
        ExpressionAttributeValues: { ":agent": feedback.agent_id, ":sk": feedback.sk },
      }),
    ),
  );
  return taken;
}

/** The feedback a run's claim names, or null when no feedback counts for the run. */
export async function getRunClaim(tables: Tables, runRef: string): Promise<{ agent_id: string; feedback_sk: string } | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("erc8004"), Key: runKey(runRef), ConsistentRead: true }));
  return (out.Item as { agent_id: string; feedback_sk: string } | undefined) ?? null;
}

export async function getErc8004Cursor(tables: Tables, registry: string, fromBlock: bigint): Promise<bigint | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("erc8004"), Key: cursorKey(registry, fromBlock), ConsistentRead: true }));
  return out.Item ? BigInt(out.Item.next_block as string) : null;
}

/** Unconditional: every write of a range is fenced or idempotent, so a replayed range is harmless. */
export async function putErc8004Cursor(tables: Tables, registry: string, fromBlock: bigint, nextBlock: bigint): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("erc8004"), Item: { ...cursorKey(registry, fromBlock), next_block: nextBlock.toString(), updated_at: new Date().toISOString() } }));
}
