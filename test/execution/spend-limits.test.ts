// Spending limits per API key and per connected app, end to end on the real chain, contract and
// dynalite, the API served over HTTP: limits set when a key is created and changed later, enforced at
// admission with the run's price held exactly as the balance is (50 concurrent runs on a limit for 7 give
// 7 charged and 43 refused before any work), a failed run giving its hold back, the 402 answer with the
// limit and its reset time through the SDK, an app's limit set on the consent, and bad limits refused
// with nothing stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { AgentRentalClient, SpendLimitError } from "@agent-rental/sdk";
import type { Hex } from "viem";
import { createKey } from "../support/auth.ts";
import { registerClient, signInApp, startAuthorization } from "../support/oauth.ts";
import { startWorld, type PublishedAgent, type Renter, type World } from "../support/world.ts";
import type { AgentCall } from "../support/connected-agent.ts";

let world: World;
let base: string;

interface Limit { currency?: string; period: string; amount: string }
interface LimitView { currency: string; period: string; amount: string; spent: string; reserved: string; remaining: string; resets_at: string | null }
interface KeyView { key_id: string; key?: string; spend_limits: LimitView[] }

async function agent(call: AgentCall): Promise<void> {
  await call.gate();
  if (call.task.startsWith("fail")) return call.fail(500, '{"error":"boom"}');
  call.output({ findings: [`done: ${call.task}`] });
}

function api(bearer: string, path: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${base}${path}`, { method: init.method ?? "GET", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
}

/** POST /v1/keys with limits, as the dashboard does: the challenge, the wallet's signature, the key. */
async function createLimitedKey(renter: Renter, spendLimits: unknown): Promise<Response> {
  const request = (await (await api(renter.token, "/v1/keys/challenge", { method: "POST", body: { label: "limited" } })).json()) as { nonce: string; message: string };
  const signature = await renter.account.signMessage({ message: request.message });
  return api(renter.token, "/v1/keys", { method: "POST", body: { nonce: request.nonce, signature, spend_limits: spendLimits } });
}

async function keyOf(renter: Renter, keyId: string): Promise<KeyView> {
  const { keys } = (await (await api(renter.token, "/v1/keys")).json()) as { keys: KeyView[] };
  return keys.find((k) => k.key_id === keyId)!;
}

async function balanceOf(listing: PublishedAgent, wallet: Hex): Promise<bigint> {
  const [balance] = await world.services.chain.client.readContract({ address: world.services.chain.marketplace, abi: marketplaceAbi, functionName: "perQueryBalances", args: [listing.onChainId, wallet] });
  return balance;
}

const run = (key: string, listing: PublishedAgent, task: string) => api(key, "/v1/execute", { method: "POST", body: { agent_id: listing.agent_id, task } });
const deliveriesOf = (name: string) => world.agent.deliveries.filter((d) => d.agent === name).length;

beforeAll(async () => {
  world = await startWorld({ agent: { handler: agent } });
  base = world.url;
}, 240_000);

afterAll(() => world?.close());

describe("a key's spending limit: POST /v1/keys, PATCH /v1/keys/{key_id}", () => {
  it("gives exactly 7 charged runs of 50 concurrent ones on a limit covering 7; the other 43 are refused 402 before any work", async () => {
    const listing = await world.publishConnected("limit-fifty", { rental: "per_query", price: "0.0011" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 20n });
    const limit = (listing.priceWei * 7n + listing.priceWei / 2n).toString();
    const created = await createLimitedKey(renter, [{ currency: "ETH", period: "day", amount: limit }]);
    expect(created.status).toBe(201);
    const key = (await created.json()) as KeyView;
    expect(key.spend_limits).toEqual([expect.objectContaining({ currency: "ETH", period: "day", amount: limit, spent: "0", reserved: "0", remaining: limit })]);

    const before = deliveriesOf("limit-fifty");
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => run(key.key!, listing, `parallel ${i}`)));
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), body: (await r.json()) as { status?: string; cost_wei?: number; error?: { code: string; status: number; spend_limit?: LimitView & { scope: string; id: string } } } })));
    const charged = bodies.filter((b) => b.status === 200);
    const refused = bodies.filter((b) => b.status !== 200);
    expect(charged).toHaveLength(7);
    expect(charged.every((b) => b.body.status === "completed" && BigInt(b.body.cost_wei!) === listing.priceWei)).toBe(true);
    expect(refused).toHaveLength(43);
    const midnight = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1)).toISOString();
    for (const b of refused) {
      expect(b.status).toBe(402);
      expect(b.body.error).toMatchObject({ code: "spend_limit_reached", status: 402, spend_limit: { scope: "key", id: key.key_id, currency: "ETH", period: "day", amount: limit, resets_at: midnight } });
      expect(Number(b.retryAfter)).toBeGreaterThan(0);
      expect(Number(b.retryAfter)).toBeLessThanOrEqual(86_400);
    }
    // Refused before any work: the agent saw 7 deliveries, the chain 7 charges.
    expect(deliveriesOf("limit-fifty") - before).toBe(7);
    expect(await balanceOf(listing, renter.account.address)).toBe(listing.priceWei * 13n);
    const after = await keyOf(renter, key.key_id);
    expect(after.spend_limits[0]).toMatchObject({ spent: (listing.priceWei * 7n).toString(), reserved: "0", remaining: (BigInt(limit) - listing.priceWei * 7n).toString(), resets_at: midnight });
  }, 120_000);

  it("gives a failed run's hold back (never charged, never counted); a limit raised later lets runs through again", async () => {
    const listing = await world.publishConnected("limit-failed", { rental: "per_query" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 5n });
    const created = (await (await createLimitedKey(renter, [{ period: "total", amount: listing.priceWei.toString() }])).json()) as KeyView;
    const failed = (await (await run(created.key!, listing, "fail at once")).json()) as { status: string; cost_wei: number };
    expect(failed).toMatchObject({ status: "failed", cost_wei: 0 });
    expect((await keyOf(renter, created.key_id)).spend_limits[0]).toMatchObject({ spent: "0", reserved: "0", remaining: listing.priceWei.toString() });
    expect((await run(created.key!, listing, "first")).status).toBe(200);
    const second = await run(created.key!, listing, "second");
    expect(second.status).toBe(402);
    // A total limit never resets: no reset time, no Retry-After.
    expect(((await second.json()) as { error: { spend_limit: LimitView } }).error.spend_limit.resets_at).toBeNull();
    expect(second.headers.get("retry-after")).toBeNull();

    // An API key cannot lift its own limit; the wallet's sign-in can.
    const byKey = await api(created.key!, `/v1/keys/${created.key_id}`, { method: "PATCH", body: { spend_limits: [] } });
    expect(byKey.status).toBe(403);
    expect(((await byKey.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    const raised = await api(renter.token, `/v1/keys/${created.key_id}`, { method: "PATCH", body: { spend_limits: [{ currency: "ETH", period: "total", amount: (listing.priceWei * 2n).toString() }] } });
    expect(raised.status).toBe(200);
    expect(((await raised.json()) as KeyView).spend_limits[0]).toMatchObject({ amount: (listing.priceWei * 2n).toString(), spent: listing.priceWei.toString(), remaining: listing.priceWei.toString() });
    expect((await run(created.key!, listing, "third")).status).toBe(200);
    expect((await run(created.key!, listing, "fourth")).status).toBe(402);
    // Removing the limits removes the bound.
    expect((await api(renter.token, `/v1/keys/${created.key_id}`, { method: "PATCH", body: { spend_limits: [] } })).status).toBe(200);
    expect((await run(created.key!, listing, "fifth")).status).toBe(200);
  }, 120_000);

  it("3 runs a day, 10 at once through the SDK: exactly 3 charged, 7 refused with SpendLimitError and the reset time", async () => {
    const listing = await world.publishConnected("limit-sdk", { rental: "per_query" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
    const owner = new AgentRentalClient({ baseUrl: base, token: renter.token });
    const created = await owner.keys.create("three a day", renter.account, { spendLimits: [{ period: "day", amount: (listing.priceWei * 3n).toString() }] });
    const script = new AgentRentalClient({ baseUrl: base, apiKey: created.key, retries: 0 });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => script.execute({ agent_id: listing.agent_id, task: `script ${i}` })));
    const ok = outcomes.filter((o) => o.status === "fulfilled");
    const no = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(ok).toHaveLength(3);
    expect(no).toHaveLength(7);
    const midnight = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1));
    for (const { reason } of no) {
      expect(reason).toBeInstanceOf(SpendLimitError);
      const error = reason as SpendLimitError;
      expect(error).toMatchObject({ code: "spend_limit_reached", status: 402 });
      expect(error.resetsAt?.toISOString()).toBe(midnight.toISOString());
      expect(error.limit).toMatchObject({ scope: "key", period: "day", amount: (listing.priceWei * 3n).toString() });
      expect(error.retryAfter).toBeGreaterThan(0);
    }
    const [key] = (await owner.keys.list()).filter((k) => k.key_id === created.key_id);
    expect(key!.spend_limits[0]).toMatchObject({ spent: (listing.priceWei * 3n).toString(), remaining: "0" });
    const changed = await owner.keys.setSpendLimits(created.key_id, [{ period: "month", amount: (listing.priceWei * 9n).toString() }]);
    // A limit over a period that had none counts from when it is set (decision 0170); the day's, kept, still counts its spending.
    expect(changed.spend_limits).toEqual([expect.objectContaining({ period: "month", spent: "0" })]);
    const both = await owner.keys.setSpendLimits(created.key_id, [{ period: "month", amount: (listing.priceWei * 9n).toString() }, { period: "day", amount: (listing.priceWei * 4n).toString() }]);
    expect(both.spend_limits[1]).toMatchObject({ period: "day", spent: (listing.priceWei * 3n).toString(), remaining: listing.priceWei.toString() });
  }, 120_000);
});

describe("bad limits", () => {
  let renter: Renter;
  beforeAll(async () => {
    renter = await world.renter();
  });

  const huge = (10n ** 24n + 1n).toString();
  it.each([
    ["a negative amount", [{ period: "day", amount: "-5" }]],
    ["a zero amount", [{ period: "day", amount: "0" }]],
    ["an absurd amount", [{ period: "month", amount: huge }]],
    ["a fractional amount", [{ period: "day", amount: "1.5" }]],
    ["a number too large to be exact", [{ period: "day", amount: 1e30 }]],
    ["no period", [{ amount: "1000" }]],
    ["a zero period", [{ period: "", amount: "1000" }]],
    ["an unknown period", [{ period: "week", amount: "1000" }]],
    ["a currency no listing uses", [{ currency: "USDC", period: "day", amount: "1000" }]],
    ["two limits for one period", [{ period: "day", amount: "1000" }, { period: "day", amount: "2000" }]],
    ["an unknown field", [{ period: "day", amount: "1000", rolling: true }]],
    ["not a list", { period: "day", amount: "1000" }],
  ] as [string, unknown][])("refuses %s with 400 invalid_request, on creation and on change, storing nothing", async (_what, limits) => {
    const keysBefore = ((await (await api(renter.token, "/v1/keys")).json()) as { keys: KeyView[] }).keys;
    const created = await createLimitedKey(renter, limits);
    expect(created.status).toBe(400);
    const error = ((await created.json()) as { error: { code: string; status: number; message: string } }).error;
    expect(error).toMatchObject({ code: "invalid_request", status: 400 });
    expect(error.message).toMatch(/spend_limits/);
    expect(created.headers.get("x-ratelimit-limit")).not.toBeNull();
    const keysAfter = ((await (await api(renter.token, "/v1/keys")).json()) as { keys: KeyView[] }).keys;
    expect(keysAfter).toHaveLength(keysBefore.length);

    const [existing] = keysAfter;
    const changed = await api(renter.token, `/v1/keys/${existing!.key_id}`, { method: "PATCH", body: { spend_limits: limits } });
    expect(changed.status).toBe(400);
    expect(((await changed.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    expect((await keyOf(renter, existing!.key_id)).spend_limits).toEqual(existing!.spend_limits);
  });

  it("refuses a change to another wallet's key as not found", async () => {
    const other = await world.renter();
    const theirs = await createKey({ request: (path: string, init?: RequestInit) => fetch(`${base}${path}`, init) } as never, other.account, other.token);
    const res = await api(renter.token, `/v1/keys/${theirs.key_id}`, { method: "PATCH", body: { spend_limits: [{ period: "day", amount: "1" }] } });
    expect(res.status).toBe(404);
    expect((await keyOf(other, theirs.key_id)).spend_limits).toEqual([]);
  });
});

describe("a connected app's spending limit: PATCH /v1/oauth/apps/{app_id}", () => {
  it("shows what the app proposes, takes what the person sets on approval, and stops the app at it", async () => {
    const listing = await world.publishConnected("limit-app", { rental: "per_query" });
    const renter = await world.renter();
    await world.rent(renter.account, listing, { deposit: listing.priceWei * 10n });
    const client = await registerClient(base, { client_name: "Budgeted app" });
    const proposed = `ETH:${(listing.priceWei * 5n).toString()}:day`;
    // The consent page's request shows the app's proposal.
    const started = await startAuthorization(base, client, { scope: "tasks:run", spend_limit: proposed });
    const request = (await (await api(renter.token, `/v1/oauth/requests/${started.requestId}`)).json()) as { proposed_spend_limits: Limit[] };
    expect(request.proposed_spend_limits).toEqual([{ currency: "ETH", period: "day", amount: (listing.priceWei * 5n).toString() }]);
    // A bad limit on approval is refused, and nothing is approved.
    const bad = await api(renter.token, `/v1/oauth/requests/${started.requestId}/approve`, { method: "POST", body: { spend_limits: [{ period: "day", amount: "-1" }] } });
    expect(bad.status).toBe(400);
    expect((await (await api(renter.token, "/v1/oauth/apps")).json()) as { apps: unknown[] }).toEqual({ apps: [] });

    // The person lowers it to 2 runs a day and approves.
    const tokens = await signInApp(base, client, renter.token, { scope: "tasks:run", spend_limit: proposed, spend_limits: [{ period: "day", amount: (listing.priceWei * 2n).toString() }] });
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => run(tokens.access_token, listing, `app run ${i}`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402]);
    const refusal = ((await answers.find((r) => r.status === 402)!.json()) as { error: { spend_limit: { scope: string } } }).error.spend_limit;
    expect(refusal.scope).toBe("app");
    const { apps } = (await (await api(renter.token, "/v1/oauth/apps")).json()) as { apps: { app_id: string; spend_limits: LimitView[] }[] };
    expect(apps).toHaveLength(1);
    expect(apps[0]!.spend_limits[0]).toMatchObject({ period: "day", spent: (listing.priceWei * 2n).toString(), remaining: "0" });

    // The app cannot lift its own limit; the person can, from Connected apps.
    expect((await api(tokens.access_token, `/v1/oauth/apps/${apps[0]!.app_id}`, { method: "PATCH", body: { spend_limits: [] } })).status).toBe(403);
    const raised = await api(renter.token, `/v1/oauth/apps/${apps[0]!.app_id}`, { method: "PATCH", body: { spend_limits: [{ period: "day", amount: (listing.priceWei * 3n).toString() }] } });
    expect(raised.status).toBe(200);
    expect((await run(tokens.access_token, listing, "after the raise")).status).toBe(200);
    expect((await run(tokens.access_token, listing, "past the raise")).status).toBe(402);
  }, 120_000);
});
