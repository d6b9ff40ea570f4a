// The remote MCP endpoint's Origin check (Streamable HTTP: servers MUST validate Origin, against DNS
// rebinding): a request a browser sends from a page of another origin is refused 403 before anything
// else, authentication included. Allowed: the API's own origin, the dashboard's, and MCP_ALLOWED_ORIGINS.
// On a local stack the Host header is checked too: a name that resolved to this machine but is not
// its own (`evil.example` rebound to 127.0.0.1) is the attack itself. In the cloud the API is reached
// over HTTPS at its own names, which a rebinding cannot present a certificate for.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../errors.ts";
import type { AppEnv } from "../env.ts";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The host part of a Host header (`name[:port]`, `[v6][:port]`), lower-cased. */
function hostnameOf(host: string): string {
  const match = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase());
  return match?.[1] ?? "";
}

function allowedOrigins(c: Context<AppEnv>): Set<string> {
  const config = c.get("services").config;
  const own = [new URL(c.req.url).origin, config.API_URL && new URL(config.API_URL).origin, config.DASHBOARD_URL && new URL(config.DASHBOARD_URL).origin];
  return new Set([...own.filter((o): o is string => Boolean(o)), ...config.MCP_ALLOWED_ORIGINS]);
}

function hostAllowed(c: Context<AppEnv>, host: string): boolean {
  const config = c.get("services").config;
  const name = hostnameOf(host);
  if (LOOPBACK.has(name)) return true;
  const named = [config.API_URL, config.DASHBOARD_URL, ...config.MCP_ALLOWED_ORIGINS].filter((u): u is string => Boolean(u)).map((u) => new URL(u).hostname.toLowerCase());
  return named.includes(name);
}

export const checkOrigin = createMiddleware<AppEnv>(async (c, next) => {
  const config = c.get("services").config;
  const host = c.req.header("host");
  if (config.STAGE === "local" && host !== undefined && !hostAllowed(c, host)) {
    throw new ApiError("origin_not_allowed", `Host ${hostnameOf(host) || "(malformed)"} is not this server's: refused (DNS rebinding).`);
  }
  const origin = c.req.header("origin");
  if (origin !== undefined && !allowedOrigins(c).has(origin)) {
    throw new ApiError("origin_not_allowed", `Origin ${origin.slice(0, 100)} may not call the MCP endpoint: add it to MCP_ALLOWED_ORIGINS if it should.`);
  }
  return next();
});
