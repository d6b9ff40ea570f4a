// Creator applications (beta): a wallet applies with a display name; the protocol authority approves
// or rejects it with a reason; only approved creators may register agents. A rejected creator may
// apply again.
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import { ApiError } from "../errors.ts";

export type ReviewStatus = "pending" | "approved" | "rejected";

export interface CreatorProfile {
  wallet: string;
  display_name: string;
  status: ReviewStatus;
  reason: string | null;
  applied_at: string;
  reviewed_at: string | null;
}

const key = (wallet: string) => ({ pk: `creator#${wallet.toLowerCase()}`, sk: "profile" });

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

export async function getCreator(tables: Tables, wallet: string): Promise<CreatorProfile | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("listings"), Key: key(wallet), ConsistentRead: true }));
  return out.Item ? toProfile(out.Item) : null;
}

/** Applies (or applies again after a rejection). An approved creator's application stands. */
export async function applyAsCreator(tables: Tables, wallet: string, displayName: string): Promise<CreatorProfile> {
  const name = displayName.trim();
  if (!/^[^\u0000-\u001f\u007f]{2,64}$/.test(name)) throw new ApiError("invalid_request", "display_name must be 2 to 64 printable characters.");
  const now = new Date().toISOString();
  try {
    await tables.doc.send(
      new PutCommand({
        TableName: tables.name("listings"),
        Item: { ...key(wallet), wallet: wallet.toLowerCase(), display_name: name, status: "pending", applied_at: now, gsi1pk: "creator-review#pending", gsi1sk: `${now}#${wallet.toLowerCase()}` },
        ConditionExpression: "attribute_not_exists(pk) OR #status <> :approved",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":approved": "approved" },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) {
      return (await getCreator(tables, wallet))!;
    }
    throw error;
  }
  return (await getCreator(tables, wallet))!;
}

export async function listCreatorApplications(tables: Tables, status: ReviewStatus): Promise<CreatorProfile[]> {
  const out = await tables.doc.send(
    new QueryCommand({ TableName: tables.name("listings"), IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :p", ExpressionAttributeValues: { ":p": `creator-review#${status}` }, Limit: 100 }),
  );
  return (out.Items ?? []).map(toProfile);
}

export async function reviewCreator(tables: Tables, wallet: string, decision: "approve" | "reject", reason: string | undefined): Promise<CreatorProfile> {
  if (decision === "reject" && !reason?.trim()) throw new ApiError("invalid_request", "A rejection needs a reason the creator can read.");
  const status: ReviewStatus = decision === "approve" ? "approved" : "rejected";
  const now = new Date().toISOString();
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("listings"),
        Key: key(wallet),
        UpdateExpression: "SET #status = :status, reason = :reason, reviewed_at = :now, gsi1pk = :g1, gsi1sk = :g2",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: { ":status": status, ":reason": reason?.trim() || null, ":now": now, ":g1": `creator-review#${status}`, ":g2": `${now}#${wallet.toLowerCase()}` },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) {
      throw new ApiError("not_found", `No creator application from ${wallet}.`);
    }
    throw error;
  }
  return (await getCreator(tables, wallet))!;
}

/** Registration's gate: an approved creator, or a 403 that says what to do. */
export async function requireApprovedCreator(tables: Tables, wallet: string): Promise<CreatorProfile> {
  const profile = await getCreator(tables, wallet);
  if (profile?.status === "approved") return profile;
  const what =
    !profile
      ? "Apply first with POST /v1/creators."
      : profile.status === "pending"
        ? "Your creator application is pending review."
        : `Your creator application was rejected: ${profile.reason ?? "no reason given"}. You may apply again.`;
  throw new ApiError("creator_not_approved", `During the beta only reviewed creators register agents. ${what}`);
}
