// The two servers the service ships, over real sockets: the API's own (`local/api-server.ts`, the
// suites) and the local stack's, built as `npm start` builds it (`listenSite`: the dashboard in front of
// the API on one origin). On both:
// - a public caller's rate-limit bucket is its socket's address: 150 wrong API keys with a rotating
//   X-Forwarded-For run into 429 after 100, and the header is believed only from TRUSTED_PROXIES;
// - what is not a dashboard page or file gets the API's answer in the error envelope with the
//   rate-limit headers (GET /v2/listings, any non-GET, a JSON client on a page's path), an OPTIONS
//   preflight carries the rate-limit headers, and a path the API serves outside /v1 is never a page;
// - a request the HTTP parser refused mid-body, or one its client abandoned, is logged once as what it
//   was (400 refused by the server; 499 client_closed_request), never as 500, and /v1/health counts no
//   server error for it.
import type { Server } from "node:http";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/api/app.ts";
import { apiUrl, closeApiServer, listenApi, type ApiFetch } from "../../src/api/server.ts";
import { createMemoryRateLimiter } from "../../src/adapters/ratelimit/memory.ts";
import { createLogger } from "../../src/logger.ts";
import { createServices, type Services } from "../../src/services.ts";
import { isDashboardPage, listenSite, type DashboardSiteConfig } from "../../local/dashboard.ts";
import { parseResponse, rawExchange, writeIfOpen } from "../support/raw-http.ts";
import { until } from "../support/until.ts";
import { startWorld, type World } from "../support/world.ts";

let world: World;
const lines: string[] = [];
const servers: Server[] = [];
const extraServices: Services[] = [];
let distDir: string;
/** The world's API on its own server, and on the stack's server. */
const urls = { api: "", stack: "" };

const INDEX_HTML = '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app-1a2b3c.js"></script></body></html>';
const SITE_CONFIG: DashboardSiteConfig = {
  api_url: "http://127.0.0.1:0",
  chain_id: 31337,
  chain_name: "Local chain",
  rpc_url: "http://127.0.0.1:0",
  marketplace_address: "0x0000000000000000000000000000000000000001",
  explorer_url: null,
  allow_private_agent_hosts: true,
};

async function serve(fetch: ApiFetch): Promise<string> {
  const server = await listenApi(fetch, 0);
  servers.push(server);
  return apiUrl(server);
}

async function serveSite(services: Services): Promise<string> {
  const server = await listenSite(services, { port: 0, distDir, config: SITE_CONFIG });
  servers.push(server);
  return apiUrl(server);
}

beforeAll(async () => {
  world = await startWorld({ adapters: { logger: createLogger("info", (line) => lines.push(line)) } });
  // A built dashboard as web/dist holds one: the page, a hashed asset, a file at the top.
  distDir = mkdtempSync(join(tmpdir(), "site-dist-"));
  mkdirSync(join(distDir, "assets"));
  writeFileSync(join(distDir, "index.html"), INDEX_HTML);
  writeFileSync(join(distDir, "assets/app-1a2b3c.js"), "console.log('app');\n");
  writeFileSync(join(distDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  urls.api = world.url;
  urls.stack = await serveSite(world.services);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => closeApiServer(server)));
  await Promise.all(extraServices.map((services) => services.close()));
  await world?.close();
  if (distDir) rmSync(distDir, { recursive: true, force: true });
});

const SERVERS = ["api", "stack"] as const;

type Envelope = { error: { code: string; message: string; status: number; request_id: string } };

/** An answer in the error envelope with `status` and `code`, a request id and the rate-limit headers. */
async function expectEnvelope(res: Response, status: number, code: string): Promise<Envelope> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Envelope;
  expect(body.error).toMatchObject({ code, status });
  expect(res.headers.get("x-request-id")).toBe(body.error.request_id);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(res.headers.get(name), name).toMatch(/^\d+$/);
  return body;
}

describe("the client's address on both servers", () => {
  // Windows are aligned to the epoch; a frozen clock keeps each burst in one window.
  const frozen = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  const octet = (i: number) => `${(i % 250) + 1}`;

  /** The world's configuration with its own in-process limiter, served by the API's server and the stack's. */
  async function serversWith(trusted: string): Promise<{ api: string; stack: string }> {
    const services = createServices(
      { ...world.config, TRUSTED_PROXIES: trusted ? trusted.split(",") : [] },
      { logger: world.services.logger, tables: world.services.tables, rateLimiter: createMemoryRateLimiter({ now: () => frozen }) },
    );
    extraServices.push(services);
    return { api: await serve(buildApp(services).fetch as ApiFetch), stack: await serveSite(services) };
  }

  /** 150 requests with wrong API keys, each with the X-Forwarded-For `forwardedFor(i)` gives; their statuses. */
  async function guessKeys(url: string, forwardedFor: (i: number) => string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await fetch(`${url}/v1/keys`, { headers: { authorization: `Bearer svc_test_${randomBytes(16).toString("hex")}`, "x-forwarded-for": forwardedFor(i) } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    return statuses;
  }

  it.each(SERVERS)("%s server: 150 wrong keys with a rotating X-Forwarded-For get 100 × 401, then 429 (the socket's address is the bucket)", async (which) => {
    const url = (await serversWith(""))[which];
    const statuses = await guessKeys(url, (i) => `203.0.113.${octet(i)}`);
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(401));
    expect(statuses.slice(100)).toEqual(Array(50).fill(429));
  });

  it.each(SERVERS)("%s server: X-Forwarded-For names the client only when the socket is a TRUSTED_PROXIES address", async (which) => {
    const url = (await serversWith("127.0.0.0/8"))[which];
    const rotating = await guessKeys(url, (i) => `198.51.100.${octet(i)}`);
    expect(rotating).toEqual(Array(150).fill(401));
    const forged = await guessKeys(url, (i) => `10.9.8.${octet(i)}, 192.0.2.77`);
    expect(forged.slice(100)).toEqual(Array(50).fill(429));
  });
});

describe("answers outside the dashboard are the API's, in the envelope", () => {
  it.each(SERVERS)("%s server: GET /v2/listings is 404 not_found in the envelope, to curl and to a browser alike", async (which) => {
    await expectEnvelope(await fetch(`${urls[which]}/v2/listings`), 404, "not_found");
    await expectEnvelope(await fetch(`${urls[which]}/v2/listings`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } }), 404, "not_found");
  });

  it.each(SERVERS)("%s server: every other method, on a page's path too, gets the API's answer", async (which) => {
    await expectEnvelope(await fetch(`${urls[which]}/`, { method: "POST", headers: { accept: "text/html" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${urls[which]}/rentals`, { method: "DELETE", headers: { accept: "text/html" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${urls[which]}/assets/app-1a2b3c.js`, { method: "PUT", body: "{}", headers: { "content-type": "application/json" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${urls[which]}/v1/nothing-here`, { method: "PATCH" }), 404, "not_found");
  });

  it.each(SERVERS)("%s server: an OPTIONS preflight carries the rate-limit headers (the default rule's, nothing counted)", async (which) => {
    for (const path of ["/v1/listings", "/v1/execute", "/rentals", "/v2/anything"]) {
      const res = await fetch(`${urls[which]}${path}`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" } });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      expect(res.headers.get("x-ratelimit-limit"), path).toBe("100");
      expect(res.headers.get("x-ratelimit-remaining"), path).toBe("100");
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it("stack server: the dashboard answers its pages to HTML clients and its files; a JSON client on a page's path, a missing file and the API's paths get the API", async () => {
    const url = urls.stack;
    for (const path of ["/", "/rentals", "/listings/lst_abc", "/keys/", "/run?agent=x", "/creator", "/review"]) {
      for (const accept of [undefined, "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]) {
        const res = await fetch(`${url}${path}`, accept === undefined ? {} : { headers: { accept } });
        expect(res.status, `${path} ${accept}`).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^text\/html/);
        expect(await res.text()).toBe(INDEX_HTML);
      }
    }
    const head = await fetch(`${url}/rentals`, { method: "HEAD", headers: { accept: "text/html" } });
    expect(head.status).toBe(200);
    const asset = await fetch(`${url}/assets/app-1a2b3c.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect((await fetch(`${url}/favicon.svg`)).status).toBe(200);
    expect(((await (await fetch(`${url}/config.json`)).json()) as DashboardSiteConfig).chain_id).toBe(31337);

    // A client asking for JSON on a page's path, an unknown page, a missing or hidden file: the API.
    await expectEnvelope(await fetch(`${url}/rentals`, { headers: { accept: "application/json" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/`, { headers: { accept: "application/json, text/html;q=0.5" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/no-such-page`, { headers: { accept: "text/html" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/listings/a/b`, { headers: { accept: "text/html" } }), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/assets/no-such-file.js`), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/assets`), 404, "not_found");
    await expectEnvelope(await fetch(`${url}/assets/..%2findex.html`), 404, "not_found");
    // The API's own paths stay the API's.
    const health = await fetch(`${url}/v1/health`, { headers: { accept: "text/html" } });
    expect(health.status).toBe(200);
    expect(health.headers.get("content-type")).toMatch(/^application\/json/);
    expect(health.headers.get("x-ratelimit-limit")).toBe("100");
  });

  it("stack server: every page of the dashboard's router (web/src/router.tsx) is served as a page", async () => {
    const router = readFileSync(join(import.meta.dirname, "../../web/src/router.tsx"), "utf8");
    const paths = [...router.matchAll(/path: "([^"]+)"/g)].map((m) => m[1]!).filter((path) => path !== "*");
    expect(paths.length).toBeGreaterThan(5);
    for (const path of paths) {
      const concrete = `/${path.replace(/^\//, "").replace(/:[a-z]+/gi, "x1")}`;
      expect(isDashboardPage(concrete), `${path} is a page of the router but not in DASHBOARD_PAGES (local/dashboard.ts)`).toBe(true);
      const res = await fetch(`${urls.stack}${concrete}`, { headers: { accept: "text/html" } });
      expect(res.status, concrete).toBe(200);
      expect(await res.text()).toBe(INDEX_HTML);
    }
  });

  it("stack server: paths the API serves outside /v1 are never shadowed by a page", async () => {
    // The API's own routes outside /v1 (the card signing keys, A2A agent cards and endpoints), asked for
    // as a browser asks: each answers JSON from the API, never the dashboard's page.
    const browser = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
    const jwks = await fetch(`${urls.stack}/.well-known/jwks.json`, { headers: browser });
    expect(jwks.headers.get("content-type")).toMatch(/^application\/(jwk-set\+)?json/);
    expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
    const card = await fetch(`${urls.stack}/a2a/reviewer-0000abcd/.well-known/agent-card.json`, { headers: browser });
    expect(card.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await card.json()) as { error: { code: string } }).error.code).toBe("listing_not_found");
    const rpc = await fetch(`${urls.stack}/a2a/reviewer-0000abcd`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(((await rpc.json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
    await expectEnvelope(await fetch(`${urls.stack}/.well-known/other`, { headers: browser }), 404, "not_found");
  });
});

type AccessLine = Record<string, unknown> & { message: string; request_id: string; status: number };

function logged(): (Record<string, unknown> & { message: string })[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown> & { message: string });
}

async function accessLineOf(requestId: string): Promise<AccessLine> {
  let found: AccessLine | undefined;
  await until(`the access line of ${requestId}`, () => (found = logged().find((line): line is AccessLine => line.message === "request" && line.request_id === requestId)) !== undefined, 10_000);
  return found!;
}

async function serverErrors(url: string): Promise<number> {
  const health = (await (await fetch(`${url}/v1/health`)).json()) as { metrics: { requests: { by_status_class: Record<string, number> } } };
  return health.metrics.requests.by_status_class["5xx"] ?? 0;
}

describe("requests that end before the app can answer them", () => {
  it.each(SERVERS)("%s server: a chunked body with chunk size zz to POST /v1/auth/token is 400 from the server, logged once as that, never 500", async (which) => {
    const url = urls[which];
    const before = lines.length;
    const exchange = await rawExchange(url, (socket) => {
      writeIfOpen(socket, "POST /v1/auth/token HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
    });
    const res = parseResponse(exchange.text);
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body) as Envelope;
    expect(body.error.code).toBe("invalid_request");
    expect(res.headers["x-ratelimit-limit"]).toBe("100");

    const line = await accessLineOf(body.error.request_id);
    expect(line).toMatchObject({ method: "POST", route: "/v1/auth/token", status: 400, error_code: "invalid_request", refused_by: "http_server", cause: "HPE_INVALID_CHUNK_SIZE" });
    const since = logged().slice(before);
    expect(since.filter((l) => l.message === "request")).toHaveLength(1);
    expect(since.filter((l) => l.level === "error" || l.status === 500)).toEqual([]);
    expect(await serverErrors(url)).toBe(0);
  });

  const ABANDON = SERVERS.flatMap((which) => (["closes", "resets"] as const).map((how) => [which, how] as const));
  it.each(ABANDON)("%s server: a client that %s the connection mid-body is logged as 499 client_closed_request, never 500", async (which, how) => {
    const url = urls[which];
    const before = lines.length;
    await rawExchange(url, (socket) => {
      writeIfOpen(socket, 'POST /v1/auth/token HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"wallet":"0x');
      setTimeout(() => (how === "closes" ? socket.destroy() : socket.resetAndDestroy()), 100);
    });
    let line: AccessLine | undefined;
    await until("the abandoned request's access line", () => (line = logged().slice(before).find((l): l is AccessLine => l.message === "request")) !== undefined, 10_000);
    expect(line).toMatchObject({ method: "POST", route: "/v1/auth/token", status: 499, error_code: "client_closed_request" });
    expect(logged().slice(before).filter((l) => l.message === "request")).toHaveLength(1);
    expect(logged().slice(before).filter((l) => l.level === "error" || l.status === 500)).toEqual([]);
    expect(await serverErrors(url)).toBe(0);
  });
});
