// The local stand-in for the cloud's secrets (SST Secrets and KMS): a key file created on first start
// under the data folder, readable by its owner only, never committed.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { generateSigningKey, type SigningKeyInput } from "../src/auth/jwt.ts";

export interface LocalSecrets {
  /** Master key that wraps per-listing data keys (envelope encryption), base64. */
  masterKey: string;
  /** JWT signing keys, newest first (the first signs; all verify, by kid). */
  jwtSigningKeys: SigningKeyInput[];
  /** A2A Agent Card signing keys, newest first (the first signs; all are published as the JWKS). Added to
   * a key file written before the keys existed. */
  cardSigningKeys: SigningKeyInput[];
  /** The OAuth authorization server's keys, newest first (its cookies' keys derive from them). Added to a
   * key file written before they existed. */
  oauthSigningKeys: SigningKeyInput[];
}

export function ensureLocalSecrets(dataDir: string): LocalSecrets {
  const path = join(dataDir, "secrets.json");
  if (existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, "utf8")) as Partial<LocalSecrets> & Omit<LocalSecrets, "cardSigningKeys" | "oauthSigningKeys">;
    if (stored.cardSigningKeys?.length && stored.oauthSigningKeys?.length) return stored as LocalSecrets;
    const upgraded: LocalSecrets = { ...stored, cardSigningKeys: stored.cardSigningKeys?.length ? stored.cardSigningKeys : [generateSigningKey()], oauthSigningKeys: stored.oauthSigningKeys?.length ? stored.oauthSigningKeys : [generateSigningKey()] };
    writeFileSync(path, JSON.stringify(upgraded, null, 2), { mode: 0o600 });
    return upgraded;
  }
  const secrets: LocalSecrets = { masterKey: randomBytes(32).toString("base64"), jwtSigningKeys: [generateSigningKey()], cardSigningKeys: [generateSigningKey()], oauthSigningKeys: [generateSigningKey()] };
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
