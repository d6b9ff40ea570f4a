// The ERC-8004 indexer: follows the Identity and Reputation registries' events from a stored cursor
// (part of the `indexer` job, after the marketplace's). It keeps:
//  - which agent is each listing's: an agent counts for a listing while its URI is one of the service's
//    registration files of that listing and its owner is the listing's creator (the latest such wins);
//    and every agent the listing was ever linked to, whose feedback stays the listing's: nothing its
//    creator does on the registries takes a counted rating away (decision 0110);
//  - every feedback of those agents, with its verdict: a feedback counts toward the listing's rating
//    only when its file (read from the service's content-addressed store, its keccak256 equal to the
//    on-chain hash) carries a receipt of a completed run of that listing by the feedback's own client,
//    that the marketplace's verifyRunReceipt confirms, and it is a rating ("starred", 0 to 100), and
//    no earlier feedback counts for the same run. Anything else is recorded apart and never averaged.
// Every write is fenced by its event's position or written once, so a replayed range changes nothing;
// a chain read that fails fails the round, which is replayed. A range above the finality depth is
// journaled (every item of the table it writes, as it was before), so a reorganisation that takes its
// blocks away is undone, claims of runs and figures included, and indexed again (credentials/indexer-reorg.ts).
import { keccak256, type Hex } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { getErc8004Logs, type Erc8004Event } from "../chain/get-erc8004-logs.ts";
import { readAgentOwner } from "../chain/read-agent.ts";
import { verifyRunReceipt } from "../chain/verify-run-receipt.ts";
import type { Blobs } from "../adapters/blobs/s3.ts";
import type { Logger } from "../logger.ts";
import { recordFeedback, recordFeedbackRevoked } from "../analytics/feedback-facts.ts";
import { getChainListing } from "../listings/chain-listing.store.ts";
import { caip10, cidOfUri, FeedbackFileSchema, MAX_FEEDBACK_FILE_BYTES, RATING_TAG } from "./files.ts";
import { getRegistrationFileListing } from "./registration-file.store.ts";
import { journalRange, rewindIfReorganised, type IndexerJournal } from "../credentials/indexer-reorg.ts";
import {
  claimRun,
  getAgentItem,
  getErc8004Cursor,
  findFeedback,
  getFeedback,
  getListingErc8004,
  linkListingAgent,
  listFeedback,
  listingAgentIds,
  positionOf,
  putAgentItem,
  putErc8004Cursor,
  putFeedback,
  revokeFeedback,
  setListingFigures,
  unlinkListingAgent,
  type AgentItem,
  type FeedbackItem,
  type FeedbackVerdict,
} from "./erc8004.store.ts";

export interface Erc8004IndexerOptions {
  tables: Tables;
  chain: ChainClient;
  blobs: Blobs;
  logger: Logger;
  /** Where a fresh cursor starts. */
  fromBlock: bigint;
  confirmations: number;
  chunkSize?: number;
  /** The network's finality depth: ranges above it are journaled and undone when a reorganisation takes
   * their blocks away (default 0: none). */
  finalityDepth?: number;
}

/** A feedback value as a number of its unit (value / 10^decimals). */
export function feedbackNumber(value: bigint | string, decimals: number): number {
  return Number(BigInt(value)) / 10 ** decimals;
}

/** The rating (0-5, 2 decimals) of verified feedback scores (0-100 each). */
export function ratingOf(scores: number[]): number {
  if (scores.length === 0) return 0;
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  return Math.round((mean / 20) * 100) / 100;
}

/**
 * Whether a recorded feedback is the listing's, to count or list: given to one of the listing's agents
 * (`listingAgentIds`) while that agent's registration file was of this listing. A feedback recorded
 * before the listing was kept on it is the current agent's.
 */
export function ofListing(item: Pick<FeedbackItem, "listing" | "agent_id">, listing: string, currentAgentId: string | null): boolean {
  return item.listing ? item.listing.toLowerCase() === listing.toLowerCase() : item.agent_id === currentAgentId;
}

/** Whether a feedback counts toward its listing's rating. */
export function counts(item: Pick<FeedbackItem, "verdict" | "revoked" | "listing">, listing: string): boolean {
  return item.verdict === "verified" && !item.revoked && item.listing?.toLowerCase() === listing.toLowerCase();
}

async function readFile(blobs: Blobs, uri: string): Promise<Buffer | null> {
  const cid = cidOfUri(uri);
  if (!cid) return null;
  const bytes = await blobs.get(`ipfs/${cid}`);
  return bytes ? Buffer.from(bytes) : null;
}

/** The verdict on one NewFeedback of a listing's agent, and what a verified one carries. */
export async function judgeFeedback(
  options: Pick<Erc8004IndexerOptions, "chain" | "blobs" | "tables">,
  event: Extract<Erc8004Event, { kind: "feedback" }>,
  agent: AgentItem,
): Promise<{ verdict: FeedbackVerdict; run_id?: string; receipt?: Record<string, unknown>; text?: string | null; listing?: string }> {
  const { chain } = options;
  const bytes = await readFile(options.blobs, event.feedbackURI);
  if (!bytes) return { verdict: "file_unavailable" };
  if (bytes.length > MAX_FEEDBACK_FILE_BYTES) return { verdict: "file_too_large" };
  if (keccak256(bytes).toLowerCase() !== event.feedbackHash.toLowerCase()) return { verdict: "hash_mismatch" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { verdict: "file_malformed" };
  }
  const file = FeedbackFileSchema.safeParse(parsed);
  if (!file.success) return { verdict: "file_malformed" };
  const f = file.data;
  const chainId = chain.chain.id;
  const sameFeedback =
    String(f.agentId) === event.agentId.toString() &&
    f.agentRegistry.toLowerCase() === caip10(chainId, chain.erc8004!.identityRegistry).toLowerCase() &&
    f.clientAddress.toLowerCase() === caip10(chainId, event.clientAddress).toLowerCase() &&
    f.valueDecimals === event.valueDecimals &&
    f.value === feedbackNumber(event.value, event.valueDecimals) &&
    (f.tag1 ?? "") === event.tag1;
  if (!sameFeedback) return { verdict: "file_of_another_feedback" };
  const proof = f.runReceipt;
  const receipt = proof.receipt;
  if (receipt.renter.toLowerCase() !== event.clientAddress.toLowerCase()) return { verdict: "receipt_of_another_wallet" };
  if (!agent.listing || receipt.listingId.toLowerCase() !== agent.listing.toLowerCase()) return { verdict: "receipt_of_another_listing" };
  if (receipt.status !== 0) return { verdict: "run_not_completed" };
  const onChain =
    proof.marketplace.toLowerCase() === caip10(chainId, chain.marketplace).toLowerCase() &&
    (await verifyRunReceipt(chain, {
      batchIndex: BigInt(proof.batchIndex),
      receipt: { runId: receipt.runId as Hex, listingId: receipt.listingId as Hex, renter: receipt.renter as Hex, status: receipt.status, costWei: BigInt(receipt.costWei), durationMs: BigInt(receipt.durationMs) },
      proof: proof.proof as Hex[],
    }));
  if (!onChain) return { verdict: "receipt_not_on_chain" };
  if (event.tag1 !== RATING_TAG) return { verdict: "not_a_rating" };
  const score = feedbackNumber(event.value, event.valueDecimals);
  if (!(score >= 0 && score <= 100)) return { verdict: "value_out_of_range" };
  const sk = positionOf(event.blockNumber, event.logIndex);
  if (!(await claimRun(options.tables, receipt.runId, { agent_id: event.agentId.toString(), sk }))) return { verdict: "run_already_rated" };
  return { verdict: "verified", run_id: f.run?.runId, receipt: proof as unknown as Record<string, unknown>, text: f.text ?? null, listing: agent.listing.toLowerCase() };
}

/**
 * Recomputes a listing's figures from the feedback of every agent it was ever linked to, before
 * `through` (a position: every event before it is applied), and records that bound: a reader shows the
 * feedback before it only, so a feedback already written but not yet counted is never listed beside
 * figures that leave it out (a whole recount: idempotent). Counting every agent, not only the current
 * one, is what keeps a creator from resetting the rating by registering the file again or moving the
 * agent: the runs those ratings claimed stay claimed, so they could never be rated again.
 */
export async function recountListing(tables: Tables, onChainId: string, through: string): Promise<void> {
  const linked = await getListingErc8004(tables, onChainId);
  const current = linked?.agent_id ?? null;
  const perAgent = await Promise.all(listingAgentIds(linked).map((agentId) => listFeedback(tables, agentId)));
  const items = perAgent.flat().filter((item) => item.sk < through && ofListing(item, onChainId, current));
  const verified = items.filter((item) => counts(item, onChainId));
  const unverified = items.filter((item) => item.verdict !== "verified");
  await setListingFigures(tables, onChainId, {
    rating: ratingOf(verified.map((item) => feedbackNumber(item.value, item.value_decimals))),
    review_count: verified.length,
    unverified_count: unverified.length,
    counted_through: through,
  });
}

const registryOf = (chain: ChainClient) => caip10(chain.chain.id, chain.erc8004!.identityRegistry);

/** Applies one event; returns the listings whose figures it may change. The analytics count the
 * feedback later, once its block is final (recordFinalFeedbackFacts). */
async function apply(options: Erc8004IndexerOptions, event: Erc8004Event): Promise<string[]> {
  const { tables, chain } = options;
  const agentId = event.agentId.toString();
  const position = positionOf(event.blockNumber, event.logIndex);
  if (event.kind === "registered" || event.kind === "uri_updated") {
    const uri = event.kind === "registered" ? event.agentURI : event.newURI;
    const cid = cidOfUri(uri);
    const listing = cid ? await getRegistrationFileListing(tables, cid) : null;
    const previous = await getAgentItem(tables, agentId);
    if (!listing && !previous) return []; // an agent that is none of the service's listings
    const owner = event.kind === "registered" ? event.owner : (previous?.owner ?? (await readAgentOwner(chain, event.agentId)) ?? "0x0000000000000000000000000000000000000000");
    if (!(await putAgentItem(tables, { agent_id: agentId, owner: owner.toLowerCase(), uri, listing, position }))) return [];
    const touched: string[] = [];
    if (previous?.listing && previous.listing !== listing) {
      await unlinkListingAgent(tables, previous.listing, agentId, position);
      touched.push(previous.listing);
    }
    if (listing) {
      const creator = (await getChainListing(tables, listing))?.creator?.toLowerCase();
      if (creator && creator === owner.toLowerCase()) await linkListingAgent(tables, listing, agentId, registryOf(chain), uri, position);
      else await unlinkListingAgent(tables, listing, agentId, position);
      touched.push(listing);
    }
    return touched;
  }
  if (event.kind === "transfer") {
    if (event.from === "0x0000000000000000000000000000000000000000") return []; // the mint: Registered follows
    const previous = await getAgentItem(tables, agentId);
    if (!previous) return [];
    if (!(await putAgentItem(tables, { ...previous, owner: event.to.toLowerCase(), position }))) return [];
    if (!previous.listing) return [];
    const creator = (await getChainListing(tables, previous.listing))?.creator?.toLowerCase();
    if (creator === event.to.toLowerCase()) await linkListingAgent(tables, previous.listing, agentId, registryOf(chain), previous.uri, position);
    else await unlinkListingAgent(tables, previous.listing, agentId, position);
    return [previous.listing];
  }
  const agent = await getAgentItem(tables, agentId);
  if (!agent?.listing) return []; // feedback to an agent that is none of the service's listings
  if (event.kind === "revoked") {
    await revokeFeedback(tables, agentId, event.clientAddress, event.feedbackIndex.toString());
    return [agent.listing];
  }
  const judged = await judgeFeedback(options, event, agent);
  await putFeedback(tables, {
    sk: position,
    agent_id: agentId,
    client: event.clientAddress.toLowerCase(),
    feedback_index: event.feedbackIndex.toString(),
    value: event.value.toString(),
    value_decimals: event.valueDecimals,
    tag1: event.tag1,
    tag2: event.tag2,
    endpoint: event.endpoint,
    feedback_uri: event.feedbackURI,
    feedback_hash: event.feedbackHash,
    tx_hash: event.transactionHash,
    block_number: event.blockNumber.toString(),
    revoked: false,
    listing: agent.listing.toLowerCase(),
    given_at: new Date(Number((await chain.client.getBlock({ blockNumber: event.blockNumber })).timestamp) * 1000).toISOString(),
    ...judged,
  });
  if (judged.verdict !== "verified") options.logger.info("erc8004 feedback does not count", { agent_id: agentId, client: event.clientAddress, verdict: judged.verdict });
  return [agent.listing];
}

export interface Erc8004Round {
  fromBlock: bigint;
  toBlock: bigint;
  events: number;
  caughtUp: boolean;
  /** Set when the round first undid ranges a reorganisation took away: the block it indexed again from. */
  rewoundTo?: bigint;
}

/** The registries' index's undo journal (one per deployment, as its cursor). */
export function erc8004Journal(options: Erc8004IndexerOptions, identityRegistry: string): IndexerJournal {
  const name = `erc8004#${identityRegistry.toLowerCase()}#${options.fromBlock}`;
  return { tables: options.tables, chain: options.chain, logger: options.logger, name, finalityDepth: options.finalityDepth ?? 0 };
}

/**
 * The creator analytics count verified feedback (and its revocation) once its block is final, at the
 * network's finality depth under the head, as they count the marketplaces' money events (decision 0270):
 * a feedback a reorganisation takes away is undone here from the journal, but a count in the roll-ups
 * could not be (other writers add to the same items). The count keeps its own cursor beside the index's
 * (`<identity registry>#facts`), at most the depth behind it; each feedback is counted as the index
 * recorded it (its verdict), once however often a range is replayed. Where the two ranges are the same (a
 * depth of 0) the round's events are counted as read; else the final range's are read again. A deployment
 * indexed before this cursor existed counted up to the index's cursor: that is where it starts.
 */
async function recordFinalFeedbackFacts(options: Erc8004IndexerOptions, events: Erc8004Event[], from: bigint, to: bigint, head: bigint): Promise<void> {
  const { tables, chain } = options;
  const name = `${chain.erc8004!.identityRegistry.toLowerCase()}#facts`;
  const next = (await getErc8004Cursor(tables, name, options.fromBlock)) ?? from;
  const final = head - BigInt(options.finalityDepth ?? 0);
  const upTo = final < to ? final : to;
  if (upTo < next) return;
  const counted = next === from && upTo === to ? events : await getErc8004Logs(chain, { fromBlock: next, toBlock: upTo });
  for (const event of counted) {
    const agentId = event.agentId.toString();
    if (event.kind === "feedback") {
      const recorded = await getFeedback(tables, agentId, positionOf(event.blockNumber, event.logIndex));
      if (recorded) await recordFeedback(tables, recorded);
    } else if (event.kind === "revoked") {
      const revoked = await findFeedback(tables, agentId, event.clientAddress, event.feedbackIndex.toString());
      if (revoked?.revoked) await recordFeedbackRevoked(tables, revoked);
    }
  }
  await putErc8004Cursor(tables, name, options.fromBlock, upTo + 1n);
}

/** Indexes the next range of confirmed blocks of the registries (after undoing what a reorganisation
 * took away, if any). */
export async function indexErc8004Once(options: Erc8004IndexerOptions): Promise<Erc8004Round> {
  const registries = options.chain.erc8004;
  if (!registries) return { fromBlock: 0n, toBlock: -1n, events: 0, caughtUp: true };
  const journal = erc8004Journal(options, registries.identityRegistry);
  const rewind = await rewindIfReorganised(journal);
  if (rewind) {
    await putErc8004Cursor(options.tables, registries.identityRegistry, options.fromBlock, rewind.resumeAt);
    await rewind.done();
  }
  const rewound = rewind ? { rewoundTo: rewind.resumeAt } : {};
  const from = (await getErc8004Cursor(options.tables, registries.identityRegistry, options.fromBlock)) ?? options.fromBlock;
  const head = await options.chain.client.getBlockNumber({ cacheTime: 0 });
  const confirmed = head - BigInt(options.confirmations);
  if (from > confirmed) {
    await recordFinalFeedbackFacts(options, [], from, from - 1n, head);
    return { fromBlock: from, toBlock: from - 1n, events: 0, caughtUp: true, ...rewound };
  }
  const last = from + BigInt((options.chunkSize ?? 5_000) - 1);
  const to = confirmed < last ? confirmed : last;
  const journaled = await journalRange(journal, from, to, head);
  const events = await getErc8004Logs(options.chain, { fromBlock: from, toBlock: to });
  // Journaled, every write to the table (agents, links, feedback, claims, figures) is captured first.
  const writing = journaled ? { ...options, tables: journaled.recorder.tracking(options.tables, ["erc8004"]) } : options;
  const touched = new Set<string>();
  // One at a time, in chain order: an event may depend on the one before (a URI, then a transfer).
  for (const event of events) for (const listing of await apply(writing, event)) touched.add(listing.toLowerCase());
  // Every event of blocks up to `to` is applied: the figures count the feedback before the next block.
  for (const listing of touched) await recountListing(writing.tables, listing, positionOf(to + 1n, 0));
  await recordFinalFeedbackFacts(options, events, from, to, head);
  if (journaled) await journaled.recorder.close(to, journaled.hash);
  await putErc8004Cursor(options.tables, registries.identityRegistry, options.fromBlock, to + 1n);
  return { fromBlock: from, toBlock: to, events: events.length, caughtUp: to === confirmed, ...rewound };
}

/** Indexes until the cursor reaches the confirmed head (or the time budget runs out). */
export async function catchUpErc8004(options: Erc8004IndexerOptions, budgetMs = Number.POSITIVE_INFINITY): Promise<{ rounds: number; events: number }> {
  const deadline = Date.now() + budgetMs;
  let rounds = 0;
  let events = 0;
  for (;;) {
    const round = await indexErc8004Once(options);
    rounds++;
    events += round.events;
    if (round.caughtUp || Date.now() > deadline) return { rounds, events };
  }
}
