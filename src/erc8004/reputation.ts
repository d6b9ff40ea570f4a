// A listing's reputation as GET /v1/listings/{id}/reputation shows it: the verified rating and count
// (what the listing's `rating` and `review_count` are), each feedback of its agents (every agent the
// listing was ever linked to: decision 0110) newest first with
// its verdict (verified ones with their run receipt), the count of feedback that does not count, and
// the renters' off-chain ratings from before on-chain feedback, apart.
import type { Services } from "./services.ts";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { ApiError } from "../errors.ts";
import { parseListingId, toListingId } from "../listings/ids.ts";
import { loadListing, figuresOf } from "../listings/catalogue.ts";
import { getAgent } from "../listings/listing.store.ts";
import { getListingErc8004, listingAgentIds, pageFeedback, type FeedbackItem, type ListingErc8004Item } from "./erc8004.store.ts";
import type { FeedbackReason } from "@agent-rental/core/vocabulary";
import { counts, feedbackNumber, ofListing } from "./indexer.ts";

export const REPUTATION_PAGE_DEFAULT = 20;
export const REPUTATION_PAGE_MAX = 100;

export interface FeedbackView {
  /** The agent it was given to: the listing's current agent or a former one. */
  agent_id: string;
  client: string;
  feedback_index: string;
  value: number;
  value_decimals: number;
  tag1: string;
  tag2: string;
  endpoint: string;
  feedback_uri: string;
  feedback_hash: string;
  tx_hash: string;
  block_number: string;
  revoked: boolean;
  /** True when it counts toward the listing's rating. */
  verified: boolean;
  /** Why it does not count (null when it does). */
  reason: FeedbackReason | null;
  run_id: string | null;
  text: string | null;
  receipt: Record<string, unknown> | null;
}

export interface Reputation {
  listing_id: string;
  erc8004: { agent_id: string; agent_registry: string } | null;
  rating: number;
  review_count: number;
  unverified_count: number;
  before_on_chain: { rating: number; review_count: number };
  feedback: FeedbackView[];
  next_cursor: string | null;
}

function view(item: FeedbackItem, onChainId: string): FeedbackView {
  const verified = counts(item, onChainId);
  return {
    agent_id: item.agent_id,
    client: item.client,
    feedback_index: item.feedback_index,
    value: feedbackNumber(item.value, item.value_decimals),
    value_decimals: item.value_decimals,
    tag1: item.tag1,
    tag2: item.tag2,
    endpoint: item.endpoint,
    feedback_uri: item.feedback_uri,
    feedback_hash: item.feedback_hash,
    tx_hash: item.tx_hash,
    block_number: item.block_number,
    revoked: item.revoked,
    verified,
    reason: verified ? null : item.verdict !== "verified" ? item.verdict : item.revoked ? "revoked" : "agent_not_the_listings",
    run_id: verified ? (item.run_id ?? null) : null,
    text: verified ? (item.text ?? null) : null,
    receipt: verified ? (item.receipt ?? null) : null,
  };
}

const SORT_KEY = /^\d{20}:\d{8}$/;

/**
 * Up to `limit` of the listing's feedback before the sort key `before`, newest first, across every agent
 * it was ever linked to. A sort key is the event's chain position, unique across agents, so the agents'
 * pages merge into one order and one cursor.
 */
async function pageListingFeedback(tables: Tables, onChainId: string, linked: ListingErc8004Item | null, limit: number, before: string | undefined): Promise<FeedbackItem[]> {
  const current = linked?.agent_id ?? null;
  const perAgent = await Promise.all(
    listingAgentIds(linked).map(async (agentId) => {
      const found: FeedbackItem[] = [];
      let cursor = before;
      for (;;) {
        const page = await pageFeedback(tables, agentId, limit, cursor);
        found.push(...page.filter((item) => ofListing(item, onChainId, current)));
        if (found.length >= limit || page.length < limit) return found;
        cursor = page.at(-1)!.sk;
      }
    }),
  );
  return perAgent.flat().sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0)).slice(0, limit);
}

export async function getReputation(services: Pick<Services, "tables">, listingIdParam: string, query: { limit?: number | undefined; cursor?: string | undefined }): Promise<Reputation> {
  const onChainId = parseListingId(listingIdParam);
  const limit = query.limit ?? REPUTATION_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > REPUTATION_PAGE_MAX) throw new ApiError("invalid_request", `Invalid query: limit: must be an integer from 1 to ${REPUTATION_PAGE_MAX}.`);
  let before: string | undefined;
  if (query.cursor !== undefined) {
    before = Buffer.from(query.cursor, "base64url").toString("utf8");
    if (!SORT_KEY.test(before)) throw new ApiError("invalid_request", "Invalid query: cursor: not a cursor returned for this listing's reputation.");
  }
  const [listing, agent, linked] = await Promise.all([loadListing(services.tables, onChainId), getAgent(services.tables, onChainId, { consistent: true }), getListingErc8004(services.tables, onChainId)]);
  if (!listing || !agent) throw new ApiError("listing_not_found", `No published listing ${listingIdParam}.`);
  // Only the feedback the figures count (written before their recount's bound), so the list and the
  // figures agree while the indexer is between writing a feedback and recounting.
  const bound = linked?.counted_through;
  const upTo = bound !== undefined && (before === undefined || bound < before) ? bound : before;
  const items = await pageListingFeedback(services.tables, onChainId, linked, limit + 1, upTo);
  const page = items.slice(0, limit);
  const offChain = figuresOf(agent);
  return {
    listing_id: toListingId(onChainId),
    erc8004: listing.erc8004,
    // The figures from the same read as the bound the list is cut at: a recount landing between two reads
    // would show a feedback counted that the list leaves out.
    rating: linked?.rating ?? 0,
    review_count: linked?.review_count ?? 0,
    unverified_count: linked?.unverified_count ?? 0,
    before_on_chain: { rating: offChain.rating, review_count: offChain.review_count },
    feedback: page.map((item) => view(item, onChainId)),
    next_cursor: items.length > limit ? Buffer.from(page.at(-1)!.sk, "utf8").toString("base64url") : null,
  };
}
