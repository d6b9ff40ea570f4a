// GET /v1/credentials/:listing_id: the local record checked against the contract. The chain is the
// source of truth: its answer is returned, and a local record that disagrees is repaired.
import type { Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { readCredentialOf, type ContractCredential } from "../chain/read-credential.ts";
import { ApiError } from "../errors.ts";
import { toListingId } from "../listings/ids.ts";
import { CHAIN_CREDENTIAL_STATUSES, rentalModelOf, type CredentialStatus, type RentalModel } from "@agent-rental/core/vocabulary";
import { deleteCredential, getCredential, repairCredential, type CredentialRecord } from "./credential.store.ts";

export interface CredentialVerification {
  listing_id: string;
  rental_model?: RentalModel;
  status: CredentialStatus;
  valid: boolean;
  expired_at?: string;
  on_chain_listing_id?: string;
  on_chain_verified: boolean;
}

export interface ChainCredential {
  status: CredentialStatus;
  rentalModel: RentalModel;
  purchasedAt: number;
  /** A subscription's expiry (Unix seconds); null for the other models. */
  expiresAt: number | null;
  balanceWei: bigint;
  revoked: boolean;
}

/** Reads the credential from the contract in one eth_call (`credentialOf`). */
export async function readChainCredential(chain: ChainClient, listingId: `0x${string}`, wallet: Address): Promise<ChainCredential> {
  let result: ContractCredential;
  try {
    result = await readCredentialOf(chain, listingId, wallet);
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to verify the credential; retry.", { cause: error });
  }
  const { status, accessType, purchasedAt, expiresAt, balance, revoked } = result;
  const rentalModel = rentalModelOf(accessType);
  return { status: CHAIN_CREDENTIAL_STATUSES[status]!, rentalModel, purchasedAt, expiresAt: rentalModel === "subscription" ? expiresAt : null, balanceWei: balance, revoked };
}

/** Whether the index holds what the chain holds, field by field. */
function agrees(local: CredentialRecord | null, chain: ChainCredential): boolean {
  return (
    local !== null &&
    local.rental_model === chain.rentalModel &&
    (local.expires_at ?? null) === chain.expiresAt &&
    Boolean(local.revoked) === chain.revoked &&
    (chain.rentalModel !== "per_query" || local.balance_wei === chain.balanceWei.toString())
  );
}

/**
 * One live chain read (`credentialOf`: status, model and record) and one read of the index, in
 * parallel. The answer is the chain's; when the index disagrees in any field it is repaired (or, for
 * a credential the chain does not have, removed).
 */
export async function verifyCredential(deps: { tables: Tables; chain: ChainClient }, listingId: `0x${string}`, wallet: Address): Promise<CredentialVerification> {
  const [chain, local] = await Promise.all([readChainCredential(deps.chain, listingId, wallet), getCredential(deps.tables, wallet, listingId)]);
  const apiId = toListingId(listingId);
  if (chain.status === "not_found") {
    if (local) await deleteCredential(deps.tables, wallet, listingId);
    return { listing_id: apiId, valid: false, status: "not_found", on_chain_verified: false };
  }
  if (!agrees(local, chain)) {
    await repairCredential(deps.tables, {
      wallet,
      on_chain_listing_id: listingId,
      rental_model: chain.rentalModel,
      expires_at: chain.expiresAt,
      balance_wei: chain.balanceWei.toString(),
      revoked: chain.revoked,
      purchased_at: new Date(chain.purchasedAt * 1000).toISOString(),
    });
  }
  return {
    listing_id: apiId,
    rental_model: chain.rentalModel,
    status: chain.status,
    valid: chain.status === "active",
    ...(chain.status === "expired" && chain.expiresAt !== null ? { expired_at: new Date(chain.expiresAt * 1000).toISOString() } : {}),
    on_chain_listing_id: listingId,
    on_chain_verified: true,
  };
}
