// What a route says about itself, in one place beside its schemas: who may call it (`access`), how it
// is rate limited (`rateLimit`: its rule, and whether it fails open or closed when the limiter's store is
// unreachable) and the error codes its handler and the domain code it calls return (`errors`). The route
// groups (route-groups.ts) run the route by these declarations, and the OpenAPI document (openapi.ts)
// describes it by them, so the two cannot disagree.
import { createRoute, type RouteConfig, type RouteConfigToTypedResponse } from "@hono/zod-openapi";
import type { FailMode, RATE_RULES } from "../adapters/ratelimit/policy.ts";
import { errorResponsesOf, mergeErrors, oauthErrorResponsesOf, withJsonRpcErrors, platformErrors, securityOf, withHeaders, type Access, type OAuthRouteErrors, type RouteErrors, type Tag } from "./openapi.ts";
import type { OAuthScope } from "../oauth/scopes.ts";

export type { Access, OAuthRouteErrors, RouteErrors } from "./openapi.ts";

/** How a route is rate limited. */
export interface RouteRateLimit {
  /**
   * `default`: the specification's default rule only (100 requests per minute per API key; per wallet
   * for a JWT, per client address on public routes). `execution`: the default rule, and for each run
   * the task execution rule too (60 runs per minute per credential, that is per listing and wallet,
   * unless the listing sets its own figure), applied once the run's listing is known.
   */
  rule: keyof typeof RATE_RULES;
  /** When the limiter's store cannot be reached: `closed` refuses with 503 service_unavailable (where an
   * unlimited burst costs money or mints power), `open` admits the request uncounted and logs it. */
  failMode: FailMode;
}

export type RouteDefinition = Omit<RouteConfig, "security" | "operationId" | "tags" | "middleware"> & {
  /** camelCase verb, unique in the document; SDK method names derive from it. */
  operationId: string;
  tag: Tag;
  /** `public` routes are served without a token; `bearer` routes authenticate every request first. */
  access: Access;
  rateLimit: RouteRateLimit;
  /** Only the route's own codes; the platform's are added (see `platformErrors`). */
  errors: RouteErrors;
  /** A protocol endpoint of the authorization server (/oauth/*): the OAuth error codes it answers with,
   * as OAuth's error object (src/oauth/errors.ts), by status. */
  oauthErrors?: OAuthRouteErrors;
  /** `jsonrpc`: the route speaks JSON-RPC 2.0, and every error of its requests (authentication, rate
   * limits and the body rules included) is a JSON-RPC error object instead of the error envelope. */
  errorFormat?: "envelope" | "jsonrpc";
  /** On a bearer route: the scope an OAuth access token must hold to call it. Without it, the route
   * refuses OAuth access tokens (403 insufficient_scope): what creates API keys, rates, changes listings
   * or manages apps is never open to an app. */
  oauthScope?: OAuthScope;
  /** The request body's media type: JSON (the default), or an HTML form's (the OAuth endpoints). */
  bodyFormat?: "json" | "form";
  /** Refuses requests from browser pages of other origins before anything else (the MCP endpoint:
   * Streamable HTTP's DNS rebinding rule; middleware/origin.ts). */
  checksOrigin?: boolean;
  /** On a bearer route: a payment that may stand in for the bearer token. "x402": a request without
   * `Authorization` for a listing sold by x402 is answered 402 with PAYMENT-REQUIRED, and one carrying
   * PAYMENT-SIGNATURE reaches the handler without a principal (the execute routes; src/x402/).
   * "x402-a2a": the A2A x402 extension (src/a2a/x402.ts): a message without `Authorization` that activates
   * the extension, to an agent whose listing is sold by x402, reaches the handler without a principal. */
  payableBy?: "x402" | "x402-a2a";
  /** On a bearer route about one run: a request without `Authorization` may prove the run's wallet by
   * `X-Wallet-Signature` instead, and reaches the handler without a principal, which checks the signature
   * against the run (reading the run and preparing its feedback for an x402 payer, who holds no API key;
   * src/erc8004/run-proof.ts). "wallet_signature-a2a": the A2A endpoint, where only a GetTask (v0.3
   * tasks/get, read from a copy of the body) goes through so (src/a2a/x402-read.ts). */
  provableBy?: ProvableBy;
};

/** How a request without a bearer token may prove the wallet of the run it is about (`provableBy`). */
export type ProvableBy = "wallet_signature" | "wallet_signature-a2a";

/** A route's declaration, as the route groups and the tests read it. */
export interface RouteDeclaration {
  method: string;
  /** The OpenAPI path (`/v1/runs/{run_id}`). */
  path: string;
  operationId: string;
  tag: Tag;
  access: Access;
  rateLimit: RouteRateLimit;
  errors: RouteErrors;
  oauthErrors: OAuthRouteErrors;
  errorFormat: "envelope" | "jsonrpc";
  oauthScope: OAuthScope | undefined;
  bodyFormat: "json" | "form";
  checksOrigin: boolean;
  payableBy: "x402" | "x402-a2a" | undefined;
  provableBy: ProvableBy | undefined;
}

const declarations = new WeakMap<object, RouteDeclaration>();

/** The declaration of a route made by `defineRoute`; undefined for any other route. */
export function declarationOf(route: object): RouteDeclaration | undefined {
  return declarations.get(route);
}

/** Whether the route's body is checked against a zod schema (and so can be refused 400 invalid_request);
 * a body described by a plain JSON Schema is read by the handler itself. */
function validatesBody(config: RouteConfig): boolean {
  return Object.values(config.request?.body?.content ?? {}).some((media) => typeof (media as { schema?: { safeParse?: unknown } }).schema?.safeParse === "function");
}

/**
 * A route with everything it says about itself. The returned value is a `createRoute` route, registered
 * with `group.openapi(route, handler)` on the route group of its access (route-groups.ts), whose
 * responses also list its errors, narrowed per status, and the platform's.
 *
 * @example
 * const route = defineRoute({
 *   method: "get", path: "/v1/jobs/{job_id}", operationId: "getJob", tag: "Jobs",
 *   access: "bearer", rateLimit: { rule: "default", failMode: "open" },
 *   summary: "Get a registration job",
 *   request: { params: z.object({ job_id: z.string() }) },
 *   responses: { 200: { description: "The job", content: { "application/json": { schema: JobSchema } } } },
 *   errors: { 404: ["not_found"] },
 * });
 */
export function defineRoute<P extends string, R extends RouteDefinition & { path: P }>(definition: R) {
  const { operationId, tag, access, rateLimit, errors, oauthErrors = {}, errorFormat = "envelope", oauthScope, bodyFormat = "json", checksOrigin = false, payableBy, provableBy, ...config } = definition;
  const declared = mergeErrors(errors, platformErrors(config.method, access, rateLimit.failMode, validatesBody(config)), checksOrigin ? { 403: ["origin_not_allowed"] } : {});
  const route = createRoute({
    ...config,
    operationId,
    tags: [tag],
    security: securityOf(access, oauthScope),
    // For readers of the document: the rule and the fail mode (the 503 answer follows from the latter).
    "x-rate-limit": { rule: rateLimit.rule, fail_mode: rateLimit.failMode },
    responses: { ...withHeaders(errorFormat === "jsonrpc" ? withJsonRpcErrors(config.responses, declared) : config.responses), ...errorResponsesOf(declared, errorFormat), ...oauthErrorResponsesOf(oauthErrors, declared) },
    ...(oauthScope ? { "x-oauth-scope": oauthScope } : {}),
    ...(payableBy ? { "x-payable-by": payableBy } : {}),
    ...(provableBy ? { "x-provable-by": provableBy } : {}),
  } as Omit<R, "operationId" | "tag" | "access" | "rateLimit" | "errors" | "oauthErrors" | "errorFormat" | "oauthScope" | "bodyFormat" | "checksOrigin" | "payableBy" | "provableBy"> & { operationId: string; tags: Tag[]; security: Record<string, string[]>[] });
  declarations.set(route, { method: config.method.toUpperCase(), path: config.path, operationId, tag, access, rateLimit, errors, oauthErrors, errorFormat, oauthScope, bodyFormat, checksOrigin, payableBy, provableBy });
  return route;
}

/**
 * A route's answer that Hono's types cannot follow, as the route's typed response: a stream, bytes, a
 * redirect or a 304, another server's answer (the authorization server's), or JSON whose shape the
 * route documents with a plain JSON Schema. The route's `responses` document it; this is the one place
 * the cast lives.
 *
 * @example
 * app.openapi(route, (c) => answerAs(route, streamSSE(c, write)));
 */
export function answerAs<R extends RouteConfig>(_route: R, response: Response): RouteConfigToTypedResponse<R> {
  return response as unknown as RouteConfigToTypedResponse<R>;
}
