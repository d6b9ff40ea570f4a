// DynamoDB: one table per logical name, all with the same single-table key shape.
// The list of tables and the naming rule are the application's own (src/adapters/tables/schema.ts,
// from which the local stack creates the same tables), so the two homes cannot drift apart.
import {
  TABLE_NAMES,
  physicalTableName,
  type TableName,
} from "../src/adapters/tables/schema.ts";
import { isProduction, tablePrefix } from "./common";

/** `chain_listings` → `ChainListingsTable` (SST component names are alphanumeric). */
function componentName(table: TableName) {
  return `${table
    .split("_")
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join("")}Table`;
}

/**
 * Every table: string keys `pk`/`sk`, one global index `gsi1` on `gsi1pk`/`gsi1sk` (all
 * attributes projected), TTL on `ttl` (Unix seconds; the app still checks expiry on read, since
 * DynamoDB deletes expired items late and the local emulator not at all), point-in-time recovery
 * (SST's default), on-demand billing. The physical name is `<app>-<stage>-<logical>`, so the
 * application finds every table from `TABLE_PREFIX` alone.
 */
export function createTables(): Record<TableName, sst.aws.Dynamo> {
  const entries = TABLE_NAMES.map((table) => {
    const dynamo = new sst.aws.Dynamo(componentName(table), {
      fields: { pk: "string", sk: "string", gsi1pk: "string", gsi1sk: "string" },
      primaryIndex: { hashKey: "pk", rangeKey: "sk" },
      globalIndexes: { gsi1: { hashKey: "gsi1pk", rangeKey: "gsi1sk" } },
      ttl: "ttl",
      deletionProtection: isProduction(),
      transform: { table: { name: physicalTableName(tablePrefix(), table) } },
    });
    return [table, dynamo] as const;
  });
  return Object.fromEntries(entries) as Record<TableName, sst.aws.Dynamo>;
}
