// The records behind a listing's live figures (docs/design/data-model.md, "A listing's figures"):
//   - the counters on the agent record (`listings`, the listing store's agent key): `stats_*`, with the
//     tokens of changes under way in the string set `stats_in_flight`;
//   - a run's outcome marker (`runs`: `run-stats#<run_id>` / `outcome`), the source of a run's change;
//   - the renter item (`runs`: `ran#<on-chain id>` / `<wallet>`): the wallet has a completed run.
// The exactly-once protocol over them is in stats.ts; each function here is one read or one
// conditional write.
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import { agentKey } from "./listing.store.ts";

/** The item in the `runs` table recording that a run's outcome is being, or has been, counted. */
export const runOutcomeKey = (runId: string) => ({ pk: `run-stats#${runId}`, sk: "outcome" });

/** The item in the `runs` table recording that a wallet has a completed run of a listing. */
export const renterKey = (onChainId: string, wallet: string) => ({ pk: `ran#${onChainId.toLowerCase()}`, sk: wallet.toLowerCase() });

/** The counters to add, with the change's token. */
export interface FiguresIncrement {
  token: string;
  runs?: number;
  successes?: number;
  ratingSum?: number;
  reviews?: number;
}

/**
 * Adds to the counters and puts the token in `stats_in_flight`, in one update; when `lastRunAt` is
 * given, also raises `stats_last_run_at` to it. False when the condition refused the update: the
 * record is missing, the token is already in (the change was applied), or `stats_last_run_at` is
 * already as late. readFiguresFence tells which.
 */
export async function addToFigures(tables: Tables, onChainId: string, change: FiguresIncrement, lastRunAt?: string): Promise<boolean> {
  const values: Record<string, unknown> = { ":token": change.token, ":tokens": new Set([change.token]) };
  const adds = ["stats_in_flight :tokens"];
  const add = (attribute: string, name: string, amount: number | undefined) => {
    if (!amount) return;
    adds.push(`${attribute} :${name}`);
    values[`:${name}`] = amount;
  };
  add("stats_run_count", "runs", change.runs);
  add("stats_success_count", "successes", change.successes);
  add("stats_rating_sum", "sum", change.ratingSum);
  add("stats_review_count", "reviews", change.reviews);
  // Counters live on an existing agent record only, and a change (its token) is added once.
  const base = "attribute_exists(pk) AND NOT contains(stats_in_flight, :token)";
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("listings"),
      Key: agentKey(onChainId),
      UpdateExpression: `ADD ${adds.join(", ")}${lastRunAt ? " SET stats_last_run_at = :last" : ""}`,
      // ... and the last run's time only moves forward.
      ConditionExpression: lastRunAt ? `${base} AND (attribute_not_exists(stats_last_run_at) OR stats_last_run_at < :last)` : base,
      ExpressionAttributeValues: lastRunAt ? { ...values, ":last": lastRunAt } : values,
    }),
  ));
}

/** The fence of the listing's figures (strongly consistent), or null when it has no agent record. */
export async function readFiguresFence(tables: Tables, onChainId: string): Promise<{ stats_in_flight?: Set<string>; stats_last_run_at?: string } | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("listings"), Key: agentKey(onChainId), ConsistentRead: true, ProjectionExpression: "pk, stats_in_flight, stats_last_run_at" }));
  return (out.Item as { stats_in_flight?: Set<string>; stats_last_run_at?: string } | undefined) ?? null;
}

/** Deletes a change's token from `stats_in_flight` (a missing record is left missing). */
export async function deleteFiguresToken(tables: Tables, onChainId: string, token: string): Promise<void> {
  await applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("listings"),
      Key: agentKey(onChainId),
      UpdateExpression: "DELETE stats_in_flight :tokens",
      // Never create a stub agent record holding only an empty set.
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":tokens": new Set([token]) },
    }),
  ));
}

/** Records that the wallet has a completed run of the listing (first run kept, last run raised). */
export async function raiseRenter(tables: Tables, onChainId: string, wallet: string, runId: string, finishedAt: string): Promise<void> {
  await applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: renterKey(onChainId, wallet),
      UpdateExpression: "SET first_run_id = if_not_exists(first_run_id, :id), last_run_at = :at, last_run_id = :id",
      // The last run only moves forward: an older run recorded late changes nothing.
      ConditionExpression: "attribute_not_exists(pk) OR last_run_at < :at",
      ExpressionAttributeValues: { ":id": runId, ":at": finishedAt },
    }),
  ));
}

export async function hasRenter(tables: Tables, onChainId: string, wallet: string): Promise<boolean> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: renterKey(onChainId, wallet), ConsistentRead: true, ProjectionExpression: "pk" }));
  return out.Item !== undefined;
}

export interface OutcomeMarker {
  state: "claimed" | "counted";
  claim?: string;
  generation?: number;
  claimed_until?: number;
}

/** Creates the run's outcome marker, claimed (generation 1). False when it already exists. */
export async function createOutcomeMarker(
  tables: Tables,
  run: { runId: string; onChainId: string; wallet: string; status: string; finishedAt: string },
  claim: string,
  claimedUntil: number,
): Promise<boolean> {
  return applied(tables.doc.send(
    new PutCommand({
      TableName: tables.name("runs"),
      Item: { ...runOutcomeKey(run.runId), state: "claimed", claim, generation: 1, claimed_until: claimedUntil, run_id: run.runId, on_chain_id: run.onChainId, wallet: run.wallet, status: run.status, finished_at: run.finishedAt },
      // Exactly one caller makes the first claim.
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  ));
}

export async function getOutcomeMarker(tables: Tables, runId: string): Promise<OutcomeMarker | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: runOutcomeKey(runId), ConsistentRead: true }));
  return (out.Item as OutcomeMarker | undefined) ?? null;
}

/** Takes over the claim `oldClaim` (its lease has run out). Returns the new generation, or null when
 * the marker moved on meanwhile. */
export async function takeOverOutcomeMarker(tables: Tables, runId: string, oldClaim: string | undefined, claim: string, claimedUntil: number): Promise<number | null> {
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: runOutcomeKey(runId),
        UpdateExpression: "SET claim = :claim, claimed_until = :until, generation = generation + :one",
        // Only the claim that was read, and only while uncounted: one of several takers wins.
        ConditionExpression: "#state = :claimed AND claim = :old",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":claim": claim, ":until": claimedUntil, ":one": 1, ":claimed": "claimed", ":old": oldClaim },
        ReturnValues: "ALL_NEW",
      }),
    );
    return out.Attributes!.generation as number;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return null;
    throw error;
  }
}

/** Ends a claim's lease now (after an error), so a retry need not wait. Best effort. */
export async function expireOutcomeClaim(tables: Tables, runId: string, claim: string): Promise<void> {
  await tables.doc
    .send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: runOutcomeKey(runId),
        UpdateExpression: "SET claimed_until = :zero",
        // Only the holder's own claim, and never a counted marker.
        ConditionExpression: "claim = :claim AND #state = :claimed",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":zero": 0, ":claim": claim, ":claimed": "claimed" },
      }),
    )
    .catch(() => undefined);
}

/** Marks the outcome counted. False when `claim` no longer holds the marker (it was taken over). */
export async function markOutcomeCounted(tables: Tables, runId: string, claim: string): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: runOutcomeKey(runId),
      UpdateExpression: "SET #state = :counted, counted_at = :now REMOVE claim, claimed_until",
      // Only the current claim holder finishes the change.
      ConditionExpression: "claim = :claim",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":counted": "counted", ":now": new Date().toISOString(), ":claim": claim },
    }),
  ));
}
