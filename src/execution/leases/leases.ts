// Leases counted in one shared item (a lease map, lease-map.store.ts): a holder takes a lease while
// fewer than the limit are held. A holder that dies without releasing leaves an entry that expires: a
// refused caller sweeps expired entries (each removal conditioned on the expiry it read) and tries once
// more. The two users are a listing's concurrency limit (concurrency.store.ts) and the per-query
// reservation ledger (money/ledger.ts).
import { LeaseRefusedError, type LeaseMap } from "./lease-map.store.ts";

export interface AcquireOptions {
  limit: number;
  /** The lease's expiry, epoch ms. */
  expiresAt: number;
  /** The ledger's settlement sequence the caller read: the lease is refused once it has moved. */
  settledSeq?: number;
}

/** `full`: `limit` leases are held (after a sweep); `condition_failed`: refused while not full (the
 * sequence moved, or the map kept changing). */
export type AcquireOutcome = "acquired" | "full" | "condition_failed";

/** Removes the expired leases of `map` (each only if its expiry is still the one read). Returns how many. */
export async function sweepExpired(map: LeaseMap, now = Date.now()): Promise<number> {
  const item = await map.read();
  if (!item) return 0;
  let removed = 0;
  for (const [holder, expiresAt] of Object.entries(item.leases)) {
    if (expiresAt > now) continue;
    if (await map.removeExpired(holder, expiresAt)) removed++;
  }
  return removed;
}

/** Takes a lease for `holder` when fewer than `limit` are held (and the sequence holds). A full map is
 * swept of expired leases once before the answer is "full". */
export async function acquireLease(map: LeaseMap, holder: string, options: AcquireOptions): Promise<AcquireOutcome> {
  let swept = false;
  for (let attempt = 0; attempt < 6; attempt++) {
    let found;
    try {
      await map.add(holder, options);
      return "acquired";
    } catch (error) {
      if (!(error instanceof LeaseRefusedError)) throw error;
      found = error.found;
    }
    if (!found) {
      await map.ensure();
      continue;
    }
    if (Object.keys(found.leases).length >= options.limit) {
      // Expired leases of holders that died are swept once before the answer is "full".
      if (!swept && (await sweepExpired(map)) > 0) {
        swept = true;
        continue;
      }
      return "full";
    }
    // Refused while not full: the item was created concurrently (retry), or the caller's sequence no
    // longer holds (the caller decides).
    if (options.settledSeq !== undefined) return "condition_failed";
  }
  return "condition_failed";
}
