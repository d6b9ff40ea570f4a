// Listing reviews (beta): a registered agent stays out of search until the protocol authority approves
// it; a rejection carries a reason the creator reads on their listing. Pending reviews are kept as
// small queue items (pk listing-review#pending) so the reviewer lists them with one query.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { AgentNotFoundError, deleteReviewEntry, listReviewEntries, putReviewEntry, setAgentReview } from "./listing.store.ts";
import { ApiError } from "../errors.ts";
import { parseListingId, toListingId } from "./ids.ts";
import type { ReviewStatus } from "@agent-rental/core/vocabulary";

/** Puts a newly registered agent in the review queue (idempotent). */
export async function enqueueListingReview(tables: Tables, listingId: string, createdAt: string): Promise<void> {
  await putReviewEntry(tables, listingId, createdAt);
}

export async function listPendingListingReviews(tables: Tables): Promise<{ listing_id: string; created_at: string }[]> {
  return listReviewEntries(tables);
}

export async function reviewListing(tables: Tables, listingIdParam: string, decision: "approve" | "reject", reason: string | undefined): Promise<{ listing_id: string; review_status: ReviewStatus; review_reason: string | null }> {
  if (decision === "reject" && !reason?.trim()) throw new ApiError("invalid_request", "A rejection needs a reason the creator can read.");
  const onChainId = parseListingId(listingIdParam);
  const status: ReviewStatus = decision === "approve" ? "approved" : "rejected";
  const now = new Date().toISOString();
  let createdAt: string;
  try {
    createdAt = (await setAgentReview(tables, onChainId, status, reason?.trim() || null, now)).created_at;
  } catch (error) {
    if (error instanceof AgentNotFoundError) throw new ApiError("listing_not_found", `No registered agent for listing ${listingIdParam}.`);
    throw error;
  }
  await deleteReviewEntry(tables, toListingId(onChainId), createdAt);
  return { listing_id: toListingId(onChainId), review_status: status, review_reason: reason?.trim() || null };
}
