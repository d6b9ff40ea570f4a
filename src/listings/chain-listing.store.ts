// On-chain listings in the `chain_listings` table (docs/design/data-model.md): `listing#<on-chain id>`
// / `chain`, written by the chain indexer in event order (adapters/tables/positioned.ts) and read by
// the catalogue, ratings and execution's access check. The table may be cleared and rebuilt from the
// chain.
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { batchGet, type Tables } from "../adapters/tables/dynamo.ts";
import { keyId, putNewItems, readPositions, updateIfLater } from "../adapters/tables/positioned.ts";
import type { ChainListingRecord, ListingPatch } from "./chain-listing.ts";

export const chainListingKey = (listingId: string) => ({ pk: `listing#${listingId.toLowerCase()}`, sk: "chain" });

function fieldsOf(patch: ListingPatch): Record<string, unknown> {
  return { ...Object.fromEntries(Object.entries(patch.set).filter(([, v]) => v !== undefined)), on_chain_listing_id: patch.listingId };
}

/** The index's copy of an on-chain listing, or null (eventually consistent). */
export async function getChainListing(tables: Tables, listingId: string): Promise<ChainListingRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("chain_listings"), Key: chainListingKey(listingId) }));
  return (out.Item as ChainListingRecord | undefined) ?? null;
}

/** The index's copies of the listings that have one, by lower-case on-chain id. */
export async function getChainListings(tables: Tables, listingIds: string[]): Promise<Map<string, ChainListingRecord>> {
  const unique = [...new Set(listingIds.map((id) => id.toLowerCase()))];
  const items = (await batchGet(tables, "chain_listings", unique.map(chainListingKey))) as unknown as ChainListingRecord[];
  return new Map(items.map((item) => [item.on_chain_listing_id.toLowerCase(), item]));
}

/** The position each patch's listing holds, for the listings indexed already. */
export async function chainListingPositions(tables: Tables, patches: ListingPatch[]): Promise<Map<ListingPatch, string>> {
  const stored = await readPositions(tables, "chain_listings", patches.map((patch) => chainListingKey(patch.listingId)));
  return new Map(patches.flatMap((patch) => {
    const position = stored.get(keyId(chainListingKey(patch.listingId)));
    return position === undefined ? [] : [[patch, position] as const];
  }));
}

/** Writes listings the index did not hold when their positions were read. */
export async function putNewChainListings(tables: Tables, patches: ListingPatch[]): Promise<void> {
  await putNewItems(tables, "chain_listings", patches.map((patch) => ({ ...chainListingKey(patch.listingId), ...fieldsOf(patch), position: patch.position })));
}

/** Applies a listing's folded patch. False when the listing already holds this or a later event. */
export async function applyChainListingPatch(tables: Tables, patch: ListingPatch): Promise<boolean> {
  return updateIfLater(tables, "chain_listings", chainListingKey(patch.listingId), fieldsOf(patch), patch.position);
}
