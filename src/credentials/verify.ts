// GET /v1/credentials/:listing_id: the local record checked against the contract. The chain is the
// source of truth: its answer is returned, and a local record that disagrees is repaired.
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient } from "../chain/client.ts";
import { marketplaceAbi } from "../chain/generated/marketplace.ts";
import { ApiError } from "../errors.ts";
import { RENTAL_MODELS, type RentalModel } from "./events.ts";
import { toListingId } from "./ids.ts";
import { CHAIN_STATUS, type CredentialStatusWord } from "./status.ts";
import { credentialKey, getCredential, repairCredential, type CredentialRecord } from "./store.ts";

export interface CredentialVerification {
  listing_id: string;
  rental_model?: RentalModel;
  status: CredentialStatusWord;
  valid: boolean;
  expired_at?: string;
  on_chain_listing_id?: string;
  on_chain_verified: boolean;
}

export interface ChainCredential {
  status: CredentialStatusWord;
  rentalModel: RentalModel;
  expiresAt: number;
  balanceWei: bigint;
  revoked: boolean;
  purchasedAt: number;
}

/** Reads the credential from the contract: four eth_calls sent as one batched request. */
export async function readChainCredential(chain: ChainClient, listingId: `0x${string}`, wallet: Address): Promise<ChainCredential> {
  try {
    const address = chain.marketplace;
    const [status, listing, credential, perQuery] = await Promise.all([
      chain.client.readContract({ address, abi: marketplaceAbi, functionName: "credentialStatus", args: [listingId, wallet] }),
      chain.client.readContract({ address, abi: marketplaceAbi, functionName: "listings", args: [listingId] }),
      chain.client.readContract({ address, abi: marketplaceAbi, functionName: "credentials", args: [listingId, wallet] }),
      chain.client.readContract({ address, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listingId, wallet] }),
    ]);
    const rentalModel = RENTAL_MODELS[listing[2]]!;
    return rentalModel === "per_query"
      ? { status: CHAIN_STATUS[status]!, rentalModel, expiresAt: 0, balanceWei: perQuery[0], revoked: perQuery[2], purchasedAt: perQuery[1] }
      : { status: CHAIN_STATUS[status]!, rentalModel, expiresAt: credential[2], balanceWei: 0n, revoked: credential[4], purchasedAt: credential[1] };
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to verify the credential; retry.", { cause: error });
  }
}

/** What the index alone says of a credential, before the listing's own state (closed) is known. */
function indexedStatus(record: CredentialRecord, nowSeconds: number): CredentialStatusWord {
  if (record.revoked) return "revoked";
  if (record.rental_model === "per_query") return BigInt(record.balance_wei ?? "0") === 0n ? "low_balance" : "active";
  if (record.rental_model === "subscription" && (record.expires_at ?? 0) <= nowSeconds) return "expired";
  return "active";
}

/**
 * One live `credentialStatus` call and one table read, in parallel. When the index agrees with the
 * chain (the common case), that is all. When it does not, or the answer needs more than the status
 * (an expiry time), the full on-chain record is read and the index repaired from it.
 */
export async function verifyCredential(deps: { tables: Tables; chain: ChainClient }, listingId: `0x${string}`, wallet: Address): Promise<CredentialVerification> {
  const apiId = toListingId(listingId);
  const [status, local] = await Promise.all([readChainStatus(deps.chain, listingId, wallet), getCredential(deps.tables, wallet, listingId)]);
  if (status === "not_found") {
    if (local) await deps.tables.doc.send(new DeleteCommand({ TableName: deps.tables.name("credentials"), Key: credentialKey(wallet, listingId) }));
    return { listing_id: apiId, valid: false, status: "not_found", on_chain_verified: false };
  }
  const nowSeconds = Math.floor(Date.now() / 1000);
  // A closed listing is the listing's state, not the credential's: any indexed credential agrees with it.
  const agrees = local !== null && local.rental_model !== undefined && (status === "listing_closed" || indexedStatus(local, nowSeconds) === status);
  if (agrees && status !== "expired") {
    return { listing_id: apiId, rental_model: local!.rental_model!, status, valid: status === "active", on_chain_listing_id: listingId, on_chain_verified: true };
  }
  const chain = await readChainCredential(deps.chain, listingId, wallet);
  const expiresAt = chain.rentalModel === "subscription" ? chain.expiresAt : null;
  const same =
    local !== null &&
    local.rental_model === chain.rentalModel &&
    (local.expires_at ?? null) === expiresAt &&
    Boolean(local.revoked) === chain.revoked &&
    (chain.rentalModel !== "per_query" || local.balance_wei === chain.balanceWei.toString());
  if (!same) {
    await repairCredential(deps.tables, {
      wallet,
      on_chain_listing_id: listingId,
      rental_model: chain.rentalModel,
      expires_at: expiresAt,
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
    ...(chain.status === "expired" ? { expired_at: new Date(chain.expiresAt * 1000).toISOString() } : {}),
    on_chain_listing_id: listingId,
    on_chain_verified: true,
  };
}

async function readChainStatus(chain: ChainClient, listingId: `0x${string}`, wallet: Address): Promise<CredentialStatusWord> {
  try {
    const status = await chain.client.readContract({ address: chain.marketplace, abi: marketplaceAbi, functionName: "credentialStatus", args: [listingId, wallet] });
    return CHAIN_STATUS[status]!;
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to verify the credential; retry.", { cause: error });
  }
}
