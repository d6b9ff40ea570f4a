// Spending limits in the dashboard, in real Chromium against the server `npm start` runs (the API with
// the dashboard in front, `listenSite`, on the test world): a key created with a limit on the keys page,
// its limit edited there (and a bad amount refused on the page, nothing saved); alert settings saved there
// (the webhook's secret shown once) and a low-balance alert listed; the consent page showing
// the limit an app proposes, the person lowering it before approving, and Connected apps showing it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { World } from "../support/world.ts";
import type { Account } from "../support/chain-actions.ts";
import { pkce, registerClient } from "../support/oauth.ts";
import { type WorldSite, connectAndSignIn, openDashboard, startWorldSite } from "./support.ts";

let world: World;
let site: WorldSite;
let siteUrl: string;
let browser: Browser;
let renter: Account;

async function limitsOf(path: string, token: string): Promise<{ period: string; amount: string }[][]> {
  const body = (await (await fetch(`${siteUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, { spend_limits: { period: string; amount: string }[] }[]>;
  return Object.values(body)[0]!.map((item) => item.spend_limits.map(({ period, amount }) => ({ period, amount })));
}

beforeAll(async () => {
  site = await startWorldSite({ jobs: { only: ["alerts"], everyMs: { alerts: 200 } } });
  ({ world, siteUrl, browser } = site);
  const agent = await world.publishConnected("limits-researcher", { rental: "per_query" });
  renter = await world.account();
  await world.rent(renter, agent);
}, 240_000);

afterAll(async () => {
  await site?.close();
});

describe("the keys page's spending limits", () => {
  it("creates a key with a daily limit, shows it with its spending, edits it, and refuses a bad amount on the page", async () => {
    const d = await openDashboard(browser, site.stack, renter.privateKey);
    await d.page.goto(`${siteUrl}/keys`);
    await connectAndSignIn(d);
    await d.page.getByRole("button", { name: "New API Key" }).click();
    await d.page.getByLabel("Label").fill("budgeted script");
    await d.page.getByLabel("Per day (UTC)").fill("0.003");
    await d.page.getByRole("button", { name: "Create key" }).click();
    await d.page.getByTestId("new-api-key").waitFor();
    await d.page.getByRole("button", { name: "I stored it" }).click();
    const row = d.page.getByRole("row", { name: /budgeted script/ });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/0\.003 ETH per day · spent 0 ETH · 0\.003 ETH left · resets/);
    const token = await world.signIn(renter);
    expect(await limitsOf("/v1/keys", token)).toEqual([[{ period: "day", amount: "3000000000000000" }]]);

    await row.getByRole("button", { name: "Edit limit of budgeted script" }).click();
    const dialog = d.page.getByRole("dialog");
    await dialog.getByLabel("Per month (UTC)").fill("lots");
    await dialog.getByRole("button", { name: "Save limit" }).click();
    await expect.poll(() => dialog.getByRole("alert").innerText()).toMatch(/Per month \(UTC\): enter an amount of ETH/);
    expect(await limitsOf("/v1/keys", token)).toEqual([[{ period: "day", amount: "3000000000000000" }]]);

    await dialog.getByLabel("Per day (UTC)").fill("");
    await dialog.getByLabel("Per month (UTC)").fill("0.05");
    await dialog.getByRole("button", { name: "Save limit" }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/0\.05 ETH per month · spent 0 ETH · 0\.05 ETH left/);
    expect(await row.innerText()).not.toMatch(/per day/);
    expect(await limitsOf("/v1/keys", token)).toEqual([[{ period: "month", amount: "50000000000000000" }]]);
    await d.shot("keys-spending-limit");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);
});

describe("the keys page's alerts", () => {
  it("saves a webhook and a low-balance threshold, shows the signing secret once, and lists the alert a low balance raises", async () => {
    const agent = await world.publishConnected("alerts-researcher", { rental: "per_query", price: "0.001" });
    const holder = await world.renter();
    await world.rent(holder.account, agent, { deposit: agent.priceWei * 3n });
    const d = await openDashboard(browser, site.stack, holder.account.privateKey);
    await d.page.goto(`${siteUrl}/keys`);
    await connectAndSignIn(d);
    await d.page.getByLabel("Webhook URL").fill("https://hooks.example.com/agent-rental");
    await d.page.getByLabel(/per-task balance covers fewer than/).fill("2");
    await d.page.getByRole("button", { name: "Save alert settings" }).click();
    await expect.poll(() => d.page.getByTestId("alert-webhook-secret").innerText(), { timeout: 15_000 }).toMatch(/^whsec_/);
    const token = await world.signIn(holder.account);
    const stored = (await (await fetch(`${siteUrl}/v1/alerts/settings`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, unknown>;
    expect(stored).toMatchObject({ webhook_url: "https://hooks.example.com/agent-rental", low_balance_runs: 2 });

    // Two runs leave one: below two, one alert.
    for (const task of ["one", "two"]) {
      const answer = await fetch(`${siteUrl}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${holder.key}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: agent.agent_id, task }) });
      expect(answer.status).toBe(200);
    }
    await d.page.reload();
    const rows = d.page.getByTestId("alert-row");
    await expect.poll(async () => (await rows.count()) > 0 ? await rows.first().innerText() : "", { timeout: 30_000 }).toMatch(/covers 1 run\(s\), below your 2/);
    expect(await d.page.getByTestId("alert-webhook-secret").count()).toBe(0);
    await d.shot("keys-alerts");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);
});

describe("the consent page's spending limit", () => {
  it("shows the limit the app proposes; the person lowers it and approves; Connected apps shows it", async () => {
    const client = await registerClient(siteUrl, { client_name: "Budgeted agent", redirect_uris: [`${siteUrl}/callback-not-served`] });
    const verifier = pkce();
    const url = new URL(`${siteUrl}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: client.redirect_uri, code_challenge: verifier.challenge, code_challenge_method: "S256", state: "limits", resource: siteUrl, scope: "tasks:run", spend_limit: "ETH:20000000000000000:day" }).toString();
    const d = await openDashboard(browser, site.stack, renter.privateKey);
    await d.page.goto(url.href);
    await d.page.getByLabel("Signed in").or(d.page.getByRole("button", { name: "Connect wallet" })).first().waitFor();
    if ((await d.page.getByLabel("Signed in").count()) === 0) await connectAndSignIn(d);
    await d.page.getByRole("heading", { name: /wants to use your account/ }).waitFor();
    await expect.poll(() => d.page.getByTestId("consent-proposed-limit").innerText()).toMatch(/proposes a limit of 0\.02 ETH per day/);
    const daily = d.page.getByTestId("consent-spend-limit").getByLabel("Per day (UTC)");
    expect(await daily.inputValue()).toBe("0.02");
    await daily.fill("0.004");
    const decided = d.page.waitForResponse((res) => /\/v1\/oauth\/requests\/[^/]+\/approve$/.test(res.url()) && res.request().method() === "POST");
    await d.page.getByRole("button", { name: "Approve", exact: true }).click();
    expect((await decided).status()).toBe(200);
    // The approval sends the browser on to the app's redirect URI; that navigation ends before the next.
    await d.page.waitForURL(/\/callback-not-served\?code=/);
    const token = await world.signIn(renter);
    expect(await limitsOf("/v1/oauth/apps", token)).toEqual([[{ period: "day", amount: "4000000000000000" }]]);

    await d.page.goto(`${siteUrl}/apps`);
    const row = d.page.getByRole("row", { name: /Budgeted agent/ });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/0\.004 ETH per day · spent 0 ETH · 0\.004 ETH left/);
    await d.shot("connected-app-spending-limit");
    await d.context.close();
  }, 120_000);
});
