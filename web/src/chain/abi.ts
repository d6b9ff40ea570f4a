// The marketplace ABI, generated from the contract by the build (`@agent-rental/core/marketplace`), so every read
// and write the dashboard makes is type-checked against the contract itself.
export { marketplaceAbi } from "@agent-rental/core/marketplace";
/** The TokenMarketplace's: listings priced in a token. Its renter functions have the Marketplace's names
 * and arguments (and `listings` adds the token before the metadata URI). */
export { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
/** The contract's enums (AccessType, ListingStatus) in the service's words. */
export { ACCESS_TYPE, CHAIN_LISTING_STATUSES, rentalModelOf } from "@agent-rental/core/vocabulary";
/** Subscription windows the contract accepts, in seconds. */
export const SUBSCRIPTION_DAYS = [30, 90, 365] as const;
export const DAY = 86_400;

/** `lst_<64 hex>` ↔ the 0x on-chain listing id. */
export function onChainId(listingId: string): `0x${string}` {
  return (listingId.startsWith("0x") ? listingId : `0x${listingId.replace(/^lst_/, "")}`) as `0x${string}`;
}
