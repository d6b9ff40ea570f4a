// Renders every failure as the specification's error envelope: ApiErrors as they are, Hono's HTTP
// exceptions (malformed JSON, for example) by their status, and anything else as internal_error
// without internals. The cause is logged with the request id, never returned.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, internalError, type ErrorCode } from "../errors.ts";
import { A2aError, jsonRpcErrorOf } from "../a2a/errors.ts";
import type { AppEnv } from "./env.ts";
import { connectionOutcome } from "./connection.ts";
import { newRequestId, REQUEST_ID_HEADER } from "./middleware/request-id.ts";
import { enforceRule, rateLimitKey } from "./middleware/rate-limit.ts";
import { RATE_RULES } from "../adapters/ratelimit/policy.ts";

function fromHttpException(error: HTTPException): ApiError {
  const byStatus: Record<number, ErrorCode> = { 400: "invalid_request", 401: "unauthorized", 404: "not_found", 413: "payload_too_large", 415: "unsupported_media_type" };
  const code = byStatus[error.status];
  if (!code) return internalError(error);
  const message = error.status === 400 && /json/i.test(error.message) ? "Malformed JSON in request body." : error.message || code;
  return new ApiError(code, message, { cause: error });
}

export function renderError(error: unknown, c: Context<AppEnv>): Response {
  // A body the server's parser refused, or one whose client went away, fails to read: that is no failure
  // of the service, and nobody reads this answer (the server answered, or the client is gone). It is
  // logged once, by the access log, as what it was (src/api/connection.ts).
  if (connectionOutcome(c.env) !== undefined && !(error instanceof ApiError)) {
    return new Response(null, { status: 400, headers: { [REQUEST_ID_HEADER]: c.get("requestId") ?? newRequestId() } });
  }
  const jsonRpc = c.get("jsonRpc");
  if (jsonRpc && error instanceof A2aError) return renderJsonRpcError(error, c, jsonRpc.id);
  const apiError = error instanceof ApiError ? error : error instanceof HTTPException ? fromHttpException(error) : internalError(error);
  const requestId = c.get("requestId") ?? newRequestId();
  if (apiError.status >= 500) {
    c.get("services")?.logger.error("request failed", {
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      code: apiError.code,
      cause: apiError.cause instanceof Error ? { name: apiError.cause.name, message: apiError.cause.message } : undefined,
    });
  }
  if (jsonRpc) return renderJsonRpcError(apiError, c, jsonRpc.id);
  const headers = withEarlierHeaders(new Headers({ "content-type": "application/json; charset=utf-8", [REQUEST_ID_HEADER]: requestId, ...apiError.headers }), c);
  return new Response(JSON.stringify(apiError.toBody(requestId)), { status: apiError.status, headers });
}

/** Headers set earlier in the request (rate-limit figures, for example) stay on the error response. */
function withEarlierHeaders(headers: Headers, c: Context<AppEnv>): Headers {
  c.res?.headers.forEach((value, key) => {
    if (!headers.has(key) && key.toLowerCase().startsWith("x-")) headers.set(key, value);
  });
  return headers;
}

/** The JSON-RPC error answering request `id` on a route that speaks JSON-RPC (the A2A endpoint). */
export function renderJsonRpcError(error: ApiError | A2aError, c: Context<AppEnv>, id: string | number | null): Response {
  const requestId = c.get("requestId") ?? newRequestId();
  const rendered = jsonRpcErrorOf(error, requestId, c.get("services").config.SERVICE_NAME);
  const headers = withEarlierHeaders(new Headers({ "content-type": "application/json; charset=utf-8", [REQUEST_ID_HEADER]: requestId, ...rendered.headers }), c);
  // The protocol version the request was read in, once known (A2A's service parameter).
  const version = c.res?.headers.get("a2a-version");
  if (version) headers.set("A2A-Version", version);
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: rendered.error }), { status: rendered.status, headers });
}

/** The answer to a method and path no route serves: 404 not_found, counted under the default rule by
 * the caller's address (no route, so no authentication: the API's surface is public in its document),
 * failing open since nothing is served. */
export async function notFound(c: Context<AppEnv>): Promise<Response> {
  try {
    await enforceRule(c, c.get("services").rateLimiter, rateLimitKey(c), RATE_RULES.default, "open");
  } catch (error) {
    return renderError(error, c);
  }
  return renderError(new ApiError("not_found", `No endpoint ${c.req.method} ${c.req.path}. See GET /v1/openapi.json for the API.`), c);
}
