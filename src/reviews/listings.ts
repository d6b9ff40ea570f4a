// Listing reviews (beta): a registered agent stays out of search until the protocol authority approves
// it; a rejection carries a reason the creator reads on their listing. Pending reviews are kept as
// small queue items (pk listing-review#pending) so the reviewer lists them with one query.
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import { ApiError } from "../errors.ts";
import { parseListingId, toListingId } from "../credentials/ids.ts";
import type { ReviewStatus } from "./creators.ts";

export const agentKey = (onChainId: string) => ({ pk: `listing#${onChainId.toLowerCase()}`, sk: "agent" });

/** Puts a newly registered agent in the review queue (idempotent). */
export async function enqueueListingReview(tables: Tables, listingId: string, createdAt: string): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("listings"), Item: { pk: "listing-review#pending", sk: `${createdAt}#${listingId}`, listing_id: listingId, created_at: createdAt } }));
}

export async function listPendingListingReviews(tables: Tables): Promise<{ listing_id: string; created_at: string }[]> {
  const out = await tables.doc.send(new QueryCommand({ TableName: tables.name("listings"), KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": "listing-review#pending" }, Limit: 100 }));
  return (out.Items ?? []).map((i) => ({ listing_id: i.listing_id as string, created_at: i.created_at as string }));
}

export async function reviewListing(tables: Tables, listingIdParam: string, decision: "approve" | "reject", reason: string | undefined): Promise<{ listing_id: string; review_status: ReviewStatus; review_reason: string | null }> {
  if (decision === "reject" && !reason?.trim()) throw new ApiError("invalid_request", "A rejection needs a reason the creator can read.");
  const onChainId = parseListingId(listingIdParam);
  const status: ReviewStatus = decision === "approve" ? "approved" : "rejected";
  const now = new Date().toISOString();
  let createdAt: string;
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("listings"),
        Key: agentKey(onChainId),
        // The first approval is the listing's first publication (published_at); it is kept for good.
        UpdateExpression: `SET review_status = :s, review_reason = :r, reviewed_at = :now${status === "approved" ? ", approved_at = if_not_exists(approved_at, :now)" : ""}`,
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":s": status, ":r": reason?.trim() || null, ":now": now },
        ReturnValues: "ALL_NEW",
      }),
    );
    createdAt = out.Attributes!.created_at as string;
  } catch (error) {
    if (isConditionalCheckFailure(error)) {
      throw new ApiError("listing_not_found", `No registered agent for listing ${listingIdParam}.`);
    }
    throw error;
  }
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("listings"), Key: { pk: "listing-review#pending", sk: `${createdAt}#${toListingId(onChainId)}` } }));
  return { listing_id: toListingId(onChainId), review_status: status, review_reason: reason?.trim() || null };
}
