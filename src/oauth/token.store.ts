// Codes and refresh tokens of the `oauth` table (record.store.ts holds their items): each is used once.
// The condition that makes it so is this store's; what a second use means (the grant revoked) is the
// adapter's (adapter.ts).
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, type Tables } from "../adapters/tables/dynamo.ts";
import { keyOf, nowSeconds, type OAuthItem, type OAuthKind } from "./record.store.ts";

/** A consume refused because the record was consumed before: a replayed code or a reused refresh token. */
export class AlreadyConsumedError extends Error {
  override readonly name = "AlreadyConsumedError";
  constructor(
    readonly kind: OAuthKind,
    /** The grant the record belongs to, whose whole family is then revoked. */
    readonly grantId: string | undefined,
  ) {
    super(`${kind} already consumed`);
  }
}

/**
 * Marks a code or refresh token used, once: the condition (the record exists, unexpired, and was never
 * consumed) makes two presentations of one code, or two refreshes racing with one refresh token, end
 * with exactly one winner. The loser gets AlreadyConsumedError carrying the grant.
 */
export async function consumeRecord(tables: Tables, kind: OAuthKind, id: string): Promise<void> {
  const ok = await applied(
    tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("oauth"),
        Key: keyOf(kind, id),
        UpdateExpression: "SET #consumed = :now",
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(#consumed)",
        ExpressionAttributeNames: { "#consumed": "consumed" },
        ExpressionAttributeValues: { ":now": nowSeconds() },
      }),
    ),
  );
  if (ok) return;
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("oauth"), Key: keyOf(kind, id), ConsistentRead: true }));
  throw new AlreadyConsumedError(kind, (out.Item as OAuthItem | undefined)?.grant_id);
}

