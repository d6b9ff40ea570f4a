// The API reference and the error catalogue are generated from the code (the routes' OpenAPI document,
// src/errors.ts, the contract's ABI): the committed pages must be what the code produces now, so the
// docs cannot drift from the service.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATE_DOCS_COMMAND, GENERATED_DOCS } from "../../scripts/generate-docs.ts";

describe("the generated reference pages", () => {
  for (const { file, generate } of GENERATED_DOCS) {
    const name = relative(process.cwd(), file);
    it(`${name} is what the code generates now`, async () => {
      const expected = await generate();
      let committed = "";
      try {
        committed = readFileSync(file, "utf8");
      } catch {
        // missing: stale
      }
      if (committed !== expected) expect.fail(`${name} is stale (the routes, the error module or the contract changed): run \`${GENERATE_DOCS_COMMAND}\` and commit the page.`);
    }, 60_000);
  }
});
