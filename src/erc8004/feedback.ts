// Feedback only paying renters can give: for a completed run of their own, whose receipt is in the
// on-chain run log, the renter gets a content-addressed feedback file (the ERC's fields, the payment
// that bought the run as `proofOfPayment`, and the run's receipt with its Merkle proof) and the
// unsigned giveFeedback transaction their wallet sends. The Reputation Registry takes any feedback;
// the indexer counts this one because its file proves the run (indexer.ts).
import { encodeFunctionData, getAddress, type Address, type Hex } from "viem";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import { findPurchaseTransaction } from "../chain/find-purchase.ts";
import { marketAddress } from "../chain/client.ts";
import { readAgentOwner } from "../chain/read-agent.ts";
import { getRun } from "../execution/runs/run.store.ts";
import { runReceiptFields } from "../execution/run-log/receipts.ts";
import { a2aEndpointUrl } from "../a2a/card.ts";
import { caip10, RATING_TAG, storeContentAddressed } from "./files.ts";
import { getListingErc8004, getRunClaim } from "./erc8004.store.ts";
import { provenRun } from "./run-proof.ts";

/** The most decimals a score may have (0.01 steps). */
export const MAX_VALUE_DECIMALS = 2;
export const MIN_VALUE = 0;
export const MAX_VALUE = 100;
export const MAX_TAG_CHARS = 64;
export const MAX_TEXT_CHARS = 1000;

// Control characters other than tab and line feed (carriage returns become line feeds).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

export interface FeedbackInput {
  value: number;
  tag1?: string | undefined;
  text?: string | null | undefined;
}

/** The score as the registry takes it: an integer value and its decimals (exact: read from the JSON
 * number's shortest decimal form, never through float arithmetic). */
export function toFixedPoint(value: number): { value: bigint; decimals: number } {
  const bad = () => new ApiError("invalid_request", `Invalid request body: value: must be a number from ${MIN_VALUE} to ${MAX_VALUE} with at most ${MAX_VALUE_DECIMALS} decimals.`);
  if (!Number.isFinite(value) || value < MIN_VALUE || value > MAX_VALUE) throw bad();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(String(value));
  if (!match || (match[2]?.length ?? 0) > MAX_VALUE_DECIMALS) throw bad();
  const fraction = match[2] ?? "";
  return { value: BigInt(match[1]! + fraction), decimals: fraction.length };
}

export function checkFeedbackInput(input: FeedbackInput): { value: bigint; decimals: number; score: number; tag1: string; text: string | null } {
  const fixed = toFixedPoint(input.value);
  const tag1 = input.tag1 ?? RATING_TAG;
  if (tag1.length < 1 || [...tag1].length > MAX_TAG_CHARS || CONTROL.test(tag1) || tag1 !== tag1.trim()) {
    throw new ApiError("invalid_request", `Invalid request body: tag1: must be 1 to ${MAX_TAG_CHARS} characters, without control characters or surrounding spaces.`);
  }
  let text: string | null = null;
  if (input.text !== undefined && input.text !== null) {
    const normalized = input.text.replace(/\r\n?/g, "\n").trim();
    if (CONTROL.test(normalized)) throw new ApiError("invalid_request", "Invalid request body: text: must be plain text (no control characters other than line breaks and tabs).");
    if ([...normalized].length > MAX_TEXT_CHARS) throw new ApiError("invalid_request", `Invalid request body: text: must be at most ${MAX_TEXT_CHARS} characters.`);
    text = normalized.length > 0 ? normalized : null;
  }
  return { ...fixed, score: input.value, tag1, text };
}

export interface PreparedFeedback {
  run_id: string;
  listing_id: string;
  agent_id: string;
  agent_registry: string;
  feedback_uri: string;
  feedback_hash: Hex;
  feedback_file: Record<string, unknown>;
  transaction: { to: Address; data: Hex };
}

/**
 * POST /v1/runs/{run_id}/feedback. Errors: 400 invalid_request; 404 not_found (no such run of this
 * wallet); 403 feedback_not_allowed (a failed run, or the agent's owner); 409 receipt_pending (not
 * logged yet, with Retry-After), agent_not_registered, feedback_exists (feedback already counts for
 * the run); 503 service_unavailable (no registries configured).
 */
export async function prepareFeedback(services: Services, wallet: string, runId: string, input: FeedbackInput, apiBase: string): Promise<PreparedFeedback> {
  const checked = checkFeedbackInput(input);
  const registries = services.chain.erc8004;
  if (!registries) throw new ApiError("service_unavailable", "ERC-8004 registries are not configured on this service.");
  const run = await getRun(services.tables, runId);
  // Another wallet's run is as unknown as one that does not exist.
  if (!run || run.wallet !== wallet.toLowerCase()) throw new ApiError("not_found", `No run ${runId} for this wallet.`);
  if (run.status === "failed") throw new ApiError("feedback_not_allowed", "Only a completed run can be rated; this run failed.");
  const retryAfter = String(Math.max(1, Math.ceil((services.config.STAGE === "cloud" ? 60_000 : services.config.RUN_LOG_INTERVAL_MS) / 1000)));
  if (run.status !== "completed" || !run.receipt) {
    throw new ApiError("receipt_pending", `The run's receipt is not in the on-chain run log yet; retry in ${retryAfter} s.`, { headers: { "Retry-After": retryAfter } });
  }
  // A run whose feedback counts is rated, whatever has become of the agent it was given to since.
  const fields = runReceiptFields(run);
  if (await getRunClaim(services.tables, fields.runId)) throw new ApiError("feedback_exists", "Feedback for this run is already on-chain and counts; a run is rated once.");
  const linked = await getListingErc8004(services.tables, run.on_chain_id);
  if (!linked?.agent_id) throw new ApiError("agent_not_registered", "The listing is not registered as an ERC-8004 agent yet; its creator registers it first.");
  const agentId = BigInt(linked.agent_id);
  const owner = await readAgentOwner(services.chain, agentId);
  if (owner?.toLowerCase() === run.wallet) throw new ApiError("feedback_not_allowed", "The agent's owner cannot give it feedback.");
  // The payment behind the run: its per-query charge, else the purchase of the renter's access.
  const token = run.market === "token";
  const paymentTx =
    run.settlement_tx ??
    (await findPurchaseTransaction(services.chain, { listingId: run.on_chain_id, buyer: run.wallet, market: token ? "token" : "eth", fromBlock: token ? services.config.TOKEN_MARKETPLACE_DEPLOY_BLOCK : services.config.MARKETPLACE_DEPLOY_BLOCK }));
  const chainId = services.config.CHAIN_ID;
  const agentRegistry = caip10(chainId, registries.identityRegistry);
  const endpoint = a2aEndpointUrl(apiBase, run.agent_id);
  const file = {
    agentRegistry,
    agentId: Number(agentId),
    clientAddress: caip10(chainId, getAddress(run.wallet)),
    createdAt: new Date().toISOString(),
    value: checked.score,
    valueDecimals: checked.decimals,
    tag1: checked.tag1,
    endpoint,
    ...(checked.text !== null ? { text: checked.text } : {}),
    run: { runId: run.run_id, listingId: run.listing_id },
    // Paid to the contract of the run's listing: an x402 payment or a token charge went to the TokenMarketplace.
    proofOfPayment: { fromAddress: getAddress(run.wallet), toAddress: marketAddress(services.chain, token ? "token" : "eth"), chainId: String(chainId), txHash: paymentTx },
    runReceipt: {
      marketplace: caip10(chainId, services.chain.marketplace),
      batchIndex: String(run.receipt.batch_index),
      receipt: { runId: fields.runId, listingId: fields.listingId, renter: getAddress(fields.renter), status: fields.status, costWei: fields.costWei.toString(), durationMs: fields.durationMs.toString() },
      proof: run.receipt.proof,
      root: run.receipt.root,
      leaf: run.receipt.leaf,
      txHash: run.receipt.tx_hash,
    },
  };
  const stored = await storeContentAddressed(services, file);
  const data = encodeFunctionData({
    abi: reputationRegistryAbi,
    functionName: "giveFeedback",
    args: [agentId, checked.value, checked.decimals, checked.tag1, "", endpoint, stored.uri, stored.hash],
  });
  return {
    run_id: run.run_id,
    listing_id: run.listing_id,
    agent_id: agentId.toString(),
    agent_registry: agentRegistry,
    feedback_uri: stored.uri,
    feedback_hash: stored.hash,
    feedback_file: file,
    transaction: { to: registries.reputationRegistry, data },
  };
}

/**
 * The wallet of run `runId` when the request proves it by `X-Wallet-Signature` instead of a bearer token
 * (run-proof.ts; decision 0235): how the payer of an x402 run, who holds no API key, prepares its
 * feedback. 401 unauthorized for a malformed or stale header; 404 not_found for an unknown run or a
 * signature of another wallet (another wallet's run is as unknown as one that does not exist).
 */
export async function provenRunWallet(services: Services, runId: string, header: string): Promise<string> {
  return (await provenRun(services, runId, header, "feedback")).wallet;
}
