// A renter's per-query reservations for a listing: the lease map `ledger#<on-chain id>#<wallet>` /
// `ledger` in `runs` (docs/design/data-model.md), one lease per run reserved, and the settlement
// sequence the ledger's protocol (ledger.ts) reads before the balance.
import type { Address } from "viem";
import type { Tables } from "../../adapters/tables/dynamo.ts";
import { leaseMapAt, type LeaseMap } from "../leases/lease-map.store.ts";

export function ledgerKey(onChainId: `0x${string}`, wallet: Address): { pk: string; sk: string } {
  return { pk: `ledger#${onChainId}#${wallet.toLowerCase()}`, sk: "ledger" };
}

/** The reservations of one (listing, wallet); a run's reservation is held under its run id. */
export function reservationLedger(tables: Tables, onChainId: `0x${string}`, wallet: Address): LeaseMap {
  return leaseMapAt(tables, ledgerKey(onChainId, wallet));
}
