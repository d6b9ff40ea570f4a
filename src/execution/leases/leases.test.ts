// The lease protocol against an in-memory lease map with the store's conditions: no emulator. The
// DynamoDB map (lease-map.store.ts) is exercised end to end by test/execution/execute.test.ts.
import { describe, expect, it } from "vitest";
import { acquireLease, sweepExpired } from "./leases.ts";
import { LeaseRefusedError, type LeaseMap, type LeaseMapItem } from "./lease-map.store.ts";

/** A lease map whose `add` refuses as the store's condition does: no map yet, `limit` held, or the
 * settlement sequence moved. */
function memoryMap(): LeaseMap & { item: LeaseMapItem | null } {
  const map: LeaseMap & { item: LeaseMapItem | null } = {
    item: null,
    read: async () => (map.item ? { leases: { ...map.item.leases }, settled_seq: map.item.settled_seq } : null),
    ensure: async () => void (map.item ??= { leases: {}, settled_seq: 0 }),
    add: async (holder, { limit, expiresAt, settledSeq }) => {
      const item = map.item;
      if (!item || Object.keys(item.leases).length >= limit || (settledSeq !== undefined && item.settled_seq !== settledSeq)) throw new LeaseRefusedError(holder, await map.read());
      item.leases[holder] = expiresAt;
    },
    remove: async (holder, options = {}) => {
      if (!map.item) return;
      delete map.item.leases[holder];
      if (options.settled) map.item.settled_seq++;
    },
    removeExpired: async (holder, expiresAt) => {
      if (map.item?.leases[holder] !== expiresAt) return false;
      delete map.item.leases[holder];
      return true;
    },
    extend: async (holder, expiresAt) => {
      if (map.item?.leases[holder] === undefined) return false;
      map.item.leases[holder] = expiresAt;
      return true;
    },
  };
  return map;
}

const LATER = Date.now() + 60_000;

describe("leases", () => {
  it("creates the map on first use and grants leases up to the limit, then answers full", async () => {
    const map = memoryMap();
    expect(await acquireLease(map, "run_1", { limit: 2, expiresAt: LATER })).toBe("acquired");
    expect(await acquireLease(map, "run_2", { limit: 2, expiresAt: LATER })).toBe("acquired");
    expect(await acquireLease(map, "run_3", { limit: 2, expiresAt: LATER })).toBe("full");
    expect(Object.keys(map.item!.leases)).toEqual(["run_1", "run_2"]);
  });

  it("sweeps the expired leases of holders that died before answering full", async () => {
    const map = memoryMap();
    await acquireLease(map, "dead", { limit: 1, expiresAt: Date.now() - 1 });
    expect(await acquireLease(map, "run_2", { limit: 1, expiresAt: LATER })).toBe("acquired");
    expect(Object.keys(map.item!.leases)).toEqual(["run_2"]);
  });

  it("leaves a lease whose holder moved its expiry since the sweep read it", async () => {
    const map = memoryMap();
    const past = Date.now() - 1;
    await acquireLease(map, "slow", { limit: 1, expiresAt: past });
    const moving: LeaseMap = { ...map, removeExpired: async (holder, expiresAt) => (await map.extend(holder, LATER), map.removeExpired(holder, expiresAt)) };
    expect(await sweepExpired(moving)).toBe(0);
    expect(map.item!.leases.slow).toBe(LATER);
  });

  it("refuses a reservation once the settlement sequence moved past the one read, without retrying", async () => {
    const map = memoryMap();
    await acquireLease(map, "run_1", { limit: 5, expiresAt: LATER, settledSeq: 0 });
    await map.remove("run_1", { settled: true });
    expect(await acquireLease(map, "run_2", { limit: 5, expiresAt: LATER, settledSeq: 0 })).toBe("condition_failed");
    expect(await acquireLease(map, "run_2", { limit: 5, expiresAt: LATER, settledSeq: 1 })).toBe("acquired");
  });
});
