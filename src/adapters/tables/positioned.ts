// Items kept in chain order: each carries `position`, the position of the last chain event applied to
// it (block number and log index, padded so that strings compare in chain order). A write lands only
// when it brings a later event, so replaying a block range changes nothing and an older event never
// overwrites a newer one. The stores of the chain's index (credentials, on-chain listings) write
// through these, each with its own keys.
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, batchGet, batchWrite, type ItemKey, type Tables } from "./dynamo.ts";
import type { TableName } from "./schema.ts";

/** The identity of an item's key in the maps below. */
export function keyId(key: ItemKey): string {
  return `${key.pk}|${key.sk}`;
}

/** The position stored on each item of `keys` that exists ("" for an item without one), by keyId;
 * strongly consistent, in batches of 100. */
export async function readPositions(tables: Tables, table: TableName, keys: ItemKey[]): Promise<Map<string, string>> {
  const items = await batchGet(tables, table, keys, { projection: "pk, sk, #p", names: { "#p": "position" }, consistent: true });
  return new Map(items.map((item) => [keyId({ pk: item.pk as string, sk: item.sk as string }), (item.position as string | undefined) ?? ""]));
}

/** Writes items that did not exist when their positions were read, 25 per request, 8 requests at once.
 * Unconditional: faster than one conditional write each, and two indexers writing a new item write the
 * same content. */
export async function putNewItems(tables: Tables, table: TableName, items: Record<string, unknown>[]): Promise<void> {
  await batchWrite(tables, table, items.map((Item) => ({ PutRequest: { Item } })), 8);
}

/** Sets `fields` and `position` on the item at `key` when `position` is later than the one it holds.
 * False when the item already holds this or a later event. */
export async function updateIfLater(tables: Tables, table: TableName, key: ItemKey, fields: Record<string, unknown>, position: string): Promise<boolean> {
  const names: Record<string, string> = { "#position": "position" };
  const values: Record<string, unknown> = { ":position": position };
  const assignments = ["#position = :position"];
  let i = 0;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    assignments.push(`#f${i} = :v${i}`);
    i++;
  }
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name(table),
      Key: key,
      UpdateExpression: `SET ${assignments.join(", ")}`,
      // Only a later event moves the item: a replayed or out-of-order event changes nothing.
      ConditionExpression: "attribute_not_exists(#position) OR #position < :position",
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  ));
}
