// The dashboard in the cloud: web/ built to static files and served from S3 through CloudFront
// (SST StaticSite; unknown paths fall back to index.html, so client-side routes load). The API URL and
// the chain are given at build time as VITE_* variables; the page reads nothing else at run time.
// The chain's name (the wallet's "add chain" prompt), its public RPC endpoint (browsers may use it; the
// API's own RPC URL is a secret and may carry a key) and its explorer come from the network's profile.
import { marketplaceAddress, network } from "./common";

/**
 * A custom domain for the dashboard's CloudFront distribution: `DASHBOARD_DOMAIN` in the environment
 * of `sst deploy`. Without it the site is served at its CloudFront URL. Either way the API is given
 * the site's URL in the same deploy and allows its origin (CORS, see stacks/api.ts).
 */
export function dashboardDomain(): string | undefined {
  const domain = process.env.DASHBOARD_DOMAIN?.trim();
  if (domain && !/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(domain)) throw new Error(`DASHBOARD_DOMAIN "${domain}" is not a host name.`);
  return domain || undefined;
}

/**
 * Browser origins the API allows besides the dashboard's (third-party browser apps): `CORS_ORIGINS`
 * in the environment of `sst deploy`, comma-separated, or `*` for any. The dashboard's own origin is
 * always allowed and need not be listed.
 */
export function extraCorsOrigins(): string | undefined {
  const explicit = process.env.CORS_ORIGINS?.trim();
  if (!explicit) return undefined;
  for (const origin of explicit.split(",").map((o) => o.trim()).filter(Boolean)) {
    if (origin !== "*" && !/^https?:\/\/[^/\s]+$/.test(origin)) throw new Error(`CORS_ORIGINS lists "${origin}", which is not an origin (scheme://host[:port], no path) or *.`);
  }
  return explicit;
}

/** The dashboard, built with the API's base URL (known before the API's deployment, stacks/api.ts). */
export function createDashboard(api: { baseUrl: $util.Input<string> }) {
  const profile = network();
  const rpcUrl = process.env.DASHBOARD_RPC_URL ?? profile.publicRpcUrl;
  if (!rpcUrl) throw new Error(`No public RPC URL for ${profile.label}: set DASHBOARD_RPC_URL when deploying.`);
  const domain = dashboardDomain();
  const site = new sst.aws.StaticSite("Dashboard", {
    path: "web",
    build: { command: "npm run build", output: "dist" },
    environment: {
      VITE_API_URL: $util.output(api.baseUrl).apply((url) => url.replace(/\/+$/, "")),
      VITE_CHAIN_ID: String(profile.chainId),
      VITE_CHAIN_NAME: profile.label,
      VITE_RPC_URL: rpcUrl,
      VITE_MARKETPLACE_ADDRESS: marketplaceAddress(),
      VITE_EXPLORER_URL: profile.explorerUrl ?? "",
    },
    // No page of the dashboard may be framed by another site: the consent page approves an app for the
    // wallet, and a framed one could be clicked through (clickjacking).
    edge: { viewerResponse: { injection: `event.response.headers["x-frame-options"] = { value: "DENY" }; event.response.headers["content-security-policy"] = { value: "frame-ancestors 'none'" };` } },
    ...(domain ? { domain } : {}),
  });
  return { site, url: site.url };
}
