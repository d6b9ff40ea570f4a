import { describe, expect, it } from "vitest";
import { createBlockCadence } from "./block-cadence.ts";

describe("block cadence", () => {
  it("knows nothing before a block is seen, and nothing on a chain that mines per transaction", () => {
    expect(createBlockCadence(2_000).expectedAt(1n)).toBeUndefined();
    const automine = createBlockCadence(0);
    automine.observe(5n, 1_000);
    expect(automine.expectedAt(6n)).toBeUndefined();
    expect(automine.intervalMs).toBe(0);
  });

  it("expects the next block one block time after the earliest phase its sightings imply", () => {
    const cadence = createBlockCadence(2_000);
    // Blocks mined at 10_000 + 2_000 n, seen 10 to 80 ms late.
    const lags = [80, 10, 45, 30];
    lags.forEach((lag, n) => cadence.observe(BigInt(n), 10_000 + 2_000 * n + lag));
    expect(cadence.expectedAt(4n)).toBe(10_000 + 2_000 * 4 + 10);
    expect(cadence.expectedAt(5n)).toBe(10_000 + 2_000 * 5 + 10);
  });

  it("goes by the setting until it has seen a window of blocks, then by their pace", () => {
    const cadence = createBlockCadence(2_000);
    for (let n = 0; n < 7; n++) cadence.observe(BigInt(n), 2_020 * n);
    expect(cadence.intervalMs).toBe(2_000);
    cadence.observe(7n, 2_020 * 7);
    expect(cadence.intervalMs).toBe(2_020);
    expect(cadence.expectedAt(8n)).toBe(2_020 * 8);
    // A block missed by the follower (8 never seen) is not a slower pace: the window counts blocks.
    cadence.observe(9n, 2_020 * 9);
    expect(cadence.intervalMs).toBe(2_020);
  });

  it("keeps the pace within 40 ms jitter of sightings close to the setting", () => {
    const cadence = createBlockCadence(2_000);
    const lags = [7, 6, 3, 8, 6, 12, 7, 10, 51, 8];
    lags.forEach((lag, n) => cadence.observe(BigInt(n), 2_000 * n + lag));
    expect(Math.abs(cadence.intervalMs - 2_000)).toBeLessThan(7);
    expect(Math.abs(cadence.expectedAt(10n)! - 20_000)).toBeLessThan(40);
  });

  it("on a node far from its setting, goes by the setting from the latest block (it starts over at each)", () => {
    const fast = createBlockCadence(2_000);
    for (let n = 0; n < 8; n++) fast.observe(BigInt(n), 100 * n);
    expect(fast.intervalMs).toBe(2_000);
    expect(fast.expectedAt(8n)).toBe(700 + 2_000);
    const slow = createBlockCadence(2_000);
    for (let n = 0; n < 8; n++) slow.observe(BigInt(n), 10_000 * n);
    expect(slow.expectedAt(8n)).toBe(70_000 + 2_000);
  });

  it("starts over from a block far from where it was expected (blocks mined on demand, then on an interval)", () => {
    const cadence = createBlockCadence(2_000);
    // Mined per transaction: three blocks within 300 ms.
    cadence.observe(1n, 1_000);
    cadence.observe(2n, 1_100);
    cadence.observe(3n, 1_300);
    // Then every 2 s from 5_750: the first interval block is 2.45 s after the last, the phase it implies
    // is not the earlier blocks' one.
    cadence.observe(4n, 5_750);
    cadence.observe(5n, 7_760);
    expect(cadence.expectedAt(6n)).toBe(9_750);
    expect(cadence.intervalMs).toBe(2_000);
  });

  it("ignores a sighting of a block it has already passed", () => {
    const cadence = createBlockCadence(2_000);
    cadence.observe(3n, 6_000);
    cadence.observe(2n, 1_000);
    expect(cadence.expectedAt(4n)).toBe(8_000);
  });
});
