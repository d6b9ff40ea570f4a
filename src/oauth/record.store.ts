// The `oauth` table: every record the authorization server keeps (oidc-provider's models: clients,
// authorization codes, access and refresh tokens, grants, interactions, sessions), one item each
// (docs/design/data-model.md). The item's key is the record's kind and the SHA-256 of its id, and the
// id itself is never stored: for codes and tokens the id *is* the secret a client presents, so a read
// of the table yields nothing that works. The record's payload is kept as JSON text beside the
// attributes the conditions and indexes need. Expiry is checked on every read (`expires_at`); `ttl`
// only reclaims space.
import { createHash } from "node:crypto";
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, queryAll, type Tables } from "../adapters/tables/dynamo.ts";

/** A record as oidc-provider reads and writes it. */
export type OAuthPayload = Record<string, unknown>;

/** The record's kind: oidc-provider's model name (`AuthorizationCode`, `RefreshToken`, `Grant`, …). */
export type OAuthKind = string;

export const hashId = (id: string) => createHash("sha256").update(id).digest("hex");
const keyOf = (kind: OAuthKind, id: string) => ({ pk: `${kind}#${hashId(id)}`, sk: "record" });
/** The index entry tying a code or token to its grant, so a grant's whole family is found at once. */
const grantFamily = (grantId: string) => `grant#${grantId}`;
/** The index entry listing a wallet's grants (Connected apps). */
const walletGrants = (wallet: string) => `wallet#${wallet.toLowerCase()}`;
const sessionByUid = (uid: string) => `session-uid#${uid}`;

interface OAuthItem {
  pk: string;
  sk: string;
  payload: string;
  expires_at?: number;
  consumed?: number;
  grant_id?: string;
  /** Set on grants by the consent that created them: what Connected apps shows. */
  app?: Record<string, unknown>;
  last_used_at?: string;
}

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

const nowSeconds = () => Math.floor(Date.now() / 1000);

function payloadOf(item: OAuthItem | undefined, id: string): OAuthPayload | undefined {
  if (!item) return undefined;
  // Expiry is the reader's job: the emulator never deletes, DynamoDB's TTL deletes late.
  if (item.expires_at !== undefined && item.expires_at <= nowSeconds()) return undefined;
  const payload = JSON.parse(item.payload) as OAuthPayload & { __jti?: true };
  const { __jti, ...rest } = payload;
  return { ...rest, ...(__jti ? { jti: id } : {}), ...(item.consumed !== undefined ? { consumed: item.consumed } : {}) };
}

/**
 * Writes a record. An update that sets the payload, its expiry and its index entries, and leaves what
 * others set on the item (a consume, a grant's app and last use) as it was: oidc-provider saves some
 * records more than once.
 */
export async function upsertRecord(tables: Tables, kind: OAuthKind, id: string, payload: OAuthPayload, expiresIn?: number): Promise<void> {
  // The id (a token's or code's value for those kinds) is stored only as the key's hash.
  const { jti, consumed: _consumed, ...rest } = payload;
  const stored = { ...rest, ...(jti === id ? { __jti: true } : jti !== undefined ? { jti } : {}) };
  const expiresAt = expiresIn !== undefined ? nowSeconds() + expiresIn : undefined;
  const grantId = typeof payload.grantId === "string" ? payload.grantId : undefined;
  const values: Record<string, unknown> = { ":payload": JSON.stringify(stored) };
  const sets = ["payload = :payload"];
  if (expiresAt !== undefined) {
    sets.push("expires_at = :exp", "#ttl = :exp");
    values[":exp"] = expiresAt;
  }
  let index: { gsi1pk: string; gsi1sk: string } | undefined;
  if (kind === "Grant" && typeof payload.accountId === "string") {
    index = { gsi1pk: walletGrants(payload.accountId), gsi1sk: `grant#${String(payload.iat ?? 0).padStart(12, "0")}#${id}` };
    sets.push("grant_id = :gid");
    values[":gid"] = id;
  } else if (kind === "Session" && typeof payload.uid === "string") {
    index = { gsi1pk: sessionByUid(payload.uid), gsi1sk: "session" };
  } else if (grantId !== undefined) {
    index = { gsi1pk: grantFamily(grantId), gsi1sk: `${kind}#${hashId(id)}` };
    sets.push("grant_id = :gid");
    values[":gid"] = grantId;
  }
  if (index) {
    sets.push("gsi1pk = :g1pk", "gsi1sk = :g1sk");
    values[":g1pk"] = index.gsi1pk;
    values[":g1sk"] = index.gsi1sk;
  }
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("oauth"),
      Key: keyOf(kind, id),
      UpdateExpression: `SET ${sets.join(", ")}`,
      ...(expiresAt !== undefined ? { ExpressionAttributeNames: { "#ttl": "ttl" } } : {}),
      ExpressionAttributeValues: values,
    }),
  );
}

/** The record, or undefined when there is none or it has expired. Strongly consistent: a revocation or
 * a consume counts at once. */
export async function findRecord(tables: Tables, kind: OAuthKind, id: string): Promise<OAuthPayload | undefined> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("oauth"), Key: keyOf(kind, id), ConsistentRead: true }));
  return payloadOf(out.Item as OAuthItem | undefined, id);
}

/** A session by its uid (oidc-provider's findByUid). */
export async function findSessionByUid(tables: Tables, uid: string): Promise<OAuthPayload | undefined> {
  const out = await tables.doc.send(
    new QueryCommand({ TableName: tables.name("oauth"), IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :pk", ExpressionAttributeValues: { ":pk": sessionByUid(uid) }, Limit: 1 }),
  );
  const item = out.Items?.[0] as OAuthItem | undefined;
  if (!item) return undefined;
  const payload = JSON.parse(item.payload) as { __jti?: true; jti?: string };
  // The session's id is its cookie value, kept only hashed: a session found by uid has no usable id.
  return payloadOf(item, payload.jti ?? "");
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

export async function destroyRecord(tables: Tables, kind: OAuthKind, id: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("oauth"), Key: keyOf(kind, id) }));
}

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
export async function describeGrant(tables: Tables, grantId: string, app: ConnectedAppInfo): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("oauth"),
      Key: keyOf("Grant", grantId),
      UpdateExpression: "SET app = :app",
      // Never recreate a grant revoked in the meantime as a stub.
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":app": app },
    }),
  );
}

/** Records a use of a grant's token, in the background; a failure is ignored (the next use retries). */
export function touchGrant(tables: Tables, grantId: string, at: string): void {
  void tables.doc
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
    return payload && item.grant_id ? [{ grant_id: item.grant_id, payload, app: item.app as ConnectedAppInfo | undefined, last_used_at: item.last_used_at }] : [];
  });
}

/** A grant with what Connected apps keeps on it, or undefined. */
export async function getGrant(tables: Tables, grantId: string): Promise<StoredGrant | undefined> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("oauth"), Key: keyOf("Grant", grantId), ConsistentRead: true }));
  const item = out.Item as OAuthItem | undefined;
  const payload = payloadOf(item, grantId);
  return item && payload ? { grant_id: grantId, payload, app: item.app as ConnectedAppInfo | undefined, last_used_at: item.last_used_at } : undefined;
}
