// Connect by URL, end to end, as a person meets it: the MCP SDK's own OAuth client (`auth()` through the
// Streamable HTTP transport, an OAuthClientProvider of the test's) starts from nothing but the MCP URL of
// the server `npm start` runs (the API with the dashboard in front, `listenSite`, on the test world),
// discovers the metadata from the 401, registers (dynamic registration; and, apart, a client identified by
// a Client ID Metadata Document served by an HTTPS server of the test), and sends the browser (Chromium,
// with an injected EIP-1193 wallet) to the dashboard's consent page, where the renter signs in with the
// wallet, sees the app and the rentals it could run, and approves. Then the client lists the renter's
// agents and runs one; the same access token runs an A2A task with @a2a-js/sdk's client; a denial
// returns access_denied; and once the app is revoked in Connected apps its next request is refused.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { TaskState, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import type { PublishedAgent, World } from "../support/world.ts";
import type { Account } from "../support/chain-actions.ts";
import { createEgressGuard } from "../../src/adapters/egress/guard.ts";
import { makeTestCertificates, startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { type DashboardPage, type WorldSite, connectAndSignIn, openDashboard, startWorldSite } from "./support.ts";

const certificates = makeTestCertificates();

let world: World;
let site: WorldSite;
let siteUrl: string;
let browser: Browser;
let renter: Account;
let agent: PublishedAgent;
let callback: { server: http.Server; url: string; next(): Promise<URL> };
let metadataServer: HttpsTestServer;

/** The app's redirect target: a local server that hands the test each callback's URL, as a desktop
 * MCP client's loopback listener does. */
async function startCallback() {
  const waiting: ((url: URL) => void)[] = [];
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Signed in</title><p>You can close this window.</p>");
    waiting.shift()?.(new URL(req.url ?? "/", `http://${req.headers.host}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { server, url, next: () => new Promise<URL>((resolve) => waiting.push(resolve)) };
}

/** The OAuthClientProvider a desktop MCP client implements: it keeps what the SDK hands it, and opens
 * the authorization URL in the person's browser (here, the test's Chromium page). */
class BrowserProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "E2E MCP app", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return "e2e-state";
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.information = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  // What discovery found (from the 401's resource_metadata), kept across the browser round trip as a
  // desktop client keeps it, so finishing the sign-in asks for the resource it started with.
  discovered: OAuthDiscoveryState | undefined;
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state;
  }
  discoveryState() {
    return this.discovered;
  }
}

beforeAll(async () => {
  metadataServer = await startHttpsServer((req, res) => {
    if (req.url !== "/mcp-client.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" }).end(
      JSON.stringify({ client_id: `${metadataServer.url}/mcp-client.json`, client_name: "Metadata MCP app", redirect_uris: [callback.url], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }),
    );
  }, { certificates });
  callback = await startCallback();
  // The site `npm start` runs names itself by its configured address (API_URL), never a request's Host.
  site = await startWorldSite({ adapters: { clientMetadataEgress: createEgressGuard({ ca: certificates.ca, allowHosts: ["127.0.0.1"], timeoutMs: 2_000, maxResponseBytes: 5 * 1024 }) } });
  ({ world, siteUrl, browser } = site);
  agent = await world.publishConnected("oauth-e2e-researcher", { rental: "one_time" });
  renter = await world.account();
  await world.rent(renter, agent);
}, 240_000);

afterAll(async () => {
  await new Promise((resolve) => callback?.server.close(resolve));
  callback?.server.closeAllConnections();
  await metadataServer?.stop();
  await site?.close();
});

/** The MCP client's first connection: the 401, discovery, registration, and the browser sent to sign in. */
async function firstConnect(provider: BrowserProvider): Promise<void> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${siteUrl}/v1/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl?.origin).toBe(siteUrl);
}

/** The person in the browser: the consent page, signed in, then approve or deny; the callback's URL. */
async function consent(d: DashboardPage, provider: BrowserProvider, decision: "Approve" | "Deny", check?: () => Promise<void>): Promise<URL> {
  const back = callback.next();
  await d.page.goto(provider.authorizationUrl!.href);
  await d.page.waitForURL(/\/connect\?request=/);
  // Signed in already (a session kept from an earlier approval), or not: decided once the page says which.
  await d.page.getByLabel("Signed in").or(d.page.getByRole("button", { name: "Connect wallet" })).first().waitFor();
  if (await d.page.getByLabel("Signed in").count() === 0) await connectAndSignIn(d);
  await d.page.getByRole("heading", { name: /wants to use your account/ }).waitFor();
  await check?.();
  await d.page.getByRole("button", { name: decision, exact: true }).click();
  const url = await back;
  await d.page.waitForURL((at) => at.href.startsWith(callback.url));
  return url;
}

async function connected(provider: BrowserProvider): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${siteUrl}/v1/mcp`), { authProvider: provider }));
  return client;
}

/** A locator's text once it is there. */
async function textOf(locator: import("playwright-core").Locator): Promise<string> {
  await locator.first().waitFor();
  return (await locator.first().innerText()).trim();
}

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });

describe("connect an MCP client by URL, approve it with a browser wallet, use it, revoke it", () => {
  it("registers dynamically, signs in through the consent page, lists and runs the renter's agents, runs an A2A task with the same token, and is refused once revoked in Connected apps", async () => {
    const d = await openDashboard(browser, site.stack, renter.privateKey);
    const provider = new BrowserProvider(callback.url);
    await firstConnect(provider);
    expect(provider.information?.client_id).toMatch(/^[A-Za-z0-9_-]+$/);

    const back = await consent(d, provider, "Approve", async () => {
      expect(await textOf(d.page.getByTestId("consent-app-name"))).toBe("E2E MCP app");
      expect(await textOf(d.page.getByTestId("consent-client-kind"))).toContain("self-registration");
      expect(await textOf(d.page.getByTestId("consent-redirect-host"))).toBe(new URL(callback.url).host);
      expect(await textOf(d.page.getByTestId("consent-scopes"))).toContain("Run tasks on the agents you rent");
      const agents = d.page.getByTestId("consent-agents");
      expect(await textOf(agents.getByRole("row", { name: /oauth-e2e-researcher|One-time/ }))).toContain("One-time");
      expect(await textOf(agents)).toContain("ETH once");
      await d.shot("oauth-01-consent");
    });
    expect(back.searchParams.get("state")).toBe("e2e-state");
    expect(back.searchParams.get("iss")).toBe(siteUrl);
    const code = back.searchParams.get("code")!;
    await new StreamableHTTPClientTransport(new URL(`${siteUrl}/v1/mcp`), { authProvider: provider }).finishAuth(code);
    expect(provider.saved?.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const client = await connected(provider);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["run_agent", "oauth_e2e_researcher"]));
    const result = (await client.callTool({ name: "oauth_e2e_researcher", arguments: { task: "find facts" } })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ findings: expect.any(Array) });

    // The same access token hires the agent over A2A.
    const bearer = provider.saved!.access_token;
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${bearer}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
    const a2a = await factory.createFromUrl(`${siteUrl}/a2a/${agent.agent_id}/.well-known/agent-card.json`, "");
    const task = (await a2a.sendMessage({ tenant: "", message: { messageId: `m-${Date.now()}`, contextId: "", taskId: "", role: 1, parts: [text("tides"), data({ topic: "moon" })], metadata: undefined, extensions: [], referenceTaskIds: [] }, configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // Connected apps lists it; Revoke ends its access at once.
    await d.page.goto(`${siteUrl}/apps`);
    const row = d.page.getByRole("row", { name: /E2E MCP app/ });
    await row.waitFor();
    expect(await textOf(row)).toContain("Run tasks");
    await d.shot("oauth-02-connected-apps");
    await row.getByRole("button", { name: "Revoke E2E MCP app" }).click();
    await d.page.getByRole("button", { name: "Revoke access" }).click();
    await d.page.getByText("No connected apps").waitFor();
    const refused = await fetch(`${siteUrl}/v1/mcp`, { method: "POST", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
    // The SDK's client, asked again, finds its refresh token refused too and must send the person back.
    await expect(client.listTools()).rejects.toThrow();
    await client.close().catch(() => undefined);
    await d.context.close();
  }, 180_000);

  it("signs in a client identified by its Client ID Metadata Document (no registration), which the consent page says", async () => {
    const d = await openDashboard(browser, site.stack, renter.privateKey);
    const provider = new BrowserProvider(callback.url, `${metadataServer.url}/mcp-client.json`);
    await firstConnect(provider);
    expect(provider.information?.client_id).toBe(`${metadataServer.url}/mcp-client.json`);
    const back = await consent(d, provider, "Approve", async () => {
      expect(await textOf(d.page.getByTestId("consent-app-name"))).toBe("Metadata MCP app");
      expect(await textOf(d.page.getByTestId("consent-client-kind"))).toContain("by its website");
      expect(await textOf(d.page.getByTestId("consent-client-id"))).toBe(`${metadataServer.url}/mcp-client.json`);
    });
    await new StreamableHTTPClientTransport(new URL(`${siteUrl}/v1/mcp`), { authProvider: provider }).finishAuth(back.searchParams.get("code")!);
    const client = await connected(provider);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("oauth_e2e_researcher");
    await client.close();
    await d.context.close();
  }, 180_000);

  it("serves the consent page (and every page of the dashboard) unframeable by another site", async () => {
    for (const path of ["/connect?request=x", "/apps", "/"]) {
      const res = await fetch(`${siteUrl}${path}`, { headers: { accept: "text/html" } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("content-security-policy"), path).toBe("frame-ancestors 'none'");
    }
  });

  it("returns access_denied to the app when the person denies, and grants nothing", async () => {
    const d = await openDashboard(browser, site.stack, renter.privateKey);
    const provider = new BrowserProvider(callback.url);
    await firstConnect(provider);
    const back = await consent(d, provider, "Deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("iss")).toBe(siteUrl);
    expect(back.searchParams.get("code")).toBeNull();
    await d.page.goto(`${siteUrl}/apps`);
    await d.page.getByRole("heading", { name: "Connected apps" }).waitFor();
    // Once the wallet's apps are loaded (a table, or the page's empty state), the denied app is not there.
    await d.page.getByText(/^No connected apps\./).or(d.page.getByRole("table")).first().waitFor();
    expect(await d.page.getByRole("row", { name: /E2E MCP app/ }).count()).toBe(0);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 180_000);
});
