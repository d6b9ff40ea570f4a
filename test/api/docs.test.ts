// GET /v1/docs: the API reference, rendered by Scalar from the service's own document, with Scalar's
// script served by the API itself (no CDN, no fonts, nothing fetched from elsewhere), checked in a real
// headless Chromium.
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { buildApp } from "../../src/api/app.ts";
import type { TestContext } from "../support/services.ts";
import { startWorld, type World } from "../support/world.ts";
import { closeApi, serveApi } from "../support/http.ts";
import { launchBrowser, SCREENSHOTS } from "../web/support.ts";

let ctx: TestContext;
let world: World | undefined;
let app: ReturnType<typeof buildApp>;
let server: Server | undefined;
let url: string;
let browser: Browser | undefined;

beforeAll(async () => {
  world = await startWorld({ serve: false });
  ctx = world.ctx;
  app = buildApp(ctx.services);
  ({ server, url } = await serveApi(app));
});

afterAll(async () => {
  await browser?.close();
  await closeApi(server);
});

describe("GET /v1/docs", () => {
  it("answers without a token with an HTML page that loads the service's own copy of Scalar under a nonce CSP", async () => {
    const res = await app.request("/v1/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('src="/v1/docs/scalar.js"');
    expect(html).toContain("/v1/openapi.json");
    expect(html).not.toMatch(/https?:\/\//);
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`nonce="${nonce}"`);
    expect(csp).toContain("default-src 'self'");
    // A new nonce per page.
    const again = (await app.request("/v1/docs")).headers.get("content-security-policy");
    expect(again).not.toBe(csp);
  });

  it("GET /v1/docs/scalar.js serves Scalar's standalone script as JavaScript without a token", async () => {
    const res = await app.request("/v1/docs/scalar.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain("createApiReference");
  });

  it("renders the operations in headless Chromium with every request answered by the service itself", async () => {
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const foreign: string[] = [];
    const problems: string[] = [];
    // Anything not addressed to the service is refused and remembered: the reference must not need it.
    await page.route("**/*", (route) => {
      const target = route.request().url();
      if (target.startsWith(url) || target.startsWith("data:") || target.startsWith("blob:")) return route.continue();
      foreign.push(target);
      return route.abort();
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.goto(`${url}/v1/docs`);
    mkdirSync(SCREENSHOTS, { recursive: true });
    try {
      // The sidebar lists the tags; opening Execution shows its operations by their summaries.
      await page.getByText("Execution", { exact: true }).first().click({ timeout: 20_000 });
      await page.getByText("Run a task", { exact: true }).first().waitFor({ timeout: 10_000 });
      await expect(page.getByText("Run a task, streamed", { exact: true }).first().isVisible()).resolves.toBe(true);
    } finally {
      // Kept as the artifact to look at, whether the page rendered or not.
      await page.screenshot({ path: join(SCREENSHOTS, "docs.png") });
      if (foreign.length > 0 || problems.length > 0) console.error({ foreign, problems });
    }
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);
});
