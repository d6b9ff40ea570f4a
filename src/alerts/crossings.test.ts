import { describe, expect, it } from "vitest";
import { balanceIsLow, limitThresholdsReached } from "./crossings.ts";

describe("alert thresholds", () => {
  it("reaches 80% at four fifths of the amount spent, not before", () => {
    expect(limitThresholdsReached(1000n, 799n, 1n)).toEqual([]);
    expect(limitThresholdsReached(1000n, 800n, 1n)).toEqual([80]);
  });
  it("reaches 100% when what is left no longer pays for another run at the price charged", () => {
    // 7.5 runs of 100: after the seventh (700 spent) 50 is left, less than a run.
    expect(limitThresholdsReached(750n, 600n, 100n)).toEqual([80]);
    expect(limitThresholdsReached(750n, 700n, 100n)).toEqual([80, 100]);
    expect(limitThresholdsReached(1000n, 1000n, 100n)).toEqual([80, 100]);
    expect(limitThresholdsReached(1000n, 900n, 100n)).toEqual([80]);
  });
  it("ignores a zero amount", () => expect(limitThresholdsReached(0n, 0n, 1n)).toEqual([]));
  it("calls a balance low below the chosen number of runs", () => {
    expect(balanceIsLow(299n, 100n, 3)).toBe(true);
    expect(balanceIsLow(300n, 100n, 3)).toBe(false);
    expect(balanceIsLow(0n, 0n, 3)).toBe(false);
  });
});
