// Credentials in the `credentials` table (docs/design/data-model.md): one item per (wallet, listing),
// `wallet#<wallet>` / `listing#<on-chain id>`, in gsi1 under `listing#<on-chain id>`. The chain indexer
// writes them in event order (adapters/tables/positioned.ts), so replaying a block range changes nothing
// and an older event never overwrites a newer one; a repair from a live chain read is unconditional (the
// chain wins). On-chain listings, the other half of the chain's index, are listings/chain-listing.store.ts.
import { DeleteCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { queryAll, type Tables } from "../adapters/tables/dynamo.ts";
import { keyId, putNewItems, readPositions, updateIfLater } from "../adapters/tables/positioned.ts";
import type { CredentialPatch } from "./events.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";

export interface CredentialRecord {
  wallet: string;
  on_chain_listing_id: `0x${string}`;
  rental_model?: RentalModel;
  purchased_at?: string;
  expires_at?: number | null;
  balance_wei?: string;
  revoked?: boolean;
  /** A per-task renter asked to withdraw the balance (BalanceWithdrawalRequested); cleared by a top-up or the withdrawal. */
  withdrawal_requested?: boolean;
  position: string;
}

export const credentialKey = (wallet: string, listingId: string) => ({ pk: `wallet#${wallet.toLowerCase()}`, sk: `listing#${listingId.toLowerCase()}` });

function fieldsOf(patch: CredentialPatch): Record<string, unknown> {
  const set = Object.fromEntries(Object.entries(patch.set).filter(([, v]) => v !== undefined));
  return { ...set, wallet: patch.wallet, on_chain_listing_id: patch.listingId, gsi1pk: `listing#${patch.listingId}`, gsi1sk: `wallet#${patch.wallet}` };
}

/** The position each patch's credential holds, for the credentials indexed already. */
export async function credentialPositions(tables: Tables, patches: CredentialPatch[]): Promise<Map<CredentialPatch, string>> {
  const stored = await readPositions(tables, "credentials", patches.map((patch) => credentialKey(patch.wallet, patch.listingId)));
  return new Map(patches.flatMap((patch) => {
    const position = stored.get(keyId(credentialKey(patch.wallet, patch.listingId)));
    return position === undefined ? [] : [[patch, position] as const];
  }));
}

/** Writes credentials the index did not hold when their positions were read. */
export async function putNewCredentials(tables: Tables, patches: CredentialPatch[]): Promise<void> {
  await putNewItems(tables, "credentials", patches.map((patch) => ({ ...credentialKey(patch.wallet, patch.listingId), ...fieldsOf(patch), position: patch.position })));
}

/** Applies a credential's folded patch. False when the credential already holds this or a later event. */
export async function applyCredentialPatch(tables: Tables, patch: CredentialPatch): Promise<boolean> {
  return updateIfLater(tables, "credentials", credentialKey(patch.wallet, patch.listingId), fieldsOf(patch), patch.position);
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

export async function getCredential(tables: Tables, wallet: string, listingId: string): Promise<CredentialRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("credentials"), Key: credentialKey(wallet, listingId) }));
  return (out.Item as CredentialRecord | undefined) ?? null;
}

/** Every credential of a wallet (a wallet holds few; the list endpoint pages them in memory). */
export async function listWalletCredentials(tables: Tables, wallet: string): Promise<CredentialRecord[]> {
  const items = await queryAll<CredentialRecord>(tables, { TableName: tables.name("credentials"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": `wallet#${wallet.toLowerCase()}` } });
  return items.filter((item) => item.rental_model !== undefined);
}
