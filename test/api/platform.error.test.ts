// The platform every endpoint runs on: the error envelope, request ids, body rules, authentication
// refusals. Exercised in-process with app.request against real tables.
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "@hono/zod-openapi";
import { PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { buildApp, createPlatform } from "../../src/api/app.ts";
import { defineRoute } from "../../src/api/route.ts";
import { routeGroup } from "../../src/api/route-groups.ts";
import { ERROR_STATUS } from "../../src/errors.ts";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof createPlatform>;

const echoRoute = defineRoute({
  method: "post",
  path: "/v1/echo",
  operationId: "echo",
  tag: "System",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  request: { body: { content: { "application/json": { schema: z.object({ name: z.string().min(1), count: z.number().int().max(10) }) } }, required: true } },
  responses: { 200: { description: "echo", content: { "application/json": { schema: z.object({ name: z.string() }) } } } },
  errors: {},
});

const boomRoute = defineRoute({
  method: "get",
  path: "/v1/boom",
  operationId: "boom",
  tag: "System",
  access: "bearer",
  rateLimit: { rule: "default", failMode: "open" },
  responses: { 200: { description: "never answered" } },
  errors: {},
});

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { MAX_BODY_BYTES: "2048" } });
  ctx = world.ctx;
  app = createPlatform(ctx.services);
  const routes = routeGroup("bearer");
  routes.openapi(echoRoute, (c) => c.json({ name: c.req.valid("json").name }, 200));
  routes.openapi(boomRoute, () => {
    throw new Error("database password is hunter2 at 10.0.0.5");
  });
  app.route("/", routes);
  await ctx.services.tables.doc.send(
    new PutCommand({
      TableName: ctx.services.tables.name("keys"),
      Item: { pk: `hash#${hashApiKey(VALID_KEY)}`, sk: "key", key_id: "key_1", wallet: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", label: "t", prefix: VALID_KEY.slice(0, 13), created_at: new Date().toISOString() },
    }),
  );
  await ctx.services.tables.doc.send(
    new PutCommand({
      TableName: ctx.services.tables.name("keys"),
      Item: { pk: `hash#${hashApiKey(REVOKED_KEY)}`, sk: "key", key_id: "key_2", wallet: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", label: "r", prefix: REVOKED_KEY.slice(0, 13), created_at: new Date().toISOString(), revoked_at: new Date().toISOString() },
    }),
  );
});

const VALID_KEY = "svc_test_" + "a".repeat(32);
const REVOKED_KEY = "svc_test_" + "b".repeat(32);
const auth = { authorization: `Bearer ${VALID_KEY}` };

async function expectEnvelope(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const requestId = res.headers.get("x-request-id");
  expect(requestId).toMatch(/\S{8,}/);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({ code, status, request_id: requestId });
  expect(typeof body.error.message).toBe("string");
  expect((body.error.message as string).length).toBeGreaterThan(0);
  return body.error;
}

describe("error envelope", () => {
  it("maps every error code to one HTTP status", () => {
    expect(ERROR_STATUS).toMatchObject({
      unauthorized: 401, invalid_api_key: 401, jwt_expired: 401, invalid_signature: 401,
      credential_not_found: 403, credential_expired: 403, insufficient_balance: 403, listing_paused: 403,
      invalid_request: 400, invalid_listing_id: 400, listing_not_found: 404, rate_limit_exceeded: 429,
      internal_error: 500, service_unavailable: 503,
    });
  });

  it("returns 401 unauthorized in the envelope without an Authorization header", async () => {
    await expectEnvelope(await app.request("/v1/echo", { method: "POST" }), 401, "unauthorized");
  });

  it("returns 401 unauthorized for a header that is not a bearer token", async () => {
    for (const value of ["Basic abc", "Bearer", "Bearer ", "Bearer a b", `Bearer ${"x".repeat(5000)}`]) {
      await expectEnvelope(await app.request("/v1/echo", { method: "POST", headers: { authorization: value } }), 401, "unauthorized");
    }
  });

  it("returns 401 invalid_api_key for an unknown, malformed, revoked or other-network key", async () => {
    for (const key of ["svc_test_" + "z".repeat(32), "svc_test_short", REVOKED_KEY, "svc_live_" + "a".repeat(32)]) {
      await expectEnvelope(await app.request("/v1/echo", { method: "POST", headers: { authorization: `Bearer ${key}` } }), 401, "invalid_api_key");
    }
  });

  it("returns 404 not_found in the envelope for an unknown route, with or without a token, with the rate-limit headers", async () => {
    await expectEnvelope(await app.request("/v1/nothing-here", { headers: auth }), 404, "not_found");
    await expectEnvelope(await app.request("/v1/nothing-here", {}), 404, "not_found");
    const root = await app.request("/", {});
    expect(root.headers.get("x-ratelimit-limit")).toBe("100");
    await expectEnvelope(root, 404, "not_found");
  });

  it("returns 400 invalid_request for malformed JSON", async () => {
    const res = await app.request("/v1/echo", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: '{"name": ' });
    const error = await expectEnvelope(res, 400, "invalid_request");
    expect(error.message).toMatch(/JSON/);
  });

  it("returns 400 invalid_request naming each invalid field", async () => {
    const res = await app.request("/v1/echo", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ name: "", count: 99 }) });
    const error = await expectEnvelope(res, 400, "invalid_request");
    expect(error.message).toMatch(/name/);
    expect(error.message).toMatch(/count/);
  });

  it("returns 415 unsupported_media_type for a body that is not JSON", async () => {
    const res = await app.request("/v1/echo", { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "hello" });
    await expectEnvelope(res, 415, "unsupported_media_type");
  });

  it("returns 413 payload_too_large for a body over the limit", async () => {
    const body = JSON.stringify({ name: "x".repeat(5000), count: 1 });
    const res = await app.request("/v1/echo", { method: "POST", headers: { ...auth, "content-type": "application/json", "content-length": String(body.length) }, body });
    await expectEnvelope(res, 413, "payload_too_large");
  });

  it("turns an unexpected failure into internal_error without internals", async () => {
    const res = await app.request("/v1/boom", { headers: auth });
    const error = await expectEnvelope(res, 500, "internal_error");
    expect(JSON.stringify(error)).not.toMatch(/hunter2|10\.0\.0\.5|stack|Error:/);
  });

  it("echoes a well-formed client request id and replaces a malformed one", async () => {
    const kept = await app.request("/v1/health", { headers: { "x-request-id": "client-req-12345" } });
    expect(kept.headers.get("x-request-id")).toBe("client-req-12345");
    const replaced = await app.request("/v1/nothing", { headers: { "x-request-id": "bad id\u0001" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it("serves a valid request after all these refusals and stores nothing for them", async () => {
    const res = await app.request("/v1/echo", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ name: "ok", count: 1 }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "ok" });
    const keys = await ctx.services.tables.doc.send(new ScanCommand({ TableName: ctx.services.tables.name("keys") }));
    expect(keys.Items).toHaveLength(2);
  });
});

describe("the service app", () => {
  it("GET /v1/openapi.json serves the OpenAPI 3.1 document generated from the routes, without a token", async () => {
    const res = await buildApp(ctx.services).request("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/v1/health");
    expect(doc.components.schemas).toHaveProperty("Error");
  });

  it("GET /v1/health reports health of tables and chain without a token", async () => {
    const res = await buildApp(ctx.services).request("/v1/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", chain_id: 31337, marketplace: ctx.config.MARKETPLACE_ADDRESS, checks: { tables: true, chain: true } });
  });

  it("reports degraded health when the chain is unreachable", async () => {
    const { createServices } = await import("../../src/services.ts");
    const { createChainClient } = await import("../../src/chain/client.ts");
    const broken = createServices(ctx.config, { logger: ctx.services.logger, tables: ctx.services.tables, chain: createChainClient({ rpcUrl: "http://127.0.0.1:1", chainId: 31337, marketplace: ctx.config.MARKETPLACE_ADDRESS as `0x${string}` }) });
    const res = await buildApp(broken).request("/v1/health");
    expect(await res.json()).toMatchObject({ status: "degraded", checks: { tables: true, chain: false } });
  });
});
