// Health of the API's dependencies, each probed with a short timeout.
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { Services } from "./services.ts";

export interface Health {
  status: "ok" | "degraded";
  chain_id: number;
  marketplace: string;
  checks: { tables: boolean; chain: boolean };
}

async function probe(run: () => Promise<unknown>): Promise<boolean> {
  try {
    await Promise.race([run(), new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2_000).unref())]);
    return true;
  } catch {
    return false;
  }
}

export async function checkHealth(services: Services): Promise<Health> {
  const [tables, chain] = await Promise.all([
    probe(() => services.tables.raw.send(new DescribeTableCommand({ TableName: services.tables.name("meta") }))),
    probe(() => services.chain.client.getChainId()),
  ]);
  return {
    status: tables && chain ? "ok" : "degraded",
    chain_id: services.config.CHAIN_ID,
    marketplace: services.config.MARKETPLACE_ADDRESS,
    checks: { tables, chain },
  };
}
