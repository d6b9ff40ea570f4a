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
