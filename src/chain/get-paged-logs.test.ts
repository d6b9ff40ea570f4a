import { describe, expect, it } from "vitest";
import { getPagedLogs, LogReadTimeoutError } from "./get-paged-logs.ts";

/** One "log" per block of the range, as a node answers. */
const blocksOf = (from: bigint, to: bigint) => Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));

describe("getPagedLogs", () => {
  it("reads the range in pages of pageBlocks, in block order", async () => {
    const reads: [bigint, bigint][] = [];
    const logs = await getPagedLogs(10n, 34n, async (from, to) => (reads.push([from, to]), blocksOf(from, to)), { pageBlocks: 10n });
    expect(reads).toEqual([[10n, 19n], [20n, 29n], [30n, 34n]]);
    expect(logs).toEqual(blocksOf(10n, 34n));
  });

  it("splits a page whose answer is too large until each half is taken, without giving up", async () => {
    const reads: [bigint, bigint][] = [];
    // Over 3 blocks the answer passes the limit (as viem's or a provider's 10 MB).
    const read = async (from: bigint, to: bigint) => {
      reads.push([from, to]);
      if (to - from + 1n > 3n) throw new Error("Response size exceeds the 10 MB limit");
      return blocksOf(from, to);
    };
    expect(await getPagedLogs(0n, 99n, read, { pageBlocks: 100n, attempts: 2 })).toEqual(blocksOf(0n, 99n));
    expect(Math.max(...reads.filter(([from, to]) => to - from + 1n <= 3n).map(([from, to]) => Number(to - from + 1n)))).toBe(3);
  });

  it("abandons a read the node never answers and tries it again", async () => {
    let calls = 0;
    const read = (from: bigint, to: bigint) => (++calls === 1 ? new Promise<bigint[]>(() => undefined) : Promise.resolve(blocksOf(from, to)));
    expect(await getPagedLogs(5n, 5n, read, { timeoutMs: 50 })).toEqual([5n]);
    expect(calls).toBe(2);
  });

  it("throws the last error once the node has failed `attempts` times in a row", async () => {
    let calls = 0;
    const read = async () => {
      calls++;
      throw new TypeError("fetch failed");
    };
    await expect(getPagedLogs(0n, 1_000n, read, { attempts: 3 })).rejects.toThrow("fetch failed");
    expect(calls).toBe(3);
    await expect(getPagedLogs(7n, 7n, () => new Promise<never>(() => undefined), { timeoutMs: 20, attempts: 2 })).rejects.toBeInstanceOf(LogReadTimeoutError);
  });
});
