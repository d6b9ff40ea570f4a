// A credential's status as the API reports it. The specification names active, expired, low_balance
// and not_found; a revoked credential reports `revoked` and one on a closed listing `listing_closed`
// (both invalid). The chain's own `credentialStatus` view uses the same words.
import type { CredentialRecord } from "./credential.store.ts";
import type { ChainListingRecord } from "../listings/chain-listing.ts";

export const CREDENTIAL_STATUSES = ["active", "expired", "low_balance", "revoked", "listing_closed", "not_found"] as const;
export type CredentialStatusWord = (typeof CREDENTIAL_STATUSES)[number];

/** The contract's CredentialStatus enum, in order. */
export const CHAIN_STATUS: readonly CredentialStatusWord[] = ["not_found", "active", "expired", "low_balance", "revoked", "listing_closed"];

/** Status from the index (the list endpoint); the verification endpoint asks the chain instead. */
export function statusOf(record: CredentialRecord, listing: ChainListingRecord | undefined, nowSeconds: number): CredentialStatusWord {
  if (listing?.status === "closed") return "listing_closed";
  if (record.revoked) return "revoked";
  // A per-task balance below one run at the listing's current price cannot run: the contract reports it
  // LowBalance (invalid) too.
  if (record.rental_model === "per_query") return BigInt(record.balance_wei ?? "0") < BigInt(listing?.price_wei ?? "1") ? "low_balance" : "active";
  if (record.rental_model === "subscription" && (record.expires_at ?? 0) <= nowSeconds) return "expired";
  return "active";
}
