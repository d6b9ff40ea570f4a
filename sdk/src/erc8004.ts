// verifyReputation: recomputes a listing's verified ERC-8004 rating from the chain and the feedback
// files alone, across every agent the listing was ever linked to (registering its file again or moving
// the agent takes no counted rating away), without trusting the service: the same rule the service's indexer applies (a feedback
// counts when it is a rating, "starred", 0 to 100; its file's keccak256 is the on-chain hash; the file
// is about this feedback; its run receipt names the feedback's own client, this listing and a completed
// run, and the marketplace's verifyRunReceipt confirms it; and no earlier feedback counts for the run;
// revoked feedback never counts). Needs viem (a peer dependency of this entry only). The registries' and the
// marketplace's ABIs are the shared core's (bundled into the package's build).
import { getAbiItem, keccak256, type Address, type Hex, type PublicClient } from "viem";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";

const NEW_FEEDBACK = getAbiItem({ abi: reputationRegistryAbi, name: "NewFeedback" });
const FEEDBACK_REVOKED = getAbiItem({ abi: reputationRegistryAbi, name: "FeedbackRevoked" });

/** The largest feedback file read (the service writes a few KiB). */
export const MAX_FEEDBACK_FILE_BYTES = 64 * 1024;

export interface VerifyReputationOptions {
  /** A viem public client on the chain of the registries and the marketplace. */
  client: PublicClient;
  /** The registries (`eip155:<chainId>:<address>` names the identity one in feedback files). */
  identityRegistry: Address;
  reputationRegistry: Address;
  /** The marketplace whose run log the receipts are in. */
  marketplace: Address;
  /** Every agent the listing was ever linked to: the `agent_id` of each feedback of
   * GET /v1/listings/{listing_id}/reputation, and the listing's current `erc8004.agent_id`. A feedback
   * counts for the listing whichever of them it was given to, and a run is rated once across them all. */
  agentIds?: readonly bigint[];
  /** One agent alone (the listing's `erc8004.agent_id`): the same as `agentIds: [agentId]`, which misses
   * the feedback of the listing's former agents. */
  agentId?: bigint;
  /** The listing's on-chain id (0x + 64 hex). */
  listingId: Hex;
  /** Where to start reading events (the registries' deployment block). Default 0. */
  fromBlock?: bigint;
  /** The bytes of a feedback file, or null when it cannot be had: any IPFS gateway, or the service's
   * GET /v1/metadata/<cid>. The hash check makes the source irrelevant. */
  fetchFile(uri: string): Promise<Uint8Array | null>;
}

export interface CheckedFeedback {
  /** The agent it was given to. */
  agentId: bigint;
  client: Address;
  feedbackIndex: bigint;
  /** value / 10^valueDecimals. */
  value: number;
  transactionHash: Hex;
  /** Null when it counts; else why not (the same words as the API's reputation). */
  reason: string | null;
  runId: Hex | null;
}

export interface VerifiedReputation {
  /** The average verified score / 20, 0 to 5, two decimals (0 with none). */
  rating: number;
  review_count: number;
  verified: CheckedFeedback[];
  unverified: CheckedFeedback[];
}

const lower = (s: string) => s.toLowerCase();

interface FileShape {
  agentRegistry?: unknown;
  agentId?: unknown;
  clientAddress?: unknown;
  value?: unknown;
  valueDecimals?: unknown;
  tag1?: unknown;
  runReceipt?: {
    marketplace?: unknown;
    batchIndex?: unknown;
    receipt?: { runId?: unknown; listingId?: unknown; renter?: unknown; status?: unknown; costWei?: unknown; durationMs?: unknown };
    proof?: unknown;
  };
}

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const DIGITS = /^\d{1,78}$/;

/** The run receipt of a file, when every field has its shape; else null. */
function receiptOf(file: FileShape): { marketplace: string; batchIndex: bigint; runId: Hex; listingId: Hex; renter: Address; status: number; costWei: bigint; durationMs: bigint; proof: Hex[] } | null {
  const r = file.runReceipt;
  const f = r?.receipt;
  if (!r || !f || typeof r.marketplace !== "string" || typeof r.batchIndex !== "string" || !DIGITS.test(r.batchIndex)) return null;
  if (typeof f.runId !== "string" || !HEX32.test(f.runId) || typeof f.listingId !== "string" || !HEX32.test(f.listingId)) return null;
  if (typeof f.renter !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(f.renter) || typeof f.status !== "number" || !Number.isInteger(f.status) || f.status < 0 || f.status > 255) return null;
  if (typeof f.costWei !== "string" || !DIGITS.test(f.costWei) || typeof f.durationMs !== "string" || !DIGITS.test(f.durationMs)) return null;
  if (!Array.isArray(r.proof) || r.proof.length > 64 || !r.proof.every((p) => typeof p === "string" && HEX32.test(p))) return null;
  return { marketplace: r.marketplace, batchIndex: BigInt(r.batchIndex), runId: f.runId as Hex, listingId: f.listingId as Hex, renter: f.renter as Address, status: f.status, costWei: BigInt(f.costWei), durationMs: BigInt(f.durationMs), proof: r.proof as Hex[] };
}

/**
 * Recomputes a listing's verified rating from the chain and the feedback files.
 * @example
 * const listing = await api.listings.get(listingId);
 * const reputation = await api.listings.reputation(listingId, { limit: 100 }); // every page of it
 * const result = await verifyReputation({
 *   client: createPublicClient({ transport: http(RPC_URL) }),
 *   identityRegistry, reputationRegistry, marketplace,
 *   agentIds: [...new Set([...reputation.feedback.map((f) => f.agent_id), ...(listing.erc8004 ? [listing.erc8004.agent_id] : [])])].map(BigInt),
 *   listingId: listing.on_chain_id as Hex,
 *   fetchFile: async (uri) => new Uint8Array(await (await fetch(`${API}/v1/metadata/${uri.slice(7)}`)).arrayBuffer()),
 * });
 * // result.rating === listing.rating
 */
export async function verifyReputation(options: VerifyReputationOptions): Promise<VerifiedReputation> {
  const { client } = options;
  const agentIds = [...new Set([...(options.agentIds ?? []), ...(options.agentId !== undefined ? [options.agentId] : [])])];
  if (agentIds.length === 0) throw new TypeError("verifyReputation: name the listing's agents (agentIds)");
  const chainId = await client.getChainId();
  const fromBlock = options.fromBlock ?? 0n;
  const [given, revoked] = await Promise.all([
    client.getLogs({ address: options.reputationRegistry, event: NEW_FEEDBACK, args: { agentId: agentIds }, fromBlock, toBlock: "latest", strict: true }),
    client.getLogs({ address: options.reputationRegistry, event: FEEDBACK_REVOKED, args: { agentId: agentIds }, fromBlock, toBlock: "latest", strict: true }),
  ]);
  // A feedback is its agent's, its client's and its index's (each agent numbers its clients' feedback).
  const keyOf = (a: { agentId: bigint; clientAddress: Address; feedbackIndex: bigint }) => `${a.agentId}#${lower(a.clientAddress)}#${a.feedbackIndex}`;
  const revokedKeys = new Set(revoked.map((log) => keyOf(log.args)));
  const ordered = [...given].sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
  const ratedRuns = new Set<string>();
  const verified: CheckedFeedback[] = [];
  const unverified: CheckedFeedback[] = [];
  for (const log of ordered) {
    const a = log.args;
    const value = Number(a.value) / 10 ** a.valueDecimals;
    const judged = await judge(options, chainId, a, value);
    const runId = judged.receipt?.runId ?? null;
    let reason = judged.reason;
    // A run is claimed by its first feedback that otherwise verifies, revoked later or not.
    if (reason === null && runId) {
      if (ratedRuns.has(lower(runId))) reason = "run_already_rated";
      else ratedRuns.add(lower(runId));
    }
    if (reason === null && revokedKeys.has(keyOf(a))) reason = "revoked";
    const checked: CheckedFeedback = { agentId: a.agentId, client: a.clientAddress, feedbackIndex: a.feedbackIndex, value, transactionHash: log.transactionHash, reason, runId: reason === null ? runId : null };
    (reason === null ? verified : unverified).push(checked);
  }
  const mean = verified.length === 0 ? 0 : verified.reduce((sum, f) => sum + f.value, 0) / verified.length;
  return { rating: Math.round((mean / 20) * 100) / 100, review_count: verified.length, verified, unverified };
}

async function judge(
  options: VerifyReputationOptions,
  chainId: number,
  a: { agentId: bigint; clientAddress: Address; value: bigint; valueDecimals: number; tag1: string; feedbackURI: string; feedbackHash: Hex },
  value: number,
): Promise<{ reason: string | null; receipt?: { runId: Hex } }> {
  const bytes = await options.fetchFile(a.feedbackURI).catch(() => null);
  if (!bytes) return { reason: "file_unavailable" };
  if (bytes.length > MAX_FEEDBACK_FILE_BYTES) return { reason: "file_too_large" };
  if (lower(keccak256(bytes)) !== lower(a.feedbackHash)) return { reason: "hash_mismatch" };
  let file: FileShape;
  try {
    file = JSON.parse(new TextDecoder().decode(bytes)) as FileShape;
  } catch {
    return { reason: "file_malformed" };
  }
  const receipt = file && typeof file === "object" ? receiptOf(file) : null;
  if (!receipt || typeof file.value !== "number" || typeof file.valueDecimals !== "number" || typeof file.agentRegistry !== "string" || typeof file.clientAddress !== "string") return { reason: "file_malformed" };
  const same =
    String(file.agentId) === a.agentId.toString() &&
    lower(file.agentRegistry) === lower(`eip155:${chainId}:${options.identityRegistry}`) &&
    lower(file.clientAddress) === lower(`eip155:${chainId}:${a.clientAddress}`) &&
    file.valueDecimals === a.valueDecimals &&
    file.value === value &&
    (typeof file.tag1 === "string" ? file.tag1 : "") === a.tag1;
  if (!same) return { reason: "file_of_another_feedback" };
  if (lower(receipt.renter) !== lower(a.clientAddress)) return { reason: "receipt_of_another_wallet" };
  if (lower(receipt.listingId) !== lower(options.listingId)) return { reason: "receipt_of_another_listing" };
  if (receipt.status !== 0) return { reason: "run_not_completed" };
  const included =
    lower(receipt.marketplace) === lower(`eip155:${chainId}:${options.marketplace}`) &&
    (await options.client.readContract({
      address: options.marketplace,
      abi: marketplaceAbi,
      functionName: "verifyRunReceipt",
      args: [receipt.batchIndex, { runId: receipt.runId, listingId: receipt.listingId, renter: receipt.renter, status: receipt.status, costWei: receipt.costWei, durationMs: receipt.durationMs }, receipt.proof],
    }));
  if (!included) return { reason: "receipt_not_on_chain" };
  if (a.tag1 !== "starred") return { reason: "not_a_rating" };
  if (!(value >= 0 && value <= 100)) return { reason: "value_out_of_range" };
  return { reason: null, receipt: { runId: receipt.runId } };
}
