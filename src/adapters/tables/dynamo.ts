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
import { DynamoDBDocumentClient, ScanCommand, BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
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
    }),
  );
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
    for (let i = 0; i < items.length; i += 25) {
      const chunk = items.slice(i, i + 25);
      let pending: Record<string, unknown>[] | undefined = chunk.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
      while (pending && pending.length > 0) {
        const result = await tables.doc.send(new BatchWriteCommand({ RequestItems: { [tables.name(table)]: pending } }));
        pending = result.UnprocessedItems?.[tables.name(table)] as Record<string, unknown>[] | undefined;
      }
      removed += chunk.length;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return removed;
}

/** True for the refusal of a conditional write (the condition did not hold), whichever client threw it. */
export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as { name?: string } | null)?.name === "ConditionalCheckFailedException";
}
