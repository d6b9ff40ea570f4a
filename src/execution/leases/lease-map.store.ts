// Lease maps in the `runs` table: one item whose `leases` map holds holder id → expiry (epoch ms), grown
// only while `size(leases) < limit`, so every API instance shares one count (docs/design/data-model.md).
// The item also carries `settled_seq`, a counter the reservation ledger advances with each charge. Two
// kinds of record have this shape, each with a store of its own that owns its key: a listing's
// concurrency slots (concurrency.store.ts) and a renter's per-query reservations (money/ledger.store.ts).
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, isConditionalCheckFailure, type ItemKey, type Tables } from "../../adapters/tables/dynamo.ts";

/** A lease map as stored. */
export interface LeaseMapItem {
  /** Holder id → expiry, epoch ms. */
  leases: Record<string, number>;
  /** Settlements recorded so far (the ledger's; 0 on a concurrency item). */
  settled_seq: number;
}

/** A lease was refused; `found` is the item read after the refusal (null when it does not exist yet). */
export class LeaseRefusedError extends Error {
  constructor(
    readonly holder: string,
    readonly found: LeaseMapItem | null,
  ) {
    super(`lease for ${holder} refused${found ? ` (${Object.keys(found.leases).length} held)` : " (no lease map yet)"}`);
    this.name = "LeaseRefusedError";
  }
}

/** The operations on one lease map item; a kind's store binds them to its key. */
export interface LeaseMap {
  read(): Promise<LeaseMapItem | null>;
  /** Creates the empty map (and a zero sequence) if the item has none yet. */
  ensure(): Promise<void>;
  /** Takes a lease for `holder` until `expiresAt` while fewer than `limit` are held (and, with
   * `settledSeq`, while the sequence is still the one read). Throws LeaseRefusedError with the item found. */
  add(holder: string, options: { limit: number; expiresAt: number; settledSeq?: number }): Promise<void>;
  /** Removes `holder`'s lease; with `settled`, advances the sequence in the same write. */
  remove(holder: string, options?: { settled?: boolean }): Promise<void>;
  /** Removes `holder`'s lease if it still expires at `expiresAt`. False when it changed or went. */
  removeExpired(holder: string, expiresAt: number): Promise<boolean>;
  /** Moves `holder`'s lease's expiry. False when it holds none. */
  extend(holder: string, expiresAt: number): Promise<boolean>;
}

/** The lease map stored under `key` (in `runs`). */
export function leaseMapAt(tables: Tables, key: ItemKey): LeaseMap {
  const table = tables.name("runs");
  const read = async (): Promise<LeaseMapItem | null> => {
    const out = await tables.doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    if (!out.Item || typeof out.Item.leases !== "object") return null;
    return { leases: Object.fromEntries(Object.entries(out.Item.leases as Record<string, unknown>).map(([k, v]) => [k, Number(v)])), settled_seq: Number(out.Item.settled_seq ?? 0) };
  };
  return {
    read,
    async ensure() {
      await tables.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          // Unconditional: if_not_exists keeps whatever a concurrent writer created.
          UpdateExpression: "SET #leases = if_not_exists(#leases, :empty), #seq = if_not_exists(#seq, :zero)",
          ExpressionAttributeNames: { "#leases": "leases", "#seq": "settled_seq" },
          ExpressionAttributeValues: { ":empty": {}, ":zero": 0 },
        }),
      );
    },
    async add(holder, { limit, expiresAt, settledSeq }) {
      const withSeq = settledSeq !== undefined;
      try {
        await tables.doc.send(
          new UpdateCommand({
            TableName: table,
            Key: key,
            UpdateExpression: "SET #leases.#holder = :expires",
            // Fewer than `limit` held, counted in the one item every instance shares; for the ledger,
            // no settlement since the caller read the balance (the sequence it read is still current).
            ConditionExpression: `attribute_exists(#leases) AND size(#leases) < :limit${withSeq ? " AND (#seq = :seq)" : ""}`,
            ExpressionAttributeNames: { "#leases": "leases", "#holder": holder, ...(withSeq ? { "#seq": "settled_seq" } : {}) },
            ExpressionAttributeValues: { ":expires": expiresAt, ":limit": limit, ...(withSeq ? { ":seq": settledSeq } : {}) },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailure(error)) throw error;
        throw new LeaseRefusedError(holder, await read());
      }
    },
    async remove(holder, options = {}) {
      await applied(tables.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: `REMOVE #leases.#holder${options.settled ? " ADD #seq :one" : ""}`,
          // Never creates an item: a release of a map that was never made is a no-op.
          ConditionExpression: "attribute_exists(#leases)",
          ExpressionAttributeNames: { "#leases": "leases", "#holder": holder, ...(options.settled ? { "#seq": "settled_seq" } : {}) },
          ...(options.settled ? { ExpressionAttributeValues: { ":one": 1 } } : {}),
        }),
      ));
    },
    async removeExpired(holder, expiresAt) {
      return applied(tables.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: "REMOVE #leases.#holder",
          // Only the expiry that was read: a holder that extended its lease meanwhile keeps it.
          ConditionExpression: "#leases.#holder = :expires",
          ExpressionAttributeNames: { "#leases": "leases", "#holder": holder },
          ExpressionAttributeValues: { ":expires": expiresAt },
        }),
      ));
    },
    async extend(holder, expiresAt) {
      return applied(tables.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: "SET #leases.#holder = :expires",
          // Only a lease still held moves: a released reservation is not taken again.
          ConditionExpression: "attribute_exists(#leases.#holder)",
          ExpressionAttributeNames: { "#leases": "leases", "#holder": holder },
          ExpressionAttributeValues: { ":expires": expiresAt },
        }),
      ));
    },
  };
}
