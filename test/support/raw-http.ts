// HTTP/1.1 spoken by hand over a TCP socket, for what a well-behaved client library will not send:
// malformed request lines, oversized headers, bad chunks, trickled bodies, raw uploads.
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";

export interface RawExchange {
  /** Every byte the server sent before it closed the connection (or before the deadline). */
  text: string;
  /** True when the server closed the connection (FIN or reset) before the deadline. */
  closed: boolean;
  /** Milliseconds from connect to close (or to the deadline). */
  elapsedMs: number;
  /** A socket error seen, for example ECONNRESET when the server reset the connection. */
  error?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Connects to `url`, lets `drive` write to the socket (at its own pace), and collects what the server
 * sends until it closes the connection or `deadlineMs` passes (then the socket is destroyed).
 */
export function rawExchange(url: string, drive: (socket: Socket) => void | Promise<void>, deadlineMs = 10_000): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect({ host: hostname, port: Number(port) });
    const finish = (closed: boolean) => {
      clearTimeout(deadline);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closed, elapsedMs: Date.now() - started, ...(error ? { error } : {}) });
    };
    const deadline = setTimeout(() => finish(false), deadlineMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on("close", () => finish(true));
    socket.once("connect", () => {
      void Promise.resolve(drive(socket)).catch((e: unknown) => {
        error = String(e);
      });
    });
  });
}

/** Writes `data` unless the socket is gone (a server may close while a client still sends). */
export function writeIfOpen(socket: Socket, data: string | Buffer): void {
  if (!socket.destroyed && socket.writable) socket.write(data, () => undefined);
}

/** The first HTTP response in `text` (status, lower-cased headers, body by Content-Length). */
export function parseResponse(text: string): RawResponse {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no HTTP response in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const rest = text.slice(end + 4);
  return { status, headers, body: length === undefined ? rest : rest.slice(0, length) };
}

/** How many HTTP responses `text` holds (status lines at the start of the text or of a line). */
export function countResponses(text: string): number {
  return (text.match(/(^|\r\n)HTTP\/1\.1 \d{3} /g) ?? []).length;
}

/** GET `url` with a Host header naming another site (`host`), as a cache or a proxy in front may pass a
 * client's on: what the server answers. */
export function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
