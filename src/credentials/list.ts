// GET /v1/credentials: the caller's rental credentials from the index, with their status now.
import type { Address } from "viem";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { currencyOfRecord, titleOf } from "../listings/catalogue.ts";
import { ETH, type Currency } from "../listings/currency.ts";
import { getAgentNames } from "../listings/listing.store.ts";
import { toListingId } from "../listings/ids.ts";
import { statusOf } from "./status.ts";
import type { CredentialStatus, RentalModel } from "@agent-rental/core/vocabulary";
import { listWalletCredentials } from "./credential.store.ts";
import { getChainListings } from "../listings/chain-listing.store.ts";

export interface CredentialListItem {
  listing_id: string;
  listing_title: string;
  rental_model: RentalModel;
  status: CredentialStatus;
  purchased_at: string;
  expires_at: string | null;
  on_chain_listing_id: string;
  /** The listing's currency (decision 0165): ETH, or the token a TokenMarketplace listing is priced in. */
  currency: Currency;
  /** A per-task credential's balance, in the currency's smallest unit (decision 0185); absent otherwise. */
  balance_wei?: string;
}

/**
 * The wallet's credentials with their status at `nowSeconds`. Pass the chain's time
 * (`chainNowSeconds`), the clock verification and execution judge expiry by; the server's clock (the
 * default) can call a subscription active that the contract already calls expired.
 */
export async function listCredentials(
  tables: Tables,
  wallet: Address,
  query: { status?: CredentialStatus; limit: number; offset: number },
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<{ credentials: CredentialListItem[]; total: number }> {
  const records = await listWalletCredentials(tables, wallet);
  const ids = records.map((r) => r.on_chain_listing_id.toLowerCase());
  const [listings, agents] = await Promise.all([
    getChainListings(tables, ids),
    getAgentNames(tables, ids),
  ]);
  const titles = new Map([...agents].map(([listingId, name]) => [listingId, titleOf(name)]));
  const items = records
    .map((record): CredentialListItem => {
      const listing = listings.get(record.on_chain_listing_id.toLowerCase());
      const listingId = toListingId(record.on_chain_listing_id);
      return {
        listing_id: listingId,
        // The registered agent's title; a listing created on-chain without a registered agent has none.
        listing_title: titles.get(listingId) ?? listingId,
        rental_model: record.rental_model!,
        status: statusOf(record, listing, nowSeconds),
        purchased_at: record.purchased_at ?? new Date(0).toISOString(),
        expires_at: record.rental_model === "subscription" && record.expires_at ? new Date(record.expires_at * 1000).toISOString() : null,
        on_chain_listing_id: record.on_chain_listing_id.toLowerCase(),
        currency: listing ? currencyOfRecord(listing) : ETH,
        ...(record.rental_model === "per_query" ? { balance_wei: record.balance_wei ?? "0" } : {}),
      };
    })
    .filter((item) => !query.status || item.status === query.status)
    .sort((a, b) => b.purchased_at.localeCompare(a.purchased_at) || a.listing_id.localeCompare(b.listing_id));
  return { credentials: items.slice(query.offset, query.offset + query.limit), total: items.length };
}
