// The API's Node HTTP server, for every place the API runs outside Lambda: the local stack, the
// standalone process (local/api-server.ts) and the suites that speak HTTP. It adds what a public edge
// needs and the Hono adapter does not: timeouts against slow clients, answers in the error envelope for
// requests that never reach the app (malformed, oversized headers, too slow, CONNECT), and a body that
// is read to its end after an early answer (413) so the client receives that answer.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import type { Config } from "../config.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { CLIENT_CLOSED_CODE, CLIENT_CLOSED_STATUS, markConnection } from "./connection.ts";
import { newRequestId, REQUEST_ID_HEADER } from "./middleware/request-id.ts";
import { nominalRateLimitHeaders } from "./middleware/rate-limit.ts";

/** The edge's timeouts, in milliseconds. */
export interface HttpTimeouts {
  /** From a connection's first byte of a request to the end of its headers (Node's headersTimeout). */
  headersMs: number;
  /** From the first byte of a request to the end of its body (Node's requestTimeout). The response is
   * not bounded by it: a streamed answer may last as long as its run. */
  requestMs: number;
  /** How long an idle kept-alive connection waits for its next request. */
  keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/** The timeouts a configuration sets (HTTP_*_TIMEOUT_MS). */
export function httpTimeouts(config: Pick<Config, "HTTP_HEADERS_TIMEOUT_MS" | "HTTP_REQUEST_TIMEOUT_MS" | "HTTP_KEEP_ALIVE_TIMEOUT_MS">): HttpTimeouts {
  return { headersMs: config.HTTP_HEADERS_TIMEOUT_MS, requestMs: config.HTTP_REQUEST_TIMEOUT_MS, keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS };
}

/** What the server hands each request to: the app's `fetch`, with the connection's bindings (the Hono
 * Node adapter's `incoming` and `outgoing`; `incoming.socket` is the client's connection). */
export type ApiFetch = (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => Response | Promise<Response>;

export interface ApiServerOptions {
  timeouts?: Partial<HttpTimeouts>;
  /** Where the answers the server gives itself are logged, one line each in the access log's shape
   * (the app logs the requests it answers). */
  logger?: Logger;
}

/** Sockets whose request was answered before its body arrived: the rest of the body is being read and
 * discarded, so a later timeout on them must not write a second answer. */
const draining = new WeakSet<Duplex>();

/** An answer in the error envelope for a request the app never saw: a fresh request id, and the
 * default rule's rate-limit figures (nothing was counted; see docs/reference/rate-limits.md). */
function envelope(code: ErrorCode, message: string, extraHeaders: Record<string, string> = {}): { status: number; headers: Record<string, string>; body: string; requestId: string } {
  const requestId = newRequestId();
  const error = new ApiError(code, message);
  const body = JSON.stringify(error.toBody(requestId));
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    [REQUEST_ID_HEADER]: requestId,
    ...nominalRateLimitHeaders(Date.now()),
    ...extraHeaders,
  };
  return { status: error.status, headers, body, requestId };
}

/** The access log line of an answer the app never saw (same fields as the app's, unknowns null). */
function logEdgeAnswer(logger: Logger | undefined, answer: { status: number; requestId: string }, code: ErrorCode | typeof CLIENT_CLOSED_CODE, method: string | null, cause: string): void {
  logger?.info("request", {
    request_id: answer.requestId,
    method,
    route: null,
    status: answer.status,
    duration_ms: null,
    wallet: null,
    auth: null,
    key_id: null,
    run_id: null,
    rate_limit: "not_counted",
    error_code: code,
    refused_by: "http_server",
    cause,
  });
}

/** The envelope written straight to a socket (no request or response object exists for these), then
 * the connection is closed. */
function writeEnvelope(socket: Duplex, code: ErrorCode, message: string, extraHeaders: Record<string, string> = {}): { status: number; requestId: string } {
  const answer = envelope(code, message, extraHeaders);
  const headers = { Date: new Date().toUTCString(), ...answer.headers };
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join("\r\n");
  socket.end(`${head}\r\n\r\n${answer.body}`);
  return answer;
}

/** What Node's parser and timers report on a connection, as the answer a client should get. */
function answerFor(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } | undefined {
  switch (error.code) {
    case "ECONNRESET":
    case "EPIPE":
      return undefined; // the client is gone; nobody to answer
    case "HPE_HEADER_OVERFLOW":
      return { code: "headers_too_large", message: "The request's headers exceed 16 KB." };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "payload_too_large", message: "The request's chunk extensions are too large." };
    case "HPE_INVALID_EOF_STATE":
      // The client stopped sending (closed its side) before the request ended; one that only
      // half-closed can still read this.
      return { code: "invalid_request", message: "The connection ended before the request did (its body was cut short)." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "request_timeout", message: "The request was not received in time: headers and body must arrive within the server's request timeout." };
    default:
      return { code: "invalid_request", message: "The request is not valid HTTP/1.1 (request line, headers or chunked body)." };
  }
}

/** Parser errors that mean the client stopped sending mid-request, not that it sent something invalid. */
const CLIENT_STOPPED = new Set(["HPE_INVALID_EOF_STATE"]);

function onClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: Logger | undefined): void {
  const answer = answerFor(error);
  // Answer only where no answer has begun on this connection: an answer already under way (or
  // already given, for a body still being drained) must not be corrupted by a second one.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  const cause = error.code ?? "unknown";
  // A request already handed to the app (the connection failed in its body) is logged by the app, once,
  // as what happened here (src/api/connection.ts): the client going away, or this server's refusal.
  const inApp = inFlight?.req !== undefined && !inFlight.headersSent && !draining.has(socket) ? inFlight.req : undefined;
  const clientGone = answer === undefined || CLIENT_STOPPED.has(cause);
  if (inApp && clientGone) markConnection(inApp, { kind: "client_closed", cause });
  if (answer && socket.writable && !draining.has(socket) && !inFlight?.headersSent) {
    const written = writeEnvelope(socket, answer.code, answer.message);
    if (inApp) markConnection(inApp, clientGone ? { kind: "client_closed", requestId: written.requestId, cause } : { kind: "refused", status: written.status, code: answer.code, requestId: written.requestId, cause });
    else if (clientGone) logEdgeAnswer(logger, { status: CLIENT_CLOSED_STATUS, requestId: written.requestId }, CLIENT_CLOSED_CODE, null, cause);
    else logEdgeAnswer(logger, written, answer.code, null, cause);
    // A socket that does not close on its own (the client keeps sending) is cut after a short grace.
    setTimeout(() => socket.destroy(), 1_000).unref();
    return;
  }
  socket.destroy();
}

const HOP_BY_HOP = new Set(["connection", "keep-alive"]);

/** Connection is hop-by-hop: this server decides it from the client's request and its own keep-alive
 * policy. A route's own `Connection: keep-alive` (Hono's streamSSE sets one) would otherwise override a
 * client's `Connection: close`, and the connection would stay open after the stream. */
function ownConnectionHeader(outgoing: ServerResponse): void {
  const writeHead = outgoing.writeHead.bind(outgoing) as (...args: unknown[]) => ServerResponse;
  outgoing.writeHead = ((...args: unknown[]) => {
    for (const arg of args.slice(1)) {
      if (arg && typeof arg === "object" && !Array.isArray(arg)) {
        for (const name of Object.keys(arg)) if (HOP_BY_HOP.has(name.toLowerCase())) delete (arg as Record<string, unknown>)[name];
      }
    }
    for (const name of HOP_BY_HOP) outgoing.removeHeader(name);
    // Said explicitly when the client asked to close (Node closes then, but names it only sometimes).
    if (!outgoing.shouldKeepAlive) outgoing.setHeader("Connection", "close");
    return writeHead(...args);
  }) as ServerResponse["writeHead"];
}

/**
 * The API's HTTP server (not listening yet). The Hono app answers every request; this server answers
 * what never reaches the app.
 *
 * @example
 * const server = createApiServer(buildApp(services).fetch, { timeouts: httpTimeouts(config) });
 * server.listen(8787, "127.0.0.1");
 */
export function createApiServer(fetch: ApiFetch, options: ApiServerOptions = {}): Server {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  // The adapter's own clean-up cuts a connection 500 ms after an early answer while the client is still
  // uploading, which resets the connection before the client reads the answer (a 7 MB upload refused
  // with 413 arrived as a closed connection). The body is drained here instead, within requestTimeout.
  const listener = getRequestListener(fetch as Parameters<typeof getRequestListener>[0], { hostname: "127.0.0.1", autoCleanupIncoming: false });
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // Checked below, so that the refusal is in the envelope too.
      requireHostHeader: false,
      // Node checks both timeouts on this period (30 s by default, which would let a 30 s bound run to 60 s).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4))),
    },
    (incoming, outgoing) => {
      const socket = incoming.socket;
      outgoing.once("finish", () => {
        if (incoming.complete || socket.destroyed) return;
        // Answered before the body arrived: read the rest and discard it, so the client, still sending,
        // is not reset before it reads the answer (closing a socket with unread data sends a reset,
        // and the client's kernel then drops the answer it has not read yet). When the connection is
        // to close (the client asked, or the answer said so), Node has already sent its FIN and
        // scheduled the destroy for when that is flushed: the destroy waits for the body instead. The
        // request timeout bounds how long this may take.
        const closing = socket.listeners("finish").includes(socket.destroy);
        if (closing) socket.removeListener("finish", socket.destroy);
        draining.add(socket);
        incoming.removeAllListeners("data");
        incoming.resume();
        incoming.once("end", () => {
          draining.delete(socket);
          if (closing) socket.destroy();
        });
        incoming.once("close", () => {
          if (closing && !socket.destroyed) socket.destroy();
        });
      });
      if (incoming.httpVersion === "1.1" && incoming.headers.host === undefined) {
        // HTTP/1.1 requires Host (RFC 9112, 3.2); Node's own refusal of it has an empty body.
        const answer = envelope("invalid_request", "HTTP/1.1 requests must carry a Host header.");
        outgoing.writeHead(answer.status, answer.headers).end(answer.body);
        logEdgeAnswer(options.logger, answer, "invalid_request", incoming.method ?? null, "missing_host");
        return;
      }
      ownConnectionHeader(outgoing);
      void listener(incoming, outgoing);
    },
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => onClientError(error, socket, options.logger));
  // CONNECT is not for this server (it is no proxy); without a listener Node drops the connection silently.
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    const written = writeEnvelope(socket, "method_not_allowed", "CONNECT is not supported: this is an API, not a proxy.", { Allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" });
    logEdgeAnswer(options.logger, written, "method_not_allowed", "CONNECT", "connect");
    setTimeout(() => socket.destroy(), 1_000).unref();
  });
  return server;
}

/** Serves `fetch` on `port` of 127.0.0.1 (0: a free one); resolves once it listens. */
export function listenApi(fetch: ApiFetch, port: number, options: ApiServerOptions = {}): Promise<Server> {
  const server = createApiServer(fetch, options);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/** The URL a server from listenApi answers on. */
export function apiUrl(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops a server, dropping kept-alive and open connections (streams included). */
export function closeApiServer(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!server) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
