// The API: every route of the service, registered here explicitly so the whole surface reads in one
// screen. The Lambda entry points (functions/) and the local server (local/) both serve this app.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import type { AppEnv } from "./env.ts";
import { notFound, renderError } from "./errors.ts";
import { cors } from "./middleware/cors.ts";
import { requestId } from "./middleware/request-id.ts";
import { accessLog } from "./middleware/access-log.ts";
import { validationHook } from "./validation.ts";
import { routeGroup } from "./route-groups.ts";
import { registerV1Health } from "./routes/v1_health.ts";
import { registerV1OpenApi } from "./routes/v1_openapi.ts";
import { registerV1Docs } from "./routes/v1_docs.ts";
import { registerV1AuthChallenge } from "./routes/v1_auth_challenge.ts";
import { registerV1AuthToken } from "./routes/v1_auth_token.ts";
import { registerV1KeysChallenge } from "./routes/v1_keys_challenge.ts";
import { registerV1KeysCreate } from "./routes/v1_keys_create.ts";
import { registerV1KeysList } from "./routes/v1_keys_list.ts";
import { registerV1KeysRevoke } from "./routes/v1_keys_revoke.ts";
import { registerV1CredentialsList } from "./routes/v1_credentials_list.ts";
import { registerV1CredentialsVerify } from "./routes/v1_credentials_verify.ts";
import { registerV1AgentsRegister } from "./routes/v1_agents_register.ts";
import { registerV1JobsGet } from "./routes/v1_jobs_get.ts";
import { registerV1MetadataGet } from "./routes/v1_metadata_get.ts";
import { registerV1ListingsSearch } from "./routes/v1_listings_search.ts";
import { registerV1ListingsGet } from "./routes/v1_listings_get.ts";
import { registerV1ListingsRate } from "./routes/v1_listings_rate.ts";
import { registerV1ListingsRatings } from "./routes/v1_listings_ratings.ts";
import { registerV1CreatorsApply } from "./routes/v1_creators_apply.ts";
import { registerV1CreatorsMe } from "./routes/v1_creators_me.ts";
import { registerV1Reviews } from "./routes/v1_reviews.ts";
import { registerV1ListingsProviderKey } from "./routes/v1_listings_provider_key.ts";
import { registerV1ListingsWebhookSecret } from "./routes/v1_listings_webhook_secret.ts";
import { registerV1Execute } from "./routes/v1_execute.ts";
import { registerV1ExecuteStream } from "./routes/v1_execute_stream.ts";
import { registerV1RunsGet } from "./routes/v1_runs_get.ts";
import { registerV1RunsEvents } from "./routes/v1_runs_events.ts";
import { registerV1InputsUpload } from "./routes/v1_inputs_upload.ts";
import { registerV1Mcp } from "./routes/v1_mcp.ts";

/** The platform every request runs on, matched by a route or not: the access log, request ids, CORS,
 * the error envelope and the validation hook, and the 404 answer (counted under the default rate rule).
 * What runs in front of a route's handler (authentication, its rate limit, the body rules) comes with
 * the route's group (route-groups.ts). Routes are added by `buildApp` (and by tests of the platform). */
export function createPlatform(services: Services): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", async (c, next) => {
    c.set("services", services);
    await next();
  });
  // Outermost but for the services: one access line per request, whatever answers it.
  app.use("*", accessLog);
  app.use("*", requestId);
  // Before authentication and rate limits: a preflight carries no credentials and is never counted.
  app.use("*", cors(services.config.corsOrigins));
  app.onError(renderError);
  app.notFound(notFound);
  return app;
}

export function buildApp(services: Services): OpenAPIHono<AppEnv> {
  const app = createPlatform(services);
  registerRoutes(app);
  return app;
}

/** Every route of the service, mounted on any app: the platform's (buildApp) or a bare one that only
 * renders the OpenAPI document (src/api/openapi-document.ts). */
export function registerRoutes(app: OpenAPIHono<AppEnv>): void {
  const open = routeGroup("public");
  const api = routeGroup("bearer");

  // Service
  registerV1Health(open);
  registerV1OpenApi(open, app);
  registerV1Docs(open);

  // Authentication
  registerV1AuthChallenge(open);
  registerV1AuthToken(open);

  // API keys
  registerV1KeysChallenge(api);
  registerV1KeysCreate(api);
  registerV1KeysList(api);
  registerV1KeysRevoke(api);

  // Rental credentials
  registerV1CredentialsList(api);
  registerV1CredentialsVerify(api);

  // Listings (the catalogue)
  registerV1ListingsSearch(api);
  registerV1ListingsGet(api);
  registerV1ListingsRate(api);
  registerV1ListingsRatings(api);

  // Task execution
  registerV1Execute(api);
  registerV1ExecuteStream(api);
  registerV1RunsGet(api);
  registerV1RunsEvents(api);
  registerV1InputsUpload(api);

  // Remote MCP (Streamable HTTP): the rented agents as tools
  registerV1Mcp(api);

  // Creators and their agents
  registerV1CreatorsApply(api);
  registerV1CreatorsMe(api);
  registerV1ListingsProviderKey(api);
  registerV1ListingsWebhookSecret(api);
  registerV1AgentsRegister(api);
  registerV1JobsGet(api);
  registerV1MetadataGet(open);

  // Reviews (beta; the protocol authority only)
  registerV1Reviews(api);

  app.route("/", open);
  app.route("/", api);
}
