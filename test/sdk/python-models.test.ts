// The Python SDK's models are generated from the API's own OpenAPI document: the committed file must be
// what the routes produce now, so the Python SDK cannot drift from the service.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PYTHON_MODELS_COMMAND, PYTHON_MODELS_FILE, generatePythonModels } from "../../scripts/generate-python-models.ts";

describe("the Python SDK's generated models", () => {
  it("python/src/agent_rental/models.py is what the routes' OpenAPI document generates now", async () => {
    const expected = await generatePythonModels();
    let committed = "";
    try {
      committed = readFileSync(PYTHON_MODELS_FILE, "utf8");
    } catch {
      // missing: stale
    }
    if (committed !== expected) {
      expect.fail(`python/src/agent_rental/models.py is stale (the API's OpenAPI document changed): run \`${PYTHON_MODELS_COMMAND}\` and commit the file.`);
    }
    // The generator names every component schema the document has.
    expect(expected).toMatch(/^class RunDetail\(RunDetailRequired, total=False\):$/m);
  }, 60_000);
});
