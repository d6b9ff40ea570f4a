// The `oauth` table: every record the authorization server keeps (oidc-provider's models: clients,
// authorization codes, access and refresh tokens, grants, interactions, sessions), one item each
// (docs/design/data-model.md). This store writes and reads any kind's item; what only some kinds do has
// its own store: using a code or refresh token once (token.store.ts), a grant's index, description, use
// and revocation (grant.store.ts). The item's key is the record's kind and the SHA-256 of its id, and the
// id itself is never stored: for codes and tokens the id *is* the secret a client presents, so a read
// of the table yields nothing that works. The record's payload is kept as JSON text beside the
// attributes the conditions and indexes need. Expiry is checked on every read (`expires_at`); `ttl`
// only reclaims space.
import { createHash } from "node:crypto";
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Tables } from "../adapters/tables/dynamo.ts";

/** A record as oidc-provider reads and writes it. */
export type OAuthPayload = Record<string, unknown>;

/** The record's kind: oidc-provider's model name (`AuthorizationCode`, `RefreshToken`, `Grant`, …). */
export type OAuthKind = string;

export const hashId = (id: string) => createHash("sha256").update(id).digest("hex");
export const keyOf = (kind: OAuthKind, id: string) => ({ pk: `${kind}#${hashId(id)}`, sk: "record" });
/** The index entry tying a code or token to its grant, so a grant's whole family is found at once. */
export const grantFamily = (grantId: string) => `grant#${grantId}`;
/** The index entry listing a wallet's grants (Connected apps). */
export const walletGrants = (wallet: string) => `wallet#${wallet.toLowerCase()}`;
const sessionByUid = (uid: string) => `session-uid#${uid}`;

export interface OAuthItem {
  pk: string;
  sk: string;
  payload: string;
  expires_at?: number;
  consumed?: number;
  grant_id?: string;
  /** Set on grants by the consent that created them: what Connected apps shows. */
  app?: Record<string, unknown>;
  last_used_at?: string;
  /** Set on grants: the app's spending limits. */
  spend_limits?: unknown;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function payloadOf(item: OAuthItem | undefined, id: string): OAuthPayload | undefined {
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

export async function destroyRecord(tables: Tables, kind: OAuthKind, id: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("oauth"), Key: keyOf(kind, id) }));
}

