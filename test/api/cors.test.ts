// CORS: browser clients (the dashboard on its own origin, third-party apps) can call the API. The
// preflight is answered before authentication and rate limits; the headers a client needs are exposed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/api/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createServices } from "../../src/services.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

let local: TestContext;
let localWorld: World | undefined;
let restricted: ReturnType<typeof buildApp>;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  localWorld = await startWorld({ serve: false });
  local = localWorld.ctx;
  app = buildApp(local.services);
  const config = loadConfig({ ...local.env, CORS_ORIGINS: "https://dashboard.example.com, https://partner.example.org" });
  restricted = buildApp(createServices(config, { logger: local.services.logger, tables: local.services.tables }));
});
afterAll(() => localWorld?.close());

const preflight = (origin: string, path = "/v1/execute", headers = "authorization, content-type, idempotency-key") =>
  new Request(`http://api.test${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": headers },
  });

describe("CORS", () => {
  it("answers a preflight on an authenticated route with 204 and no Authorization header, uncounted by the rate limit but with its headers", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await app.request(preflight("https://any-app.example"));
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      for (const h of ["authorization", "content-type", "idempotency-key", "last-event-id"]) expect(allowed).toContain(h);
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      // Every response carries the rate-limit headers; nothing was counted, so the default rule's figures.
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("100");
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it("exposes the rate-limit, retry, request and run id headers on responses, errors included", async () => {
    const res = await app.request("http://api.test/v1/credentials", { headers: { origin: "https://any-app.example" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "x-request-id", "x-run-id"]));
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("allows only the configured origins when CORS_ORIGINS lists them", async () => {
    const ok = await restricted.request(preflight("https://partner.example.org"));
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://partner.example.org");
    const refused = await restricted.request(preflight("https://evil.example"));
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    const health = await restricted.request("http://api.test/v1/health", { headers: { origin: "https://evil.example" } });
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("defaults to any origin locally and to the dashboard's origin alone in the cloud", () => {
    expect(loadConfig(local.env).corsOrigins).toEqual(["*"]);
    const cloud = {
      ...local.env,
      STAGE: "cloud",
      UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io",
      UPSTASH_REDIS_REST_TOKEN: "token",
      RUNNER_FUNCTION_NAME: "runner",
      ALLOW_PRIVATE_AGENT_HOSTS: "false",
    };
    expect(loadConfig(cloud).corsOrigins).toEqual([]);
    expect(loadConfig({ ...cloud, DASHBOARD_URL: "https://d1234.cloudfront.net/" }).corsOrigins).toEqual(["https://d1234.cloudfront.net"]);
    expect(() => loadConfig({ ...cloud, CORS_ORIGINS: "https://x.example/path" })).toThrow(/CORS_ORIGINS/);
  });
});
