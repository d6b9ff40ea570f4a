// GET /v1/credentials/:listing_id: the local record checked against the contract. The chain is the
// source of truth: its answer is returned, and a local record that disagrees is repaired. A listing
// priced in a token is read from the TokenMarketplace; the answer carries the listing's currency and a
// per-task balance in its smallest unit (decision 0185).
import { getAddress, zeroAddress, type Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import type { ChainClient, Market } from "../chain/client.ts";
import { readCredentialOf, type ContractCredential } from "../chain/read-credential.ts";
import { ApiError } from "../errors.ts";
import { toListingId } from "../listings/ids.ts";
import { currencyOf, ETH, type Currency } from "../listings/currency.ts";
import { listingMarket } from "./market.ts";
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
  /** The listing's currency (decision 0165); absent when no listing was found. */
  currency?: Currency;
  /** A per-task credential's balance in the currency's smallest unit (decimal string). */
  balance_wei?: string;
}

export interface ChainCredential {
  status: CredentialStatus;
  rentalModel: RentalModel;
  purchasedAt: number;
  /** A subscription's expiry (Unix seconds); null for the other models. */
  expiresAt: number | null;
  /** In the smallest unit of the listing's currency. */
  balanceWei: bigint;
  revoked: boolean;
  /** The contract that answered. */
  market: Market;
  /** The listing's token (TokenMarketplace); null for ETH. */
  token: Address | null;
}

/** One contract's credentialOf, or, with the market unknown (a listing the index does not hold yet),
 * both contracts' in one batched request: the TokenMarketplace's answers when it holds the listing. */
async function readEither(chain: ChainClient, listingId: `0x${string}`, wallet: Address, market: Market | undefined): Promise<ContractCredential & { market: Market }> {
  if (market) return { ...(await readCredentialOf(chain, listingId, wallet, market)), market };
  if (!chain.tokenMarketplace) return { ...(await readCredentialOf(chain, listingId, wallet, "eth")), market: "eth" };
  const [eth, token] = await Promise.all([readCredentialOf(chain, listingId, wallet, "eth"), readCredentialOf(chain, listingId, wallet, "token")]);
  return token.token !== null && token.token !== zeroAddress ? { ...token, market: "token" } : { ...eth, market: "eth" };
}

/** Reads the credential from the listing's contract in one eth_call (`credentialOf`); `market` undefined:
 * from whichever contract holds the listing. */
export async function readChainCredential(chain: ChainClient, listingId: `0x${string}`, wallet: Address, market?: Market): Promise<ChainCredential> {
  let result: ContractCredential & { market: Market };
  try {
    result = await readEither(chain, listingId, wallet, market);
  } catch (error) {
    throw new ApiError("service_unavailable", "The chain could not be reached to verify the credential; retry.", { cause: error });
  }
  const { status, accessType, purchasedAt, expiresAt, balance, revoked, token } = result;
  const rentalModel = rentalModelOf(accessType);
  return { status: CHAIN_CREDENTIAL_STATUSES[status]!, rentalModel, purchasedAt, expiresAt: rentalModel === "subscription" ? expiresAt : null, balanceWei: balance, revoked, market: result.market, token: result.market === "token" ? token : null };
}

/** The currency of the listing a credential was read for (null: a token the service is not configured with). */
function currencyOfCredential(chain: ChainClient, credential: ChainCredential): Currency | null {
  if (credential.market !== "token" || !credential.token) return ETH;
  const known = currencyOf(chain, credential.token);
  // Checksummed, as listings show it (catalogue.ts currencyOfRecord).
  return known && { ...known, address: getAddress(known.address!) };
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
  const [chain, local] = await Promise.all([
    listingMarket(deps, listingId).then((market) => readChainCredential(deps.chain, listingId, wallet, market)),
    getCredential(deps.tables, wallet, listingId),
  ]);
  const apiId = toListingId(listingId);
  if (chain.status === "not_found") {
    if (local) await deleteCredential(deps.tables, wallet, listingId);
    return { listing_id: apiId, valid: false, status: "not_found", on_chain_verified: false };
  }
  const currency = currencyOfCredential(deps.chain, chain);
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
    ...(currency ? { currency } : {}),
    ...(chain.rentalModel === "per_query" ? { balance_wei: chain.balanceWei.toString() } : {}),
  };
}
