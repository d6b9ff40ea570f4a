// Gives every request an id, returned in the X-Request-Id header of every response and in every
// error body, so it can be quoted to support. A well-formed id sent by the client is kept.
import { createMiddleware } from "hono/factory";
import { randomBytes } from "node:crypto";
import type { AppEnv } from "../env.ts";

export const REQUEST_ID_HEADER = "X-Request-Id";
const CLIENT_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function newRequestId(): string {
  return `req_${randomBytes(12).toString("hex")}`;
}

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const offered = c.req.header(REQUEST_ID_HEADER);
  const id = offered && CLIENT_ID.test(offered) ? offered : newRequestId();
  c.set("requestId", id);
  c.header(REQUEST_ID_HEADER, id);
  await next();
  c.res.headers.set(REQUEST_ID_HEADER, id);
});
