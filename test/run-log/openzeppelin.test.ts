// The run log's Merkle tree against OpenZeppelin's tooling (@openzeppelin/merkle-tree): our leaves are
// StandardMerkleTree's leaves of the receipt's fields, OpenZeppelin verifies the proofs the service
// stores, and a tree OpenZeppelin builds is accepted by the marketplace contract as a run batch.
import { randomBytes, randomInt } from "node:crypto";
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { beforeAll, describe, expect, it } from "vitest";
import { getAddress, parseEventLogs, toHex, type Hex } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { buildRunTree, runReceiptLeaf, type RunReceiptFields } from "../../src/execution/run-log/merkle.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { verifyOnChain } from "./support.ts";

/** The receipt's ABI types, in runReceiptLeaf's order: OpenZeppelin's leaf encoding. */
const RECEIPT_ENCODING = ["bytes32", "bytes32", "address", "uint8", "uint256", "uint64"];

const randomReceipt = (): RunReceiptFields => ({
  runId: toHex(randomBytes(32)),
  listingId: toHex(randomBytes(32)),
  renter: getAddress(toHex(randomBytes(20))),
  status: randomInt(2) as 0 | 1,
  costWei: BigInt(randomInt(1, 2 ** 47)) * 10n ** 6n,
  durationMs: BigInt(randomInt(0, 2 ** 40)),
});

const valuesOf = (r: RunReceiptFields) => [r.runId, r.listingId, r.renter, r.status, r.costWei.toString(), r.durationMs.toString()];

let ctx: TestContext;
let world: World | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false, settler: false });
  ctx = world.ctx;
});

describe("run log and OpenZeppelin's Merkle tree", () => {
  it("our leaf is StandardMerkleTree's leaf of the receipt, and OpenZeppelin verifies every proof the service builds", () => {
    for (const n of [1, 2, 3, 5, 8, 13, 33]) {
      const receipts = Array.from({ length: n }, randomReceipt);
      const leaves = receipts.map(runReceiptLeaf);
      const { root, proofs } = buildRunTree(leaves);
      const oz = StandardMerkleTree.of(receipts.map(valuesOf), RECEIPT_ENCODING);
      receipts.forEach((receipt, i) => {
        expect(oz.leafHash(valuesOf(receipt))).toBe(leaves[i]);
        expect(StandardMerkleTree.verify(root, RECEIPT_ENCODING, valuesOf(receipt), proofs[i]!), `tree of ${n}, leaf ${i}`).toBe(true);
      });
      const other = randomReceipt();
      expect(StandardMerkleTree.verify(root, RECEIPT_ENCODING, valuesOf(other), proofs[0]!)).toBe(false);
    }
  });

  it("a batch built with StandardMerkleTree is logged by logRuns and every receipt verifies on-chain", async () => {
    const receipts = Array.from({ length: 11 }, randomReceipt);
    const oz = StandardMerkleTree.of(receipts.map(valuesOf), RECEIPT_ENCODING);
    const { receipt } = await ctx.services.authority!.write("logRuns", [oz.root as Hex, receipts.length]);
    const [event] = parseEventLogs({ abi: marketplaceAbi, eventName: "RunsLogged", logs: receipt.logs });
    const batchIndex = event!.args.batchIndex;
    const verdicts = await Promise.all(receipts.map((r, i) => verifyOnChain(ctx.services, batchIndex, r, oz.getProof(i) as Hex[])));
    expect(verdicts).toEqual(receipts.map(() => true));
    expect(await verifyOnChain(ctx.services, batchIndex, { ...receipts[0]!, durationMs: receipts[0]!.durationMs + 1n }, oz.getProof(0) as Hex[])).toBe(false);
  });
});
