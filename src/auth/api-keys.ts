// API keys are stored only as a SHA-256 hash; the key itself is shown once, at creation.
import { createHash } from "node:crypto";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";

export const API_KEY_SHAPE = /^svc_(test|live)_[A-Za-z0-9]{20,64}$/;

export interface ApiKeyRecord {
  keyId: string;
  wallet: Address;
  label: string;
  prefix: string;
  createdAt: string;
  revokedAt?: string;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The key record for a presented key, or null when no such key exists. */
export async function findApiKey(tables: Tables, key: string): Promise<ApiKeyRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("keys"), Key: { pk: `hash#${hashApiKey(key)}`, sk: "key" } }));
  if (!out.Item) return null;
  const item = out.Item;
  return {
    keyId: item.key_id as string,
    wallet: item.wallet as Address,
    label: item.label as string,
    prefix: item.prefix as string,
    createdAt: item.created_at as string,
    ...(item.revoked_at ? { revokedAt: item.revoked_at as string } : {}),
  };
}
