// The settler's alarms end with their condition, not on a timer: on a real Hardhat node mining a block
// a second, with the world's settler running and a finality depth of 2 blocks, a reorganisation 6 blocks
// deep (evm_revert to a snapshot, then a longer chain) turns `deep_reorg` on in /v1/health; it goes off
// once the new chain's head at the reorganisation is final, a few blocks later.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { createLogger } from "../../src/logger.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";
import { startWorldOn, type World } from "../support/world.ts";
import { startSuiteChain } from "./support.ts";

const BLOCK_MS = 1_000;
const DEPTH = 2;
let node: Awaited<ReturnType<typeof startSuiteChain>>;
let world: World;
const lines: Record<string, unknown>[] = [];

async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return (await world.services.chain.client.request({ method: method as never, params: params as never })) as T;
}
const head = () => world.services.chain.client.getBlockNumber({ cacheTime: 0 });
async function alarmsInHealth(): Promise<string[]> {
  const health = (await (await world.app.request("/v1/health")).json()) as { settlements: { alarms: { name: string }[] | null } };
  return (health.settlements.alarms ?? []).map((alarm) => alarm.name);
}

beforeAll(async () => {
  node = await startSuiteChain();
  world = await startWorldOn(
    { ...sharedInfrastructure(), rpcUrl: node.rpcUrl },
    { serve: false, env: { CHAIN_BLOCK_TIME_MS: String(BLOCK_MS), FINALITY_DEPTH: String(DEPTH) }, adapters: { logger: createLogger("info", (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) } },
  );
  await node.setBlockTime(BLOCK_MS);
}, 180_000);

afterAll(async () => {
  await world?.close();
  await node?.stop();
});

describe("the settler's alarms", () => {
  it("deep_reorg is on after a reorganisation past the finality depth, and off once the new chain is final there", async () => {
    const snapshot = await rpc<Hex>("evm_snapshot");
    const from = await head();
    // Six blocks at the node's pace: the settler's follower sees each (it polls around every block), so
    // the reorganisation it sees is at least three blocks deep, past the depth of 2, whatever it last saw.
    await until("six blocks over the snapshot", async () => (await head()) >= from + 6n, 15_000, 50);
    const before = await head();
    expect(await rpc("evm_revert", [snapshot])).toBe(true);
    await rpc("hardhat_mine", [`0x${(before - from + 1n).toString(16)}`]);
    const reorgHead = await head();
    await until("deep_reorg in health", async () => (await alarmsInHealth()).includes("deep_reorg"), 15_000, 100);
    expect(lines.some((l) => l.level === "error" && String(l.message).startsWith("settlement alarm on: deep_reorg"))).toBe(true);
    // Off with its condition: the new chain's head at the reorganisation is final (DEPTH blocks over it),
    // a few seconds on, not minutes.
    await until("deep_reorg off in health", async () => !(await alarmsInHealth()).includes("deep_reorg"), 20_000, 200);
    // Final there: DEPTH blocks over the new chain's head as the settler saw the reorganisation, which is
    // the revert's head (the fork) when its follower looked between the revert and the mining.
    expect(await head()).toBeGreaterThanOrEqual(from + BigInt(DEPTH));
    expect(reorgHead).toBeGreaterThan(before);
    expect(lines.some((l) => l.message === "settlement alarm off: deep_reorg")).toBe(true);
  }, 90_000);
});
