// The import boundaries check (scripts/check-imports.ts, run by `npm test`): what counts as a violation.
import { describe, expect, it } from "vitest";
import { packageOf, violationsOf } from "../../scripts/check-imports.ts";

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

  it("finds the whole bag of services imported by an area's code, and allows it in the wiring", () => {
    const text = 'import type { Services } from "../services.ts";\nimport type { Services as Narrow } from "./services.ts";';
    expect(violationsOf("src/listings/secrets.ts", text).map((v) => [v.rule, v.line])).toEqual([["wiring", 1]]);
    expect(violationsOf("src/execution/money/ledger.ts", 'import type { Services } from "../../services.ts";').map((v) => v.rule)).toEqual(["wiring"]);
    expect(violationsOf("src/api/app.ts", text)).toEqual([]);
    expect(violationsOf("src/jobs.ts", 'import type { Services } from "./services.ts";')).toEqual([]);
    expect(violationsOf("src/health.ts", 'import type { Services } from "./services.ts";').map((v) => v.rule)).toEqual(["wiring"]);
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

  it("finds a relative import that leaves its package, however it is written, and allows one within it", () => {
    const text = [
      'import type { AgentToolEntry } from "../../sdk/src/mcp/tool-server.ts";',
      'export { marketplaceAbi } from "../../src/chain/generated/marketplace.ts";',
      'const rules = () => import("../../../src/registration/manifest.ts");',
      'let t: import("../../sdk/src/types.ts").Run;',
      'import { own } from "./own.ts";',
    ].join("\n");
    expect(violationsOf("src/mcp/agent-tools.ts", text).map((v) => [v.rule, v.line, v.what])).toEqual([
      ["package", 1, "imports sdk/src/mcp/tool-server.ts from another package (@agent-rental/sdk), which is not below it"],
      ["package", 4, "imports sdk/src/types.ts from another package (@agent-rental/sdk), which is not below it"],
    ]);
    // From cli/src/commands/, two levels up is still the CLI; three levels up is the service.
    expect(violationsOf("cli/src/commands/creator.ts", text).map((v) => [v.line, v.what])).toEqual([[3, "imports src/registration/manifest.ts from another package (the service)"]]);
    expect(violationsOf("cli/src/api.ts", 'import { AgentRentalClient } from "../../sdk/src/index.ts";').map((v) => v.what)).toEqual([
      "imports sdk/src/index.ts from another package (@agent-rental/sdk): import @agent-rental/sdk by name",
    ]);
    expect(violationsOf("web/src/pages/creator/RegisterAgent.tsx", 'import { validateManifest } from "../../../../src/registration/manifest.ts";\nconst x = <div />;').map((v) => v.what)).toEqual([
      "imports src/registration/manifest.ts from another package (the service)",
    ]);
    expect(violationsOf("packages/core/src/mcp/tool-server.ts", 'import { Run } from "../../../../sdk/src/types.ts";\nimport { a } from "../agent-tools/definition.ts";').map((v) => v.what)).toEqual([
      "imports sdk/src/types.ts from another package (@agent-rental/sdk), which is not below it",
    ]);
    expect(violationsOf("cli/src/commands/renter.ts", 'import { api } from "../api.ts";\nimport { x } from "../../package.json";')).toEqual([]);
  });

  it("lets a package import by name only the packages below it", () => {
    const text = ['import { AgentRentalClient } from "@agent-rental/sdk";', 'import { createAgentMcpServer } from "@agent-rental/sdk/mcp";', 'import { CATEGORIES } from "@agent-rental/core/vocabulary";', 'import "@agent-rental/cli";'].join("\n");
    const found = (file: string) => violationsOf(file, text).map((v) => [v.rule, v.line]);
    expect(found("packages/core/src/index.ts")).toEqual([["package", 1], ["package", 2], ["package", 4]]);
    expect(found("src/api/routes/v1_mcp.post.ts")).toEqual([["package", 1], ["package", 2], ["package", 4]]);
    expect(found("local/demo.ts")).toEqual([["package", 1], ["package", 2], ["package", 4]]);
    expect(found("cli/src/api.ts")).toEqual([]);
    expect(found("web/src/main.tsx")).toEqual([["package", 4]]);
    // Its own name is no crossing.
    expect(found("sdk/src/index.ts")).toEqual([["package", 4]]);
  });

  it("finds a Node built-in in the shared core, not in its tests or another package", () => {
    const text = ['import { Worker } from "node:worker_threads";', 'import { createRequire } from "module";', 'import type { Stats } from "fs/promises";', 'import Ajv from "ajv";'].join("\n");
    expect(violationsOf("packages/core/src/manifest/patterns.ts", text).map((v) => [v.rule, v.line, v.what])).toEqual([
      ["core", 1, "imports node:worker_threads"],
      ["core", 2, "imports module"],
      ["core", 3, "imports fs/promises"],
    ]);
    expect(violationsOf("packages/core/src/manifest/manifest.test.ts", text)).toEqual([]);
    expect(violationsOf("src/registration/pattern-safety.ts", text)).toEqual([]);
  });

  it("lets the suites under test/ reach any package's sources, white-box", () => {
    const text = ['import { parseJsonWithPrepass } from "../../sdk/src/json.ts";', 'import { main } from "../../cli/src/main.ts";', 'import { AgentRentalClient } from "@agent-rental/sdk";'].join("\n");
    expect(violationsOf("test/sdk/json.test.ts", text)).toEqual([]);
  });

  it("knows each path's package", () => {
    expect(["packages/core/src/vocabulary.ts", "sdk/src/client.ts", "cli/src/main.ts", "web/src/main.tsx", "src/app.ts", "local/stack.ts", "scripts/test.ts", "sdkish/x.ts"].map(packageOf)).toEqual([
      "packages/core",
      "sdk",
      "cli",
      "web",
      "the service",
      "the service",
      "the service",
      "the service",
    ]);
  });
});
