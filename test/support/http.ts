// The API over real HTTP for suites whose clients (the SDK, the CLI, MCP) speak to a URL, served by the
// API's own Node server (src/api/server.ts), and the one body reader the test agents use.
import type { IncomingMessage, Server } from "node:http";
import { apiUrl, closeApiServer, listenApi, type ApiServerOptions } from "../../src/api/server.ts";

/** The whole request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Serves `app` on a free port of 127.0.0.1; resolves once it listens. */
export async function serveApi(
  app: { fetch: (request: Request, ...rest: never[]) => Response | Promise<Response> },
  options: ApiServerOptions = {},
): Promise<{ server: Server; url: string }> {
  const server = await listenApi(app.fetch as Parameters<typeof listenApi>[0], 0, options);
  return { server, url: apiUrl(server) };
}

/** Stops a server from serveApi (or none), dropping kept-alive connections. */
export function closeApi(server: Server | undefined): Promise<void> {
  return closeApiServer(server);
}

/**
 * fetch as a well-behaved client calls the API: a 429 is waited out for its Retry-After (which the API
 * always sends, 1 to 60 s) and the request sent again, up to three times. A suite that is one caller
 * with one key (100 requests a minute, SPEC "Limits") may spend its minute on polls on a loaded machine.
 */
export async function fetchWaitingOut429(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(input, init);
    if (res.status !== 429 || attempt >= 3) return res;
    const wait = Number(res.headers.get("retry-after"));
    if (!Number.isInteger(wait) || wait < 1 || wait > 60) throw new Error(`a 429 with Retry-After ${res.headers.get("retry-after")}: 1 to 60 seconds expected`);
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, wait * 1_000));
  }
}
