// API keys: created by a wallet (a signature over a server-issued message naming the label, so a
// stolen JWT alone cannot mint keys), shown once, stored only as a SHA-256 hash, listed and revoked by
// their owner. A key never expires; a revoked key fails on its next request.
import { createHash, randomBytes, randomInt } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { getAddress, type Address, type Hex } from "viem";
import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { ApiError } from "../errors.ts";
import { verifyWalletSignature } from "./signatures.ts";

export const API_KEY_SHAPE = /^svc_(test|live)_[A-Za-z0-9]{20,64}$/;
export const KEY_REQUEST_LIFETIME_SECONDS = 300;
/** last_used_at is refreshed at most this often, so authentication stays one read. */
const TOUCH_INTERVAL_MS = 60_000;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export interface ApiKeyRecord {
  keyId: string;
  wallet: Address;
  label: string;
  prefix: string;
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
}

/** The public view of a key (never the key itself). */
export interface ApiKeyView {
  key_id: string;
  label: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}


function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  return {
    keyId: item.key_id as string,
    wallet: item.wallet as Address,
    label: item.label as string,
    prefix: item.prefix as string,
    createdAt: item.created_at as string,
    ...(item.last_used_at ? { lastUsedAt: item.last_used_at as string } : {}),
    ...(item.revoked_at ? { revokedAt: item.revoked_at as string } : {}),
  };
}

export function toView(record: ApiKeyRecord): ApiKeyView {
  return { key_id: record.keyId, label: record.label, prefix: record.prefix, created_at: record.createdAt, last_used_at: record.lastUsedAt ?? null, revoked: record.revokedAt !== undefined };
}

/** The key record for a presented key, or null when no such key exists. One strongly consistent read. */
export async function findApiKey(tables: Tables, key: string): Promise<ApiKeyRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("keys"), Key: { pk: `hash#${hashApiKey(key)}`, sk: "key" }, ConsistentRead: true }));
  return out.Item ? toRecord(out.Item) : null;
}

/** Records a use of the key, at most once a minute, without delaying the request: on the hash item
 * (read by authentication, so the throttle sees it) and on the id item (read by the owner's list). */
export function touchApiKey(tables: Tables, key: string, record: ApiKeyRecord, now = new Date()): void {
  if (record.lastUsedAt && now.getTime() - Date.parse(record.lastUsedAt) < TOUCH_INTERVAL_MS) return;
  for (const pk of [`hash#${hashApiKey(key)}`, `id#${record.keyId}`]) {
    void tables.doc
      .send(
        new UpdateCommand({
          TableName: tables.name("keys"),
          Key: { pk, sk: "key" },
          UpdateExpression: "SET last_used_at = :now",
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeValues: { ":now": now.toISOString() },
        }),
      )
      .catch(() => {});
  }
}

function label(value: string): string {
  const trimmed = value.trim();
  if (!/^[^\u0000-\u001f\u007f]{1,64}$/.test(trimmed)) throw new ApiError("invalid_request", "label must be 1 to 64 printable characters.");
  return trimmed;
}

/** Step one: the server issues the message the wallet signs; it names the wallet and the label. */
export async function requestApiKey(tables: Tables, service: string, wallet: Address, rawLabel: string, now = Math.floor(Date.now() / 1000)) {
  const keyLabel = label(rawLabel);
  const nonce = randomBytes(16).toString("hex");
  const expires_at = now + KEY_REQUEST_LIFETIME_SECONDS;
  const message = [`${service}: create an API key`, `Wallet: ${getAddress(wallet)}`, `Label: ${keyLabel}`, `Nonce: ${nonce}`, `Expires: ${expires_at}`].join("\n");
  await tables.doc.send(
    new PutCommand({
      TableName: tables.name("challenges"),
      Item: { pk: `keyreq#${nonce}`, sk: "api_key", wallet: wallet.toLowerCase(), label: keyLabel, message, expires_at, ttl: expires_at + 3600 },
    }),
  );
  return { nonce, message, label: keyLabel, expires_at };
}

/** Step two: the signed message is exchanged, once, for a new key. */
export async function createApiKey(
  deps: { tables: Tables; chain: ChainClient; keyPrefix: string },
  wallet: Address,
  request: { nonce: string; signature: Hex },
  now = new Date(),
): Promise<ApiKeyView & { key: string }> {
  const { tables } = deps;
  const stored = await tables.doc.send(new GetCommand({ TableName: tables.name("challenges"), Key: { pk: `keyreq#${request.nonce}`, sk: "api_key" }, ConsistentRead: true }));
  const item = stored.Item;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!item || item.wallet !== wallet.toLowerCase() || (item.expires_at as number) < nowSeconds) {
    throw new ApiError("invalid_signature", "The key request is unknown, expired, already used, or belongs to another wallet; request a new one.");
  }
  if (!(await verifyWalletSignature(deps.chain, wallet, item.message as string, request.signature))) {
    throw new ApiError("invalid_signature", "The signature does not verify for this wallet and key request.");
  }
  try {
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.name("challenges"), Key: { pk: `keyreq#${request.nonce}`, sk: "api_key" }, ConditionExpression: "attribute_exists(pk) AND wallet = :w", ExpressionAttributeValues: { ":w": wallet.toLowerCase() } }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new ApiError("invalid_signature", "The key request was already used; request a new one.");
    throw error;
  }

  let secret = "";
  for (let i = 0; i < 40; i++) secret += BASE62[randomInt(BASE62.length)];
  const key = `${deps.keyPrefix}${secret}`;
  const keyId = `key_${randomBytes(10).toString("hex")}`;
  const record: ApiKeyRecord = { keyId, wallet: getAddress(wallet), label: item.label as string, prefix: `${key.slice(0, deps.keyPrefix.length + 4)}…`, createdAt: now.toISOString() };
  const hash = hashApiKey(key);
  const common = { key_id: keyId, wallet: record.wallet, label: record.label, prefix: record.prefix, created_at: record.createdAt, hash };
  // The id item (owner's list, revocation, last use) first, then the hash item that authenticates.
  await tables.doc.send(new PutCommand({ TableName: tables.name("keys"), Item: { pk: `id#${keyId}`, sk: "key", ...common, gsi1pk: `wallet#${wallet.toLowerCase()}`, gsi1sk: `key#${record.createdAt}#${keyId}` } }));
  await tables.doc.send(new PutCommand({ TableName: tables.name("keys"), Item: { pk: `hash#${hash}`, sk: "key", ...common } }));
  return { ...toView(record), key };
}

/** The wallet's keys, newest first. */
export async function listApiKeys(tables: Tables, wallet: Address): Promise<ApiKeyView[]> {
  const views: ApiKeyView[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(
      new QueryCommand({
        TableName: tables.name("keys"),
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :w AND begins_with(gsi1sk, :k)",
        ExpressionAttributeValues: { ":w": `wallet#${wallet.toLowerCase()}`, ":k": "key#" },
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) views.push(toView(toRecord(item)));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return views;
}

/** Revokes one of the wallet's keys. Another wallet's key, or none, is not found. Idempotent. */
export async function revokeApiKey(tables: Tables, wallet: Address, keyId: string, now = new Date()): Promise<ApiKeyView> {
  const found = /^key_[0-9a-f]{20}$/.test(keyId)
    ? await tables.doc.send(new GetCommand({ TableName: tables.name("keys"), Key: { pk: `id#${keyId}`, sk: "key" }, ConsistentRead: true }))
    : { Item: undefined };
  const item = found.Item;
  if (!item || (item.wallet as string).toLowerCase() !== wallet.toLowerCase()) throw new ApiError("not_found", `No API key ${keyId} for this wallet.`);
  const revokedAt = (item.revoked_at as string | undefined) ?? now.toISOString();
  // The hash item decides authentication: revoke it first.
  await tables.doc.send(
    new UpdateCommand({ TableName: tables.name("keys"), Key: { pk: `hash#${item.hash as string}`, sk: "key" }, UpdateExpression: "SET revoked_at = if_not_exists(revoked_at, :t)", ExpressionAttributeValues: { ":t": revokedAt } }),
  );
  await tables.doc.send(
    new UpdateCommand({ TableName: tables.name("keys"), Key: { pk: `id#${keyId}`, sk: "key" }, UpdateExpression: "SET revoked_at = if_not_exists(revoked_at, :t)", ExpressionAttributeValues: { ":t": revokedAt } }),
  );
  return toView({ ...toRecord(item), revokedAt });
}
