// The two groups the API's routes are mounted in (`app.route("/", group)`): the public routes, served
// without a token, and the authenticated routes, which authenticate every request first. A route is
// public only by being registered in the public group, and it must say so itself (`access` in
// defineRoute): registering it in the other group stops the service at start.
//
// Each route gets, in front of its handler and its schema checks, what it declares, in this order:
// authentication (authenticated group), its rate limit (rule and fail mode), then the body rules. They
// are per route, not `group.use("*")`: Hono merges a mounted group's routes into the app, so a group's
// catch-all middleware would also run for the other group's routes.
import { OpenAPIHono } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./env.ts";
import { authenticateFor } from "./middleware/authenticate.ts";
import { formBody, jsonBody } from "./middleware/json-body.ts";
import { checkOrigin } from "./middleware/origin.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { declarationOf, type Access } from "./route.ts";

/** In front of everything else on a JSON-RPC route: its errors, from authentication on, are JSON-RPC's. */
const speaksJsonRpc = createMiddleware<AppEnv>(async (c, next) => {
  c.set("jsonRpc", { id: null });
  await next();
});

/**
 * A group of routes sharing one access rule. Routes are added with `group.openapi(route, handler)`, as on
 * any OpenAPIHono app, and must be declared with defineRoute.
 *
 * @example
 * const authenticated = routeGroup("bearer");
 * registerGetV1Jobs(authenticated);
 * app.route("/", authenticated);
 */
export function routeGroup(access: Access): OpenAPIHono<AppEnv> {
  const group = new OpenAPIHono<AppEnv>();
  const register = group.openapi;
  group.openapi = ((route, handler, hook) => {
    const declared = declarationOf(route);
    if (!declared) throw new Error(`${route.method.toUpperCase()} ${route.path} is not declared with defineRoute, so it says nothing about its access, rate limit or errors`);
    if (declared.access !== access) {
      throw new Error(`${declared.method} ${declared.path} declares access "${declared.access}" but is registered with the ${access === "public" ? "public" : "authenticated"} routes`);
    }
    const middleware = [
      ...(declared.checksOrigin ? [checkOrigin] : []),
      ...(declared.errorFormat === "jsonrpc" ? [speaksJsonRpc] : []),
      ...(access === "bearer" ? [authenticateFor(declared)] : []),
      rateLimit(declared.rateLimit),
      declared.bodyFormat === "form" ? formBody : jsonBody,
    ];
    return register({ ...route, middleware }, handler, hook);
  }) as typeof register;
  return group;
}
