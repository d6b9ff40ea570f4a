// The run log's Merkle tree, identical to the marketplace contract's (`runReceiptLeaf`, `_hashPair`,
// `verifyRunReceipt`): a leaf is keccak256(bytes.concat(keccak256(abi.encode(receipt fields)))), an inner
// node is keccak256 of the sorted pair of its children, and a node without a sibling is carried up to the
// next level unchanged. Pure functions: no I/O.
import { concat, encodeAbiParameters, hexToBigInt, keccak256, type Address, type Hex } from "viem";

/** The fields of one run receipt, as the contract's runReceiptLeaf takes them. */
export interface RunReceiptFields {
  /** The run's bytes32 reference: keccak256 of the run id's UTF-8 bytes (runRef). */
  runId: Hex;
  /** The on-chain listing id (bytes32). */
  listingId: Hex;
  /** The renter's wallet. */
  renter: Address;
  /** 0 completed, 1 failed. */
  status: 0 | 1;
  /** The wei charged for the run (0 for one_time and subscription). */
  costWei: bigint;
  /** Server-side execution time in milliseconds (uint64). */
  durationMs: bigint;
}

const RECEIPT_PARAMETERS = [
  { type: "bytes32" },
  { type: "bytes32" },
  { type: "address" },
  { type: "uint8" },
  { type: "uint256" },
  { type: "uint64" },
] as const;

const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

/** The receipt leaf of a run: keccak256(bytes.concat(keccak256(abi.encode(fields)))). */
export function runReceiptLeaf(fields: RunReceiptFields): Hex {
  if (fields.costWei < 0n || fields.costWei > UINT256_MAX) throw new RangeError("costWei must fit a uint256");
  if (fields.durationMs < 0n || fields.durationMs > UINT64_MAX) throw new RangeError("durationMs must fit a uint64");
  const encoded = encodeAbiParameters(RECEIPT_PARAMETERS, [fields.runId, fields.listingId, fields.renter, fields.status, fields.costWei, fields.durationMs]);
  return keccak256(keccak256(encoded));
}

/** An inner node: keccak256 of the two children, the smaller (as a uint256) first. */
export function hashPair(a: Hex, b: Hex): Hex {
  return hexToBigInt(a) < hexToBigInt(b) ? keccak256(concat([a, b])) : keccak256(concat([b, a]));
}

export interface RunTree {
  root: Hex;
  /** proofs[i]: the sibling hashes from leaves[i] up to the root. */
  proofs: Hex[][];
}

/**
 * Builds the tree of `leaves` (in the given order): the root and each leaf's proof. One leaf is its
 * own root with an empty proof. Throws on an empty list (a batch holds at least one run).
 */
export function buildRunTree(leaves: readonly Hex[]): RunTree {
  if (leaves.length === 0) throw new RangeError("a run tree needs at least one leaf");
  const proofs: Hex[][] = leaves.map(() => []);
  // positions[i]: where leaf i's ancestor sits in the current level.
  const positions = leaves.map((_, i) => i);
  let level: Hex[] = leaves.map((leaf) => leaf.toLowerCase() as Hex);
  while (level.length > 1) {
    for (let i = 0; i < leaves.length; i++) {
      const sibling = positions[i]! ^ 1;
      if (sibling < level.length) proofs[i]!.push(level[sibling]!);
      positions[i] = positions[i]! >> 1;
    }
    const next: Hex[] = [];
    for (let j = 0; j < level.length; j += 2) next.push(j + 1 < level.length ? hashPair(level[j]!, level[j + 1]!) : level[j]!);
    level = next;
  }
  return { root: level[0]!, proofs };
}

/** The root a proof leads to from a leaf (what the contract recomputes). */
export function rootFromProof(leaf: Hex, proof: readonly Hex[]): Hex {
  let node = leaf.toLowerCase() as Hex;
  for (const sibling of proof) node = hashPair(node, sibling);
  return node;
}

/** True iff `proof` leads from `leaf` to `root`. */
export function verifyProof(leaf: Hex, proof: readonly Hex[], root: Hex): boolean {
  return rootFromProof(leaf, proof) === root.toLowerCase();
}
