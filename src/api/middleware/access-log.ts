// One structured access line per request, whatever answered it: a route, the authentication or rate-limit
// refusal, the validation hook, the 404 handler or the error handler. It is the outermost middleware, so
// it sees the final status and times the whole request. It names the route pattern (/v1/runs/:run_id),
// never the raw path with its ids; the caller's wallet and API key id (never the key); the run the
// request started or follows; and what rate limiting decided. Each line also feeds the Requests and
// RequestDuration metrics. A request the HTTP server refused mid-body, or whose client went away before
// it arrived whole, is logged as that (the server's answer, or 499 client_closed_request), never as the
// app's failure (src/api/connection.ts).
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { matchedRoutes } from "hono/route";
import { ApiError } from "../../errors.ts";
import { CLIENT_CLOSED_CODE, CLIENT_CLOSED_STATUS, connectionOutcome } from "../connection.ts";
import type { AppEnv } from "../env.ts";

/** The pattern of the route that matched (the last handler registered for a method: middleware is
 * registered for ALL), or null when none did (a 404). */
export function routePattern(c: Context<AppEnv>): string | null {
  const routes = matchedRoutes(c).filter((route) => route.method !== "ALL");
  return routes.at(-1)?.path ?? null;
}

function errorCode(c: Context<AppEnv>, status: number, route: string | null): string | null {
  if (status < 400) return null;
  const error = c.error;
  if (error instanceof ApiError) return error.code;
  if (error instanceof HTTPException) return `http_${error.status}`;
  if (error) return "internal_error";
  return status === 404 && route === null ? "not_found" : null;
}

function runIdOf(c: Context<AppEnv>, route: string | null): string | null {
  const set = c.get("runId");
  if (set) return set;
  if (route?.includes(":run_id")) return c.req.param("run_id") ?? null;
  return null;
}

export const accessLog = createMiddleware<AppEnv>(async (c, next) => {
  const receivedAt = performance.now();
  c.set("receivedAt", receivedAt);
  let escaped = false;
  try {
    await next();
  } catch (error) {
    escaped = true;
    throw error;
  } finally {
    const services = c.get("services");
    const durationMs = Math.round((performance.now() - receivedAt) * 10) / 10;
    const outcome = connectionOutcome(c.env);
    // A throw that escaped the error handler (none should) is answered 500 by the server.
    const status = outcome?.kind === "refused" ? outcome.status : outcome?.kind === "client_closed" ? CLIENT_CLOSED_STATUS : escaped ? 500 : c.res.status;
    const route = routePattern(c);
    const principal = c.get("principal");
    const lambda = (c.env as { lambdaContext?: { awsRequestId?: unknown } } | undefined)?.lambdaContext;
    try {
      services?.logger.info("request", {
        // The id the client received: the server's own answer carries one of its own.
        request_id: outcome?.requestId ?? c.get("requestId") ?? null,
        method: c.req.method,
        route,
        status,
        duration_ms: durationMs,
        wallet: principal?.wallet.toLowerCase() ?? null,
        auth: principal?.method ?? null,
        key_id: principal?.keyId ?? null,
        run_id: runIdOf(c, route),
        rate_limit: c.get("rateLimit") ?? null,
        error_code: outcome?.kind === "refused" ? outcome.code : outcome?.kind === "client_closed" ? CLIENT_CLOSED_CODE : errorCode(c, status, route),
        ...(outcome?.kind === "refused" ? { refused_by: "http_server", cause: outcome.cause } : outcome?.cause !== undefined ? { cause: outcome.cause } : {}),
        ...(typeof lambda?.awsRequestId === "string" ? { function_request_id: lambda.awsRequestId } : {}),
      });
      services?.metrics.count("Requests", 1, { status_class: `${Math.floor(status / 100)}xx` });
      services?.metrics.observe("RequestDuration", durationMs);
    } catch {
      // an access line or a figure lost never fails the request it describes
    }
  }
});
