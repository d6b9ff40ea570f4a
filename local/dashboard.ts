// The dashboard on the API's own origin: `/v1/*` (and `/a2a/*`, `/.well-known/*`) goes to the API, everything else to the built
// dashboard (web/dist) with the single-page fallback, and `/config.json` tells the page where the
// chain is (the local chain is new on every start, so this is decided at serve time, not build time).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { serveStatic } from "@hono/node-server/serve-static";

export interface DashboardSiteConfig {
  api_url: string;
  chain_id: number;
  chain_name: string;
  rpc_url: string;
  marketplace_address: string;
  explorer_url: string | null;
  allow_private_agent_hosts: boolean;
}

type Fetch = (request: Request) => Response | Promise<Response>;

/** True for the API's paths, which the dashboard never shadows: /v1, the A2A agents (/a2a) and the
 * well-known documents (/.well-known: the card signing keys). */
export function isApiPath(pathname: string): boolean {
  return ["/v1", "/a2a", "/.well-known"].some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** Serves the API and the dashboard from one origin. */
export function withDashboard(api: Fetch, options: { distDir: string; config: DashboardSiteConfig }): Fetch {
  const { distDir, config } = options;
  const site = new Hono();
  site.use("*", compress());
  site.get("/config.json", (c) => c.json(config, 200, { "Cache-Control": "no-store" }));
  if (!existsSync(join(distDir, "index.html"))) {
    site.get("*", (c) => c.text("The dashboard is not built. Run `npm run build:web` (npm start builds it when its sources change).", 503));
    return (request) => (isApiPath(new URL(request.url).pathname) ? api(request) : site.fetch(request));
  }
  // Hashed asset names change with their content, so they are cached for good; the page itself is not.
  site.use("/assets/*", serveStatic({ root: distDir, onFound: (_path, c) => c.header("Cache-Control", "public, max-age=31536000, immutable") }));
  site.use("*", serveStatic({ root: distDir, onFound: (_path, c) => c.header("Cache-Control", "no-cache") }));
  // A missing asset is a 404; any other path is a page of the app (client-side routing).
  site.get("/assets/*", (c) => c.text("Not found", 404));
  site.get("*", serveStatic({ path: join(distDir, "index.html"), onFound: (_path, c) => c.header("Cache-Control", "no-cache") }));
  return (request) => (isApiPath(new URL(request.url).pathname) ? api(request) : site.fetch(request));
}
