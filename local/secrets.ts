// The local stand-in for the cloud's secrets (SST Secrets and KMS): a key file created on first start
// under the data folder, readable by its owner only, never committed.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes, generateKeyPairSync } from "node:crypto";
import { join } from "node:path";

export interface LocalSecrets {
  /** Master key that wraps per-listing data keys (envelope encryption), base64. */
  masterKey: string;
  /** JWT signing keys, newest first; each an EC P-256 private JWK with its kid. */
  jwtSigningKeys: { kid: string; privateJwk: Record<string, unknown> }[];
}

function newJwtKey(): LocalSecrets["jwtSigningKeys"][number] {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { kid: `k_${randomBytes(6).toString("hex")}`, privateJwk: privateKey.export({ format: "jwk" }) as Record<string, unknown> };
}

export function ensureLocalSecrets(dataDir: string): LocalSecrets {
  const path = join(dataDir, "secrets.json");
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as LocalSecrets;
  const secrets: LocalSecrets = { masterKey: randomBytes(32).toString("base64"), jwtSigningKeys: [newJwtKey()] };
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
