// `npm start` gives the whole product at one URL: the banner names the dashboard first,
// `.local/stack.json` carries `dashboard_url`, and that URL serves the app (deep links included) on the
// API's own origin, where /v1 stays the API. Started exactly as the README says, on free ports and a
// data folder of its own, and stopped by its process id.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../local/ports.ts";
import type { StackInfo } from "../../local/stack.ts";
import { launchBrowser } from "./support.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = mkdtempSync(join(tmpdir(), "web-served-"));
let child: ChildProcess | undefined;

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(async () => {
  if (child?.pid && groupAlive(child.pid)) process.kill(-child.pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the dashboard served by npm start", () => {
  it("prints the dashboard URL first, records it in stack.json, and serves the app there beside the API", async () => {
    const ports = { PORT: await freePort(), CHAIN_PORT: await freePort(), DYNAMODB_PORT: await freePort(), AWS_EMULATOR_PORT: await freePort() };
    child = spawn("npm", ["start", "--silent"], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOCAL_DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    let exited = false;
    const exit = new Promise<number | null>((resolve) => child!.once("exit", (code) => ((exited = true), resolve(code))));
    // Ready when the banner ends.
    await until("the banner", () => {
      if (exited) throw new Error(`npm start exited before it was ready:\n${stdout}\n${stderr}`);
      return stdout.includes("Press Ctrl-C to stop.");
    }, 240_000);

    const info = JSON.parse(readFileSync(join(dataDir, "stack.json"), "utf8")) as StackInfo;
    expect(info.dashboard_url).toBe(`http://127.0.0.1:${ports.PORT}/`);
    // The banner's first address is the dashboard's.
    const addresses = stdout.split("\n").filter((line) => /https?:\/\//.test(line));
    expect(addresses[0]).toMatch(new RegExp(`^\\s+Dashboard\\s+${info.dashboard_url.replace(/[.]/g, "\\.")}\\s`));

    // GET / is the app; a deep link is the same page (client-side routes); /config.json says where
    // the chain is; /v1 is still the API; a missing asset is a 404, not the page.
    const home = await fetch(info.dashboard_url);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await home.text();
    expect(html).toContain('<div id="root">');
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js">/);
    const deep = await fetch(`${info.dashboard_url}rentals`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    const config = (await (await fetch(`${info.dashboard_url}config.json`)).json()) as { chain_id: number; marketplace_address: string; rpc_url: string };
    expect(config).toMatchObject({ chain_id: info.chain_id, marketplace_address: info.contracts.marketplace, rpc_url: info.rpc_url });
    const health = await fetch(`${info.dashboard_url}v1/health`);
    expect(health.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await fetch(`${info.dashboard_url}assets/no-such-file.js`)).status).toBe(404);

    // An MCP client that knows only the MCP URL finds the sign-in: the 401's challenge, the resource's
    // metadata, the authorization server's, a registration, and the authorization sent to the
    // dashboard's consent page, which the same origin serves (the full sign-in: connect-app.test.ts).
    const origin = info.dashboard_url.replace(/\/$/, "");
    const mcp = await fetch(`${origin}/v1/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource", scope="tasks:run"`);
    const resource = (await (await fetch(`${origin}/.well-known/oauth-protected-resource`)).json()) as { resource: string; authorization_servers: string[] };
    expect(resource).toMatchObject({ resource: origin, authorization_servers: [origin] });
    const server = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { authorization_endpoint: string; registration_endpoint: string };
    const registered = await fetch(server.registration_endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Served test", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }) });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const authorize = new URL(server.authorization_endpoint);
    for (const [k, v] of Object.entries({ response_type: "code", client_id, redirect_uri: "http://127.0.0.1:9/cb", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s", resource: origin })) authorize.searchParams.set(k, v);
    const toConsent = await fetch(authorize, { redirect: "manual" });
    expect(toConsent.headers.get("location")).toMatch(new RegExp(`^${origin.replace(/[.]/g, "\\.")}/connect\\?request=`));
    const consentPage = await fetch(toConsent.headers.get("location")!, { headers: { accept: "text/html" } });
    expect(consentPage.status).toBe(200);
    expect(await consentPage.text()).toBe(html);

    // In a browser the URL is the product: the browse page asks to sign in, with no console error.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
      page.on("pageerror", (e) => void errors.push(e.message));
      await page.goto(info.dashboard_url);
      await page.getByRole("heading", { name: "Rent an agent" }).waitFor();
      await page.getByRole("heading", { name: "Sign in to browse the marketplace" }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }

    // Stopped by its process id: it exits cleanly and removes stack.json.
    process.kill(info.pid, "SIGTERM");
    expect(await exit).toBe(0);
    await until("the process group to end", () => !groupAlive(child!.pid!), 20_000);
    expect(existsSync(join(dataDir, "stack.json"))).toBe(false);
  }, 300_000);
});
