// Leases counted in one item of the `runs` table: a map of holder id → expiry (epoch ms), grown only
// while `size(map) < limit` (one conditional update, so every API instance shares the count). A holder
// that dies without releasing leaves an entry that expires: a refused caller sweeps expired entries
// (each removal conditioned on its recorded expiry) and tries once more. The two users are the
// per-listing concurrency limit (20 runs in flight) and the per-query reservation ledger.
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { isConditionalCheckFailure } from "../adapters/tables/dynamo.ts";

export interface LeaseItem {
  pk: string;
  sk: string;
}

export interface AcquireOptions {
  limit: number;
  /** The lease's expiry, epoch ms. */
  expiresAt: number;
  /** Extra condition (and its values) that must hold too, e.g. the ledger's settlement sequence. */
  condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

export type AcquireOutcome = "acquired" | "full" | "condition_failed";

const MAP = "#leases";

async function ensureItem(tables: Tables, key: LeaseItem): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: key,
      UpdateExpression: `SET ${MAP} = if_not_exists(${MAP}, :empty), #seq = if_not_exists(#seq, :zero)`,
      ExpressionAttributeNames: { [MAP]: "leases", "#seq": "settled_seq" },
      ExpressionAttributeValues: { ":empty": {}, ":zero": 0 },
    }),
  );
}

async function tryAcquire(tables: Tables, key: LeaseItem, holder: string, options: AcquireOptions): Promise<AcquireOutcome | "missing"> {
  const extra = options.condition;
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: key,
        UpdateExpression: `SET ${MAP}.#holder = :expires`,
        ConditionExpression: `attribute_exists(${MAP}) AND size(${MAP}) < :limit${extra ? ` AND (${extra.expression})` : ""}`,
        ExpressionAttributeNames: { [MAP]: "leases", "#holder": holder, ...(extra?.names ?? {}) },
        ExpressionAttributeValues: { ":expires": options.expiresAt, ":limit": options.limit, ...(extra?.values ?? {}) },
      }),
    );
    return "acquired";
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
  }
  const item = await readLeases(tables, key);
  if (!item) return "missing";
  return Object.keys(item.leases).length >= options.limit ? "full" : "condition_failed";
}

export async function readLeases(tables: Tables, key: LeaseItem): Promise<{ leases: Record<string, number>; settled_seq: number } | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("runs"), Key: key, ConsistentRead: true }));
  if (!out.Item || typeof out.Item.leases !== "object") return null;
  return { leases: Object.fromEntries(Object.entries(out.Item.leases as Record<string, unknown>).map(([k, v]) => [k, Number(v)])), settled_seq: Number(out.Item.settled_seq ?? 0) };
}

/** Removes the expired leases of `key` (each only if its expiry is still the one read). Returns how many. */
export async function sweepExpired(tables: Tables, key: LeaseItem, now = Date.now()): Promise<number> {
  const item = await readLeases(tables, key);
  if (!item) return 0;
  let removed = 0;
  for (const [holder, expiresAt] of Object.entries(item.leases)) {
    if (expiresAt > now) continue;
    try {
      await tables.doc.send(
        new UpdateCommand({
          TableName: tables.name("runs"),
          Key: key,
          UpdateExpression: `REMOVE ${MAP}.#holder`,
          ConditionExpression: `${MAP}.#holder = :expires`,
          ExpressionAttributeNames: { [MAP]: "leases", "#holder": holder },
          ExpressionAttributeValues: { ":expires": expiresAt },
        }),
      );
      removed++;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
  return removed;
}

/** Takes a lease for `holder` when fewer than `limit` are held (and the extra condition holds). A full
 * map is swept of expired leases once before the answer is "full". */
export async function acquireLease(tables: Tables, key: LeaseItem, holder: string, options: AcquireOptions): Promise<AcquireOutcome> {
  let swept = false;
  for (let attempt = 0; attempt < 6; attempt++) {
    const outcome = await tryAcquire(tables, key, holder, options);
    if (outcome === "acquired") return outcome;
    if (outcome === "missing") {
      await ensureItem(tables, key);
      continue;
    }
    if (outcome === "full") {
      // Expired leases of holders that died are swept once before the answer is "full".
      if (!swept && (await sweepExpired(tables, key)) > 0) {
        swept = true;
        continue;
      }
      return "full";
    }
    // Refused while not full: the item was created concurrently (retry), or the caller's own condition
    // no longer holds (the caller decides).
    if (options.condition) return "condition_failed";
  }
  return "condition_failed";
}

/** Gives a lease back; with `settled`, also advances the item's settlement sequence in the same write. */
export async function releaseLease(tables: Tables, key: LeaseItem, holder: string, options: { settled?: boolean } = {}): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("runs"),
      Key: key,
      UpdateExpression: `REMOVE ${MAP}.#holder${options.settled ? " ADD #seq :one" : ""}`,
      ConditionExpression: `attribute_exists(${MAP})`,
      ExpressionAttributeNames: { [MAP]: "leases", "#holder": holder, ...(options.settled ? { "#seq": "settled_seq" } : {}) },
      ...(options.settled ? { ExpressionAttributeValues: { ":one": 1 } } : {}),
    }),
  ).catch((error: unknown) => {
    if (!isConditionalCheckFailure(error)) throw error;
  });
}

/** Moves a lease's expiry (a settlement still being retried keeps its reservation). */
export async function extendLease(tables: Tables, key: LeaseItem, holder: string, expiresAt: number): Promise<boolean> {
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("runs"),
        Key: key,
        UpdateExpression: `SET ${MAP}.#holder = :expires`,
        ConditionExpression: `attribute_exists(${MAP}.#holder)`,
        ExpressionAttributeNames: { [MAP]: "leases", "#holder": holder },
        ExpressionAttributeValues: { ":expires": expiresAt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}
