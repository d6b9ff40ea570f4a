// Demo data of the local stack, so a newcomer can call the API right after starting: an API key for
// the first renter account, created through the real flow (a key request signed by the wallet) and
// kept in the data folder so it survives restarts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import type { Services } from "../src/services.ts";
import { createApiKey, findApiKey, requestApiKey } from "../src/auth/api-keys.ts";

export interface DemoData {
  renter: string;
  api_key: string;
}

export async function ensureDemoData(services: Services, dataDir: string, renterPrivateKey: Hex): Promise<DemoData> {
  const file = join(dataDir, "demo.json");
  const renter = privateKeyToAccount(renterPrivateKey);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as DemoData;
    const record = await findApiKey(services.tables, saved.api_key);
    if (record && !record.revokedAt && saved.renter === renter.address) return saved;
  }
  const request = await requestApiKey(services.tables, services.config.SERVICE_NAME, renter.address, "local demo");
  const signature = await renter.signMessage({ message: request.message });
  const created = await createApiKey({ tables: services.tables, chain: services.chain, keyPrefix: services.config.keyPrefix }, renter.address, { nonce: request.nonce, signature });
  const demo: DemoData = { renter: renter.address, api_key: created.key };
  writeFileSync(file, JSON.stringify(demo, null, 2) + "\n", { mode: 0o600 });
  return demo;
}
