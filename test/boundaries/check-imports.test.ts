// The import boundaries check (scripts/check-imports.ts, run by `npm test`): what counts as a violation.
import { describe, expect, it } from "vitest";
import { violationsOf } from "../../scripts/check-imports.ts";

describe("import boundaries", () => {
  it("finds an AWS SDK import outside the adapters and stores, however it is written", () => {
    const text = [
      'import {\n  GetCommand,\n} from "@aws-sdk/lib-dynamodb";',
      'import type { S3Client } from "@aws-sdk/client-s3";',
      'export { SQSClient } from "@aws-sdk/client-sqs";',
      'const kms = await import("@aws-sdk/client-kms");',
      'let t: import("@aws-sdk/client-dynamodb").DynamoDBClient;',
    ].join("\n");
    expect(violationsOf("src/listings/catalogue.ts", text).map((v) => [v.rule, v.line, v.what])).toEqual([
      ["storage", 1, "imports @aws-sdk/lib-dynamodb"],
      ["storage", 4, "imports @aws-sdk/client-s3"],
      ["storage", 5, "imports @aws-sdk/client-sqs"],
      ["storage", 6, "imports @aws-sdk/client-kms"],
      ["storage", 7, "imports @aws-sdk/client-dynamodb"],
    ]);
  });

  it("allows the AWS SDK in an adapter and in a store", () => {
    const text = 'import { GetCommand } from "@aws-sdk/lib-dynamodb";';
    expect(violationsOf("src/adapters/tables/dynamo.ts", text)).toEqual([]);
    expect(violationsOf("src/listings/listing.store.ts", text)).toEqual([]);
  });

  it("finds a contract action called outside src/chain/, and not a name in a comment or a string", () => {
    const text = [
      "// readContract( is described here",
      'const note = "getLogs(";',
      "await services.chain.client.readContract({ functionName: 'authority' });",
      "await client.getContractEvents({});",
      "await client.getBlockNumber();",
    ].join("\n");
    expect(violationsOf("src/reviews/authority.ts", text).map((v) => [v.line, v.what])).toEqual([
      [3, "calls readContract"],
      [4, "calls getContractEvents"],
    ]);
    expect(violationsOf("src/chain/read-authority.ts", text)).toEqual([]);
  });

  it("finds the tables adapter's item calls and the document client outside the adapters and stores", () => {
    const text = [
      'import { isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";',
      'import { batchGet as readMany } from "../../adapters/tables/dynamo.ts";',
      'import { describeTable } from "./adapters/tables/dynamo.ts";',
      "await services.tables.doc.send(command);",
      "const client = tables.doc;",
      "const note = page.doc;",
    ].join("\n");
    expect(violationsOf("src/execution/perform.ts", text).map((v) => [v.line, v.what])).toEqual([
      [1, "imports isConditionalCheckFailure from the tables adapter"],
      [2, "imports batchGet from the tables adapter"],
      [4, "uses the tables' document client"],
      [5, "uses the tables' document client"],
    ]);
    expect(violationsOf("src/execution/runs/run.store.ts", text)).toEqual([]);
    expect(violationsOf("src/adapters/tables/dynamo.ts", text)).toEqual([]);
  });
});
