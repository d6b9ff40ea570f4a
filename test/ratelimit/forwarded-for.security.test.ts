// Who picks a caller's rate-limit bucket on the Node server: the socket's address, unless the socket is
// a configured trusted proxy, whose X-Forwarded-For then names the client. Over real HTTP, since the
// socket is the point.
import type { Server } from "node:http";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/api/app.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createServices } from "../../src/services.ts";
import { createMemoryRateLimiter } from "../../src/adapters/ratelimit/memory.ts";
import { trustedProxies } from "../../src/api/middleware/rate-limit.ts";
import { closeApi, serveApi } from "../support/http.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

let ctx: TestContext;
let world: World | undefined;
const servers: Server[] = [];

// Windows are aligned to the epoch; a frozen clock keeps a burst in one window.
const frozen = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;

async function serveWith(trusted: string[]): Promise<string> {
  const services = createServices(
    { ...ctx.config, TRUSTED_PROXIES: trusted },
    { logger: ctx.services.logger, tables: ctx.services.tables, rateLimiter: createMemoryRateLimiter({ now: () => frozen }) },
  );
  const { server, url } = await serveApi(buildApp(services));
  servers.push(server);
  return url;
}

const octet = (i: number) => `${(i % 250) + 1}`;
const wrongKey = () => `Bearer svc_test_${randomBytes(16).toString("hex")}`;

/** 150 requests with wrong API keys, each with the X-Forwarded-For `forwardedFor(i)` gives; their statuses. */
async function guessKeys(url: string, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 150; i++) {
    const res = await fetch(`${url}/v1/keys`, { headers: { authorization: wrongKey(), "x-forwarded-for": forwardedFor(i) } });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
});

afterAll(async () => {
  await Promise.all(servers.map((server) => closeApi(server)));
});

// Each case sends 150 requests (300 in the second) one after another to a served API: beside the other
// lanes on a loaded machine that has taken 30 s, so the cases get room of their own.
describe("X-Forwarded-For and rate-limit buckets", { timeout: 120_000 }, () => {
  it("ignores X-Forwarded-For from a client that is no trusted proxy: 150 wrong keys with rotating values run into 429", async () => {
    const url = await serveWith([]);
    const statuses = await guessKeys(url, (i) => `203.0.113.${octet(i)}`);
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(100)).toEqual(Array(50).fill(429));
  });

  it("honours X-Forwarded-For when the socket is a trusted proxy: each named client has its own bucket", async () => {
    const url = await serveWith(["127.0.0.0/8"]);
    const rotating = await guessKeys(url, (i) => `198.51.100.${octet(i)}`);
    expect(rotating.every((s) => s === 401)).toBe(true);
    const one = await guessKeys(url, () => "192.0.2.44");
    expect(one.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(one.slice(100)).toEqual(Array(50).fill(429));
  });

  it("behind a trusted proxy, keys by the hop the proxy saw, not by entries the client forged before it", async () => {
    const url = await serveWith(["127.0.0.1"]);
    // The client forges a rotating first entry; the proxy appends the address it really saw.
    const statuses = await guessKeys(url, (i) => `10.9.8.${octet(i)}, 192.0.2.77`);
    expect(statuses.slice(100)).toEqual(Array(50).fill(429));
  });
});

describe("on Lambda", () => {
  it("keys by the source address API Gateway recorded, whatever X-Forwarded-For says", async () => {
    const services = createServices(ctx.config, { logger: ctx.services.logger, tables: ctx.services.tables, rateLimiter: createMemoryRateLimiter({ now: () => frozen }) });
    const app = buildApp(services);
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const request = new Request("https://api.example.com/v1/keys", { headers: { authorization: wrongKey(), "x-forwarded-for": `203.0.113.${octet(i)}` } });
      // The bindings hono/aws-lambda hands the app: the event's requestContext among them.
      const res = await app.fetch(request, { requestContext: { identity: { sourceIp: "198.51.100.9" } } });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(100)).toEqual(Array(50).fill(429));
  });
});

describe("trustedProxies", () => {
  it("matches addresses and CIDR ranges of both families, IPv4 seen through a dual-stack socket included", () => {
    const trusted = trustedProxies(["10.0.0.0/8", "192.0.2.1", "fd00::/8"]);
    expect(trusted("10.200.3.4")).toBe(true);
    expect(trusted("::ffff:10.1.2.3")).toBe(true);
    expect(trusted("192.0.2.1")).toBe(true);
    expect(trusted("192.0.2.2")).toBe(false);
    expect(trusted("fd12::1")).toBe(true);
    expect(trusted("fe80::1")).toBe(false);
    expect(trusted("not an address")).toBe(false);
    expect(trustedProxies([])("127.0.0.1")).toBe(false);
  });

  it("refuses to start with a TRUSTED_PROXIES entry that is no address or range", () => {
    expect(loadConfig({ ...ctx.env, TRUSTED_PROXIES: " 10.0.0.0/8 , ::1 " }).TRUSTED_PROXIES).toEqual(["10.0.0.0/8", "::1"]);
    expect(loadConfig(ctx.env).TRUSTED_PROXIES).toEqual([]);
    for (const bad of ["10.0.0.0/33", "fd00::/129", "proxy.internal", "10.0.0.1/"]) {
      expect(() => loadConfig({ ...ctx.env, TRUSTED_PROXIES: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ...ctx.env, TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
    }
  });
});
