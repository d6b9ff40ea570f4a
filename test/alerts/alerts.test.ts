// Alerts end to end on the real chain, contract and dynalite, the API served over HTTP and a real HTTPS
// receiver: a key's spending limit alerts at 80% and at 100% (once each, however many runs follow), a
// per-task balance alerts when it falls below the chosen number of runs and again only after a top-up,
// every delivery is signed (Standard Webhooks) and a failing receiver is retried with backoff until it
// answers; the renter's on-chain charge cap alerts at 80% and at 100% of its period, once each, a cap set
// while a run is in flight included; the settings refuse bad input with nothing stored, and only a wallet
// sign-in changes them.
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentRentalClient } from "@agent-rental/sdk";
import { verifyWebhook } from "../../src/execution/agents/webhook-signature.ts";
import { writeMarketplace } from "../../src/chain/write.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";
import { until } from "../support/until.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import type { AgentCall } from "../support/connected-agent.ts";

interface Delivery { headers: http.IncomingHttpHeaders; body: string }
interface AlertView { alert_id: string; type: string; data: Record<string, unknown>; delivery: string; attempts: number; last_error?: string }

let world: World;
let receiver: HttpsTestServer;
const deliveries: Delivery[] = [];
/** Answers the next N deliveries with 500. */
let failNext = 0;

/** Tasks the agent holds once called, until the test releases them (a run kept in flight). */
const held = new Map<string, { called: () => void; released: Promise<void> }>();

async function agent(call: AgentCall): Promise<void> {
  const hold = held.get(call.task);
  if (hold) {
    hold.called();
    await hold.released;
  }
  call.output({ findings: [`done: ${call.task}`] });
}

function api(bearer: string, path: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${world.url}${path}`, { method: init.method ?? "GET", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
}

async function alertsOf(renter: Renter): Promise<AlertView[]> {
  const answer = await api(renter.token, "/v1/alerts?limit=100");
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { alerts: AlertView[] }).alerts;
}

async function settings(renter: Renter, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await api(renter.token, "/v1/alerts/settings", { method: "PUT", body });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** POST /v1/keys with limits, as the dashboard does: the challenge, the wallet's signature, the key. */
async function createLimitedKey(renter: Renter, spendLimits: unknown): Promise<string> {
  const request = (await (await api(renter.token, "/v1/keys/challenge", { method: "POST", body: { label: "limited" } })).json()) as { nonce: string; message: string };
  const signature = await renter.account.signMessage({ message: request.message });
  const answer = await api(renter.token, "/v1/keys", { method: "POST", body: { nonce: request.nonce, signature, spend_limits: spendLimits } });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { key: string }).key;
}

const run = (bearer: string, listing: PublishedAgent, task: string) => api(bearer, "/v1/execute", { method: "POST", body: { agent_id: listing.agent_id, task } });
const deliveredTo = (wallet: string) => deliveries.filter((d) => (JSON.parse(d.body) as { data: { wallet: string } }).data.wallet === wallet.toLowerCase());

beforeAll(async () => {
  receiver = await startHttpsServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      if (failNext > 0) {
        failNext -= 1;
        res.writeHead(500).end("down");
        return;
      }
      deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  world = await startWorld({ agent: { handler: agent }, env: { ALERT_RETRY_BASE_MS: "100" }, jobs: { only: ["alerts"], everyMs: { alerts: 100 } } });
}, 240_000);

afterAll(async () => {
  await world?.close();
  await receiver?.stop();
});

describe("PUT /v1/alerts/settings, GET /v1/alerts/settings", () => {
  it("makes the signing secret once, returns it only then, and rotates it on request", async () => {
    const renter = await world.renter();
    const unset = await api(renter.token, "/v1/alerts/settings");
    expect(unset.status).toBe(200);
    expect(await unset.json()).toEqual({ webhook_url: null, low_balance_runs: null, created_at: null, updated_at: null });
    const first = await settings(renter, { webhook_url: `${receiver.url}/hooks`, low_balance_runs: 3 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ webhook_url: `${receiver.url}/hooks`, low_balance_runs: 3 });
    expect(first.body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const read = (await (await api(renter.token, "/v1/alerts/settings")).json()) as Record<string, unknown>;
    expect(read).toMatchObject({ webhook_url: `${receiver.url}/hooks`, low_balance_runs: 3 });
    expect(read).not.toHaveProperty("webhook_secret");
    const again = await settings(renter, { webhook_url: `${receiver.url}/other`, low_balance_runs: null });
    expect(again.body).not.toHaveProperty("webhook_secret");
    expect(again.body).toMatchObject({ webhook_url: `${receiver.url}/other`, low_balance_runs: null });
    const rotated = await settings(renter, { webhook_url: `${receiver.url}/other`, rotate_secret: true });
    expect(rotated.body.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.body.webhook_secret).not.toBe(first.body.webhook_secret);

    // The same through the SDK.
    const other = await world.renter();
    const client = new AgentRentalClient({ baseUrl: world.url, token: other.token });
    expect(await client.alerts.getSettings()).toMatchObject({ webhook_url: null, low_balance_runs: null });
    const made = await client.alerts.setSettings({ webhookUrl: `${receiver.url}/sdk`, lowBalanceRuns: 4 });
    expect(made).toMatchObject({ webhook_url: `${receiver.url}/sdk`, low_balance_runs: 4, webhook_secret: expect.stringMatching(/^whsec_/) });
    expect(await client.alerts.getSettings()).toMatchObject({ webhook_url: `${receiver.url}/sdk`, low_balance_runs: 4 });
    expect(await client.alerts.list()).toEqual([]);
  }, 180_000);

  it("refuses bad settings with 400 and keeps what was stored", async () => {
    const renter = await world.renter();
    await settings(renter, { webhook_url: `${receiver.url}/kept`, low_balance_runs: 2 });
    const bad: unknown[] = [
      { webhook_url: "not a url" },
      { webhook_url: "ftp://example.com/x" },
      { webhook_url: "http://example.com/hook" },
      { webhook_url: "https://user:pass@example.com/hook" },
      { webhook_url: `https://example.com/${"a".repeat(2100)}` },
      { webhook_url: null, low_balance_runs: 0 },
      { webhook_url: null, low_balance_runs: -1 },
      { webhook_url: null, low_balance_runs: 1.5 },
      { webhook_url: null, low_balance_runs: 10_000_001 },
      { webhook_url: null, extra: true },
      {},
      [],
    ];
    for (const body of bad) {
      const answer = await api(renter.token, "/v1/alerts/settings", { method: "PUT", body });
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.headers.get("ratelimit-limit") ?? answer.headers.get("x-ratelimit-limit")).not.toBeNull();
      const error = ((await answer.json()) as { error: { code: string; status: number } }).error;
      expect(error).toMatchObject({ code: "invalid_request", status: 400 });
    }
    const read = (await (await api(renter.token, "/v1/alerts/settings")).json()) as Record<string, unknown>;
    expect(read).toMatchObject({ webhook_url: `${receiver.url}/kept`, low_balance_runs: 2 });
  }, 180_000);

  it("is changed with a wallet sign-in only: an API key gets 403 forbidden, and may read", async () => {
    const renter = await world.renter();
    const answer = await api(renter.key, "/v1/alerts/settings", { method: "PUT", body: { webhook_url: `${receiver.url}/stolen` } });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect((await api(renter.key, "/v1/alerts/settings")).status).toBe(200);
    expect((await api(renter.key, "/v1/alerts")).status).toBe(200);
  }, 180_000);
});

describe("alerts on a key's spending limit, GET /v1/alerts", () => {
  it("alerts at 80% and at 100% once each, signed, and none for the refused runs after", async () => {
    const listing = await world.publishConnected("alert-limit", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 20n });
    const { body: set } = await settings(renter, { webhook_url: `${receiver.url}/limits` });
    const secret = set.webhook_secret as string;
    // A limit of exactly 5 runs: 80% is reached by the fourth run, 100% (no sixth run fits) by the fifth.
    const key = await createLimitedKey(renter, [{ currency: "ETH", period: "day", amount: (listing.priceWei * 5n).toString() }]);
    for (let i = 0; i < 3; i++) expect((await run(key, listing, `r${i}`)).status).toBe(200);
    expect((await alertsOf(renter)).filter((a) => a.type === "spend_limit")).toEqual([]);
    expect((await run(key, listing, "r3")).status).toBe(200);
    await until("the 80% alert", async () => (await alertsOf(renter)).some((a) => a.type === "spend_limit" && a.data.threshold === 80));
    expect((await run(key, listing, "r4")).status).toBe(200);
    await until("the 100% alert", async () => (await alertsOf(renter)).some((a) => a.type === "spend_limit" && a.data.threshold === 100));
    for (let i = 0; i < 3; i++) expect((await run(key, listing, `refused ${i}`)).status).toBe(402);

    await until("both delivered", async () => (await alertsOf(renter)).filter((a) => a.delivery === "delivered").length === 2);
    const alerts = (await alertsOf(renter)).filter((a) => a.type === "spend_limit");
    expect(alerts.map((a) => a.data.threshold).sort()).toEqual([100, 80]);
    expect(alerts.every((a) => a.data.scope === "key" && a.data.period === "day" && a.data.amount === (listing.priceWei * 5n).toString())).toBe(true);
    expect(alerts.find((a) => a.data.threshold === 100)!.data).toMatchObject({ spent: (listing.priceWei * 5n).toString(), remaining: "0" });
    const received = deliveredTo(renter.account.address);
    expect(received).toHaveLength(2);
    for (const delivery of received) {
      expect(verifyWebhook(secret, delivery.headers as Record<string, string>, delivery.body)).toBe(true);
      expect(verifyWebhook(secret.replace(/.$/, (c) => (c === "A" ? "B" : "A")), delivery.headers as Record<string, string>, delivery.body)).toBe(false);
      const payload = JSON.parse(delivery.body) as { type: string; data: { alert_id: string } };
      expect(payload.type).toBe("alert.spend_limit");
      expect(delivery.headers["webhook-id"]).toBe(payload.data.alert_id);
    }
  }, 180_000);

  it("retries a failing receiver with backoff until it answers, and lists the attempts", async () => {
    const listing = await world.publishConnected("alert-retry", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 5n });
    await settings(renter, { webhook_url: `${receiver.url}/flaky` });
    const key = await createLimitedKey(renter, [{ currency: "ETH", period: "total", amount: listing.priceWei.toString() }]);
    failNext = 2;
    expect((await run(key, listing, "only")).status).toBe(200);
    await until("delivered after two failures", async () => (await alertsOf(renter)).filter((a) => a.delivery === "delivered").length === 2, 60_000);
    const alerts = await alertsOf(renter);
    // One run spends the whole limit: 80% and 100% at once, two alerts; the first two attempts failed.
    expect(alerts.reduce((sum, a) => sum + a.attempts, 0)).toBe(4);
    expect(deliveredTo(renter.account.address)).toHaveLength(2);
  }, 180_000);
});

describe("alerts on a low per-task balance", () => {
  it("alerts when the balance falls below the chosen runs, once, and again only after a top-up", async () => {
    const listing = await world.publishConnected("alert-balance", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 4n });
    await settings(renter, { webhook_url: null, low_balance_runs: 3 });
    const lows = async () => (await alertsOf(renter)).filter((a) => a.type === "low_balance");
    expect((await run(renter.key, listing, "b1")).status).toBe(200); // 3 runs left: not below 3
    expect((await run(renter.key, listing, "b2")).status).toBe(200); // 2 left: below
    await until("the low-balance alert", async () => (await lows()).length === 1);
    expect((await run(renter.key, listing, "b3")).status).toBe(200); // 1 left: the same crossing
    const [first] = await lows();
    expect(first!.data).toMatchObject({ listing_id: listing.listing_id, threshold_runs: 3, runs_left: "2", price_wei: listing.priceWei.toString() });
    expect(first!.delivery).toBe("no_webhook");

    await world.market.topUpBalance(renter.account, listing.onChainId, listing.priceWei * 5n); // 6 runs
    await world.index();
    for (const task of ["b4", "b5", "b6"]) expect((await run(renter.key, listing, task)).status).toBe(200); // 5, 4, 3 left: re-armed
    expect(await lows()).toHaveLength(1);
    expect((await run(renter.key, listing, "b7")).status).toBe(200); // 2 left: below again
    await until("a second low-balance alert", async () => (await lows()).length === 2);
  }, 180_000);
});

describe("alerts on the renter's on-chain charge cap", () => {
  it("alerts at 80% (the fourth run of a cap covering 5) and at 100% (the fifth), once each, signed", async () => {
    const listing = await world.publishConnected("alert-cap", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 20n });
    const { body: set } = await settings(renter, { webhook_url: `${receiver.url}/caps` });
    const secret = set.webhook_secret as string;
    const cap = listing.priceWei * 5n;
    await writeMarketplace(world.target, renter.account, "setChargeCap", [listing.onChainId, cap, 86_400n]);
    const caps = async () => (await alertsOf(renter)).filter((a) => a.type === "charge_cap");
    for (let i = 0; i < 3; i++) expect((await run(renter.key, listing, `c${i}`)).status).toBe(200);
    expect((await run(renter.key, listing, "c3")).status).toBe(200);
    await until("the cap's 80% alert", async () => (await caps()).some((a) => a.data.threshold === 80));
    expect(await caps()).toHaveLength(1);
    expect((await run(renter.key, listing, "c4")).status).toBe(200);
    await until("the cap's 100% alert", async () => (await caps()).some((a) => a.data.threshold === 100));
    // Past the cap: refused before any work, and no further alert.
    for (let i = 0; i < 2; i++) expect((await run(renter.key, listing, `refused ${i}`)).status).toBe(402);

    await until("both delivered", async () => (await caps()).filter((a) => a.delivery === "delivered").length === 2);
    const alerts = await caps();
    expect(alerts).toHaveLength(2);
    const byThreshold = new Map(alerts.map((a) => [a.data.threshold, a.data]));
    expect(byThreshold.get(80)).toMatchObject({ listing_id: listing.listing_id, amount: cap.toString(), period_seconds: 86_400, spent: (listing.priceWei * 4n).toString(), remaining: listing.priceWei.toString() });
    expect(byThreshold.get(100)).toMatchObject({ listing_id: listing.listing_id, amount: cap.toString(), spent: cap.toString(), remaining: "0" });
    expect(Date.parse(byThreshold.get(100)!.resets_at as string)).toBeGreaterThan(Date.now() - 60_000);
    const received = deliveredTo(renter.account.address);
    expect(received).toHaveLength(2);
    for (const delivery of received) {
      expect(verifyWebhook(secret, delivery.headers as Record<string, string>, delivery.body)).toBe(true);
      const payload = JSON.parse(delivery.body) as { type: string; data: { alert_id: string; threshold: number } };
      expect(payload.type).toBe("alert.charge_cap");
      expect(delivery.headers["webhook-id"]).toBe(payload.data.alert_id);
    }
    expect(received.map((d) => (JSON.parse(d.body) as { data: { threshold: number } }).data.threshold).sort()).toEqual([100, 80]);
  }, 180_000);

  it("alerts a cap set while a run is in flight, when that run's charge crosses it", async () => {
    const listing = await world.publishConnected("alert-cap-mid-run", { rental: "per_query", price: "0.001" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
    const caps = async () => (await alertsOf(renter)).filter((a) => a.type === "charge_cap");
    let called!: () => void;
    let release!: () => void;
    const agentCalled = new Promise<void>((resolve) => (called = resolve));
    held.set("mid-run", { called, released: new Promise<void>((resolve) => (release = resolve)) });
    const answer = run(renter.key, listing, "mid-run");
    // Admitted with no cap on the listing; the agent is at work when the renter sets one of 1.2 runs.
    expect(await Promise.race([agentCalled.then(() => "called"), answer.then((a) => `answered ${a.status} first`)])).toBe("called");
    const cap = (listing.priceWei * 6n) / 5n;
    await writeMarketplace(world.target, renter.account, "setChargeCap", [listing.onChainId, cap, 86_400n]);
    release();
    const answered = await answer;
    expect(answered.status).toBe(200);
    const { run_id: runId } = (await answered.json()) as { run_id: string };
    // Its charge (one run: 5/6 of the cap, and no second run fits) reaches both thresholds.
    await until("the cap's 80% and 100% alerts", async () => (await caps()).length === 2, 30_000, 500);
    const byThreshold = new Map((await caps()).map((a) => [a.data.threshold, a.data]));
    const expected = { listing_id: listing.listing_id, amount: cap.toString(), period_seconds: 86_400, spent: listing.priceWei.toString(), remaining: (cap - listing.priceWei).toString(), run_id: runId };
    expect(byThreshold.get(80)).toMatchObject(expected);
    expect(byThreshold.get(100)).toMatchObject(expected);
    // The next run meets the cap at admission: refused before any work, and no further alert.
    expect((await run(renter.key, listing, "after the cap")).status).toBe(402);
    expect(await caps()).toHaveLength(2);
  }, 180_000);
});
