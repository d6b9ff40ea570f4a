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
// One import per route, named by its operationId; the file is named by its method and path
// (routes/<path, "/" as "_">.<method>.ts).
import * as getHealth from "./routes/v1_health.get.ts";
import * as getOpenApiDocument from "./routes/v1_openapi.json.get.ts";
import * as getApiReference from "./routes/v1_docs.get.ts";
import * as getApiReferenceScript from "./routes/v1_docs_scalar.js.get.ts";
import * as getAuthChallenge from "./routes/v1_auth_challenge.get.ts";
import * as exchangeAuthToken from "./routes/v1_auth_token.post.ts";
import * as getListingMetadata from "./routes/v1_metadata_{cid}.get.ts";
import * as createApiKeyChallenge from "./routes/v1_keys_challenge.post.ts";
import * as createApiKey from "./routes/v1_keys.post.ts";
import * as listApiKeys from "./routes/v1_keys.get.ts";
import * as revokeApiKey from "./routes/v1_keys_{key_id}.delete.ts";
import * as updateApiKey from "./routes/v1_keys_{key_id}.patch.ts";
import * as getAlertSettings from "./routes/v1_alerts_settings.get.ts";
import * as setAlertSettings from "./routes/v1_alerts_settings.put.ts";
import * as listAlerts from "./routes/v1_alerts.get.ts";
import * as listCredentials from "./routes/v1_credentials.get.ts";
import * as verifyCredential from "./routes/v1_credentials_{listing_id}.get.ts";
import * as searchListings from "./routes/v1_listings.get.ts";
import * as getListing from "./routes/v1_listings_{id}.get.ts";
import * as listCurrencies from "./routes/v1_currencies.get.ts";
import * as rateListing from "./routes/v1_listings_{listing_id}_rating.put.ts";
import * as listRatings from "./routes/v1_listings_{listing_id}_ratings.get.ts";
import * as getListingReputation from "./routes/v1_listings_{listing_id}_reputation.get.ts";
import * as prepareErc8004Registration from "./routes/v1_listings_{listing_id}_erc8004.post.ts";
import * as prepareRunFeedback from "./routes/v1_runs_{run_id}_feedback.post.ts";
import * as executeTask from "./routes/v1_execute.post.ts";
import * as streamTask from "./routes/v1_execute_stream.post.ts";
import * as getRun from "./routes/v1_runs_{run_id}.get.ts";
import * as listRuns from "./routes/v1_runs.get.ts";
import * as streamRunEvents from "./routes/v1_runs_{run_id}_events.get.ts";
import * as uploadInput from "./routes/v1_inputs.post.ts";
import * as callMcp from "./routes/v1_mcp.post.ts";
import * as openMcpStream from "./routes/v1_mcp.get.ts";
import * as endMcpSession from "./routes/v1_mcp.delete.ts";
import * as callPaidMcp from "./routes/v1_mcp_x402.post.ts";
import * as openPaidMcpStream from "./routes/v1_mcp_x402.get.ts";
import * as applyAsCreator from "./routes/v1_creators.post.ts";
import * as getCreatorProfile from "./routes/v1_creators_me.get.ts";
import * as getCreatorAnalytics from "./routes/v1_creators_me_analytics.get.ts";
import * as getListingAnalytics from "./routes/v1_creators_me_listings_{listing_id}_analytics.get.ts";
import * as registerAgent from "./routes/v1_agents.post.ts";
import * as getJob from "./routes/v1_jobs_{job_id}.get.ts";
import * as setProviderKey from "./routes/v1_listings_{listing_id}_provider-key.put.ts";
import * as rotateWebhookSecret from "./routes/v1_listings_{listing_id}_webhook-secret.post.ts";
import * as listCreatorApplications from "./routes/v1_reviews_creators.get.ts";
import * as reviewCreator from "./routes/v1_reviews_creators_{wallet}.post.ts";
import * as listListingReviews from "./routes/v1_reviews_listings.get.ts";
import * as reviewListing from "./routes/v1_reviews_listings_{listing_id}.post.ts";
import * as getAgentCard from "./routes/a2a_{agent_id}_.well-known_agent-card.json.get.ts";
import * as getCardSigningKeys from "./routes/.well-known_jwks.json.get.ts";
import * as callA2aAgent from "./routes/a2a_{agent_id}.post.ts";
import * as getProtectedResourceMetadata from "./routes/.well-known_oauth-protected-resource.get.ts";
import * as getMcpProtectedResourceMetadata from "./routes/.well-known_oauth-protected-resource_v1_mcp.get.ts";
import * as getA2aProtectedResourceMetadata from "./routes/.well-known_oauth-protected-resource_a2a_{agent_id}.get.ts";
import * as getAuthorizationServerMetadata from "./routes/.well-known_oauth-authorization-server.get.ts";
import * as authorize from "./routes/oauth_authorize.get.ts";
import * as resumeAuthorization from "./routes/oauth_authorize_{request_id}.get.ts";
import * as issueOAuthToken from "./routes/oauth_token.post.ts";
import * as registerOAuthClient from "./routes/oauth_register.post.ts";
import * as revokeOAuthToken from "./routes/oauth_revoke.post.ts";
import * as getOAuthRequest from "./routes/v1_oauth_requests_{request_id}.get.ts";
import * as approveOAuthRequest from "./routes/v1_oauth_requests_{request_id}_approve.post.ts";
import * as denyOAuthRequest from "./routes/v1_oauth_requests_{request_id}_deny.post.ts";
import * as listConnectedApps from "./routes/v1_oauth_apps.get.ts";
import * as revokeConnectedApp from "./routes/v1_oauth_apps_{app_id}.delete.ts";
import * as updateConnectedApp from "./routes/v1_oauth_apps_{app_id}.patch.ts";

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
  // Served without a token.
  const open = routeGroup("public");
  // The service and its description
  getHealth.register(open);
  getOpenApiDocument.register(open, app);
  getApiReference.register(open);
  getApiReferenceScript.register(open);
  // Sign-in
  getAuthChallenge.register(open);
  exchangeAuthToken.register(open);
  // Listings' public metadata, and the currencies listings are priced in
  getListingMetadata.register(open);
  listCurrencies.register(open);
  // A2A: each published listing's Agent Card, and the keys that verify its signature
  getAgentCard.register(open);
  getCardSigningKeys.register(open);
  // OAuth: apps that connect by URL find the authorization server and sign in (RFC 9728, 8414, 7591)
  getProtectedResourceMetadata.register(open);
  getMcpProtectedResourceMetadata.register(open);
  getA2aProtectedResourceMetadata.register(open);
  getAuthorizationServerMetadata.register(open);
  authorize.register(open);
  resumeAuthorization.register(open);
  issueOAuthToken.register(open);
  registerOAuthClient.register(open);
  revokeOAuthToken.register(open);
  // Remote MCP for payers with only a wallet: the listings sold per run by x402 as tools, paid per call
  callPaidMcp.register(open);
  openPaidMcpStream.register(open);

  // Served after authentication (an API key or a JWT).
  const api = routeGroup("bearer");
  // API keys
  createApiKeyChallenge.register(api);
  createApiKey.register(api);
  listApiKeys.register(api);
  revokeApiKey.register(api);
  updateApiKey.register(api);
  // Alerts: the wallet's webhook and threshold, and what crossed
  getAlertSettings.register(api);
  setAlertSettings.register(api);
  listAlerts.register(api);
  // Rental credentials
  listCredentials.register(api);
  verifyCredential.register(api);
  // Listings (the catalogue), their ratings and their ERC-8004 reputation
  searchListings.register(api);
  getListing.register(api);
  rateListing.register(api);
  listRatings.register(api);
  getListingReputation.register(api);
  // Task execution and runs
  executeTask.register(api);
  streamTask.register(api);
  listRuns.register(api);
  getRun.register(api);
  streamRunEvents.register(api);
  prepareRunFeedback.register(api);
  uploadInput.register(api);
  // Remote MCP (Streamable HTTP): the rented agents as tools
  callMcp.register(api);
  openMcpStream.register(api);
  endMcpSession.register(api);
  // A2A: each published listing's JSON-RPC endpoint (a task is a run)
  callA2aAgent.register(api);
  // OAuth: the person's decision on an app's sign-in, and the apps with access (Connected apps)
  getOAuthRequest.register(api);
  approveOAuthRequest.register(api);
  denyOAuthRequest.register(api);
  listConnectedApps.register(api);
  revokeConnectedApp.register(api);
  updateConnectedApp.register(api);
  // Creators and their agents
  applyAsCreator.register(api);
  getCreatorProfile.register(api);
  getCreatorAnalytics.register(api);
  getListingAnalytics.register(api);
  registerAgent.register(api);
  getJob.register(api);
  setProviderKey.register(api);
  prepareErc8004Registration.register(api);
  rotateWebhookSecret.register(api);
  // Reviews (beta; the protocol authority only)
  listCreatorApplications.register(api);
  reviewCreator.register(api);
  listListingReviews.register(api);
  reviewListing.register(api);

  app.route("/", open);
  app.route("/", api);
}
