// The public API: one API Gateway REST API in front of two functions.
//
// - `functions/api.handler` (Hono `handle(app)`) serves every path.
// - `functions/stream.handler` (Hono `streamHandle(app)`) serves the routes whose answers stream with
//   Lambda response streaming: `POST /v1/execute/stream` (the run's events), `POST /v1/mcp` and `POST /v1/mcp/x402` (a
//   tool call's progress notifications, then its result) and `POST /a2a/{agent_id}` (an A2A agent: a task's
//   events, or a task answered when its run ends). API Gateway REST streams Lambda responses
//   (integration response transfer mode STREAM); HTTP APIs (ApiGatewayV2) cannot. A streamed route is
//   also not cut at the buffered integration's 29 s, so a long run through MCP completes in the call.
//   REST also lets buffered requests wait longer than 30 s once the account quota is raised, which HTTP
//   APIs never allow. So clients use one base URL for every endpoint, SSE and MCP included.
import {
  BUFFERED_INTEGRATION_TIMEOUT_MS,
  CALLER_TIMEOUT_SECONDS,
  STREAM_INTEGRATION_TIMEOUT_MS,
  appEnvironment,
  appFunction,
  type AppResources,
} from "./common";
import { extraCorsOrigins } from "./web";

/**
 * Proxies in front of API Gateway whose X-Forwarded-For names the client: `TRUSTED_PROXIES` in the
 * environment of `sst deploy` (addresses and CIDR ranges, comma-separated). As deployed there is none
 * (the regional API is the edge, and its recorded source address is the client's), so by default none
 * is given and a client's X-Forwarded-For is never believed. An operator who puts CloudFront or another
 * proxy in front lists its ranges here (docs/guides/operator.md).
 */
export function trustedProxiesSetting(): string | undefined {
  const explicit = process.env.TRUSTED_PROXIES?.trim();
  if (!explicit) return undefined;
  for (const entry of explicit.split(",").map((e) => e.trim()).filter(Boolean)) {
    if (!/^[0-9a-f:.]+(\/\d{1,3})?$/i.test(entry)) throw new Error(`TRUSTED_PROXIES lists "${entry}", which is not an IP address or CIDR range.`);
  }
  return explicit;
}

/**
 * The API's functions also get the browser origins CORS allows: the dashboard's own URL
 * (`DASHBOARD_URL`, allowed by default) and any origins the operator adds (`CORS_ORIGINS`); and the
 * proxies in front of the API, if the operator put any there (`TRUSTED_PROXIES`).
 */
function withCors(args: sst.aws.FunctionArgs, r: AppResources, dashboardUrl: $util.Input<string>, apiUrl: $util.Input<string>): sst.aws.FunctionArgs {
  const extra = extraCorsOrigins();
  const proxies = trustedProxiesSetting();
  // API_URL: the API's own base URL (with its stage path), which the A2A Agent Cards name.
  return { ...args, environment: { ...appEnvironment(r), DASHBOARD_URL: dashboardUrl, API_URL: apiUrl, ...(extra ? { CORS_ORIGINS: extra } : {}), ...(proxies ? { TRUSTED_PROXIES: proxies } : {}) } };
}

/** The POST routes served by the streaming function, each with the stable name of its route. */
const STREAMED_ROUTES = [
  { path: "/v1/execute/stream", name: "ExecuteStream" },
  { path: "/v1/mcp", name: "Mcp" },
  { path: "/a2a/{agent_id}", name: "A2a" },
  // After the others: mcpUrl reads /v1/mcp by its place.
  { path: "/v1/mcp/x402", name: "McpX402" },
] as const;

/**
 * Routes to the API function. An explicit resource (a streamed path and its parents) wins over
 * `/{proxy+}` even for methods or children it does not define, so each of them gets its own
 * catch-all to the API function: a GET or OPTIONS (CORS preflight) on a streamed path (GET /v1/mcp
 * answers 405), or `/v1/execute` itself, reach the app and get its responses and errors, not API
 * Gateway's.
 */
function apiRoutes() {
  const routes = new Set(["ANY /", "ANY /{proxy+}"]);
  for (const { path } of STREAMED_ROUTES) {
    const segments = path.split("/").filter(Boolean);
    for (let i = 1; i < segments.length; i++) {
      const parent = `/${segments.slice(0, i).join("/")}`;
      routes.add(`ANY ${parent}`);
      // A resource may have one variable child: where the next segment is a path parameter, that
      // parameter's resource (and its catch-all, below) stands in for `{proxy+}`.
      if (!segments[i]!.startsWith("{")) routes.add(`ANY ${parent}/{proxy+}`);
    }
    routes.add(`ANY ${path}`);
    // Under a path parameter, the paths below it (an agent's card) reach the buffered function too.
    if (segments.at(-1)!.startsWith("{")) routes.add(`ANY ${path}/{proxy+}`);
  }
  return [...routes];
}

/**
 * The REST API itself, before any route: its base URL follows from its id, region and stage name, so
 * the dashboard can be built with it before the API's functions exist, and the functions can then be
 * given the dashboard's URL (CORS) in the same deploy. (`api.url` read after `deploy()` waits for the
 * deployment, which waits for the functions: a cycle.)
 */
export function createApiGateway() {
  const api = new sst.aws.ApiGatewayV1("Api", {
    // Regional: a stream's idle timeout is 5 minutes there, 30 seconds on edge-optimized APIs.
    endpoint: { type: "regional" },
    // CORS is the app's (src/api/middleware/cors.ts, origins from DASHBOARD_URL and CORS_ORIGINS),
    // identical in both homes; OPTIONS reaches the function and is answered before authentication.
    cors: false,
  });
  // The stage SST creates is named after the app's stage.
  const baseUrl = $interpolate`https://${api.nodes.api.id}.execute-api.${aws.getRegionOutput({}, { parent: api }).region}.amazonaws.com/${$app.stage}/`;
  return { api, baseUrl };
}

export function createApi(r: AppResources, gateway: ReturnType<typeof createApiGateway>, dashboard: { url: $util.Input<string> }) {
  const { api } = gateway;
  const apiFunction = new sst.aws.Function(
    "ApiFunction",
    withCors(
      appFunction("functions/api.handler", r, {
        timeout: `${CALLER_TIMEOUT_SECONDS} seconds`,
        // GET /v1/docs/scalar.js serves the reference's standalone script from this package's files,
        // which a bundle does not carry: the package is installed beside the handler instead.
        nodejs: { install: ["@scalar/api-reference"] },
      }),
      r,
      dashboard.url,
      gateway.baseUrl,
    ),
  );

  // One streaming function for every streamed route (one pool of warm environments, one cold start).
  const streamFunction = new sst.aws.Function(
    "StreamFunction",
    withCors(
      appFunction("functions/stream.handler", r, {
        streaming: true,
        timeout: `${CALLER_TIMEOUT_SECONDS} seconds`,
      }),
      r,
      dashboard.url,
      gateway.baseUrl,
    ),
  );

  // One function behind every catch-all route, referenced by ARN so it is created once.
  const apiFunctionArn = apiFunction.arn.apply((arn) => arn as sst.aws.FunctionArn);
  for (const route of apiRoutes()) {
    api.route(route, apiFunctionArn, {
      transform: { integration: { timeoutMilliseconds: BUFFERED_INTEGRATION_TIMEOUT_MS } },
    });
  }

  // SST reads `streaming` from a function defined inline in the route; a function shared by ARN says
  // it on the route, which makes the integration invoke it with response streaming (transfer mode STREAM).
  const streamFunctionArn = streamFunction.arn.apply((arn) => arn as sst.aws.FunctionArn);
  for (const { path, name } of STREAMED_ROUTES) {
    api.route(`POST ${path}`, streamFunctionArn, {
      name,
      streaming: true,
      transform: { integration: { timeoutMilliseconds: STREAM_INTEGRATION_TIMEOUT_MS } },
    });
  }

  api.deploy();

  // `api.url` ends with the stage path and a slash: https://<id>.execute-api.<region>.amazonaws.com/<stage>/
  const streamUrl = $interpolate`${api.url}${STREAMED_ROUTES[0].path.slice(1)}`;
  const mcpUrl = $interpolate`${api.url}${STREAMED_ROUTES[1].path.slice(1)}`;
  return { api, apiFunction, streamFunction, url: api.url, streamUrl, mcpUrl };
}
