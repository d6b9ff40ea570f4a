// The API over real HTTP for suites whose clients (the SDK, the CLI, MCP) speak to a URL, and the one
// body reader the test agents use.
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";

/** The whole request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Serves `app` on a free port of 127.0.0.1; resolves once it listens. */
export async function serveApi(app: { fetch: (request: Request, ...rest: never[]) => Response | Promise<Response> }): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: app.fetch as (request: Request) => Response | Promise<Response>, port: 0, hostname: "127.0.0.1" }, () => resolve(listening as Server)) as Server;
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Stops a server from serveApi (or none), dropping kept-alive connections. */
export function closeApi(server: Server | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
