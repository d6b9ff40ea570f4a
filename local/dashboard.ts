// The dashboard on the API's own origin (the local stack; in the cloud it is a static site of its own).
// The dashboard answers only what is its own:
// - its pages (DASHBOARD_PAGES, the client-side routes of web/src/router.tsx), as index.html, to a GET
//   or HEAD that takes HTML at least as gladly as JSON (a browser, curl; not a client asking for JSON);
// - its files (web/dist: /assets/*, favicon.svg, ...) to GET and HEAD, and `/config.json`, which tells
//   the page where the chain is (the local chain is new on every start, so it is decided at serve time).
// Every other request goes to the API app with the connection's bindings (the socket, whose peer is the
// client's address for rate limits): /v1, any path the API serves outside it (/.well-known/..., /a2a/...,
// /oauth/...),
// unknown paths, every other method and every OPTIONS. So those are answered in the API's error
// envelope with its rate-limit headers, and nothing the API serves is ever shadowed by a page.
import { stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import { join, resolve, sep } from "node:path";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { parseAccept } from "hono/utils/accept";
import { serveStatic } from "@hono/node-server/serve-static";
import { createPlatform, registerRoutes } from "../src/api/app.ts";
import { ApiError } from "../src/errors.ts";
import { httpTimeouts, listenApi, type ApiFetch } from "../src/api/server.ts";
import type { Services } from "../src/services.ts";

export interface DashboardSiteConfig {
  api_url: string;
  chain_id: number;
  chain_name: string;
  rpc_url: string;
  marketplace_address: string;
  /** The TokenMarketplace, where listings priced in a token are rented (absent: none deployed). */
  token_marketplace_address?: string | null;
  explorer_url: string | null;
  allow_private_agent_hosts: boolean;
}

/** The dashboard's pages: the routes of its router (web/src/router.tsx), `:name` a path segment. A
 * test checks the router has no page missing here. */
export const DASHBOARD_PAGES = ["/", "/listings/:id", "/rentals", "/keys", "/apps", "/connect", "/run", "/creator", "/creator/analytics", "/review"] as const;

const PAGE_PATTERNS = DASHBOARD_PAGES.map((page) => new RegExp(`^${page.replace(/:[a-z]+/gi, "[^/]+")}/?$`));

/** True for the API's paths, which never reach the dashboard: /v1, the A2A agents (/a2a), the
 * well-known documents (/.well-known) and the OAuth endpoints (/oauth). */
export function isApiPath(pathname: string): boolean {
  return ["/v1", "/a2a", "/.well-known", "/oauth"].some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** True for a path of one of the dashboard's pages. */
export function isDashboardPage(pathname: string): boolean {
  return PAGE_PATTERNS.some((pattern) => pattern.test(pathname));
}

/** The quality an Accept header gives `type`: that of its most specific matching range (RFC 9110,
 * 12.5.1), 0 when none matches. */
function qualityOf(ranges: ReturnType<typeof parseAccept>, type: string): number {
  const [main] = type.split("/");
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const name = range.type.toLowerCase();
    const specificity = name === type ? 3 : name === `${main}/*` ? 2 : name === "*/*" ? 1 : 0;
    if (specificity > 0 && (!best || specificity > best.specificity)) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/** Whether a request with this Accept header takes HTML at least as gladly as JSON: no header, any
 * range that admits text/html unless JSON is preferred. (Hono parses the header.) */
export function prefersHtml(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  const ranges = parseAccept(accept);
  const html = qualityOf(ranges, "text/html");
  return html > 0 && html >= qualityOf(ranges, "application/json");
}

/** Whether `pathname` names a file of `distDir` (never a directory, never outside it). Paths that
 * serveStatic would refuse (percent-encoded, dot segments, backslashes, empty segments) are not files. */
async function isFileOf(distDir: string, pathname: string): Promise<boolean> {
  if (pathname.includes("%") || /(?:^|[/\\])\.{1,2}(?:$|[/\\])|[/\\]{2,}|\\/.test(pathname)) return false;
  const file = resolve(distDir, `.${pathname}`);
  if (!file.startsWith(distDir + sep)) return false;
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the API and the dashboard from one origin: the dashboard answers its pages and files, the
 * API everything else (see the top of this file).
 *
 * @example
 * const server = await listenApi(withDashboard(buildApp(services).fetch, { distDir, config }), 8787);
 */
export function withDashboard(api: ApiFetch, options: { distDir: string; config: DashboardSiteConfig }): ApiFetch {
  const distDir = resolve(options.distDir);
  const built = existsSync(join(distDir, "index.html"));
  const site = new Hono();
  // No page of the dashboard may be framed by another site (the consent page approves an app: a framed
  // one could be clicked through), as the cloud's site answers too (stacks/web.ts).
  site.use("*", async (c, next) => {
    await next();
    c.res.headers.set("X-Frame-Options", "DENY");
    c.res.headers.set("Content-Security-Policy", "frame-ancestors 'none'");
  });
  site.use("*", compress());
  site.get("/config.json", (c) => c.json(options.config, 200, { "Cache-Control": "no-store" }));
  if (!built) {
    site.get("*", (c) => c.text("The dashboard is not built. Run `npm run build:web` (npm start builds it when its sources change).", 503));
  } else {
    // Hashed asset names change with their content, so they are cached for good; the page itself is not.
    site.use("/assets/*", serveStatic({ root: distDir, onFound: (_path, c) => c.header("Cache-Control", "public, max-age=31536000, immutable") }));
    site.use("*", serveStatic({ root: distDir, onFound: (_path, c) => c.header("Cache-Control", "no-cache") }));
    // A page of the app: the same document, which routes on the client.
    site.get("*", serveStatic({ path: join(distDir, "index.html"), onFound: (_path, c) => c.header("Cache-Control", "no-cache") }));
  }

  const servedByDashboard = async (request: Request): Promise<boolean> => {
    if (request.method !== "GET" && request.method !== "HEAD") return false;
    const { pathname } = new URL(request.url);
    if (isApiPath(pathname)) return false;
    if (pathname === "/config.json") return true;
    if (isDashboardPage(pathname)) return prefersHtml(request.headers.get("accept"));
    return built && (await isFileOf(distDir, pathname));
  };
  return async (request, env) => ((await servedByDashboard(request)) ? site.fetch(request, env) : api(request, env));
}

export interface SiteOptions {
  /** The port on 127.0.0.1 (0: a free one). */
  port: number;
  /** The built dashboard (web/dist). */
  distDir: string;
  config: DashboardSiteConfig;
  /** Why the API cannot serve right now (the local chain is being restarted), or null when it can: while
   * it is not null, every API request but GET /v1/health is answered 503 service_unavailable in the
   * error envelope, with Retry-After. */
  unavailable?: () => string | null;
}

/**
 * The local stack's server, as `npm start` runs it: the API app of `services` with the dashboard in
 * front, on the API's Node server (timeouts and edge answers from `services.config`, edge lines to
 * `services.logger`). Resolves once it listens.
 */
export function listenSite(services: Services, options: SiteOptions): Promise<Server> {
  const site = withDashboard(siteApp(services, options.unavailable).fetch as ApiFetch, { distDir: options.distDir, config: options.config });
  return listenApi(site, options.port, { timeouts: httpTimeouts(services.config), logger: services.logger });
}

/** The API app (buildApp's platform and routes) with, in front of the routes, the answer while the
 * stack's chain is unavailable: 503 service_unavailable, through the platform's access log, request id
 * and error envelope. /v1/health still answers (it reports the chain's state itself). */
function siteApp(services: Services, unavailable: (() => string | null) | undefined) {
  const app = createPlatform(services);
  if (unavailable) {
    app.use("*", async (c, next) => {
      const why = unavailable();
      if (why !== null && c.req.path !== "/v1/health") throw new ApiError("service_unavailable", why, { headers: { "Retry-After": "5" } });
      await next();
    });
  }
  registerRoutes(app);
  return app;
}
