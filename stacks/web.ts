// The dashboard in the cloud: web/ built to static files and served from S3 through CloudFront
// (SST StaticSite; unknown paths fall back to index.html, so client-side routes load). The API URL and
// the chain are given at build time as VITE_* variables; the page reads nothing else at run time.
import { CHAIN_ID, marketplaceAddress } from "./common";

/** Names of the chains the beta may run on, for the wallet's "add chain" prompt. */
const CHAIN_NAMES: Readonly<Record<number, string>> = { 84532: "Base Sepolia", 11155111: "Sepolia" };
/** Public RPC endpoints browsers may use (the API's own RPC URL is a secret and may carry a key). */
const PUBLIC_RPC_URLS: Readonly<Record<number, string>> = { 84532: "https://sepolia.base.org", 11155111: "https://rpc.sepolia.org" };
const EXPLORERS: Readonly<Record<number, string>> = { 84532: "https://sepolia.basescan.org", 11155111: "https://sepolia.etherscan.io" };

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
  const rpcUrl = process.env.DASHBOARD_RPC_URL ?? PUBLIC_RPC_URLS[CHAIN_ID];
  if (!rpcUrl) throw new Error(`No public RPC URL for chain ${CHAIN_ID}: set DASHBOARD_RPC_URL when deploying.`);
  const domain = dashboardDomain();
  const site = new sst.aws.StaticSite("Dashboard", {
    path: "web",
    build: { command: "npm run build", output: "dist" },
    environment: {
      VITE_API_URL: $util.output(api.baseUrl).apply((url) => url.replace(/\/+$/, "")),
      VITE_CHAIN_ID: String(CHAIN_ID),
      VITE_CHAIN_NAME: CHAIN_NAMES[CHAIN_ID] ?? `Chain ${CHAIN_ID}`,
      VITE_RPC_URL: rpcUrl,
      VITE_MARKETPLACE_ADDRESS: marketplaceAddress(),
      VITE_EXPLORER_URL: EXPLORERS[CHAIN_ID] ?? "",
    },
    // No page of the dashboard may be framed by another site: the consent page approves an app for the
    // wallet, and a framed one could be clicked through (clickjacking).
    edge: { viewerResponse: { injection: `event.response.headers["x-frame-options"] = { value: "DENY" }; event.response.headers["content-security-policy"] = { value: "frame-ancestors 'none'" };` } },
    ...(domain ? { domain } : {}),
  });
  return { site, url: site.url };
}
