// The tables port's adapter: one DynamoDB document client, pointed at DynamoDB in the cloud and at
// the local emulator (dynalite) locally. Domain code gets a `Tables` handle and never sees endpoints.
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  ScanCommand,
  BatchGetCommand,
  BatchWriteCommand,
  QueryCommand,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
  type ScanCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { TABLE_NAMES, createTableInput, physicalTableName, type TableName } from "./schema.ts";

export interface TablesOptions {
  region: string;
  prefix: string;
  /** The local emulator's URL; absent in the cloud. */
  endpoint?: string;
}

export interface Tables {
  readonly doc: DynamoDBDocumentClient;
  readonly raw: DynamoDBClient;
  /** Physical name of a logical table. */
  name(table: TableName): string;
}

export function createTables(options: TablesOptions): Tables {
  const raw = new DynamoDBClient({
    region: options.region,
    maxAttempts: 3,
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } }
      : {}),
  });
  const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  return { doc, raw, name: (table) => physicalTableName(options.prefix, table) };
}

const exactClients = new WeakMap<Tables, DynamoDBDocumentClient>();
/**
 * A document client that reads numbers as exact strings (NumberValue), on a DynamoDB client of its own
 * with the tables' region, endpoint and credentials: a document client writes its options into the
 * configuration of the client it wraps, so wrapping the tables' own would change every reader's numbers.
 * For wei amounts, which a JavaScript number cannot hold.
 */
export function exactDocument(tables: Tables): DynamoDBDocumentClient {
  let client = exactClients.get(tables);
  if (!client) {
    const { region, endpoint, credentials } = tables.raw.config;
    const raw = new DynamoDBClient({ region, credentials, maxAttempts: 3, ...(endpoint ? { endpoint } : {}) });
    client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true }, unmarshallOptions: { wrapNumbers: true } });
    exactClients.set(tables, client);
  }
  return client;
}

/** Creates every table that does not exist yet (local stack and tests; the cloud's come from stacks/). */
export async function ensureTables(tables: Tables, prefix: string): Promise<void> {
  await Promise.all(
    TABLE_NAMES.map(async (table) => {
      try {
        await tables.raw.send(new DescribeTableCommand({ TableName: tables.name(table) }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
        try {
          await tables.raw.send(new CreateTableCommand(createTableInput(prefix, table)));
        } catch (createError) {
          if (!(createError instanceof ResourceInUseException)) throw createError;
        }
      }
      await untilActive(tables, tables.name(table));
    }),
  );
}

/** A new table is CREATING for a while (DynamoDB and its emulator alike) and refuses reads and writes
 * until it is ACTIVE: wait for that, bounded. */
async function untilActive(tables: Tables, tableName: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 1_000)) {
    const { Table } = await tables.raw.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === "ACTIVE") return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} is still ${Table?.TableStatus ?? "unknown"} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Deletes every item of a table, page by page (used to rebuild chain-derived tables). */
export async function clearTable(tables: Tables, table: TableName): Promise<number> {
  let removed = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(
      new ScanCommand({ TableName: tables.name(table), ProjectionExpression: "pk, sk", ExclusiveStartKey: startKey }),
    );
    const items = page.Items ?? [];
    await batchWrite(tables, table, items.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })));
    removed += items.length;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return removed;
}

/** Every item a query finds, page after page (the SDK's paginator follows LastEvaluatedKey). */
export async function queryAll<T>(tables: Tables, input: QueryCommandInput): Promise<T[]> {
  const items: T[] = [];
  for await (const page of paginateQuery({ client: tables.doc }, input)) items.push(...((page.Items ?? []) as T[]));
  return items;
}

/** Every item a scan finds, page after page. */
export async function scanAll<T>(tables: Tables, input: ScanCommandInput): Promise<T[]> {
  const items: T[] = [];
  for await (const page of paginateScan({ client: tables.doc }, input)) items.push(...((page.Items ?? []) as T[]));
  return items;
}

/** Resolves when the table answers a control-plane call (the health check's storage probe). */
export async function describeTable(tables: Tables, table: TableName): Promise<void> {
  await tables.raw.send(new DescribeTableCommand({ TableName: tables.name(table) }));
}

/** The number of items under one partition key (one Query that returns only the count; a partition
 * past 1 MB of items would need paging, which the queues counted this way never reach). */
export async function countPartition(tables: Tables, table: TableName, pk: string): Promise<number> {
  const out = await tables.doc.send(new QueryCommand({ TableName: tables.name(table), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk }, Select: "COUNT" }));
  return out.Count ?? 0;
}

/** Sends a conditional write: true when it was applied, false when its condition did not hold. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** True for the refusal of a conditional write (the condition did not hold), whichever client threw it. */
export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as { name?: string } | null)?.name === "ConditionalCheckFailedException";
}

export type ItemKey = { pk: string; sk: string };

/**
 * Reads many items by key: requests of 100 keys, each retried until DynamoDB has answered every key
 * (it may leave some unprocessed under load). Items that do not exist are simply absent.
 */
export async function batchGet(
  tables: Tables,
  table: TableName,
  keys: ItemKey[],
  options: { projection?: string; names?: Record<string, string>; consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const name = tables.name(table);
  for (let i = 0; i < keys.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 100);
    while (pending && pending.length > 0) {
      const out = await tables.doc.send(
        new BatchGetCommand({
          RequestItems: {
            [name]: {
              Keys: pending,
              ...(options.projection ? { ProjectionExpression: options.projection } : {}),
              ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
              ...(options.consistent ? { ConsistentRead: true } : {}),
            },
          },
        }),
      );
      found.push(...(out.Responses?.[name] ?? []));
      pending = out.UnprocessedKeys?.[name]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
}

/**
 * Writes (puts or deletes) many items: requests of 25, up to `concurrency` in flight, each retried
 * until every item is processed. Unconditional, as BatchWriteItem is.
 */
export async function batchWrite(tables: Tables, table: TableName, requests: Record<string, unknown>[], concurrency = 1): Promise<void> {
  const name = tables.name(table);
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, chunks.length) }, async () => {
      while (next < chunks.length) {
        let pending: Record<string, unknown>[] | undefined = chunks[next++];
        while (pending && pending.length > 0) {
          const out = await tables.doc.send(new BatchWriteCommand({ RequestItems: { [name]: pending } }));
          pending = out.UnprocessedItems?.[name] as Record<string, unknown>[] | undefined;
        }
      }
    }),
  );
}
