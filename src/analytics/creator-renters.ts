// A creator's renters across its listings (decision 0211): a wallet that rents two of a creator's
// listings is one renter of the creator. The creator's partition `croll#<creator wallet>` holds an item
// per renter (`r#<wallet>`, created by the fact that first made the wallet a renter of any of the
// creator's listings: its `first_token`) and the count (`renters`), added to by that fact only. Both
// writes are the roll-ups' own (addToRollup: once per fact token), so the count is exact however often a
// fact is retried or taken over.
import type { Tables } from "../adapters/tables/dynamo.ts";
import { getAgent } from "../listings/listing.store.ts";
import { addToRollup, getRenter, getRollupItem, type RollupTarget } from "./rollup.store.ts";

export const creatorPk = (creator: string) => `croll#${creator.toLowerCase()}`;
export const CREATOR_RENTERS_SK = "renters";

const creators = new Map<string, string>();

/** The creator of a listing (its agent record; a listing's creator never changes), or null. */
export async function creatorOf(tables: Tables, onChainId: string): Promise<string | null> {
  const id = onChainId.toLowerCase();
  const known = creators.get(id);
  if (known) return known;
  const agent = await getAgent(tables, id, { consistent: true });
  if (!agent) return null;
  creators.set(id, agent.creator.toLowerCase());
  return agent.creator.toLowerCase();
}

/**
 * After fact `token` was added to a listing's renter item: when that fact created it (the wallet is new
 * to the listing), makes the wallet a renter of the listing's creator, counted once if it is new to the
 * creator too. Returns the items written (the caller clears the token from them).
 */
export async function updateCreatorRenters(tables: Tables, onChainId: string, wallet: string, token: string): Promise<Pick<RollupTarget, "pk" | "sk">[]> {
  const renter = await getRenter(tables, onChainId, wallet);
  if (renter?.first_token !== token) return [];
  const creator = await creatorOf(tables, onChainId);
  if (!creator) return [];
  const pk = creatorPk(creator);
  const item: RollupTarget = { pk, sk: `r#${wallet.toLowerCase()}`, add: {}, setOnce: { wallet: wallet.toLowerCase(), first_token: token } };
  await addToRollup(tables, item, token);
  const written = [item];
  if ((await getRollupItem(tables, pk, item.sk))?.first_token === token) {
    const count: RollupTarget = { pk, sk: CREATOR_RENTERS_SK, add: { renters: 1n } };
    await addToRollup(tables, count, token);
    written.push(count);
  }
  return written;
}

/** How many wallets rented any of the creator's listings, all time. */
export async function creatorRenterCount(tables: Tables, creator: string): Promise<number> {
  const item = await getRollupItem(tables, creatorPk(creator), CREATOR_RENTERS_SK);
  return Number(typeof item?.renters === "bigint" ? item.renters : 0n);
}

/** The creator partitions the rebuild writes: each creator's renters across its rebuilt listings. */
export async function rebuiltCreatorPartitions(tables: Tables, listings: Map<string, Map<string, Record<string, bigint | string>>>): Promise<Map<string, Map<string, Record<string, bigint | string>>>> {
  const out = new Map<string, Map<string, Record<string, bigint | string>>>();
  for (const [pk, partition] of listings) {
    const creator = await creatorOf(tables, pk.slice("roll#".length));
    if (!creator) continue;
    const renters = [...partition.keys()].filter((sk) => sk.startsWith("r#"));
    if (renters.length === 0) continue;
    const into = out.get(creatorPk(creator)) ?? new Map<string, Record<string, bigint | string>>();
    for (const sk of renters) into.set(sk, { wallet: sk.slice(2) });
    out.set(creatorPk(creator), into);
  }
  for (const partition of out.values()) partition.set(CREATOR_RENTERS_SK, { renters: BigInt([...partition.keys()].filter((sk) => sk.startsWith("r#")).length) });
  return out;
}
