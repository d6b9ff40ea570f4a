// The OpenAPI document as a whole, rendered without a service: every operation can be found by its tag
// and called by its operationId (the SDK's method names derive from them), and the MCP endpoint's
// refusals are described like any other answer.
import { beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/api/openapi-document.ts";
import { TAGS } from "../../src/api/openapi.ts";

type Operation = { operationId?: string; tags?: string[]; responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> };
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  paths = (await openApiDocument()).paths as typeof paths;
});

const operations = () => Object.entries(paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })));

describe("the OpenAPI document's operations", () => {
  it("each have one or more of the document's tags", () => {
    const known = new Set<string>(TAGS.map((tag) => tag.name));
    const untagged = operations().filter(({ operation }) => !operation.tags?.length || operation.tags.some((tag) => !known.has(tag)));
    expect(untagged.map(({ name }) => name)).toEqual([]);
  });

  it("each have an operationId, a camelCase verb unique in the document", () => {
    const all = operations();
    expect(all.length).toBeGreaterThanOrEqual(35);
    const missing = all.filter(({ operation }) => !/^[a-z][a-zA-Z0-9]*$/.test(operation.operationId ?? ""));
    expect(missing.map(({ name }) => name)).toEqual([]);
    const ids = all.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("describe GET and DELETE /v1/mcp as 405 method_not_allowed with an Allow header", () => {
    for (const method of ["get", "delete"]) {
      const operation = paths["/v1/mcp"]?.[method];
      expect(operation, method).toBeDefined();
      expect(Object.keys(operation!.responses).filter((status) => status.startsWith("2"))).toEqual([]);
      expect(operation!.responses["405"]?.headers).toHaveProperty("Allow");
    }
  });
});
