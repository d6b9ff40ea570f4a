// The settlement watcher (how a waiting request learns its charge landed) on a chain that reorganises,
// on a real Hardhat node: the head it followed goes back (evm_revert) and the charge lands in a block
// numbered below the old head. The watcher searches again from the last block both chains share and
// releases the run; a watcher that kept searching from the old head would never see the charge. In the
// second case the watcher's view of the node is held while the new chain grows past the old head (a
// slow link), so the first head it sees again is higher, with other hashes under it.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { createChainClient } from "../../src/chain/client.ts";
import { consumeQuery } from "../../src/chain/consume-query.ts";
import { chargeRefHex } from "../../src/execution/money/charge-refs.ts";
import { createSettlementWatcher, type SettlementWatcher } from "../../src/execution/money/settlement-watcher.ts";
import { sharedInfrastructure } from "../support/services.ts";
import { until } from "../support/until.ts";
import { startWorldOn, type PublishedAgent, type World } from "../support/world.ts";
import { startSuiteChain } from "./support.ts";

let node: Awaited<ReturnType<typeof startSuiteChain>>;
let world: World;
let listing: PublishedAgent;
let watcher: SettlementWatcher;
/** While set, the watcher's requests to the node wait for it. */
let held: { until: Promise<void>; open(): void } | undefined;

async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return (await world.services.chain.client.request({ method: method as never, params: params as never })) as T;
}
const head = () => world.services.chain.client.getBlockNumber({ cacheTime: 0 });

beforeAll(async () => {
  node = await startSuiteChain();
  world = await startWorldOn({ ...sharedInfrastructure(), rpcUrl: node.rpcUrl }, { serve: false, settler: false, agent: true });
  listing = await world.publishConnected(`watch-${randomBytes(3).toString("hex")}`, { rental: "per_query" });
  const heldFetch: typeof fetch = async (input, init) => {
    while (held) await held.until;
    return fetch(input, init);
  };
  const chain = createChainClient({ rpcUrl: node.rpcUrl, chainId: world.services.chain.chain.id, marketplace: world.services.chain.marketplace, fetchFn: heldFetch });
  watcher = createSettlementWatcher(chain, { blockTimeMs: 0, logger: world.services.logger, pollMs: 20 });
}, 180_000);

afterAll(async () => {
  watcher?.close();
  await world?.close();
  await node?.stop();
});

describe("the settlement watcher on a chain that reorganises", () => {
  for (const [name, hidden] of [
    ["a lower head", false],
    ["a higher head over other blocks, seen only once the new chain passed the old head", true],
  ] as const) {
    it(`${name}: a charge that lands below the old head is still seen`, async () => {
      const renter = await world.account();
      await world.market.purchasePerQuery(renter, listing.onChainId, listing.priceWei * 3n);
      const ref: Hex = chargeRefHex(BigInt(`0x${randomBytes(7).toString("hex")}`));
      const snapshot = await rpc<Hex>("evm_snapshot");
      const from = await watcher.from();
      const decision = watcher.wait(ref, from, 20_000);
      await rpc("hardhat_mine", ["0x8"]);
      const oldHead = await head();
      // The watcher has searched up to the old head (and found nothing).
      await until("the watcher to follow the old head", async () => (await watcher.from()) === oldHead + 1n, 10_000, 20);
      if (hidden) {
        let open!: () => void;
        held = { until: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
      }
      expect(await rpc("evm_revert", [snapshot])).toBe(true);
      // The charge lands in the new chain's next block, far below the old head.
      const charged = await consumeQuery(world.services.authority!, { listingId: listing.onChainId, buyer: renter.address, runRef: ref, maxPrice: listing.priceWei });
      expect(charged.receipt.blockNumber).toBeLessThan(oldHead);
      if (hidden) {
        await rpc("hardhat_mine", [`0x${(oldHead - (await head()) + 2n).toString(16)}`]);
        expect(await head()).toBeGreaterThan(oldHead);
        const gate = held!;
        held = undefined;
        gate.open();
      }
      const seen = await decision;
      expect(seen).toMatchObject({ kind: "charged", priceWei: listing.priceWei, txHash: charged.receipt.transactionHash, blockNumber: charged.receipt.blockNumber });
    }, 60_000);
  }
});
