// A spending limit's windows in the `runs` table (docs/design/data-model.md): one item per (key or app,
// currency, period) and window, `spend#<key|app>#<id>#<currency>#<period>` / `day#YYYY-MM-DD`,
// `month#YYYY-MM` or `total`. It holds `committed` (wei charged plus wei held by runs in flight),
// `spent` (wei charged), and per run in flight its hold `h_<run id>` (wei) and its expiry `e_<run id>`.
// A hold is taken by one conditional write that every API process shares: "committed is at most the
// limit less this run's price" (docs/design/decisions/0172-spend-reservations-in-one-conditional-write.md).
// Amounts are DynamoDB numbers (38 digits), written and read exactly (never through a JavaScript number).
import { GetCommand, NumberValue, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, exactDocument, type Tables } from "../../adapters/tables/dynamo.ts";
import type { SpendLimit, SpendSubject } from "./spend-limits.ts";

export interface SpendWindowItem {
  committed: bigint;
  spent: bigint;
  /** Holds of the runs in flight: run id → amount and expiry (epoch ms). */
  holds: Record<string, { amount: bigint; expiresAt: number }>;
}

/** A hold's address, kept on the run so its settlement finds it: `<pk>|<sk>`. */
export type SpendHold = string;

export function spendWindowKey(subject: SpendSubject, limit: Pick<SpendLimit, "currency" | "period">, windowId: string): { pk: string; sk: string } {
  return { pk: `spend#${subject.kind}#${subject.id}#${limit.currency}#${limit.period}`, sk: windowId };
}

export const holdOf = (key: { pk: string; sk: string }): SpendHold => `${key.pk}|${key.sk}`;
function keyOfHold(hold: SpendHold): { pk: string; sk: string } {
  const at = hold.lastIndexOf("|");
  return { pk: hold.slice(0, at), sk: hold.slice(at + 1) };
}

const n = (value: bigint) => NumberValue.from(value.toString());
const names = (runId: string) => ({ "#h": `h_${runId}`, "#e": `e_${runId}` });

export function spendLedger(tables: Tables) {
  const doc = exactDocument(tables);
  const table = tables.name("runs");
  return {
    async read(key: { pk: string; sk: string }): Promise<SpendWindowItem | null> {
      const out = await doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      if (!out.Item) return null;
      const item = out.Item as Record<string, unknown>;
      const big = (value: unknown) => (value instanceof NumberValue ? BigInt(value.toString()) : 0n);
      const holds: SpendWindowItem["holds"] = {};
      for (const [name, value] of Object.entries(item)) {
        if (!name.startsWith("h_")) continue;
        const runId = name.slice(2);
        holds[runId] = { amount: big(value), expiresAt: Number(big(item[`e_${runId}`])) };
      }
      return { committed: big(item.committed), spent: big(item.spent), holds };
    },

    /** Holds `amount` for `runId` while committed stays within `limit`. False when it would not. */
    async reserve(key: { pk: string; sk: string }, runId: string, amount: bigint, limit: bigint, expiresAt: number): Promise<boolean> {
      if (amount > limit) return false;
      return applied(doc.send(new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: "SET #h = :amount, #e = :expires ADD committed :amount, spent :zero",
        // The one shared count: what is charged and held, plus this run, stays within the limit.
        ConditionExpression: "(attribute_not_exists(committed) OR committed <= :room) AND attribute_not_exists(#h)",
        ExpressionAttributeNames: names(runId),
        ExpressionAttributeValues: { ":amount": n(amount), ":expires": expiresAt, ":zero": 0, ":room": n(limit - amount) },
      })));
    },

    /** The run will not be charged: its hold is given back. A hold already gone is left alone. */
    async release(hold: SpendHold, runId: string, amount: bigint): Promise<boolean> {
      return applied(doc.send(new UpdateCommand({
        TableName: table,
        Key: keyOfHold(hold),
        UpdateExpression: "REMOVE #h, #e ADD committed :minus",
        ConditionExpression: "#h = :amount",
        ExpressionAttributeNames: names(runId),
        ExpressionAttributeValues: { ":amount": n(amount), ":minus": n(-amount) },
      })));
    },

    /** The run was charged: its hold becomes spending. A hold already swept (its holder died and it
     * expired) is counted again, so a charge always counts against the limit. */
    async settle(hold: SpendHold, runId: string, amount: bigint): Promise<void> {
      const key = keyOfHold(hold);
      const moved = await applied(doc.send(new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: "REMOVE #h, #e ADD spent :amount",
        ConditionExpression: "#h = :amount",
        ExpressionAttributeNames: names(runId),
        ExpressionAttributeValues: { ":amount": n(amount) },
      })));
      if (moved) return;
      await doc.send(new UpdateCommand({ TableName: table, Key: key, UpdateExpression: "ADD spent :amount, committed :amount", ExpressionAttributeValues: { ":amount": n(amount) } }));
    },

    /** A settlement still being retried keeps its hold longer. */
    async extend(hold: SpendHold, runId: string, expiresAt: number): Promise<boolean> {
      return applied(doc.send(new UpdateCommand({
        TableName: table,
        Key: keyOfHold(hold),
        UpdateExpression: "SET #e = :expires",
        ConditionExpression: "attribute_exists(#h)",
        ExpressionAttributeNames: names(runId),
        ExpressionAttributeValues: { ":expires": expiresAt },
      })));
    },

    /** Gives back the holds of `key` past their expiry (each only if its expiry is still the one read). */
    async sweep(key: { pk: string; sk: string }, item: SpendWindowItem, now = Date.now()): Promise<number> {
      let removed = 0;
      for (const [runId, { amount, expiresAt }] of Object.entries(item.holds)) {
        if (expiresAt > now) continue;
        const gone = await applied(doc.send(new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: "REMOVE #h, #e ADD committed :minus",
          ConditionExpression: "#e = :expires",
          ExpressionAttributeNames: names(runId),
          ExpressionAttributeValues: { ":expires": expiresAt, ":minus": n(-amount) },
        })));
        if (gone) removed++;
      }
      return removed;
    },
  };
}
