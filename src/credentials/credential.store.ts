// The credentials index in DynamoDB: one item per (wallet, listing) in `credentials` (in gsi1 under
// `listing#<on-chain id>`), one item per on-chain listing in `chain_listings`
// (docs/design/data-model.md). Every indexer write is conditional on the position of the last event
// applied, so replaying a block range changes nothing and an older event never overwrites a newer one;
// a repair from a live chain read is unconditional (the chain wins).
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { batchGet, batchWrite, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";
import type { Patch } from "./events.ts";
import type { ListingStatus, RentalModel } from "../vocabulary.ts";

export interface CredentialRecord {
  wallet: string;
  on_chain_listing_id: `0x${string}`;
  rental_model?: RentalModel;
  purchased_at?: string;
  expires_at?: number | null;
  balance_wei?: string;
  revoked?: boolean;
  position: string;
}

export interface ChainListingRecord {
  on_chain_listing_id: `0x${string}`;
  creator?: string;
  rental_model?: RentalModel;
  price_wei?: string;
  metadata_uri?: string;
  status?: ListingStatus;
  position: string;
}

export const credentialKey = (wallet: string, listingId: string) => ({ pk: `wallet#${wallet.toLowerCase()}`, sk: `listing#${listingId.toLowerCase()}` });
export const chainListingKey = (listingId: string) => ({ pk: `listing#${listingId.toLowerCase()}`, sk: "chain" });


function tableOf(patch: Patch): "credentials" | "chain_listings" {
  return patch.kind === "credential" ? "credentials" : "chain_listings";
}

function keyOf(patch: Patch): { pk: string; sk: string } {
  return patch.kind === "credential" ? credentialKey(patch.wallet, patch.listingId) : chainListingKey(patch.listingId);
}

function itemOf(patch: Patch): Record<string, unknown> {
  const base =
    patch.kind === "credential"
      ? { wallet: patch.wallet, on_chain_listing_id: patch.listingId, gsi1pk: `listing#${patch.listingId}`, gsi1sk: `wallet#${patch.wallet}` }
      : { on_chain_listing_id: patch.listingId };
  const set = Object.fromEntries(Object.entries(patch.set).filter(([, v]) => v !== undefined));
  return { ...keyOf(patch), ...set, ...base, position: patch.position };
}

/** The position of the last event applied to each patch's item (absent: no item yet), read in
 * batches of 100. */
export async function readPositions(tables: Tables, patches: Patch[]): Promise<Map<string, string>> {
  const positions = new Map<string, string>();
  for (const table of ["credentials", "chain_listings"] as const) {
    const keys = patches.filter((p) => tableOf(p) === table).map(keyOf);
    const items = await batchGet(tables, table, keys, { projection: "pk, sk, #p", names: { "#p": "position" }, consistent: true });
    for (const item of items) positions.set(`${table}|${item.pk as string}|${item.sk as string}`, (item.position as string | undefined) ?? "");
  }
  return positions;
}

export function positionKey(patch: Patch): string {
  const key = keyOf(patch);
  return `${tableOf(patch)}|${key.pk}|${key.sk}`;
}

/** Writes items that did not exist when their positions were read, 25 per request. Faster than one
 * conditional write each; two indexers writing the same new item write the same content. */
export async function putNewItems(tables: Tables, patches: Patch[]): Promise<void> {
  for (const table of ["credentials", "chain_listings"] as const) {
    await batchWrite(tables, table, patches.filter((p) => tableOf(p) === table).map((p) => ({ PutRequest: { Item: itemOf(p) } })), 8);
  }
}

/** Applies one folded patch. Returns false when the item already holds this or a later event. */
export async function applyPatch(tables: Tables, patch: Patch & { set: Record<string, unknown> }): Promise<boolean> {
  const names: Record<string, string> = { "#position": "position" };
  const values: Record<string, unknown> = { ":position": patch.position };
  const assignments = ["#position = :position"];
  const fields: Record<string, unknown> =
    patch.kind === "credential"
      ? { ...patch.set, wallet: patch.wallet, on_chain_listing_id: patch.listingId, gsi1pk: `listing#${patch.listingId}`, gsi1sk: `wallet#${patch.wallet}` }
      : { ...patch.set, on_chain_listing_id: patch.listingId };
  let i = 0;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    assignments.push(`#f${i} = :v${i}`);
    i++;
  }
  try {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name(patch.kind === "credential" ? "credentials" : "chain_listings"),
        Key: patch.kind === "credential" ? credentialKey(patch.wallet, patch.listingId) : chainListingKey(patch.listingId),
        UpdateExpression: `SET ${assignments.join(", ")}`,
        // Only a later event moves the item: a replayed or out-of-order event changes nothing.
        ConditionExpression: "attribute_not_exists(#position) OR #position < :position",
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** Overwrites a credential with what the chain says now (the chain wins over the index). */
export async function repairCredential(tables: Tables, record: Omit<CredentialRecord, "position"> & { position?: string }): Promise<void> {
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("credentials"),
      Key: credentialKey(record.wallet, record.on_chain_listing_id),
      UpdateExpression:
        "SET wallet = :wallet, on_chain_listing_id = :listing, rental_model = :model, expires_at = :expires, balance_wei = :balance, revoked = :revoked, purchased_at = if_not_exists(purchased_at, :purchased), gsi1pk = :g1, gsi1sk = :g2",
      ExpressionAttributeValues: {
        ":wallet": record.wallet.toLowerCase(),
        ":listing": record.on_chain_listing_id.toLowerCase(),
        ":model": record.rental_model,
        ":expires": record.expires_at ?? null,
        ":balance": record.balance_wei ?? "0",
        ":revoked": record.revoked ?? false,
        ":purchased": record.purchased_at ?? new Date().toISOString(),
        ":g1": `listing#${record.on_chain_listing_id.toLowerCase()}`,
        ":g2": `wallet#${record.wallet.toLowerCase()}`,
      },
    }),
  );
}

/** Removes a credential the chain does not have (the chain wins over the index). */
export async function deleteCredential(tables: Tables, wallet: string, listingId: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("credentials"), Key: credentialKey(wallet, listingId) }));
}

/** The index's copy of an on-chain listing, or null (eventually consistent). */
export async function getChainListing(tables: Tables, listingId: string): Promise<ChainListingRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("chain_listings"), Key: chainListingKey(listingId) }));
  return (out.Item as ChainListingRecord | undefined) ?? null;
}

export async function getCredential(tables: Tables, wallet: string, listingId: string): Promise<CredentialRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("credentials"), Key: credentialKey(wallet, listingId) }));
  return (out.Item as CredentialRecord | undefined) ?? null;
}

/** Every credential of a wallet (a wallet holds few; the list endpoint pages them in memory). */
export async function listWalletCredentials(tables: Tables, wallet: string): Promise<CredentialRecord[]> {
  const items: CredentialRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(
      new QueryCommand({ TableName: tables.name("credentials"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": `wallet#${wallet.toLowerCase()}` }, ExclusiveStartKey: startKey }),
    );
    items.push(...((page.Items ?? []) as CredentialRecord[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.filter((item) => item.rental_model !== undefined);
}

export async function getChainListings(tables: Tables, listingIds: string[]): Promise<Map<string, ChainListingRecord>> {
  const unique = [...new Set(listingIds.map((id) => id.toLowerCase()))];
  const items = (await batchGet(tables, "chain_listings", unique.map(chainListingKey))) as unknown as ChainListingRecord[];
  return new Map(items.map((item) => [item.on_chain_listing_id.toLowerCase(), item]));
}
