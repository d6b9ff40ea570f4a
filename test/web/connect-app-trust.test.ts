// What an app's sign-in may be trusted with, in real Chromium against the server `npm start` runs (the
// API with the dashboard in front, `listenSite`, on the test world):
// - a consent link sent to someone else grants nothing: the attacker starts GET /oauth/authorize in their
//   own browser and keeps its cookies, the victim opens /connect?request=… in theirs and approves, and
//   neither browser can finish the sign-in (two browser contexts, each with its own cookies);
// - Connected apps' "Last used" shows when an app's token listed the agents and ran one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PublishedAgent, World } from "../support/world.ts";
import type { Account } from "../support/chain-actions.ts";
import { pkce, registerClient, tokenRequest, type RegisteredClient, type Tokens } from "../support/oauth.ts";
import { type DashboardPage, type WorldSite, connectAndSignIn, openDashboard, startWorldSite } from "./support.ts";


let world: World;
let site: WorldSite;
let siteUrl: string;
let browser: Browser;
let victim: Account;
let agent: PublishedAgent;
let callback: { server: http.Server; url: string; seen: URL[] };

/** The app's redirect target: a local server that records every callback it receives. */
async function startCallback() {
  const seen: URL[] = [];
  const server = http.createServer((req, res) => {
    seen.push(new URL(req.url ?? "/", `http://${req.headers.host}`));
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Signed in</title><p>You can close this window.</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, seen };
}

beforeAll(async () => {
  callback = await startCallback();
  site = await startWorldSite();
  ({ world, siteUrl, browser } = site);
  agent = await world.publishConnected("trust-researcher", { rental: "one_time" });
  victim = await world.account();
  await world.rent(victim, agent);
}, 240_000);

afterAll(async () => {
  await new Promise((resolve) => callback?.server.close(resolve));
  callback?.server.closeAllConnections();
  await site?.close();
});

function authorizeUrl(client: RegisteredClient, challenge: string, state: string): string {
  const url = new URL(`${siteUrl}/oauth/authorize`);
  url.search = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: client.redirect_uri, code_challenge: challenge, code_challenge_method: "S256", state, resource: siteUrl, scope: "tasks:run credentials:read" }).toString();
  return url.href;
}

/** The person on the consent page (signed in with the wallet if not yet), approving. The approval's
 * answer (`redirect_to`) and where the browser went with it. */
async function approve(d: DashboardPage): Promise<{ redirectTo: string; status: number }> {
  await d.page.getByLabel("Signed in").or(d.page.getByRole("button", { name: "Connect wallet" })).first().waitFor();
  if ((await d.page.getByLabel("Signed in").count()) === 0) await connectAndSignIn(d);
  await d.page.getByRole("heading", { name: /wants to use your account/ }).waitFor();
  const decided = d.page.waitForResponse((res) => /\/v1\/oauth\/requests\/[^/]+\/approve$/.test(res.url()) && res.request().method() === "POST");
  const navigated = d.page.waitForResponse((res) => /\/oauth\/authorize\/[^/?]+/.test(res.url()));
  await d.page.getByRole("button", { name: "Approve", exact: true }).click();
  const answer = await decided;
  expect(answer.status()).toBe(200);
  // The page follows the approval's redirect_to at once (its body is gone with the page): the URL it went to.
  const landed = await navigated;
  return { redirectTo: landed.url(), status: landed.status() };
}

describe("a consent link sent to someone else", () => {
  it("grants nothing: the victim approves in their browser, and neither the attacker's browser (which started it) nor the victim's can finish it", async () => {
    const client = await registerClient(siteUrl, { client_name: "Look-alike app", redirect_uris: [callback.url] });
    const verifier = pkce();

    // The attacker starts the sign-in in their own browser and keeps its cookies.
    const attacker = await browser.newContext();
    const attackerPage = await attacker.newPage();
    await attackerPage.goto(authorizeUrl(client, verifier.challenge, "attack"));
    await attackerPage.waitForURL(/\/connect\?request=/);
    const link = attackerPage.url();
    const requestId = new URL(link).searchParams.get("request")!;
    expect(requestId).toMatch(/^[A-Za-z0-9_-]+$/);
    expect((await attacker.cookies()).map((cookie) => cookie.name)).toEqual(expect.arrayContaining(["_interaction_resume"]));

    // The victim opens the link in theirs, sees the app, signs in with their wallet and approves.
    const d = await openDashboard(browser, site.stack, victim.privateKey);
    await d.page.goto(link);
    const approved = await approve(d);
    // The victim's browser did not start the sign-in: it is refused, not sent to the app.
    expect(approved.status).toBe(400);
    const victimSaw = await d.page.locator("body").innerText();

    // The attacker follows the resumption with their own cookies: no code reaches the app, so no token
    // for the victim's wallet.
    const resume = `${siteUrl}/oauth/authorize/${requestId}`;
    const attempt = await attackerPage.goto(resume);
    const stolen = attackerPage.url().startsWith(callback.url) ? new URL(attackerPage.url()).searchParams.get("code") : null;
    if (stolen) {
      const exchanged = await tokenRequest(siteUrl, { grant_type: "authorization_code", code: stolen, code_verifier: verifier.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id, resource: siteUrl });
      const tokens = (await exchanged.json()) as Partial<Tokens>;
      const credentials = await fetch(`${siteUrl}/v1/credentials`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(credentials.status, "the attacker's token opens the victim's credentials").not.toBe(200);
    }
    expect(stolen).toBeNull();
    expect(attempt?.status()).toBe(400);
    expect(victimSaw).toContain("approved in a browser other than the one that started it");
    // Nor with the victim's whole redirect_to (had it leaked): the failed attempt voided the approval.
    const leaked = await attackerPage.goto(approved.redirectTo);
    expect(leaked?.status()).toBe(400);
    expect(attackerPage.url().startsWith(callback.url)).toBe(false);
    expect(callback.seen.filter((url) => url.searchParams.get("state") === "attack" && url.searchParams.has("code"))).toEqual([]);

    // The victim's Connected apps hold nothing for it.
    await d.page.goto(`${siteUrl}/apps`);
    await d.page.getByRole("heading", { name: "Connected apps" }).waitFor();
    await d.page.getByText(/^No connected apps\./).or(d.page.getByRole("table")).first().waitFor();
    expect(await d.page.getByRole("row", { name: /Look-alike app/ }).count()).toBe(0);
    await attacker.close();
    await d.context.close();
  }, 180_000);

  it("still signs in the person who starts and approves in one browser", async () => {
    const client = await registerClient(siteUrl, { client_name: "Same browser app", redirect_uris: [callback.url] });
    const verifier = pkce();
    const d = await openDashboard(browser, site.stack, victim.privateKey);
    await d.page.goto(authorizeUrl(client, verifier.challenge, "own"));
    await d.page.waitForURL(/\/connect\?request=/);
    await approve(d);
    await d.page.waitForURL((at) => at.href.startsWith(callback.url));
    const back = new URL(d.page.url());
    expect(back.searchParams.get("state")).toBe("own");
    const res = await tokenRequest(siteUrl, { grant_type: "authorization_code", code: back.searchParams.get("code")!, code_verifier: verifier.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id, resource: siteUrl });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as Tokens;
    const credentials = await fetch(`${siteUrl}/v1/credentials`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(credentials.status).toBe(200);
    await d.context.close();
  }, 180_000);
});

/** How long the store takes over a grant's last-use write in lambdaFreezeOfLastUse. */
const SLOW_WRITE_MS = 1_500;

/** Serves the API's grant last-use writes as a Lambda runtime would: each is slow (SLOW_WRITE_MS), and
 * one still under way when the app's `fetch` has its answer is dropped (the runtime froze). */
function lambdaFreezeOfLastUse() {
  const doc = world.services.tables.doc;
  const send = doc.send.bind(doc);
  let answered = false;
  const counts = { started: 0, stored: 0, lost: 0 };
  const isLastUse = (command: unknown) =>
    command instanceof UpdateCommand && command.input.TableName === world.services.tables.name("oauth") && String(command.input.UpdateExpression).includes("last_used_at");
  doc.send = (async (command: unknown, ...rest: unknown[]) => {
    if (!isLastUse(command)) return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    counts.started += 1;
    await new Promise((resolve) => setTimeout(resolve, SLOW_WRITE_MS));
    if (answered) {
      counts.lost += 1;
      return {};
    }
    const out = await (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    counts.stored += 1;
    return out;
  }) as typeof doc.send;
  return {
    fetch: async (input: string | URL, init?: RequestInit) => {
      const res = await fetch(input, init);
      answered = true;
      return res;
    },
    writes: () => ({ ...counts }),
    stop: () => {
      doc.send = send as typeof doc.send;
    },
  };
}

describe("Connected apps' Last used", () => {
  it("shows when the app's token listed the agents and ran one (Never before)", async () => {
    const client = await registerClient(siteUrl, { client_name: "Used app", redirect_uris: [callback.url] });
    const verifier = pkce();
    const d = await openDashboard(browser, site.stack, victim.privateKey);
    await d.page.goto(authorizeUrl(client, verifier.challenge, "used"));
    await d.page.waitForURL(/\/connect\?request=/);
    await approve(d);
    await d.page.waitForURL((at) => at.href.startsWith(callback.url));
    const code = new URL(d.page.url()).searchParams.get("code")!;
    const res = await tokenRequest(siteUrl, { grant_type: "authorization_code", code, code_verifier: verifier.verifier, redirect_uri: client.redirect_uri, client_id: client.client_id, resource: siteUrl });
    const tokens = (await res.json()) as Tokens;

    const row = d.page.getByRole("row", { name: /Used app/ });
    await d.page.goto(`${siteUrl}/apps`);
    await row.waitFor();
    expect((await row.getByRole("cell").nth(3).innerText()).trim()).toBe("Never");

    // The app's calls are served as on Lambda, where nothing runs once an answer is sent: a write of the
    // grant's last use still under way when the app has its answer is lost. The store is slow for that
    // write (SLOW_WRITE_MS), so a last use left to finish after the answer would be.
    const stopModel = lambdaFreezeOfLastUse();
    const mcp = new Client({ name: "trust", version: "1.0.0" });
    try {
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${siteUrl}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } }, fetch: stopModel.fetch }));
      expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain("trust_researcher");
      const result = (await mcp.callTool({ name: "trust_researcher", arguments: { task: "find facts" } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      await mcp.close();
    } finally {
      stopModel.stop();
    }

    // The page, loaded again, says when: the time of the use, not "Never".
    await d.page.goto(`${siteUrl}/apps`);
    await row.waitFor();
    // The table's columns: App, May, Approved, Last used.
    const lastUsed = await row.getByRole("cell").nth(3).innerText();
    expect(lastUsed.trim()).not.toBe("Never");
    expect(lastUsed.trim()).toMatch(/\d/);
    // One write (the use after it falls in the same minute), stored before its answer left.
    expect(stopModel.writes()).toEqual({ started: 1, stored: 1, lost: 0 });
    await d.context.close();
  }, 180_000);
});
