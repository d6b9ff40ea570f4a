// The chain indexers' undo journal, in the `meta` table: for each block range an indexer applied that is
// not final yet, the items it wrote as they were before the range (their before-images, written ahead of
// the writes) and the hash of the range's last block. When a reorganisation takes blocks away, the
// ranges after the fork are undone (each item written back as it was, or deleted when it did not exist)
// and indexed again from the chain as it now is (docs/design/indexer.md#reorganisations).
//   journal#<name> / <from, 20 digits>#img#<n, 6 digits>   images: [{table, key, item | null}]
//   journal#<name> / <from, 20 digits>#end                 to, hash: the range is closed
import { BatchWriteCommand, DeleteCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { batchGet, batchWrite, queryAll, scanAll, type ItemKey, type Tables } from "./dynamo.ts";
import type { TableName } from "./schema.ts";

export interface BeforeImage {
  table: TableName;
  key: ItemKey;
  /** The item before the range wrote it; null when it did not exist. */
  item: Record<string, unknown> | null;
}

/** A range an indexer applied: its images in the order they were taken, and, once it is closed, its
 * last block and that block's hash. */
export interface JournalRange {
  from: bigint;
  to?: bigint;
  hash?: string;
  images: BeforeImage[];
  /** The journal's items that hold it. */
  sks: string[];
}

export interface RangeRecorder {
  /** Takes the before-image of every key not taken yet in this range, and journals it before returning:
   * call it before writing those keys. */
  capture(table: TableName, keys: ItemKey[]): Promise<void>;
  /** `tables` whose every write to one of `watched` captures the written key first. */
  tracking(tables: Tables, watched: TableName[]): Tables;
  /** Marks the range applied through block `to`, whose hash was `hash` when its logs were read. */
  close(to: bigint, hash: string): Promise<void>;
}

const pad = (n: bigint | number, width: number) => n.toString().padStart(width, "0");
const journalPk = (name: string) => `journal#${name}`;
const idOf = (table: string, key: ItemKey) => `${table}|${key.pk}|${key.sk}`;
/** Images per journal item are bounded by size (an item holds at most 400 KB). */
const PAGE_BYTES = 150_000;

/** Every range of the journal, oldest first (open ones, those whose writes may have started but that were
 * never closed, included). */
export async function listJournalRanges(tables: Tables, name: string): Promise<JournalRange[]> {
  const items = await queryAll<Record<string, unknown>>(tables, { TableName: tables.name("meta"), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": journalPk(name) }, ConsistentRead: true });
  const ranges = new Map<string, JournalRange>();
  for (const item of items) {
    const sk = item.sk as string;
    const fromText = sk.slice(0, 20);
    const range = ranges.get(fromText) ?? { from: BigInt(fromText), images: [], sks: [] };
    ranges.set(fromText, range);
    range.sks.push(sk);
    if (sk.endsWith("#end")) Object.assign(range, { to: BigInt(item.to as string), hash: item.hash as string });
    else range.images.push(...((item.images as BeforeImage[] | undefined) ?? []));
  }
  return [...ranges.values()].sort((a, b) => (a.from < b.from ? -1 : 1));
}

/** Opens the range starting at block `from` (again, after a round that stopped: the images it took stay,
 * as they are the items before any of its writes). */
export async function openJournalRange(tables: Tables, name: string, from: bigint, existing?: JournalRange): Promise<RangeRecorder> {
  const range = existing ?? (await listJournalRanges(tables, name)).find((r) => r.from === from);
  const taken = new Set((range?.images ?? []).map((image) => idOf(image.table, image.key)));
  let page = range?.sks.filter((sk) => sk.includes("#img#")).length ?? 0;
  const capture = async (table: TableName, keys: ItemKey[]) => {
    const fresh = [...new Map(keys.map((key) => [idOf(table, key), key])).entries()].filter(([id]) => !taken.has(id)).map(([, key]) => key);
    if (fresh.length === 0) return;
    const found = new Map((await batchGet(tables, table, fresh, { consistent: true })).map((item) => [idOf(table, item as ItemKey), item]));
    const images: BeforeImage[] = fresh.map((key) => ({ table, key: { pk: key.pk, sk: key.sk }, item: found.get(idOf(table, key)) ?? null }));
    const pages: BeforeImage[][] = [[]];
    let bytes = 0;
    for (const image of images) {
      const size = JSON.stringify(image, (_, v) => (v instanceof Set ? [...v] : v)).length;
      if (bytes + size > PAGE_BYTES && pages.at(-1)!.length > 0) (pages.push([]), (bytes = 0));
      pages.at(-1)!.push(image);
      bytes += size;
    }
    for (const chunk of pages) {
      await tables.doc.send(new PutCommand({ TableName: tables.name("meta"), Item: { pk: journalPk(name), sk: `${pad(from, 20)}#img#${pad(page++, 6)}`, images: chunk } }));
    }
    for (const image of images) taken.add(idOf(table, image.key));
  };
  return {
    capture,
    tracking: (base, watched) => trackingTables(base, watched, capture),
    async close(to, hash) {
      await tables.doc.send(new PutCommand({ TableName: tables.name("meta"), Item: { pk: journalPk(name), sk: `${pad(from, 20)}#end`, to: to.toString(), hash } }));
    },
  };
}

/** The keys a write command writes, by physical table name. */
function writtenKeys(command: unknown): [string, ItemKey][] {
  const input = (command as { input?: Record<string, unknown> }).input ?? {};
  const keyOf = (item: Record<string, unknown>): ItemKey => ({ pk: item.pk as string, sk: item.sk as string });
  if (command instanceof PutCommand) return [[input.TableName as string, keyOf(input.Item as Record<string, unknown>)]];
  if (command instanceof UpdateCommand || command instanceof DeleteCommand) return [[input.TableName as string, keyOf(input.Key as Record<string, unknown>)]];
  if (command instanceof BatchWriteCommand) {
    return Object.entries(input.RequestItems as Record<string, { PutRequest?: { Item: Record<string, unknown> }; DeleteRequest?: { Key: Record<string, unknown> } }[]>).flatMap(([table, requests]) =>
      requests.map((request): [string, ItemKey] => [table, keyOf(request.PutRequest?.Item ?? request.DeleteRequest!.Key)]),
    );
  }
  return [];
}

/** Tables whose document client captures each written key of `watched` before it sends the write. */
function trackingTables(base: Tables, watched: TableName[], capture: (table: TableName, keys: ItemKey[]) => Promise<void>): Tables {
  const byName = new Map(watched.map((table) => [base.name(table), table]));
  const send = async (command: unknown, ...rest: unknown[]) => {
    for (const [physical, key] of writtenKeys(command)) {
      const table = byName.get(physical);
      if (table) await capture(table, [key]);
    }
    return (base.doc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  };
  const doc = new Proxy(base.doc, { get: (target, prop, receiver) => (prop === "send" ? send : Reflect.get(target, prop, receiver)) });
  return { doc, raw: base.raw, name: (table) => base.name(table) };
}

/** Writes back the images of `ranges` (for each key, the one taken first: the item before the oldest of
 * them). Idempotent: an undo that stops is done again by the next round. */
export async function restoreJournalRanges(tables: Tables, ranges: JournalRange[]): Promise<number> {
  const first = new Map<string, BeforeImage>();
  for (const range of [...ranges].sort((a, b) => (a.from < b.from ? -1 : 1))) for (const image of range.images) if (!first.has(idOf(image.table, image.key))) first.set(idOf(image.table, image.key), image);
  const byTable = new Map<TableName, Record<string, unknown>[]>();
  for (const image of first.values()) {
    const requests = byTable.get(image.table) ?? [];
    byTable.set(image.table, requests);
    requests.push(image.item ? { PutRequest: { Item: image.item } } : { DeleteRequest: { Key: image.key } });
  }
  for (const [table, requests] of byTable) await batchWrite(tables, table, requests, 4);
  return first.size;
}

/** Removes `ranges` from the journal (undone, or final). */
export async function dropJournalRanges(tables: Tables, name: string, ranges: JournalRange[]): Promise<void> {
  await batchWrite(tables, "meta", ranges.flatMap((range) => range.sks.map((sk) => ({ DeleteRequest: { Key: { pk: journalPk(name), sk } } }))), 4);
}

/** Removes every journal (the local stack on a fresh chain: nothing of the old chain is to be undone). */
export async function clearJournals(tables: Tables): Promise<number> {
  const items = await scanAll<ItemKey>(tables, { TableName: tables.name("meta"), ProjectionExpression: "pk, sk", FilterExpression: "begins_with(pk, :j)", ExpressionAttributeValues: { ":j": "journal#" }, ConsistentRead: true });
  await batchWrite(tables, "meta", items.map((Key) => ({ DeleteRequest: { Key } })), 4);
  return items.length;
}
