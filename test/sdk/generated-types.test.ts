// The SDK's API types are generated from the API's own OpenAPI document: the committed file must be what
// the routes produce now, so the SDK cannot drift from the service.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATE_COMMAND, GENERATED_TYPES_FILE, generateSdkTypes } from "../../scripts/generate-sdk-types.ts";

describe("the SDK's generated API types", () => {
  it("sdk/src/generated/api.ts is what the routes' OpenAPI document generates now", async () => {
    const expected = await generateSdkTypes();
    let committed = "";
    try {
      committed = readFileSync(GENERATED_TYPES_FILE, "utf8");
    } catch {
      // missing: stale
    }
    if (committed !== expected) {
      expect.fail(`sdk/src/generated/api.ts is stale (the API's OpenAPI document changed): run \`${GENERATE_COMMAND}\` and commit the file.`);
    }
  }, 60_000);
});
