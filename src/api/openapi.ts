// What the OpenAPI document says about every route beyond its schemas. A route declares (route.ts) its
// operationId, its tag, whether it is public, its rate limit and the error codes its handler and the
// domain code it calls can return, by status (the way Unkey narrows error responses per status); this
// module adds what the platform gives every route (401 from authentication, 429 and 503 from rate
// limiting, 413/415 from the body rules, 500) and the headers every response carries, so a route file
// states only what is its own. The shared parts live in `components` (headers, parameters, responses)
// and are referred to.
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode, type ErrorStatus } from "../errors.ts";
import { RATE_RULES, type FailMode } from "../adapters/ratelimit/policy.ts";
import { ErrorBodySchema } from "./schemas/common.ts";
import type { AppEnv } from "./env.ts";
import { OAUTH_ROUTES } from "../oauth/provider.ts";
import { OAUTH_SCOPE_WORDS } from "../oauth/scopes.ts";
import { TRANSPORT_STATUSES } from "../a2a/errors.ts";
import { OAUTH_ERROR_STATUS, type OAuthErrorCode, type OAuthErrorStatus } from "../oauth/errors.ts";

/** Where the document is served. */
export const OPENAPI_PATH = "/v1/openapi.json";
/** Where the document is rendered as a reference page, and that page's script. */
export const DOCS_PATH = "/v1/docs";
export const DOCS_SCRIPT_PATH = "/v1/docs/scalar.js";

/** The document's tags, in the order a reader meets them, each with its description. */
export const TAGS = [
  { name: "Auth", description: "Sign in with a wallet signature (EIP-191 challenge, then a JWT valid one hour)." },
  { name: "Keys", description: "API keys: created with a wallet signature, shown once, revocable at once." },
  { name: "Alerts", description: "Alerts on spending: 80% and 100% of a key's or app's limit, and a low per-task balance, delivered to a signed webhook and listed for the dashboard." },
  { name: "Listings", description: "The catalogue of published agents: search, details and renters' ratings." },
  { name: "Credentials", description: "The caller's rental credentials, verified against the contract." },
  { name: "Execution", description: "Run a task against a rented agent, answered whole or streamed as Server-Sent Events; the remote MCP endpoint." },
  { name: "Runs", description: "A run after the fact: its result, settlement and receipt, and its event stream replayed." },
  { name: "Inputs", description: "Content-addressed task inputs (ipfs://<CIDv1>) for execution." },
  { name: "Creators", description: "Apply to list agents, and follow the review of the application and of the agents." },
  { name: "Agents", description: "Register an agent from its manifest and set the secrets its runs need." },
  { name: "Jobs", description: "Registration jobs: the outcome of a submitted manifest, with every problem found." },
  { name: "Metadata", description: "Listings' public metadata documents, content-addressed (ipfs://<cid>)." },
  { name: "OAuth", description: "Sign-in for apps that connect by URL (MCP and A2A clients): the protected resource and authorization server metadata, the OAuth 2.1 endpoints, and what the dashboard calls for the person approving (sign-in requests, Connected apps)." },
  { name: "A2A", description: "Every published listing as an A2A v1.0 agent: its signed Agent Card, the key set that verifies it, and its JSON-RPC endpoint (a task is a run)." },
  { name: "Reviews", description: "Creator and listing reviews, for the protocol authority only (beta)." },
  { name: "System", description: "Health, this document and its rendered reference." },
] as const;

export type Tag = (typeof TAGS)[number]["name"];

/** The codes of one status, so a code can only be declared under the status it is sent with. */
type CodesOf<S extends ErrorStatus> = { [C in ErrorCode]: (typeof ERROR_STATUS)[C] extends S ? C : never }[ErrorCode];

/** The error codes a route's handler (and the domain code it calls) can return, by status. */
export type RouteErrors = { [S in ErrorStatus]?: readonly CodesOf<S>[] };

/** The OAuth codes of one status (src/oauth/errors.ts). */
type OAuthCodesOf<S extends OAuthErrorStatus> = { [C in OAuthErrorCode]: (typeof OAUTH_ERROR_STATUS)[C] extends S ? C : never }[OAuthErrorCode];

/** The OAuth error codes a protocol endpoint answers with (OAuth's error object, not the envelope), by status. */
export type OAuthRouteErrors = { [S in OAuthErrorStatus]?: readonly OAuthCodesOf<S>[] };

/** Public routes need no token; bearer routes need `Authorization: Bearer <API key or JWT>`. */
export type Access = "public" | "bearer";

const ref = <K extends string>(kind: K, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Response headers, by the name they are sent under. */
export const RESPONSE_HEADERS = {
  "X-Request-Id": { description: "The request's id, also in every error body; quote it to support.", schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "Requests allowed in the current window of the rule closest to refusing this request.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "When the current window ends, in Unix seconds.", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  Allow: { description: "The methods the path answers.", schema: { type: "string" } },
  "X-Run-Id": { description: "The run's id, known before the first event: resume with GET /v1/runs/{run_id}/events.", schema: { type: "string" } },
  "PAYMENT-REQUIRED": {
    description:
      "x402 v2 (with 402 payment_required only): base64 of the JSON PaymentRequired, `{x402Version: 2, error, resource: {url, description, mimeType}, accepts: [{scheme: \"exact\", network: \"eip155:<chain id>\", amount, asset, payTo, maxTimeoutSeconds, extra: {name, version}}]}`. `accepts` is what to pay (the run's price in the token's smallest unit, to the TokenMarketplace); `error` is `payment_required` when no payment came, else the refused payment's reason (`invalid_exact_evm_*`).",
    schema: { type: "string", contentEncoding: "base64" },
  },
  "PAYMENT-RESPONSE": {
    description: "x402 v2 (a run paid by PAYMENT-SIGNATURE only): base64 of the JSON SettleResponse, `{success, transaction, network, payer}`, sent once the payment is in a block.",
    schema: { type: "string", contentEncoding: "base64" },
  },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** A reference to a response header component, for a route's own responses (X-Run-Id, for example). */
export const header = (name: ResponseHeaderName) => ref("headers", name);

/** Request headers the API reads, declared as parameters. */
export const REQUEST_HEADERS = {
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "Makes a retry safe: a retry with the same key and body returns the first request's run (and is never charged again); the same key with another body gives 409 idempotency_key_reused. 1 to 255 printable ASCII characters without spaces; kept 24 hours.",
    schema: { type: "string", minLength: 1, maxLength: 255 },
  },
  LastEventId: {
    name: "Last-Event-ID",
    in: "header",
    required: false,
    description: "Resume a stream: the id of the last event received (an offset into the output, or `done`). Omit it for the whole stream.",
    schema: { type: "string" },
  },
  PaymentSignature: {
    name: "PAYMENT-SIGNATURE",
    in: "header",
    required: false,
    description:
      "An x402 v2 payment instead of Authorization, for a per-task listing priced in an EIP-3009 token: base64 of the JSON PaymentPayload, `{x402Version: 2, accepted: <one of PAYMENT-REQUIRED's accepts>, payload: {authorization: {from, to, value, validAfter, validBefore, nonce}, signature}}` (an EIP-3009 transferWithAuthorization to the TokenMarketplace). At most 8,192 characters; one that is not base64 JSON of that shape is 400 invalid_request. The run executes, and the payment settles only if it completed.",
    schema: { type: "string", maxLength: 8192 },
  },
} as const;

/** A reference to a request header parameter, for a route's `parameters`. */
export const requestHeader = (name: keyof typeof REQUEST_HEADERS) => ref("parameters", name);

const EVERY_RESPONSE_HEADERS = ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const satisfies ResponseHeaderName[];

type Ref = { $ref: string };

function headersOf(status: number, own: Record<string, Ref> = {}): Record<string, Ref> {
  const names: ResponseHeaderName[] = [...EVERY_RESPONSE_HEADERS, ...(status === 429 || status === 503 ? (["Retry-After"] as const) : []), ...(status === 405 ? (["Allow"] as const) : [])];
  return { ...Object.fromEntries(names.map((name) => [name, header(name)])), ...own };
}

/** Error responses shared by many routes, by the exact code list they carry. */
const SHARED_ERROR_RESPONSES: { name: string; status: ErrorStatus; codes: readonly ErrorCode[]; description: string }[] = [
  { name: "Unauthorized", status: 401, codes: ["unauthorized", "invalid_api_key", "jwt_expired", "invalid_token"], description: "No valid API key, JWT or OAuth access token: missing, malformed, unknown, revoked, expired, or (an access token) issued for another resource. Carries `WWW-Authenticate: Bearer resource_metadata=\"…\"` (RFC 9728)." },
  { name: "PayloadTooLarge", status: 413, codes: ["payload_too_large"], description: "The request body is over the size limit." },
  { name: "UnsupportedMediaType", status: 415, codes: ["unsupported_media_type"], description: "The request body is not JSON." },
  { name: "RateLimited", status: 429, codes: ["rate_limit_exceeded"], description: "A rate limit refused the request; retry after Retry-After seconds." },
  { name: "InternalError", status: 500, codes: ["internal_error"], description: "An unexpected failure; nothing about it is returned but the request id." },
  { name: "ServiceUnavailable", status: 503, codes: ["service_unavailable"], description: "A dependency (the chain, the rate limiter's store) could not be reached, or a run could not be admitted yet; retry after Retry-After seconds." },
];

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  402: "Payment required",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  408: "Request timeout",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type",
  429: "Too many requests",
  431: "Request headers too large",
  500: "Internal error",
  503: "Service unavailable",
};

/** The error body of one status narrowed to `codes`: the Error envelope with the code's enum and the
 * status fixed (JSON Schema's allOf narrows; generators and renderers read it as the intersection). */
export function errorSchemaOf(status: number, codes: readonly ErrorCode[]) {
  return {
    allOf: [
      ref("schemas", "Error"),
      {
        type: "object" as const,
        required: ["error"],
        properties: {
          error: {
            type: "object" as const,
            required: ["code", "status"],
            properties: { code: { type: "string" as const, enum: [...codes] }, status: { type: "integer" as const, enum: [status] } },
          },
        },
      },
    ],
  };
}

function errorResponse(status: number, codes: readonly ErrorCode[], description?: string) {
  return {
    description: description ?? `${STATUS_TEXT[status] ?? "Error"}: ${codes.join(", ")}`,
    // x402's 402 says what to pay in its PAYMENT-REQUIRED header.
    headers: headersOf(status, codes.includes("payment_required") ? { "PAYMENT-REQUIRED": header("PAYMENT-REQUIRED") } : {}),
    content: { "application/json": { schema: errorSchemaOf(status, codes) } },
  };
}

/** The codes the platform adds to a route: authentication on bearer routes, the body rules on methods
 * that take a body (400 where a schema checks it), rate limiting everywhere (503 where the route fails
 * closed), and internal_error. */
export function platformErrors(method: string, access: Access, failMode: FailMode, validatesBody: boolean): RouteErrors {
  const upper = method.toUpperCase();
  const takesBody = !["GET", "HEAD", "OPTIONS"].includes(upper);
  return {
    ...(validatesBody ? { 400: ["invalid_request"] as const } : {}),
    ...(access === "bearer" ? { 401: ["unauthorized", "invalid_api_key", "jwt_expired", "invalid_token"] as const, 403: ["insufficient_scope"] as const } : {}),
    ...(takesBody ? { 413: ["payload_too_large"] as const, 415: ["unsupported_media_type"] as const } : {}),
    429: ["rate_limit_exceeded"],
    500: ["internal_error"],
    ...(failMode === "closed" ? { 503: ["service_unavailable"] as const } : {}),
  };
}

/** The document's security requirement for a route of this access: a bearer token (API key or JWT),
 * or, where the route accepts one, an OAuth access token holding its scope. */
export function securityOf(access: Access, oauthScope?: string): Record<string, string[]>[] {
  if (access === "public") return [];
  return oauthScope ? [{ bearer: [] }, { oauth2: [oauthScope] }] : [{ bearer: [] }];
}

/** The route's declared errors merged with the platform's, each list in the error module's order. */
export function mergeErrors(...lists: RouteErrors[]): Map<number, ErrorCode[]> {
  const merged = new Map<number, Set<ErrorCode>>();
  for (const list of lists) {
    for (const [status, codes] of Object.entries(list) as [string, readonly ErrorCode[]][]) {
      const set = merged.get(Number(status)) ?? new Set<ErrorCode>();
      for (const code of codes) set.add(code);
      merged.set(Number(status), set);
    }
  }
  return new Map([...merged].sort(([a], [b]) => a - b).map(([status, set]) => [status, ERROR_CODES.filter((code) => set.has(code))]));
}

/** A JSON-RPC 2.0 error object whose data (one google.rpc.ErrorInfo) names the service's code
 * (src/a2a/errors.ts), narrowed to `codes`. */
function jsonRpcErrorSchemaOf(codes: readonly ErrorCode[]) {
  return {
    type: "object" as const,
    required: ["jsonrpc", "id", "error"],
    properties: {
      jsonrpc: { type: "string" as const, enum: ["2.0"] },
      id: { type: ["string", "integer", "null"] as const, description: "The request's id (null when it could not be read)" },
      error: {
        type: "object" as const,
        required: ["code", "message", "data"],
        properties: {
          code: { type: "integer" as const, description: "A2A's JSON-RPC code, or -32000 for the service's own refusals" },
          message: { type: "string" as const },
          data: {
            type: "array" as const,
            items: {
              type: "object" as const,
              description: "google.rpc.ErrorInfo; metadata.code is the service's error code, metadata.request_id the request id",
              properties: { "@type": { type: "string" as const }, reason: { type: "string" as const }, domain: { type: "string" as const }, metadata: { type: "object" as const, properties: { code: { type: "string" as const, enum: [...codes] }, request_id: { type: "string" as const } } } },
            },
          },
        },
      },
    },
  };
}


/** An error response of a route that speaks JSON-RPC, sent with its transport status. */
function jsonRpcErrorResponse(status: number, codes: readonly ErrorCode[]) {
  return {
    description: `${STATUS_TEXT[status] ?? "Error"}, as a JSON-RPC error object: ${codes.join(", ")}`,
    headers: headersOf(status),
    content: { "application/json": { schema: jsonRpcErrorSchemaOf(codes) } },
  };
}

/** A JSON-RPC route's 200 answer: its result, or a JSON-RPC error object carrying one of the codes the
 * route answers as the protocol's errors (those whose status is not the transport's). */
export function withJsonRpcErrors(responses: RouteConfig["responses"], errors: Map<number, ErrorCode[]>): RouteConfig["responses"] {
  const codes = [...errors].filter(([status]) => !TRANSPORT_STATUSES.has(status)).flatMap(([, list]) => list);
  const ok = responses[200];
  if (codes.length === 0 || !ok || "$ref" in ok) return responses;
  const json = ok.content?.["application/json"];
  const schema = json && "schema" in json ? json.schema : undefined;
  const answer = { oneOf: [schema ?? { type: "object" }, jsonRpcErrorSchemaOf(codes)] };
  return {
    ...responses,
    200: { ...ok, description: `${ok.description}; a JSON-RPC error object (with 200) carries one of: ${codes.join(", ")}`, content: { ...ok.content, "application/json": { ...json, schema: answer } } },
  } as RouteConfig["responses"];
}

/** The error responses of a route: a shared component where the codes are exactly a shared set, the
 * narrowed envelope otherwise; JSON-RPC error objects on a route that speaks JSON-RPC. */
export function errorResponsesOf(errors: Map<number, ErrorCode[]>, format: "envelope" | "jsonrpc" = "envelope"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, codes] of errors) {
    if (format === "jsonrpc") {
      // The protocol's errors are answered with 200 (withJsonRpcErrors); the transport's keep their status.
      if (TRANSPORT_STATUSES.has(status)) out[status] = jsonRpcErrorResponse(status, codes);
      continue;
    }
    const shared = SHARED_ERROR_RESPONSES.find((s) => s.status === status && s.codes.length === codes.length && s.codes.every((c) => codes.includes(c)));
    out[status] = shared ? ref("responses", shared.name) : errorResponse(status, codes);
  }
  return out;
}

/** OAuth's error object (RFC 6749 §5.2) narrowed to `codes`. */
export function oauthErrorSchemaOf(codes: readonly OAuthErrorCode[]) {
  return {
    type: "object" as const,
    description: "OAuth's error object (RFC 6749 §5.2)",
    required: ["error"],
    properties: { error: { type: "string" as const, enum: [...codes] }, error_description: { type: "string" as const } },
  };
}

/** The error responses of a protocol endpoint's OAuth errors. Where the platform answers the same
 * status in the envelope (429 from the rate limiter, for one), the response is either body. */
export function oauthErrorResponsesOf(oauth: OAuthRouteErrors, envelope: Map<number, ErrorCode[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, codes] of Object.entries(oauth) as [string, readonly OAuthErrorCode[]][]) {
    const status = Number(key);
    const theirs = envelope.get(status);
    const schema = oauthErrorSchemaOf(codes);
    out[status] = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${codes.join(", ")} (OAuth's error object)${theirs ? `; ${theirs.join(", ")} (the envelope)` : ""}`,
      headers: headersOf(status),
      content: { "application/json": { schema: theirs ? { oneOf: [schema, errorSchemaOf(status, theirs)] } : schema } },
    };
  }
  return out;
}

/** Adds the headers every response carries to a route's own (success) responses. */
export function withHeaders(responses: RouteConfig["responses"]): RouteConfig["responses"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if ("$ref" in response) return [status, response];
      return [status, { ...response, headers: headersOf(Number(status), (response.headers ?? {}) as Record<string, Ref>) }];
    }),
  );
}

const DESCRIPTION = [
  "Rent AI agents on-chain and run tasks against them.",
  "",
  "**Authentication.** Every operation except sign-in, the health check, listings' public metadata, this document and its rendered reference (GET /v1/docs) requires `Authorization: Bearer <API key or JWT>`.",
  "",
  "**Errors** use the envelope `{error: {code, message, status, request_id, on_chain_error?, spend_limit?}}`; each operation lists, per status, the codes it can return. Before routing, the HTTP server itself may answer any request with 408 `request_timeout` or 431 `headers_too_large`, and an unknown path gets 404 `not_found`, in the same envelope.",
  "",
  "**Every response** carries `X-Request-Id` and the `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` headers; 429 and 503 answers add `Retry-After`.",
  "",
  `**Rate limits.** Each operation names its rule in \`x-rate-limit\`: \`default\` is ${RATE_RULES.default.limit} requests per ${RATE_RULES.default.windowSeconds} s per API key (per wallet for a JWT, per client address on public operations); \`execution\` adds, per run, ${RATE_RULES.execution.limit} runs per ${RATE_RULES.execution.windowSeconds} s per credential (listing and wallet) unless the listing sets its own figure. Its \`fail_mode\` says what happens while the limiter cannot be reached: \`closed\` answers 503 \`service_unavailable\`, \`open\` serves the request uncounted.`,
].join("\n");

// OpenAPI 3.1 names a license by its SPDX identifier (the generator's configuration type is 3.0's).
const LICENSE = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };

/** The OpenAPI 3.1 document of every route registered on (or mounted onto) `app`, as served from
 * `origin`: plain JSON data. */
export function openApiDocumentOf(app: OpenAPIHono<AppEnv>, origin: string): Record<string, unknown> {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Agent Rental and Task Execution API",
      version: "1.0.0",
      description: DESCRIPTION,
      license: LICENSE,
    },
    servers: [{ url: origin }],
    tags: TAGS.map((tag) => ({ ...tag })),
  });
  // The generator copies the routes' own helpers (functions) into the operations: JSON drops them.
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}

/** Registers the shared components the routes refer to: the Error envelope, the security scheme, the
 * request and response headers, and the shared error responses. */
export function registerOpenApiComponents(registry: OpenAPIHono["openAPIRegistry"]): void {
  registry.register("Error", ErrorBodySchema);
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key (svc_test_… / svc_live_…) or a wallet-signature JWT from POST /v1/auth/token.",
  });
  registry.registerComponent("securitySchemes", "oauth2", {
    type: "oauth2",
    description:
      "An OAuth 2.1 access token, for apps that connect by URL: authorization code with PKCE (S256), the person approving in the dashboard with their wallet. Discovery: /.well-known/oauth-protected-resource (RFC 9728) and /.well-known/oauth-authorization-server (RFC 8414). Only the routes that list it accept it, with the scope they name.",
    flows: { authorizationCode: { authorizationUrl: OAUTH_ROUTES.authorization, tokenUrl: OAUTH_ROUTES.token, refreshUrl: OAUTH_ROUTES.token, scopes: { ...OAUTH_SCOPE_WORDS } } },
  });
  for (const [name, value] of Object.entries(RESPONSE_HEADERS)) registry.registerComponent("headers", name, value);
  for (const [name, value] of Object.entries(REQUEST_HEADERS)) registry.registerComponent("parameters", name, value);
  for (const shared of SHARED_ERROR_RESPONSES) {
    registry.registerComponent("responses", shared.name, errorResponse(shared.status, shared.codes, shared.description));
  }
}
