// The run log's Merkle module against the marketplace contract itself: leaves equal runReceiptLeaf,
// roots logged with logRuns verify every proof with verifyRunReceipt, and anything tampered fails,
// for random trees of many sizes.
import { randomBytes, randomInt } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getAddress, keccak256, parseEventLogs, toHex, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { buildRunTree, hashPair, rootFromProof, runReceiptLeaf, verifyProof, type RunReceiptFields } from "../../src/execution/run-log/merkle.ts";
import { runRef } from "../../src/execution/runs/run.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { verifyOnChain } from "./support.ts";

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});

const randomLeaf = (): Hex => toHex(randomBytes(32));

const randomReceipt = (): RunReceiptFields => ({
  runId: randomLeaf(),
  listingId: randomLeaf(),
  renter: getAddress(toHex(randomBytes(20))),
  status: randomInt(2) as 0 | 1,
  costWei: BigInt(randomInt(1, 2 ** 47)) * 10n ** 6n,
  durationMs: BigInt(randomInt(0, 2 ** 40)),
});

function flipBit(hex: Hex): Hex {
  const bytes = Buffer.from(hex.slice(2), "hex");
  bytes[randomInt(bytes.length)]! ^= 1 << randomInt(8);
  return toHex(bytes);
}

/** Logs a root from the file's authority; returns its batch index. */
async function logRoot(root: Hex, count: number): Promise<bigint> {
  const { receipt } = await ctx.services.authority!.write("logRuns", [root, count]);
  const [event] = parseEventLogs({ abi: marketplaceAbi, eventName: "RunsLogged", logs: receipt.logs });
  expect(event!.args.root).toBe(root);
  return event!.args.batchIndex;
}

describe("merkle module (pure)", () => {
  it("one leaf is its own root with an empty proof", () => {
    const leaf = randomLeaf();
    expect(buildRunTree([leaf])).toEqual({ root: leaf, proofs: [[]] });
    expect(verifyProof(leaf, [], leaf)).toBe(true);
  });

  it("two leaves hash as a sorted pair, in either order", () => {
    const [a, b] = [randomLeaf(), randomLeaf()];
    expect(hashPair(a, b)).toBe(hashPair(b, a));
    const [low, high] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
    expect(hashPair(a, b)).toBe(keccak256(`0x${low.slice(2)}${high.slice(2)}`));
    const tree = buildRunTree([a, b]);
    expect(tree.root).toBe(hashPair(a, b));
    expect(tree.proofs).toEqual([[b], [a]]);
  });

  it("an odd node is carried up unchanged", () => {
    const [a, b, c] = [randomLeaf(), randomLeaf(), randomLeaf()];
    const tree = buildRunTree([a, b, c]);
    expect(tree.root).toBe(hashPair(hashPair(a, b), c));
    expect(tree.proofs[2]).toEqual([hashPair(a, b)]);
    const five = [a, b, c, randomLeaf(), randomLeaf()];
    const big = buildRunTree(five);
    // The fifth leaf has no sibling on the first two levels: its proof is the root of the first four.
    expect(big.proofs[4]).toEqual([hashPair(hashPair(a, b), hashPair(c, five[3]!))]);
  });

  it("every proof of random trees verifies, tampered ones do not", () => {
    for (let n = 1; n <= 70; n++) {
      const leaves = Array.from({ length: n }, randomLeaf);
      const { root, proofs } = buildRunTree(leaves);
      leaves.forEach((leaf, i) => {
        expect(proofs[i]!.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        expect(verifyProof(leaf, proofs[i]!, root)).toBe(true);
        expect(rootFromProof(leaf, proofs[i]!)).toBe(root);
        expect(verifyProof(flipBit(leaf), proofs[i]!, root)).toBe(false);
        if (proofs[i]!.length > 0) {
          const tampered = [...proofs[i]!];
          const at = randomInt(tampered.length);
          tampered[at] = flipBit(tampered[at]!);
          expect(verifyProof(leaf, tampered, root)).toBe(false);
        }
      });
    }
  });

  it("refuses an empty tree and out-of-range fields", () => {
    expect(() => buildRunTree([])).toThrow(RangeError);
    const fields: RunReceiptFields = { runId: randomLeaf(), listingId: randomLeaf(), renter: getAddress(toHex(randomBytes(20))), status: 0, costWei: 0n, durationMs: 0n };
    expect(() => runReceiptLeaf({ ...fields, durationMs: 1n << 64n })).toThrow(RangeError);
    expect(() => runReceiptLeaf({ ...fields, costWei: -1n })).toThrow(RangeError);
  });
});

describe("merkle module against the contract", () => {
  it("runReceiptLeaf equals the contract's for random and extreme fields", async () => {
    const cases: RunReceiptFields[] = Array.from({ length: 40 }, (_, i) => ({
      runId: runRef(`run_${randomBytes(16).toString("hex")}`),
      listingId: randomLeaf(),
      renter: getAddress(toHex(randomBytes(20))),
      status: (i % 2) as 0 | 1,
      costWei: BigInt(toHex(randomBytes(randomInt(1, 33)))),
      durationMs: BigInt(toHex(randomBytes(randomInt(1, 9)))),
    }));
    cases.push({ runId: `0x${"00".repeat(32)}`, listingId: `0x${"ff".repeat(32)}`, renter: "0x0000000000000000000000000000000000000000", status: 1, costWei: (1n << 256n) - 1n, durationMs: (1n << 64n) - 1n });
    cases.push({ runId: `0x${"ff".repeat(32)}`, listingId: `0x${"00".repeat(32)}`, renter: "0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF", status: 0, costWei: 0n, durationMs: 0n });
    const onChain = await Promise.all(
      cases.map((f) =>
        ctx.services.chain.client.readContract({ address: ctx.services.chain.marketplace, abi: marketplaceAbi, functionName: "runReceiptLeaf", args: [f.runId, f.listingId, f.renter, f.status, f.costWei, f.durationMs] }),
      ),
    );
    expect(cases.map(runReceiptLeaf)).toEqual(onChain);
  });

  it("roots of random trees logged with logRuns verify every receipt with verifyRunReceipt", async () => {
    const sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 32, 33, randomInt(34, 130)];
    for (const n of sizes) {
      const receipts = Array.from({ length: n }, randomReceipt);
      const leaves = receipts.map(runReceiptLeaf);
      const { root, proofs } = buildRunTree(leaves);
      const batchIndex = await logRoot(root, n);
      const verdicts = await Promise.all(receipts.map((receipt, i) => verifyOnChain(ctx.services, batchIndex, receipt, proofs[i]!)));
      expect(verdicts, `tree of ${n}`).toEqual(receipts.map(() => true));

      // Tampered receipt, tampered proof, someone else's proof, the wrong batch, a batch not logged yet.
      const i = randomInt(n);
      expect(await verifyOnChain(ctx.services, batchIndex, { ...receipts[i]!, costWei: receipts[i]!.costWei + 1n }, proofs[i]!)).toBe(false);
      if (proofs[i]!.length > 0) {
        const tampered = [...proofs[i]!];
        tampered[tampered.length - 1] = flipBit(tampered[tampered.length - 1]!);
        expect(await verifyOnChain(ctx.services, batchIndex, receipts[i]!, tampered)).toBe(false);
        expect(await verifyOnChain(ctx.services, batchIndex, receipts[i]!, proofs[(i + 1) % n]!)).toBe(false);
        expect(await verifyOnChain(ctx.services, batchIndex, receipts[i]!, proofs[i]!.slice(0, -1))).toBe(false);
      }
      if (batchIndex > 0n) expect(await verifyOnChain(ctx.services, batchIndex - 1n, receipts[i]!, proofs[i]!)).toBe(false);
      expect(await verifyOnChain(ctx.services, batchIndex + 1n, receipts[i]!, proofs[i]!)).toBe(false);
    }
  });

  it("refuses an inner node of a logged tree passed off as a receipt (leaves are hashed twice, by the contract)", async () => {
    const receipts = Array.from({ length: 4 }, randomReceipt);
    const leaves = receipts.map(runReceiptLeaf);
    const { root } = buildRunTree(leaves);
    const batchIndex = await logRoot(root, 4);
    const left = hashPair(leaves[0]!, leaves[1]!);
    const right = hashPair(leaves[2]!, leaves[3]!);
    expect(hashPair(left, right)).toBe(root);
    // The node's children are the only 64 bytes that hash to it; as a receipt's first two fields they
    // are hashed twice with four more fields, so the one-step proof from the node leads nowhere.
    const forged: RunReceiptFields = { runId: leaves[0]!, listingId: leaves[1]!, renter: "0x0000000000000000000000000000000000000000", status: 0, costWei: 0n, durationMs: 0n };
    expect(await verifyOnChain(ctx.services, batchIndex, forged, [right])).toBe(false);
  });

  it("refuses an empty batch: a zero root or a zero count", async () => {
    for (const [root, count] of [[`0x${"00".repeat(32)}`, 1], [randomLeaf(), 0]] as const) {
      const refused = await ctx.services.authority!.write("logRuns", [root, count]).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((refused as { contractError?: string } | undefined)?.contractError).toBe("EmptyRunBatch");
    }
  });
});
