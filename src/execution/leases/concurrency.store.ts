// A listing's concurrency slots: the lease map `concurrency#<on-chain id>` / `concurrency` in `runs`
// (docs/design/data-model.md), one lease per run in flight, at most RUNS_PER_LISTING.
import type { Tables } from "../../adapters/tables/dynamo.ts";
import { leaseMapAt, type LeaseMap } from "./lease-map.store.ts";

export function concurrencyKey(onChainId: string): { pk: string; sk: string } {
  return { pk: `concurrency#${onChainId}`, sk: "concurrency" };
}

/** The slots of one listing; a run's lease is held under its run id. */
export function concurrencySlots(tables: Tables, onChainId: string): LeaseMap {
  return leaseMapAt(tables, concurrencyKey(onChainId));
}
