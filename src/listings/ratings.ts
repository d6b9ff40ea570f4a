// Renter ratings: a wallet with at least one completed run of a published listing rates it 1 to 5
// stars, with an optional plain-text comment. One rating per (listing, wallet); rating again replaces
// it. The listing's figures (stats_rating_sum, stats_review_count on the agent record) follow through
// the exactly-once protocol of stats.ts, with the rating item as the source of each change.
//
// Rating item (table `runs`): pk `rating#<on-chain id>`, sk `<wallet lower-case>`; rating, comment,
// created_at, updated_at, version (bumped by every write of the renter's rating), `counted` (the
// rating the figures include for this wallet; absent before the first is counted), and while a change
// to the figures is under way `pending` {id, from, to, claim, generation, claimed_until}. Listed newest
// first through gsi1 (gsi1pk `ratings#<on-chain id>`, gsi1sk `<updated_at>#<wallet>`).
//
// Invariant, at every moment: stats_rating_sum = Σ over the listing's rating items of c(item), and
// stats_review_count = the number of items with c(item) ≠ none, where c(item) is `counted` when no
// change is pending, else `pending.to` if the change's token `rating:<pending.id>` is in
// stats_in_flight (applied) and `pending.from` if not. Each write keeps it: a new rating is written
// with its pending change in one conditional put (version check), the figures move by (to − from) and
// (+1 when from is none) in one conditional update fenced by the token, and `counted` takes `to` as
// `pending` is removed in one conditional update on the claim. Changes for one wallet are serialized:
// a writer that finds a pending change waits for it, or takes it over once its lease has expired.
import { randomUUID } from "node:crypto";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { ApiError } from "../errors.ts";
import type { Services } from "./services.ts";
import { parseListingId, toListingId } from "./ids.ts";
import { getChainListing } from "./chain-listing.store.ts";
import { getAgent } from "./listing.store.ts";
import { expireRatingClaim, getRating, markRatingCounted, putRating, queryRatings, ratingKey, ratingsIndex, takeOverRatingChange, type PendingChange, type RatingItem, type RatingKey } from "./rating.store.ts";
import { figuresOf, isPublished, type AgentRecord } from "./catalogue.ts";
import { applyToFigures, hasCompletedRun, releaseToken, sleep, STATS_LEASE_MS, type StatsOptions } from "./stats.ts";

export const MIN_RATING = 1;
export const MAX_RATING = 5;
/** Longest comment, in characters (Unicode code points), after trimming. */
export const MAX_COMMENT_CHARS = 1000;
export const RATINGS_PAGE_DEFAULT = 20;
export const RATINGS_PAGE_MAX = 100;
const POLL_MS = 20;

export interface RatingInput {
  rating: unknown;
  comment?: unknown;
}

export interface Rating {
  wallet: string;
  rating: number;
  comment: string | null;
  created_at: string;
  updated_at: string;
}

export interface RatingResult extends Rating {
  listing_id: string;
  /** The listing's figures right after the rating was counted. */
  listing: { rating: number; review_count: number };
}

export interface RatingsPage {
  listing_id: string;
  rating: number;
  review_count: number;
  ratings: Rating[];
  next_cursor: string | null;
}

// The rating item's key is the store's; exported here too for existing readers.
export { ratingKey } from "./rating.store.ts";

// Control characters other than tab and line feed (carriage returns are normalized to line feeds).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/** Checks and normalizes a rating body; 400 invalid_request naming the field otherwise. */
export function checkRatingInput(input: RatingInput): { rating: number; comment: string | null } {
  const { rating, comment } = input;
  if (typeof rating !== "number" || !Number.isInteger(rating) || rating < MIN_RATING || rating > MAX_RATING) {
    throw new ApiError("invalid_request", `Invalid request body: rating: must be an integer from ${MIN_RATING} to ${MAX_RATING}.`);
  }
  if (comment === undefined || comment === null) return { rating, comment: null };
  if (typeof comment !== "string") throw new ApiError("invalid_request", "Invalid request body: comment: must be a string or null.");
  const text = comment.replace(/\r\n?/g, "\n").trim();
  if (CONTROL.test(text)) throw new ApiError("invalid_request", "Invalid request body: comment: must be plain text (no control characters other than line breaks and tabs).");
  if ([...text].length > MAX_COMMENT_CHARS) throw new ApiError("invalid_request", `Invalid request body: comment: must be at most ${MAX_COMMENT_CHARS} characters.`);
  return { rating, comment: text.length ? text : null };
}

/** The agent record of a published listing; 404 listing_not_found otherwise. */
async function publishedAgent(tables: Tables, onChainId: `0x${string}`, listingIdParam: string): Promise<AgentRecord> {
  const [agent, chain] = await Promise.all([getAgent(tables, onChainId, { consistent: true }), getChainListing(tables, onChainId)]);
  if (!agent || !isPublished(agent, chain ?? undefined)) throw new ApiError("listing_not_found", `No published listing ${listingIdParam}.`);
  return agent;
}

function publicRating(item: RatingItem): Rating {
  return { wallet: item.sk, rating: item.rating, comment: item.comment ?? null, created_at: item.created_at, updated_at: item.updated_at };
}

/** Applies a pending change held by this caller's claim, then marks it counted. */
async function finishPending(tables: Tables, onChainId: string, key: RatingKey, pending: PendingChange): Promise<void> {
  const token = `rating:${pending.id}`;
  try {
    await applyToFigures(tables, onChainId, { token, ratingSum: pending.to - (pending.from ?? 0), reviews: pending.from === null ? 1 : 0 });
    // False: taken over after a stall; the new claimant finds the token and finishes.
    const finished = await markRatingCounted(tables, key, pending);
    // Counted; a token left behind by a failed clean-up is harmless.
    if (finished && pending.generation === 1) await releaseToken(tables, onChainId, token).catch(() => undefined);
  } catch (error) {
    // Gives the claim up so the next writer need not wait for the lease.
    await expireRatingClaim(tables, key, pending.claim);
    throw error;
  }
}

/** Takes over a pending change whose claim has expired; null when someone else changed it first. */
async function takeOver(tables: Tables, key: RatingKey, pending: PendingChange, leaseMs: number): Promise<PendingChange | null> {
  return takeOverRatingChange(tables, key, pending.claim, randomUUID(), Date.now() + leaseMs);
}

/**
 * PUT /v1/listings/{listing_id}/rating: the wallet rates a published listing it has completed at least
 * one run of. Rating again replaces the wallet's rating and comment (an absent comment removes the old
 * one); the listing's rating_sum moves by the difference and review_count stays.
 * Errors: 400 invalid_listing_id, 400 invalid_request (naming the field), 404 listing_not_found,
 * 403 rating_not_allowed (no completed run, or the listing's own creator).
 */
export async function rateListing(services: Pick<Services, "tables">, wallet: string, listingIdParam: string, input: RatingInput, options: StatsOptions = {}): Promise<RatingResult> {
  const { tables } = services;
  const { rating, comment } = checkRatingInput(input);
  const onChainId = parseListingId(listingIdParam);
  const renter = wallet.toLowerCase();
  const agent = await publishedAgent(tables, onChainId, listingIdParam);
  if (agent.creator.toLowerCase() === renter) throw new ApiError("rating_not_allowed", "A creator cannot rate their own listing.");
  if (!(await hasCompletedRun(tables, onChainId, renter))) {
    throw new ApiError("rating_not_allowed", "Only a wallet with at least one completed run of this listing can rate it; run a task first.");
  }
  const leaseMs = options.leaseMs ?? STATS_LEASE_MS;
  const key = ratingKey(onChainId, renter);
  const listingId = toListingId(onChainId);
  let written: RatingItem;
  for (;;) {
    const item = (await getRating(tables, key)) ?? undefined;
    if (item?.pending) {
      // An earlier change of this wallet's rating is under way: wait for it, or finish it for a
      // writer that stopped.
      if (item.pending.claimed_until > Date.now()) {
        await sleep(POLL_MS);
        continue;
      }
      const taken = await takeOver(tables, key, item.pending, leaseMs);
      if (taken) await finishPending(tables, onChainId, key, taken);
      continue;
    }
    const now = new Date().toISOString();
    const counted = item?.counted ?? null;
    const pending: PendingChange | undefined = counted === rating ? undefined : { id: randomUUID(), from: counted, to: rating, claim: randomUUID(), generation: 1, claimed_until: Date.now() + leaseMs };
    const next: RatingItem = {
      ...key,
      listing_id: listingId,
      wallet: renter,
      rating,
      comment,
      created_at: item?.created_at ?? now,
      updated_at: now,
      version: (item?.version ?? 0) + 1,
      ...(counted !== null ? { counted } : {}),
      ...(pending ? { pending } : {}),
      ...ratingsIndex(onChainId, now, renter),
    };
    if (!(await putRating(tables, next, item ? item.version : null))) continue;
    if (pending) await finishPending(tables, onChainId, key, pending);
    written = next;
    break;
  }
  const figures = figuresOf((await getAgent(tables, onChainId, { consistent: true }))!);
  return { listing_id: listingId, ...publicRating(written), listing: { rating: figures.rating, review_count: figures.review_count } };
}

function encodeCursor(item: RatingItem): string {
  return Buffer.from(JSON.stringify([item.gsi1sk, item.sk]), "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { wallet: string; sortKey: string } {
  const invalid = () => new ApiError("invalid_request", "Invalid query: cursor: not a cursor returned for this listing's ratings.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string" || typeof parsed[1] !== "string") throw invalid();
  const [sortKey, wallet] = parsed as [string, string];
  if (!/^0x[0-9a-f]{40}$/.test(wallet) || !/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#0x[0-9a-f]{40}$/.test(sortKey) || !sortKey.endsWith(`#${wallet}`)) throw invalid();
  return { wallet, sortKey };
}

/**
 * GET /v1/listings/{listing_id}/ratings: a published listing's ratings, most recently written first,
 * `limit` per page (default 20, at most 100), continued with the `next_cursor` of the previous page.
 */
export async function listRatings(services: Pick<Services, "tables">, listingIdParam: string, query: { limit?: number; cursor?: string }): Promise<RatingsPage> {
  const { tables } = services;
  const onChainId = parseListingId(listingIdParam);
  const limit = query.limit ?? RATINGS_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > RATINGS_PAGE_MAX) throw new ApiError("invalid_request", `Invalid query: limit: must be an integer from 1 to ${RATINGS_PAGE_MAX}.`);
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const agent = await publishedAgent(tables, onChainId, listingIdParam);
  // One more than the page, to know whether another page follows.
  const items = await queryRatings(tables, onChainId, limit + 1, after);
  const page = items.slice(0, limit);
  const figures = figuresOf(agent);
  return {
    listing_id: toListingId(onChainId),
    rating: figures.rating,
    review_count: figures.review_count,
    ratings: page.map(publicRating),
    next_cursor: items.length > limit ? encodeCursor(page.at(-1)!) : null,
  };
}
