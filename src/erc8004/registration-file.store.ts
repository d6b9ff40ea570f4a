// Which listing a registration file the service made is of: `erc8004file#<cid>` / `file` in the
// `listings` table (off-chain: kept when the chain is fresh, like the files themselves). The indexer
// links an agent to a listing only through this record, never through what a file says of itself.
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Tables } from "../adapters/tables/dynamo.ts";

const key = (cid: string) => ({ pk: `erc8004file#${cid}`, sk: "file" });

export async function putRegistrationFileLink(tables: Tables, cid: string, onChainId: string): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("listings"), Item: { ...key(cid), on_chain_id: onChainId.toLowerCase(), created_at: new Date().toISOString() } }));
}

/** The on-chain id of the listing a registration file is of, or null for any other CID. */
export async function getRegistrationFileListing(tables: Tables, cid: string): Promise<string | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("listings"), Key: key(cid) }));
  return (out.Item?.on_chain_id as string | undefined) ?? null;
}
