// The API's HTTP edge over real sockets: requests that never reach the app are still answered in the
// error envelope with a request id and the rate-limit headers; large uploads get 413, never a reset;
// slow clients are cut within the configured bounds while long streamed answers are not.
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { createPlatform } from "../../src/api/app.ts";
import { defineRoute } from "../../src/api/route.ts";
import { routeGroup } from "../../src/api/route-groups.ts";
import { createLogger } from "../../src/logger.ts";
import { closeApi, serveApi } from "../support/http.ts";
import { countResponses, parseResponse, rawExchange, writeIfOpen, type RawResponse } from "../support/raw-http.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";

let ctx: TestContext;
let world: World | undefined;
let server: Server | undefined;
let url: string;
let slowServer: Server | undefined;
let slowUrl: string;
/** The lines the main server logged for the answers it gave itself. */
const edgeLog: string[] = [];

const echoRoute = defineRoute({
  method: "post",
  path: "/echo",
  operationId: "echo",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  request: { body: { content: { "application/json": { schema: z.object({ text: z.string() }) } }, required: true } },
  responses: { 200: { description: "echo", content: { "application/json": { schema: z.object({ text: z.string() }) } } } },
  errors: {},
});

const streamRoute = defineRoute({
  method: "get",
  path: "/stream",
  operationId: "stream",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  responses: { 200: { description: "ticks", content: { "text/event-stream": { schema: { type: "string" } } } } },
  errors: {},
});

const STREAM_EVENTS = 6;
const STREAM_GAP_MS = 300;

function buildEdgeApp() {
  const app = createPlatform(ctx.services);
  const routes = routeGroup("public");
  routes.openapi(echoRoute, (c) => c.json({ text: c.req.valid("json").text }, 200));
  // An answer streamed for longer than the slow server's request timeout, the way the run routes stream.
  routes.openapi(
    streamRoute,
    (c) =>
      streamSSE(c, async (stream) => {
        for (let i = 0; i < STREAM_EVENTS; i++) {
          await stream.writeSSE({ event: "tick", data: String(i) });
          await stream.sleep(STREAM_GAP_MS);
        }
        await stream.writeSSE({ event: "done", data: "end" });
      }) as never,
  );
  app.route("/", routes);
  return app;
}

beforeAll(async () => {
  world = await startWorld({ serve: false, env: { MAX_BODY_BYTES: String(1024 * 1024) } });
  ctx = world.ctx;
  ({ server, url } = await serveApi(buildEdgeApp(), { logger: createLogger("info", (line) => edgeLog.push(line)) }));
  ({ server: slowServer, url: slowUrl } = await serveApi(buildEdgeApp(), { timeouts: { headersMs: 500, requestMs: 1_000, keepAliveMs: 400 } }));
});

afterAll(async () => {
  await Promise.all([closeApi(server), closeApi(slowServer)]);
});

/** The envelope rules every refused answer of the edge must meet. */
function expectEnvelope(res: RawResponse, status: number, code: string, { counted = false } = {}) {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as { error: { code: string; status: number; message: string; request_id: string } };
  expect(body.error).toMatchObject({ code, status });
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  expect(res.headers["x-request-id"]).toBe(body.error.request_id);
  expect(res.headers["x-ratelimit-limit"]).toBe("100");
  // Answered before routing: nothing was counted (see docs/reference/rate-limits.md); the app's answers count.
  if (!counted) expect(res.headers["x-ratelimit-remaining"]).toBe("100");
  else expect(Number(res.headers["x-ratelimit-remaining"])).toBeLessThan(100);
  const reset = Number(res.headers["x-ratelimit-reset"]);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 30); // the answer may be seconds old
  expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
}

describe("requests that never reach the app", () => {
  it("answers headers over 16 KB with 431 headers_too_large in the envelope", async () => {
    const exchange = await rawExchange(url, (s) => writeIfOpen(s, `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`));
    expect(exchange.closed).toBe(true);
    expectEnvelope(parseResponse(exchange.text), 431, "headers_too_large");
  });

  it("answers a malformed request line with 400 invalid_request in the envelope", async () => {
    const exchange = await rawExchange(url, (s) => writeIfOpen(s, "THIS IS NOT HTTP\r\n\r\n"));
    expect(exchange.closed).toBe(true);
    expectEnvelope(parseResponse(exchange.text), 400, "invalid_request");
  });

  it("answers a bad chunk in a chunked body with 400 invalid_request in the envelope", async () => {
    const exchange = await rawExchange(url, (s) =>
      writeIfOpen(s, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{"text":"a"}\r\n0\r\n\r\n`),
    );
    expect(exchange.closed).toBe(true);
    expect(countResponses(exchange.text)).toBe(1);
    expectEnvelope(parseResponse(exchange.text), 400, "invalid_request");
  });

  it("logs each answer it gives itself: one access line with the answer's request id, status and code", async () => {
    const exchange = await rawExchange(url, (s) => writeIfOpen(s, `GET /stream HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(17 * 1024)}\r\n\r\n`));
    const requestId = parseResponse(exchange.text).headers["x-request-id"];
    const lines = edgeLog.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.request_id === requestId);
    expect(lines).toEqual([
      expect.objectContaining({ level: "info", message: "request", status: 431, error_code: "headers_too_large", route: null, rate_limit: "not_counted", refused_by: "http_server", cause: "HPE_HEADER_OVERFLOW" }),
    ]);
    expect(edgeLog.join("\n")).not.toContain("bbbbbbbb");
  });

  it("answers an HTTP/1.1 request without Host with 400 invalid_request in the envelope", async () => {
    const exchange = await rawExchange(url, (s) => writeIfOpen(s, "GET /stream HTTP/1.1\r\n\r\n"));
    expect(exchange.closed).toBe(true);
    expectEnvelope(parseResponse(exchange.text), 400, "invalid_request");
  });

  it("answers CONNECT with 405 method_not_allowed in the envelope", async () => {
    const exchange = await rawExchange(url, (s) => writeIfOpen(s, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"));
    expect(exchange.closed).toBe(true);
    const res = parseResponse(exchange.text);
    expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.allow).toContain("GET");
  });
});

describe("large uploads", () => {
  const MB = 1024 * 1024;
  const SEVEN_MB = Buffer.alloc(7 * MB, "a");
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * 26 clients upload 7 MB at once, each at about 7 MB/s (a megabyte every 150 ms, as over a real
   * link), reading nothing until their body is sent: the way many clients behave, and the case where
   * a server that closes early resets the connection and the client loses the answer.
   */
  async function uploads(framing: "content-length" | "chunked") {
    return Promise.all(
      Array.from({ length: 26 }, (_, i) =>
        rawExchange(
          url,
          async (s) => {
            s.pause();
            const close = i % 2 === 0 ? "Connection: close\r\n" : "";
            const length = framing === "chunked" ? "Transfer-Encoding: chunked\r\n" : `Content-Length: ${SEVEN_MB.length}\r\n`;
            writeIfOpen(s, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${close}${length}\r\n`);
            for (let offset = 0; offset < SEVEN_MB.length; offset += MB) {
              const chunk = SEVEN_MB.subarray(offset, offset + MB);
              if (framing === "chunked") writeIfOpen(s, `${chunk.length.toString(16)}\r\n`);
              writeIfOpen(s, chunk);
              if (framing === "chunked") writeIfOpen(s, "\r\n");
              await pause(150);
            }
            if (framing === "chunked") writeIfOpen(s, "0\r\n\r\n");
            s.resume();
          },
          25_000,
        ),
      ),
    );
  }

  for (const framing of ["content-length", "chunked"] as const) {
    it(`answers all of 26 parallel raw 7 MB uploads (${framing}) with 413 payload_too_large, none reset`, async () => {
      const exchanges = await uploads(framing);
      const outcomes = exchanges.map((e) => (e.text.startsWith("HTTP/1.1") ? `${parseResponse(e.text).status}${e.error ? ` then ${e.error}` : ""}` : `${e.error ?? "nothing"}`));
      expect(outcomes).toEqual(Array(26).fill("413"));
      for (const exchange of exchanges) {
        expect(countResponses(exchange.text)).toBe(1);
        expectEnvelope(parseResponse(exchange.text), 413, "payload_too_large", { counted: true });
      }
    }, 60_000);
  }
});

describe("slow clients (request timeout 1 s, headers 0.5 s, keep-alive 0.4 s)", () => {
  it("answers a trickled body with 408 request_timeout and closes the connection within the bound", async () => {
    const exchange = await rawExchange(
      slowUrl,
      async (s) => {
        writeIfOpen(s, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`);
        for (let i = 0; i < 100 && !s.destroyed; i++) {
          writeIfOpen(s, "a");
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      8_000,
    );
    expect(exchange.closed).toBe(true);
    expect(exchange.elapsedMs).toBeLessThan(2_500);
    expectEnvelope(parseResponse(exchange.text), 408, "request_timeout");
  });

  it("closes a connection that never sends a request", async () => {
    const exchange = await rawExchange(slowUrl, () => undefined, 8_000);
    expect(exchange.closed).toBe(true);
    expect(exchange.elapsedMs).toBeLessThan(2_500);
  });

  it("closes a kept-alive connection that stays idle after its answer", async () => {
    const exchange = await rawExchange(
      slowUrl,
      (s) => writeIfOpen(s, `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"text":"a"}`),
      8_000,
    );
    expect(exchange.closed).toBe(true);
    expect(parseResponse(exchange.text).status).toBe(200);
    expect(exchange.elapsedMs).toBeLessThan(2_500);
  });

  it("delivers a streamed answer that lasts longer than the request timeout, whole", async () => {
    const res = await fetch(`${slowUrl}/stream`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text.match(/event: tick/g)).toHaveLength(STREAM_EVENTS);
    expect(text).toContain("event: done");
  });

  it("honours Connection: close on a streamed answer: the whole stream, then the connection closes", async () => {
    const exchange = await rawExchange(slowUrl, (s) => writeIfOpen(s, "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 10_000);
    expect(exchange.closed).toBe(true);
    const res = parseResponse(exchange.text);
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe("close");
    expect(res.body.match(/event: tick/g)).toHaveLength(STREAM_EVENTS);
    expect(res.body).toContain("event: done");
    expect(exchange.elapsedMs).toBeLessThan(STREAM_EVENTS * STREAM_GAP_MS + 2_000);
  });
});
