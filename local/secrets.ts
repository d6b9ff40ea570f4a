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
}

export function ensureLocalSecrets(dataDir: string): LocalSecrets {
  const path = join(dataDir, "secrets.json");
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as LocalSecrets;
  const secrets: LocalSecrets = { masterKey: randomBytes(32).toString("base64"), jwtSigningKeys: [generateSigningKey()] };
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
