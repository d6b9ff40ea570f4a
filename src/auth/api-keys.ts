// API keys: created by a wallet (a signature over a server-issued message naming the label, so a
// stolen JWT alone cannot mint keys), shown once, stored only as a SHA-256 hash, listed and revoked by
// their owner. A key never expires; a revoked key fails on its next request.
import { createHash, randomBytes, randomInt } from "node:crypto";
import { getAddress, type Address, type Hex } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { ApiError } from "../errors.ts";
import { verifyWalletSignature } from "./signatures.ts";
import { getKeyRequest, putKeyRequest, takeKeyRequest } from "./challenge.store.ts";
import { getKeyByHash, getKeyById, listKeysOf, putKey, revokeKey, setKeySpendLimits, touchKey, type StoredApiKey } from "./key.store.ts";
import { storedSpendLimits, type SpendLimit } from "../execution/money/spend-limits.ts";

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
  /** What the key may spend (money/spend-limits.ts); [] when unlimited. */
  spendLimits: SpendLimit[];
}

/** The public view of a key (never the key itself). */
export interface ApiKeyView {
  key_id: string;
  label: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
  /** The key's limits (the API adds each one's current spending: api/spending.ts). */
  spend_limits: SpendLimit[];
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}


function toRecord(item: StoredApiKey): ApiKeyRecord {
  return {
    keyId: item.key_id,
    wallet: item.wallet as Address,
    label: item.label,
    prefix: item.prefix,
    createdAt: item.created_at,
    ...(item.last_used_at ? { lastUsedAt: item.last_used_at } : {}),
    ...(item.revoked_at ? { revokedAt: item.revoked_at } : {}),
    spendLimits: storedSpendLimits(item.spend_limits),
  };
}

export function toView(record: ApiKeyRecord): ApiKeyView {
  return { key_id: record.keyId, label: record.label, prefix: record.prefix, created_at: record.createdAt, last_used_at: record.lastUsedAt ?? null, revoked: record.revokedAt !== undefined, spend_limits: record.spendLimits };
}

/** The key record for a presented key, or null when no such key exists. One strongly consistent read. */
export async function findApiKey(tables: Tables, key: string): Promise<ApiKeyRecord | null> {
  const item = await getKeyByHash(tables, hashApiKey(key));
  return item ? toRecord(item) : null;
}

/** Records a use of the key, at most once a minute, without delaying the request: on the hash item
 * (read by authentication, so the throttle sees it) and on the id item (read by the owner's list). */
export function touchApiKey(tables: Tables, key: string, record: ApiKeyRecord, now = new Date()): void {
  if (record.lastUsedAt && now.getTime() - Date.parse(record.lastUsedAt) < TOUCH_INTERVAL_MS) return;
  touchKey(tables, { hash: hashApiKey(key), key_id: record.keyId }, now.toISOString());
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
  await putKeyRequest(tables, { nonce, wallet, label: keyLabel, message, expires_at });
  return { nonce, message, label: keyLabel, expires_at };
}

/** Step two: the signed message is exchanged, once, for a new key. */
export async function createApiKey(
  deps: { tables: Tables; chain: ChainClient; keyPrefix: string },
  wallet: Address,
  request: { nonce: string; signature: Hex; spendLimits?: SpendLimit[] },
  now = new Date(),
): Promise<ApiKeyView & { key: string }> {
  const { tables } = deps;
  const item = await getKeyRequest(tables, request.nonce);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!item || item.wallet !== wallet.toLowerCase() || item.expires_at < nowSeconds) {
    throw new ApiError("invalid_signature", "The key request is unknown, expired, already used, or belongs to another wallet; request a new one.");
  }
  if (!(await verifyWalletSignature(deps.chain, wallet, item.message, request.signature))) {
    throw new ApiError("invalid_signature", "The signature does not verify for this wallet and key request.");
  }
  if (!(await takeKeyRequest(tables, request.nonce, wallet))) throw new ApiError("invalid_signature", "The key request was already used; request a new one.");

  let secret = "";
  for (let i = 0; i < 40; i++) secret += BASE62[randomInt(BASE62.length)];
  const key = `${deps.keyPrefix}${secret}`;
  const keyId = `key_${randomBytes(10).toString("hex")}`;
  const spendLimits = request.spendLimits ?? [];
  const record: ApiKeyRecord = { keyId, wallet: getAddress(wallet), label: item.label, prefix: `${key.slice(0, deps.keyPrefix.length + 4)}…`, createdAt: now.toISOString(), spendLimits };
  const hash = hashApiKey(key);
  await putKey(tables, { key_id: keyId, wallet: record.wallet, label: record.label, prefix: record.prefix, created_at: record.createdAt, hash, ...(spendLimits.length > 0 ? { spend_limits: spendLimits } : {}) });
  return { ...toView(record), key };
}

/** The wallet's keys, newest first. */
export async function listApiKeys(tables: Tables, wallet: Address): Promise<ApiKeyView[]> {
  return (await listKeysOf(tables, wallet)).map((item) => toView(toRecord(item)));
}

/** The wallet's key `keyId`, or 404 not_found (another wallet's key is not found either). */
async function ownKey(tables: Tables, wallet: Address, keyId: string): Promise<StoredApiKey> {
  const item = /^key_[0-9a-f]{20}$/.test(keyId) ? await getKeyById(tables, keyId) : null;
  if (!item || item.wallet.toLowerCase() !== wallet.toLowerCase()) throw new ApiError("not_found", `No API key ${keyId} for this wallet.`);
  return item;
}

/** Replaces the spending limits of one of the wallet's keys (a revoked key's too: harmless). Counts
 * from the next admission; runs in flight keep what they hold. */
export async function setApiKeySpendLimits(tables: Tables, wallet: Address, keyId: string, spendLimits: SpendLimit[]): Promise<ApiKeyView> {
  const item = await ownKey(tables, wallet, keyId);
  await setKeySpendLimits(tables, item, spendLimits);
  return toView({ ...toRecord(item), spendLimits });
}

/** Revokes one of the wallet's keys. Another wallet's key, or none, is not found. Idempotent. */
export async function revokeApiKey(tables: Tables, wallet: Address, keyId: string, now = new Date()): Promise<ApiKeyView> {
  const item = await ownKey(tables, wallet, keyId);
  const revokedAt = item.revoked_at ?? now.toISOString();
  await revokeKey(tables, item, revokedAt);
  return toView({ ...toRecord(item), revokedAt });
}
