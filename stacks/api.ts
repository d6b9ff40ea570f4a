// The public API: one API Gateway REST API in front of two functions.
//
// - `functions/api.handler` (Hono `handle(app)`) serves every path.
// - `functions/stream.handler` (Hono `streamHandle(app)`) serves `POST /v1/execute/stream` with
//   Lambda response streaming. API Gateway REST streams Lambda responses (integration response
//   transfer mode STREAM); HTTP APIs (ApiGatewayV2) cannot. REST also lets buffered requests wait
//   longer than 30 s once the account quota is raised, which HTTP APIs never allow. So renters use
//   one base URL for every endpoint, SSE included.
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
 * The API's functions also get the browser origins CORS allows: the dashboard's own URL
 * (`DASHBOARD_URL`, allowed by default) and any origins the operator adds (`CORS_ORIGINS`).
 */
function withCors(args: sst.aws.FunctionArgs, r: AppResources, dashboardUrl: $util.Input<string>): sst.aws.FunctionArgs {
  const extra = extraCorsOrigins();
  return { ...args, environment: { ...appEnvironment(r), DASHBOARD_URL: dashboardUrl, ...(extra ? { CORS_ORIGINS: extra } : {}) } };
}

const STREAM_PATH = "/v1/execute/stream";

/**
 * Routes to the API function. An explicit resource (the stream path and its parents) wins over
 * `/{proxy+}` even for methods or children it does not define, so each of them gets its own
 * catch-all to the API function: a GET or OPTIONS (CORS preflight) on the stream path, or
 * `/v1/execute` itself, reach the app and get its responses and errors, not API Gateway's.
 */
function apiRoutes() {
  const routes = ["ANY /", "ANY /{proxy+}"];
  const segments = STREAM_PATH.split("/").filter(Boolean);
  for (let i = 1; i < segments.length; i++) {
    const parent = `/${segments.slice(0, i).join("/")}`;
    routes.push(`ANY ${parent}`, `ANY ${parent}/{proxy+}`);
  }
  routes.push(`ANY ${STREAM_PATH}`);
  return routes;
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
    ),
  );

  // One function behind every catch-all route, referenced by ARN so it is created once.
  const apiFunctionArn = apiFunction.arn.apply((arn) => arn as sst.aws.FunctionArn);
  for (const route of apiRoutes()) {
    api.route(route, apiFunctionArn, {
      transform: { integration: { timeoutMilliseconds: BUFFERED_INTEGRATION_TIMEOUT_MS } },
    });
  }

  api.route(
    `POST ${STREAM_PATH}`,
    withCors(
      appFunction("functions/stream.handler", r, {
        streaming: true,
        timeout: `${CALLER_TIMEOUT_SECONDS} seconds`,
      }),
      r,
      dashboard.url,
    ),
    {
      name: "ExecuteStream",
      transform: { integration: { timeoutMilliseconds: STREAM_INTEGRATION_TIMEOUT_MS } },
    },
  );

  api.deploy();

  // `api.url` ends with the stage path and a slash: https://<id>.execute-api.<region>.amazonaws.com/<stage>/
  const streamUrl = $interpolate`${api.url}${STREAM_PATH.slice(1)}`;
  return { api, apiFunction, url: api.url, streamUrl };
}
