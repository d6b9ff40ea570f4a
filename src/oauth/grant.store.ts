// Grants (a person's approval of an app) of the `oauth` table (record.store.ts holds their items): the
// wallet's list (Connected apps), what the consent notes about the app, its last use, and revoking it with
// every code and token issued under it.
import { DeleteCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, queryAll, type Tables } from "../adapters/tables/dynamo.ts";
import { destroyRecord, grantFamily, keyOf, payloadOf, walletGrants, type OAuthItem, type OAuthPayload } from "./record.store.ts";

/**
 * Revokes a grant and everything issued under it: its codes, access tokens and refresh tokens, then the
 * grant itself. The family's items are deleted before the grant, so a token never outlives the grant
 * that lists it; a token issued while this runs is deleted by the grant's absence (tokens are checked
 * against their grant on use: src/oauth/server.ts).
 */
export async function revokeGrantFamily(tables: Tables, grantId: string): Promise<void> {
  const family = await queryAll<OAuthItem>(tables, {
    TableName: tables.name("oauth"),
    IndexName: "gsi1",
    KeyConditionExpression: "gsi1pk = :pk",
    ExpressionAttributeValues: { ":pk": grantFamily(grantId) },
    ProjectionExpression: "pk, sk",
  });
  await Promise.all(family.map((item) => tables.doc.send(new DeleteCommand({ TableName: tables.name("oauth"), Key: { pk: item.pk, sk: item.sk } }))));
  await destroyRecord(tables, "Grant", grantId);
}

/** What the Connected apps page shows of an app, kept on its grant when the person approved it. */
export interface ConnectedAppInfo {
  client_id: string;
  client_name: string;
  client_kind: "metadata_document" | "registered";
  redirect_host: string;
}

/** Notes on a grant which app it is for (set by the consent, before the grant is used). */
export async function describeGrant(tables: Tables, grantId: string, app: ConnectedAppInfo, spendLimits: unknown[] = []): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("oauth"),
      Key: keyOf("Grant", grantId),
      UpdateExpression: "SET app = :app, spend_limits = :limits",
      // Never recreate a grant revoked in the meantime as a stub.
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":app": app, ":limits": spendLimits },
    }),
  );
}

/** Replaces an app's spending limits. False when the grant is gone. */
export async function setGrantSpendLimits(tables: Tables, grantId: string, spendLimits: unknown[]): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("oauth"),
      Key: keyOf("Grant", grantId),
      UpdateExpression: "SET spend_limits = :limits",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":limits": spendLimits },
    }),
  ));
}

/** Records a use of a grant's token; a failure is ignored (the next use retries). Awaited by the caller:
 * on Lambda nothing runs once the answer is sent, so a write left in the background may never happen. */
export async function touchGrant(tables: Tables, grantId: string, at: string): Promise<void> {
  await tables.doc
    .send(
      new UpdateCommand({
        TableName: tables.name("oauth"),
        Key: keyOf("Grant", grantId),
        UpdateExpression: "SET last_used_at = :now",
        // A revoked grant stays gone.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":now": at },
      }),
    )
    .catch(() => {});
}

export interface StoredGrant {
  grant_id: string;
  payload: OAuthPayload;
  app: ConnectedAppInfo | undefined;
  last_used_at: string | undefined;
  /** The app's spending limits, as the person set them (money/spend-limits.ts). */
  spend_limits: unknown;
}

/** A wallet's unexpired grants, oldest first. */
export async function listGrantsOf(tables: Tables, wallet: string): Promise<StoredGrant[]> {
  const items = await queryAll<OAuthItem>(tables, {
    TableName: tables.name("oauth"),
    IndexName: "gsi1",
    KeyConditionExpression: "gsi1pk = :pk",
    ExpressionAttributeValues: { ":pk": walletGrants(wallet) },
  });
  return items.flatMap((item) => {
    const payload = item.grant_id ? payloadOf(item, item.grant_id) : undefined;
    return payload && item.grant_id ? [{ grant_id: item.grant_id, payload, app: item.app as ConnectedAppInfo | undefined, last_used_at: item.last_used_at, spend_limits: item.spend_limits }] : [];
  });
}

/** A grant with what Connected apps keeps on it, or undefined. */
export async function getGrant(tables: Tables, grantId: string): Promise<StoredGrant | undefined> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("oauth"), Key: keyOf("Grant", grantId), ConsistentRead: true }));
  const item = out.Item as OAuthItem | undefined;
  const payload = payloadOf(item, grantId);
  return item && payload ? { grant_id: grantId, payload, app: item.app as ConnectedAppInfo | undefined, last_used_at: item.last_used_at, spend_limits: item.spend_limits } : undefined;
}
