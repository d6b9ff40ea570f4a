// The `keys` table: every API key is stored twice, never in clear (docs/design/data-model.md). The
// hash item (`hash#<sha256>`) is what authentication reads; the id item (`id#<key_id>`, indexed by
// wallet on gsi1) is what its owner lists and revokes. Both carry the same fields.
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { queryAll, type Tables } from "../adapters/tables/dynamo.ts";

export interface StoredApiKey {
  key_id: string;
  wallet: string;
  label: string;
  prefix: string;
  created_at: string;
  /** SHA-256 of the key, hex. */
  hash: string;
  last_used_at?: string;
  revoked_at?: string;
  /** The key's spending limits (money/spend-limits.ts), as set at creation or changed since. */
  spend_limits?: unknown;
}

const byHash = (hash: string) => ({ pk: `hash#${hash}`, sk: "key" });
const byId = (keyId: string) => ({ pk: `id#${keyId}`, sk: "key" });
const walletIndex = (wallet: string) => `wallet#${wallet.toLowerCase()}`;

/** The key with this hash, or null. One strongly consistent read: a revocation counts at once. */
export async function getKeyByHash(tables: Tables, hash: string): Promise<StoredApiKey | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("keys"), Key: byHash(hash), ConsistentRead: true }));
  return (out.Item as StoredApiKey | undefined) ?? null;
}

export async function getKeyById(tables: Tables, keyId: string): Promise<StoredApiKey | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("keys"), Key: byId(keyId), ConsistentRead: true }));
  return (out.Item as StoredApiKey | undefined) ?? null;
}

/** Stores a new key: the id item first, then the hash item that authenticates, so a key that
 * authenticates is always in its owner's list. */
export async function putKey(tables: Tables, key: StoredApiKey): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("keys"), Item: { ...byId(key.key_id), ...key, gsi1pk: walletIndex(key.wallet), gsi1sk: `key#${key.created_at}#${key.key_id}` } }));
  await tables.doc.send(new PutCommand({ TableName: tables.name("keys"), Item: { ...byHash(key.hash), ...key } }));
}

/** Records a use on both items, in the background; a failure is ignored (the next use retries). */
export function touchKey(tables: Tables, key: Pick<StoredApiKey, "hash" | "key_id">, at: string): void {
  for (const itemKey of [byHash(key.hash), byId(key.key_id)]) {
    void tables.doc
      .send(
        new UpdateCommand({
          TableName: tables.name("keys"),
          Key: itemKey,
          UpdateExpression: "SET last_used_at = :now",
          // Never recreate an item that is gone as a stub holding only last_used_at.
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeValues: { ":now": at },
        }),
      )
      .catch(() => {});
  }
}

/** The wallet's keys (id items), newest first. */
export async function listKeysOf(tables: Tables, wallet: string): Promise<StoredApiKey[]> {
  return queryAll<StoredApiKey>(tables, {
    TableName: tables.name("keys"),
    IndexName: "gsi1",
    KeyConditionExpression: "gsi1pk = :w AND begins_with(gsi1sk, :k)",
    ExpressionAttributeValues: { ":w": walletIndex(wallet), ":k": "key#" },
    ScanIndexForward: false,
  });
}

/** Marks the key revoked at `at`, keeping an earlier revocation's time (idempotent). The hash item,
 * which decides authentication, first. */
export async function revokeKey(tables: Tables, key: Pick<StoredApiKey, "hash" | "key_id">, at: string): Promise<void> {
  for (const itemKey of [byHash(key.hash), byId(key.key_id)]) {
    await tables.doc.send(
      new UpdateCommand({ TableName: tables.name("keys"), Key: itemKey, UpdateExpression: "SET revoked_at = if_not_exists(revoked_at, :t)", ExpressionAttributeValues: { ":t": at } }),
    );
  }
}

/** Replaces the key's spending limits on both items, the hash item (read by authentication) first.
 * Never recreates a key item that is gone. */
export async function setKeySpendLimits(tables: Tables, key: Pick<StoredApiKey, "hash" | "key_id">, limits: unknown[]): Promise<void> {
  for (const itemKey of [byHash(key.hash), byId(key.key_id)]) {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("keys"),
        Key: itemKey,
        UpdateExpression: "SET spend_limits = :limits",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":limits": limits },
      }),
    );
  }
}
