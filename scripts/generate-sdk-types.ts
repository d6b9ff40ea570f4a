// Generates the SDK's API types (sdk/src/generated/api.ts) from the API's own OpenAPI document, rendered
// in-process from the routes (src/api/openapi-document.ts), with openapi-typescript. The SDK's public
// types derive from this file, so they follow the service. `--check` exits 1 when the committed file
// differs from what the routes produce now (test/sdk/generated-types.test.ts does the same in the
// test command).
//
//   npm run generate:sdk-types [-- --check]
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { openApiDocument } from "../src/api/openapi-document.ts";

export const GENERATED_TYPES_FILE = join(dirname(fileURLToPath(import.meta.url)), "../sdk/src/generated/api.ts");
export const GENERATE_COMMAND = "npm run generate:sdk-types";

const HEADER = [
  "// Generated from the API's OpenAPI document by scripts/generate-sdk-types.ts (openapi-typescript).",
  `// Do not edit: change the routes' schemas, then run \`${GENERATE_COMMAND}\`.`,
  "/* eslint-disable */",
  "",
].join("\n");

/** The text sdk/src/generated/api.ts should hold for the routes as they are now. */
export async function generateSdkTypes(): Promise<string> {
  const document = await openApiDocument();
  // The servers entry names the origin the document was rendered for; types do not depend on it.
  delete document.servers;
  const ast = await openapiTS(document as unknown as OpenAPI3, { alphabetize: true });
  return HEADER + astToString(ast);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await generateSdkTypes();
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(GENERATED_TYPES_FILE, "utf8");
    } catch {
      // a missing file is stale too
    }
    if (current !== text) {
      process.stderr.write(`sdk/src/generated/api.ts is stale: run \`${GENERATE_COMMAND}\` and commit it.\n`);
      process.exit(1);
    }
    process.stdout.write("sdk/src/generated/api.ts is current\n");
  } else {
    mkdirSync(dirname(GENERATED_TYPES_FILE), { recursive: true });
    writeFileSync(GENERATED_TYPES_FILE, text);
    process.stdout.write(`wrote ${GENERATED_TYPES_FILE}\n`);
  }
}
