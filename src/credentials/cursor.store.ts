// The credentials indexer's cursor, in the `meta` table: `cursor` / `indexer#<marketplace>#<deploy
// block>`, holding the next block to index (docs/design/data-model.md). One cursor per deployment, so
// indexers of two deployments sharing the tables never move each other's.
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Tables } from "../adapters/tables/dynamo.ts";

const key = (marketplace: string, fromBlock: bigint) => ({ pk: "cursor", sk: `indexer#${marketplace.toLowerCase()}#${fromBlock}` });

/** The next block to index, or null before the first round. */
export async function getIndexerCursor(tables: Tables, marketplace: string, fromBlock: bigint): Promise<bigint | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("meta"), Key: key(marketplace, fromBlock), ConsistentRead: true }));
  return out.Item ? BigInt(out.Item.next_block as string) : null;
}

/** Unconditional: a round replayed after a crash writes what the indexer already holds (every item's
 * own write is fenced by its event position). */
export async function putIndexerCursor(tables: Tables, marketplace: string, fromBlock: bigint, nextBlock: bigint): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("meta"), Item: { ...key(marketplace, fromBlock), next_block: nextBlock.toString(), updated_at: new Date().toISOString() } }));
}

/** The cursor of the analytics' count of the marketplaces' money events (indexer.ts
 * `recordFinalChainFacts`): the next block to count, at most the finality depth behind the index's. */
export const chainFactsCursorName = (marketplace: string) => `${marketplace.toLowerCase()}#facts`;

/** The next block the analytics will count; a deployment indexed before that cursor existed counted up to
 * the index's own cursor. */
export async function getChainFactsCursor(tables: Tables, marketplace: string, fromBlock: bigint): Promise<bigint | null> {
  return (await getIndexerCursor(tables, chainFactsCursorName(marketplace), fromBlock)) ?? (await getIndexerCursor(tables, marketplace, fromBlock));
}
