// A credential's status from the index, in the words the API reports (@agent-rental/core/vocabulary): a revoked
// credential reports `revoked` and one on a closed listing `listing_closed` (both invalid). The chain's
// own `credentialStatus` view uses the same words.
import type { CredentialStatus } from "@agent-rental/core/vocabulary";
import type { CredentialRecord } from "./credential.store.ts";
import type { ChainListingRecord } from "../listings/chain-listing.ts";

/** Status from the index (the list endpoint); the verification endpoint asks the chain instead. */
export function statusOf(record: CredentialRecord, listing: ChainListingRecord | undefined, nowSeconds: number): CredentialStatus {
  if (listing?.status === "closed") return "listing_closed";
  if (record.revoked) return "revoked";
  // A per-task balance below one run at the listing's current price cannot run, nor can one whose
  // withdrawal was requested: the contract reports both LowBalance (invalid) too.
  if (record.rental_model === "per_query") {
    if (record.withdrawal_requested) return "low_balance";
    return BigInt(record.balance_wei ?? "0") < BigInt(listing?.price_wei ?? "1") ? "low_balance" : "active";
  }
  if (record.rental_model === "subscription" && (record.expires_at ?? 0) <= nowSeconds) return "expired";
  return "active";
}
