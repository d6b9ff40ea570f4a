/// <reference path="./.sst/platform/config.d.ts" />

// The cloud home of the service. Each concern is declared in its own file under stacks/;
// `scripts/check-infra.sh` type-checks all of it offline.
//
// Deploying (`sst deploy --stage <stage>`, AWS credentials required) needs, per stage:
//   - the seven secrets: `sst secret set <Name> <value> --stage <stage>` for AuthorityPrivateKey (given
//     to the settler alone), JwtSigningKeys, CardSigningKeys, OAuthSigningKeys, UpstashRedisUrl,
//     UpstashRedisToken, RpcUrl (stacks/secrets.ts);
//   - the network (NETWORK, default base-sepolia) and its deployment: stacks/deployments/<network>.json,
//     written by `npm run deploy -- --network <name>` (MARKETPLACE_ADDRESS=0x... in the environment wins).
//   - optionally DASHBOARD_DOMAIN (the dashboard's custom domain), CORS_ORIGINS (browser origins the
//     API allows besides the dashboard's, which it always allows) and DASHBOARD_RPC_URL (stacks/web.ts).
// Outputs: `api`, the base URL of every endpoint, `stream`, the full URL of
// POST /v1/execute/stream (the same API, served with response streaming), and `dashboard`.
export default $config({
  app(input) {
    const production = input?.stage === "production";
    return {
      name: "agent-rental",
      home: "aws",
      removal: production ? "retain" : "remove",
      protect: production,
      // Pinned: the runner's tenant isolation (`tenancyConfig`) needs a provider that knows it.
      providers: { aws: { version: "7.20.0" } },
    };
  },
  async run() {
    const { createTables } = await import("./stacks/tables");
    const { createRegistrationQueues, createSettlementQueue } = await import("./stacks/queue");
    const { createBlobs } = await import("./stacks/blobs");
    const { createSecrets, createKmsKey } = await import("./stacks/secrets");
    const { createRunner } = await import("./stacks/runner");
    const { createApi, createApiGateway } = await import("./stacks/api");
    const { createJobs } = await import("./stacks/jobs");
    const { createDashboard } = await import("./stacks/web");

    const resources = {
      tables: createTables(),
      ...createRegistrationQueues(),
      ...createSettlementQueue(),
      blobs: createBlobs(),
      ...createSecrets(),
      kmsKey: createKmsKey(),
      runner: createRunner(),
    };

    // The REST API first, then the dashboard built with its URL, then the API's functions given the
    // dashboard's URL: the API allows the dashboard's origin from the first deploy (stacks/api.ts).
    const gateway = createApiGateway();
    const dashboard = createDashboard(gateway);
    const api = createApi(resources, gateway, dashboard);
    // The background jobs, the settler among them: the one function that sends with the authority's key.
    createJobs(resources);

    return {
      api: api.url,
      stream: api.streamUrl,
      mcp: api.mcpUrl,
      dashboard: dashboard.url,
    };
  },
});
