// Verified feedback over time: a listing's ERC-8004 feedback that counts toward its rating (verified by
// the ERC-8004 indexer: its file's run receipt confirmed on-chain), counted in the buckets of the block
// that gave it, with its score; a revocation takes it back out of the same buckets. Facts `fb:<agent
// id>:<position>` and `fbrev:<agent id>:<position>`, applied by the indexer before it moves its cursor.
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { FeedbackItem } from "../erc8004/erc8004.store.ts";
import { scanAll } from "../adapters/tables/dynamo.ts";
import { applyFact, bucketTargets } from "./rollups.ts";
import type { RollupTarget } from "./rollup.store.ts";

/** A score (0 to 100, `value` / 10^decimals) in hundredths, exactly for up to two decimals (truncated beyond). */
export function scoreHundredths(value: string, decimals: number): bigint {
  const v = BigInt(value);
  return decimals <= 2 ? v * 10n ** BigInt(2 - decimals) : v / 10n ** BigInt(decimals - 2);
}

export type CountedFeedback = Pick<FeedbackItem, "agent_id" | "sk" | "value" | "value_decimals" | "verdict" | "revoked"> & { listing: string; given_at: string };

export const feedbackToken = (item: Pick<FeedbackItem, "agent_id" | "sk">) => `fb:${item.agent_id}:${item.sk}`;
export const feedbackRevokedToken = (item: Pick<FeedbackItem, "agent_id" | "sk">) => `fbrev:${item.agent_id}:${item.sk}`;

/** What a verified feedback adds (`sign` 1) or its revocation takes away (`sign` -1). */
export function feedbackTargets(item: CountedFeedback, sign: 1n | -1n): RollupTarget[] {
  return bucketTargets(item.listing.toLowerCase(), item.given_at, { feedback_verified: sign, feedback_score_sum: sign * scoreHundredths(item.value, item.value_decimals) });
}

/** Whether a recorded feedback is counted in the analytics: verified, of a listing, with its block's time. */
export function isCounted(item: Partial<FeedbackItem>): item is FeedbackItem & CountedFeedback {
  return item.verdict === "verified" && typeof item.listing === "string" && typeof item.given_at === "string";
}

/** Counts a verified feedback (once, however often the indexer replays it). */
export async function recordFeedback(tables: Tables, item: FeedbackItem): Promise<void> {
  if (isCounted(item)) await applyFact(tables, feedbackToken(item), feedbackTargets(item, 1n), { listing: item.listing });
}

/** Takes a revoked verified feedback out (once). */
export async function recordFeedbackRevoked(tables: Tables, item: FeedbackItem): Promise<void> {
  if (!isCounted(item)) return;
  await recordFeedback(tables, item);
  await applyFact(tables, feedbackRevokedToken(item), feedbackTargets(item, -1n), { listing: item.listing });
}

/** Every verified feedback the ERC-8004 indexer recorded (the rebuild's source for these figures). */
export async function scanCountedFeedback(tables: Tables): Promise<(FeedbackItem & CountedFeedback)[]> {
  const items = await scanAll<FeedbackItem>(tables, {
    TableName: tables.name("erc8004"),
    FilterExpression: "begins_with(pk, :fb) AND verdict = :verified",
    ExpressionAttributeValues: { ":fb": "feedback#", ":verified": "verified" },
  });
  return items.filter(isCounted);
}
