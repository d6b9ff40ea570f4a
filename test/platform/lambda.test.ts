// The Lambda entry point serves the same app: an API Gateway (HTTP API, payload 2.0) event in, the
// error envelope out.
import { beforeAll, describe, expect, it } from "vitest";
import { createTestServices, type TestContext } from "../support/services.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestServices();
  Object.assign(process.env, ctx.env);
});

function event(path: string, headers: Record<string, string> = {}) {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "",
    headers: { host: "api.example.com", ...headers },
    requestContext: { http: { method: "GET", path, protocol: "HTTP/1.1", sourceIp: "203.0.113.1", userAgent: "test" }, domainName: "api.example.com", requestId: "r1", stage: "$default" },
    isBase64Encoded: false,
  };
}

describe("functions/api handler", () => {
  it("answers an unauthenticated call with 401 unauthorized in the envelope", async () => {
    const { handler } = await import("../../functions/api.ts");
    const res = (await (handler as unknown as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string; headers: Record<string, string> }>)(event("/v1/credentials"), {}));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error).toMatchObject({ code: "unauthorized", status: 401 });
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
  });

  it("serves the health route from the same app", async () => {
    const { handler } = await import("../../functions/api.ts");
    const res = (await (handler as unknown as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>)(event("/v1/health"), {}));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: "ok", marketplace: ctx.config.MARKETPLACE_ADDRESS });
  });
});
