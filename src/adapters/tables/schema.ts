// The service's DynamoDB tables. Every table has the same key shape (pk, sk, and one global index
// gsi1 on gsi1pk/gsi1sk), so one definition creates them locally and stacks/tables.ts mirrors it in
// the cloud. Items that expire carry `ttl` (Unix seconds); readers check it, because the local
// emulator does not delete expired items.
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";

export const TABLE_NAMES = ["keys", "credentials", "chain_listings", "jobs", "listings", "runs", "challenges", "idempotency", "meta", "erc8004", "oauth", "analytics"] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** Tables whose content is derived from the chain and rebuilt when the chain is fresh. */
export const CHAIN_DERIVED_TABLES: readonly TableName[] = ["credentials", "chain_listings", "erc8004", "analytics"];

export function physicalTableName(prefix: string, table: TableName): string {
  return `${prefix}${table}`;
}

export function createTableInput(prefix: string, table: TableName): CreateTableCommandInput {
  return {
    TableName: physicalTableName(prefix, table),
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "S" },
      { AttributeName: "gsi1pk", AttributeType: "S" },
      { AttributeName: "gsi1sk", AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: "gsi1",
        KeySchema: [
          { AttributeName: "gsi1pk", KeyType: "HASH" },
          { AttributeName: "gsi1sk", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  };
}
