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

  it("describe GET and DELETE /v1/mcp and GET /v1/mcp/x402 as 405 method_not_allowed with an Allow header", () => {
    for (const [path, method] of [["/v1/mcp", "get"], ["/v1/mcp", "delete"], ["/v1/mcp/x402", "get"]] as const) {
      const operation = paths[path]?.[method];
      expect(operation, method).toBeDefined();
      expect(Object.keys(operation!.responses).filter((status) => status.startsWith("2"))).toEqual([]);
      expect(operation!.responses["405"]?.headers).toHaveProperty("Allow");
    }
  });

  it("describe the OAuth endpoints' errors as OAuth's error object, each with its codes", () => {
    const oauthCodes = (path: string, status: string): unknown => {
      const schema = dig(paths[path]?.post, "responses", status, "content", "application/json", "schema");
      return dig(schema, "properties", "error", "enum") ?? dig(schema, "oneOf", 0, "properties", "error", "enum");
    };
    expect(oauthCodes("/oauth/token", "400")).toEqual(["invalid_request", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "invalid_target"]);
    expect(oauthCodes("/oauth/token", "401")).toEqual(["invalid_client"]);
    expect(oauthCodes("/oauth/revoke", "401")).toEqual(["invalid_client"]);
    expect(oauthCodes("/oauth/register", "400")).toEqual(["invalid_request", "invalid_client_metadata", "invalid_redirect_uri"]);
    // 429: too_many_clients (OAuth's object) or rate_limit_exceeded (the envelope).
    expect(oauthCodes("/oauth/register", "429")).toEqual(["too_many_clients"]);
    const grants = dig(paths["/oauth/token"]?.post, "requestBody", "content", "application/x-www-form-urlencoded", "schema", "oneOf") as { title: string }[];
    expect(grants.map((g) => g.title)).toEqual(["authorization_code", "refresh_token"]);
  });

  it("describe the A2A endpoint's refusals: the protocol's as JSON-RPC errors answered with 200, the transport's with their status", () => {
    const operation = paths["/a2a/{agent_id}"]!.post!;
    const error = dig(operation, "responses", "200", "content", "application/json", "schema", "oneOf", 1);
    const codes = dig(error, "properties", "error", "properties", "data", "items", "properties", "metadata", "properties", "code", "enum");
    expect(codes).toEqual(expect.arrayContaining(["invalid_request", "credential_not_found", "insufficient_balance", "listing_paused", "spend_limit_reached", "listing_not_found", "not_found", "idempotency_key_reused", "insufficient_scope"]));
    expect(Object.keys(operation.responses).sort()).toEqual(["200", "401", "413", "415", "429", "500", "503"]);
  });
});

/** The value at `keys` inside a JSON document, or undefined. */
function dig(value: unknown, ...keys: (string | number)[]): unknown {
  let at = value;
  for (const key of keys) at = at !== null && typeof at === "object" ? (at as Record<string | number, unknown>)[key] : undefined;
  return at;
}
