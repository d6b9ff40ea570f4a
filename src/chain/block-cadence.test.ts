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

  it("keeps the setting as its pace when blocks come late (a node slow to mine): the next block is expected early, never late", () => {
    const cadence = createBlockCadence(2_000);
    // On time, then blocks each 400 ms later than the last (a node mining big blocks).
    cadence.observe(0n, 0);
    cadence.observe(1n, 2_000);
    cadence.observe(2n, 4_400);
    cadence.observe(3n, 6_800);
    expect(cadence.intervalMs).toBe(2_000);
    // Expected at the earliest phase: 8,000, before the block (9,200), not after it.
    expect(cadence.expectedAt(4n)).toBe(8_000);
    // A block 1.2 s late starts the phase over from it: the next is expected 2 s on, still before a node
    // that stays 400 ms slower each block (11,600).
    cadence.observe(4n, 9_200);
    expect(cadence.expectedAt(5n)).toBe(11_200);
  });

  it("keeps a phase within 40 ms jitter of sightings close to the setting", () => {
    const cadence = createBlockCadence(2_000);
    const lags = [7, 6, 3, 8, 6, 12, 7, 10, 51, 8];
    lags.forEach((lag, n) => cadence.observe(BigInt(n), 2_000 * n + lag));
    expect(Math.abs(cadence.expectedAt(10n)! - 20_000)).toBeLessThan(40);
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
  });

  it("ignores a sighting of a block it has already passed", () => {
    const cadence = createBlockCadence(2_000);
    cadence.observe(3n, 6_000);
    cadence.observe(2n, 1_000);
    expect(cadence.expectedAt(4n)).toBe(8_000);
  });
});
