// Every request body is JSON: a body with another content type gets 415, one over the size limit 413,
// both in the error envelope, before the route reads it (in front of every route: route-groups.ts).
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../../errors.ts";
import type { AppEnv } from "../env.ts";

const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;

function hasBody(method: string, headers: Headers): boolean {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return false;
  const length = headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return headers.has("transfer-encoding");
}

const limits = new Map<number, MiddlewareHandler>();

/** Hono's body limit for a size, made once per size. */
function limitOf(maxBytes: number): MiddlewareHandler {
  let limit = limits.get(maxBytes);
  if (!limit) {
    limit = bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new ApiError("payload_too_large", `The request body exceeds the limit of ${maxBytes} bytes.`);
      },
    });
    limits.set(maxBytes, limit);
  }
  return limit;
}

/** The body rules in front of a route's handler, with the configured size limit (MAX_BODY_BYTES). */
export const jsonBody = createMiddleware<AppEnv>(async (c, next) => {
  if (!hasBody(c.req.method, c.req.raw.headers)) return next();
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
  if (!JSON_MEDIA.test(mediaType)) {
    throw new ApiError("unsupported_media_type", "Request bodies must be JSON: send Content-Type: application/json.");
  }
  return limitOf(c.get("services").config.MAX_BODY_BYTES)(c, next);
});

/** Bodies of an OAuth endpoint that takes HTML form encoding (RFC 6749 §3.2), under the same limit. */
const FORM_BODY_MAX_BYTES = 64 * 1024;

/** The body rules of the OAuth endpoints that take form-encoded bodies (token, revoke, authorize by
 * POST): application/x-www-form-urlencoded only, at most 64 KiB. */
export const formBody = createMiddleware<AppEnv>(async (c, next) => {
  if (!hasBody(c.req.method, c.req.raw.headers)) return next();
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/x-www-form-urlencoded") {
    throw new ApiError("unsupported_media_type", "This OAuth endpoint takes form-encoded bodies: send Content-Type: application/x-www-form-urlencoded.");
  }
  return limitOf(Math.min(FORM_BODY_MAX_BYTES, c.get("services").config.MAX_BODY_BYTES))(c, next);
});
