// Creator profiles, in the `listings` table under `creator#<wallet>` / `profile`
// (docs/design/data-model.md). A profile sits in gsi1 under `creator-review#<status>`, sorted by the
// time it was applied or reviewed, so the reviewer lists each status with one query.
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { batchGet, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import type { ReviewStatus } from "@agent-rental/core/vocabulary";

/** A creator application and its review, as stored. */
export interface CreatorProfile {
  wallet: string;
  display_name: string;
  status: ReviewStatus;
  reason: string | null;
  applied_at: string;
  reviewed_at: string | null;
}

const key = (wallet: string) => ({ pk: `creator#${wallet.toLowerCase()}`, sk: "profile" });
const reviewIndex = (status: ReviewStatus, at: string, wallet: string) => ({ gsi1pk: `creator-review#${status}`, gsi1sk: `${at}#${wallet.toLowerCase()}` });

/** The application was refused because the wallet's creator is already approved; `profile` is the
 * approved profile as it stands. */
export class CreatorAlreadyApprovedError extends Error {
  constructor(readonly profile: CreatorProfile) {
    super(`creator ${profile.wallet} is already approved`);
    this.name = "CreatorAlreadyApprovedError";
  }
}

/** No creator application from the wallet. */
export class CreatorNotFoundError extends Error {
  constructor(readonly wallet: string) {
    super(`no creator application from ${wallet}`);
    this.name = "CreatorNotFoundError";
  }
}

function toProfile(item: Record<string, unknown>): CreatorProfile {
  return {
    wallet: item.wallet as string,
    display_name: item.display_name as string,
    status: item.status as ReviewStatus,
    reason: (item.reason as string | undefined) ?? null,
    applied_at: item.applied_at as string,
    reviewed_at: (item.reviewed_at as string | undefined) ?? null,
  };
}

export async function getCreatorProfile(tables: Tables, wallet: string): Promise<CreatorProfile | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("listings"), Key: key(wallet), ConsistentRead: true }));
  return out.Item ? toProfile(out.Item) : null;
}

/** Display names by lower-case wallet, for the wallets that have a profile (any status). */
export async function getCreatorNames(tables: Tables, wallets: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(wallets.map((w) => w.toLowerCase()))];
  const items = await batchGet(tables, "listings", unique.map(key), { projection: "wallet, display_name" });
  return new Map(items.map((item) => [item.wallet as string, item.display_name as string]));
}

/** Writes a pending application. Throws CreatorAlreadyApprovedError for an approved creator. */
export async function putCreatorApplication(tables: Tables, wallet: string, displayName: string, appliedAt: string): Promise<void> {
  try {
    await tables.doc.send(
      new PutCommand({
        TableName: tables.name("listings"),
        Item: { ...key(wallet), wallet: wallet.toLowerCase(), display_name: displayName, status: "pending", applied_at: appliedAt, ...reviewIndex("pending", appliedAt, wallet) },
        // A new or rejected creator may apply (again); an approved creator's profile is never
        // overwritten by an application (it would take away the approval).
        ConditionExpression: "attribute_not_exists(pk) OR #status <> :approved",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":approved": "approved" },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    const profile = await getCreatorProfile(tables, wallet);
    // The condition failed, so the profile exists (profiles are never deleted).
    throw new CreatorAlreadyApprovedError(profile!);
  }
}

export async function listCreatorProfiles(tables: Tables, status: ReviewStatus): Promise<CreatorProfile[]> {
  const out = await tables.doc.send(
    new QueryCommand({ TableName: tables.name("listings"), IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :p", ExpressionAttributeValues: { ":p": `creator-review#${status}` }, Limit: 100 }),
  );
  return (out.Items ?? []).map(toProfile);
}

/** Records the reviewer's decision. Throws CreatorNotFoundError when the wallet never applied. */
export async function setCreatorReview(tables: Tables, wallet: string, status: ReviewStatus, reason: string | null, reviewedAt: string): Promise<void> {
  const index = reviewIndex(status, reviewedAt, wallet);
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("listings"),
        Key: key(wallet),
        UpdateExpression: "SET #status = :status, reason = :reason, reviewed_at = :now, gsi1pk = :g1, gsi1sk = :g2",
        // A decision needs an application: never create a profile without a display name.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":status": status, ":reason": reason, ":now": reviewedAt, ":g1": index.gsi1pk, ":g2": index.gsi1sk },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new CreatorNotFoundError(wallet);
    throw error;
  }
}
