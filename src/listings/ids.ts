// Listing ids: the API's prefix-style id is `lst_` followed by the 32-byte on-chain listing id in hex
// (keccak256 of the creator and the seed), so either converts to the other without a lookup.
import { ApiError } from "../errors.ts";

const API_ID = /^lst_[0-9a-f]{64}$/;
const ON_CHAIN_ID = /^0x[0-9a-fA-F]{64}$/;

export function toListingId(onChainId: string): string {
  return `lst_${onChainId.slice(2).toLowerCase()}`;
}

export function toOnChainId(listingId: string): `0x${string}` {
  return `0x${listingId.slice(4)}`;
}

/** Accepts `lst_<64 hex>` (or the 0x on-chain id) and returns the on-chain id; else 400 invalid_listing_id. */
export function parseListingId(value: string): `0x${string}` {
  if (API_ID.test(value)) return toOnChainId(value);
  if (ON_CHAIN_ID.test(value)) return value.toLowerCase() as `0x${string}`;
  throw new ApiError("invalid_listing_id", "A listing id is lst_ followed by 64 lowercase hex characters (or the 0x-prefixed 32-byte on-chain id).");
}
