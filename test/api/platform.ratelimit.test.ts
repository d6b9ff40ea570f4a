// The default rate limit on the service app: figures on every response (errors included), 429 with
// Retry-After past the limit, counted per API key, per wallet, and per address for refused callers; and
// each route's declared fail mode, as the document states it and as the app keeps it when the limiter's
// store cannot be reached.
import { beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { buildApp } from "../../src/api/app.ts";
import { createServices } from "../../src/services.ts";
import { createMemoryRateLimiter } from "../../src/adapters/ratelimit/memory.ts";
import { createUpstashRateLimiter } from "../../src/adapters/ratelimit/upstash.ts";
import { openApiDocument } from "../../src/api/openapi-document.ts";
import { freePort } from "../../local/ports.ts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { createKey, signIn } from "../support/auth.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
const renter = privateKeyToAccount(DEV_ACCOUNTS[5].privateKey);

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  // Windows are aligned to the epoch: with the real clock a burst of 101 requests can straddle a
  // window boundary. The limiter's clock is frozen mid-window, so every request falls in one window.
  const frozen = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  app = buildApp(createServices(ctx.config, { logger: ctx.services.logger, tables: ctx.services.tables, rateLimiter: createMemoryRateLimiter({ now: () => frozen }) }));
});

function figures(res: Response) {
  return {
    limit: Number(res.headers.get("x-ratelimit-limit")),
    remaining: Number(res.headers.get("x-ratelimit-remaining")),
    reset: Number(res.headers.get("x-ratelimit-reset")),
  };
}

describe("default rate limit", () => {
  it("reports the limit on successful, refused and public responses", async () => {
    const now = Math.floor(Date.now() / 60_000) * 60 - 60;
    for (const res of [
      await app.request("/v1/health", { headers: { "x-forwarded-for": "198.51.100.7" } }),
      await app.request("/v1/credentials", { headers: { "x-forwarded-for": "198.51.100.7" } }),
      await app.request("/v1/credentials", { headers: { authorization: "Bearer svc_test_" + "q".repeat(32), "x-forwarded-for": "198.51.100.7" } }),
    ]) {
      const f = figures(res);
      expect(f.limit).toBe(100);
      expect(f.remaining).toBeGreaterThanOrEqual(0);
      expect(f.remaining).toBeLessThan(100);
      expect(f.reset).toBeGreaterThanOrEqual(now);
      expect(f.reset).toBeLessThanOrEqual(now + 121);
    }
  });

  it("admits 100 requests a minute per API key, then answers 429 with Retry-After", async () => {
    const { token } = await signIn(app, renter);
    const { key } = await createKey(app, renter, token, "limited");
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 101; i++) {
      last = await app.request("/v1/keys", { headers: { authorization: `Bearer ${key}` } });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    expect(last!.status).toBe(429);
    const body = (await last!.json()) as { error: { code: string } };
    expect(body.error.code).toBe("rate_limit_exceeded");
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(figures(last!).remaining).toBe(0);
    // The wallet's JWT is a bucket of its own.
    expect((await app.request("/v1/keys", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it("counts refused callers by address, so guessing keys runs into 429", async () => {
    let last: Response | undefined;
    for (let i = 0; i < 101; i++) {
      last = await app.request("/v1/keys", { headers: { authorization: `Bearer svc_test_${String(i).padStart(32, "x")}`, "x-forwarded-for": "203.0.113.9" } });
    }
    expect(last!.status).toBe(429);
    // Another address is unaffected.
    const other = await app.request("/v1/keys", { headers: { authorization: "Bearer svc_test_" + "y".repeat(32), "x-forwarded-for": "203.0.113.10" } });
    expect(other.status).toBe(401);
  });
});

type Operations = Record<string, Record<string, { security: unknown[]; "x-rate-limit": { rule: string; fail_mode: string } }>>;

describe("each route's declared fail mode", () => {
  let paths: Operations;
  beforeAll(async () => {
    paths = (await openApiDocument()).paths as Operations;
  });

  const failModeOf = (method: string, path: string) => paths[path]?.[method]?.["x-rate-limit"].fail_mode;

  it("is closed where a request spends money or mints a credential, open on reads, sign-in, revocation and registration", () => {
    for (const [method, path] of [["post", "/v1/execute"], ["post", "/v1/execute/stream"], ["post", "/v1/mcp"], ["post", "/v1/mcp/x402"], ["post", "/v1/keys"], ["post", "/v1/keys/challenge"]]) {
      expect(failModeOf(method!, path!), `${method} ${path}`).toBe("closed");
    }
    for (const [method, path] of [["delete", "/v1/keys/{key_id}"], ["post", "/v1/auth/token"], ["post", "/v1/agents"]]) {
      expect(failModeOf(method!, path!), `${method} ${path}`).toBe("open");
    }
    const reads = Object.entries(paths).flatMap(([path, item]) => (item.get ? [path] : []));
    expect(reads.length).toBeGreaterThan(15);
    for (const path of reads) expect(failModeOf("get", path), `GET ${path}`).toBe("open");
  });

  it("names the execution rule exactly on the routes that run tasks", () => {
    const execution = Object.entries(paths).flatMap(([path, item]) => Object.entries(item).flatMap(([method, operation]) => (operation["x-rate-limit"].rule === "execution" ? [`${method.toUpperCase()} ${path}`] : [])));
    expect(execution.sort()).toEqual(["POST /a2a/{agent_id}", "POST /v1/execute", "POST /v1/execute/stream", "POST /v1/mcp", "POST /v1/mcp/x402"]);
  });

  it("is kept by every route when the limiter's store is unreachable: 503 service_unavailable where closed, served where open", async () => {
    const unreachable = createUpstashRateLimiter({ url: `http://127.0.0.1:${await freePort()}`, token: "t" });
    const down = buildApp(createServices(ctx.config, { logger: ctx.services.logger, tables: ctx.services.tables, rateLimiter: unreachable }));
    const { token } = await signIn(down, renter);
    const wrong: string[] = [];
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const path = template.replace(/\{[^}]+\}/g, "x");
        const headers: Record<string, string> = operation.security.length ? { authorization: `Bearer ${token}` } : {};
        const body = method === "get" ? undefined : "{}";
        if (body) headers["content-type"] = "application/json";
        const res = await down.request(path, { method: method.toUpperCase(), headers, ...(body ? { body } : {}) });
        const text = await res.text();
        const refused = res.status === 503 && text.includes("Rate limiting is temporarily unavailable");
        if (refused !== (operation["x-rate-limit"].fail_mode === "closed")) wrong.push(`${method.toUpperCase()} ${template}: ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
