// A renter's per-query reservations for a listing: the lease map `ledger#<on-chain id>#<wallet>` /
// `ledger` in `runs` (docs/design/data-model.md) for a balance on the Marketplace (ETH), and
// `ledger#token#<on-chain id>#<wallet>` for one on the TokenMarketplace, so a reservation against a
// balance in ETH and one in a token never share an item (decision 0186); one lease per run reserved, and
// the settlement sequence the ledger's protocol (ledger.ts) reads before the balance.
import type { Address } from "viem";
import type { Tables } from "../../adapters/tables/dynamo.ts";
import type { Market } from "../../chain/client.ts";
import { leaseMapAt, type LeaseMap } from "../leases/lease-map.store.ts";

export function ledgerKey(onChainId: `0x${string}`, wallet: Address, market: Market = "eth"): { pk: string; sk: string } {
  const contract = market === "token" ? "token#" : "";
  return { pk: `ledger#${contract}${onChainId}#${wallet.toLowerCase()}`, sk: "ledger" };
}

/** The reservations of one (contract, listing, wallet); a run's reservation is held under its run id. */
export function reservationLedger(tables: Tables, onChainId: `0x${string}`, wallet: Address, market: Market = "eth"): LeaseMap {
  return leaseMapAt(tables, ledgerKey(onChainId, wallet, market));
}
