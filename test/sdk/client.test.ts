// The SDK against the real service over HTTP: the API served with @hono/node-server on a free port, the
// real chain and contract, dynalite, and a connected agent on a real HTTPS server. Covers sign-in
// (viem account and EIP-1193 provider), API keys, search, credentials, execute with exact wei,
// streaming (abort, resuming a dropped connection), typed errors and the retry rules.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import { registerClient, startAuthorization } from "../support/oauth.ts";
import type { RentalModel } from "@agent-rental/core/vocabulary";
import { AccessError, AgentRentalClient, AgentRentalError, ApiError, AuthError, NotFoundError, RateLimitError, type Eip1193Provider, type StreamEvent } from "@agent-rental/sdk";

let world: World;
let baseUrl: string;
let renter: Account;
let client: AgentRentalClient;
let oneTime: PublishedAgent;
let perQuery: PublishedAgent;
let unrented: PublishedAgent;
const deliveries = () => world.agent.deliveries;
const hold = (task: string) => world.agent.gates.hold(task);

/** The connected agent; its behaviour is chosen by the task's first word. */
async function agent(call: AgentCall): Promise<void> {
  const [word] = call.task.split(" ");
  if (word !== "drip") await call.gate();
  if (word === "stream" || word === "drip") {
    const pieces = word === "stream" ? ["alpha ", "beta ", "gamma"] : ["one ", "two"];
    return call.stream(pieces, { findings: pieces.map((p) => p.trim()) }, (i) => (i === 0 ? call.gate() : undefined));
  }
  call.output({ findings: [`done: ${call.task}`] });
}

const MANIFEST = {
  category: "research",
  description: "A connected test agent for the SDK",
  model: { provider: "provider_a", model: "m" },
  input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
  timeout_seconds: 10,
};

const publishConnected = (name: string, rental: RentalModel, price = "0.001") => world.publishConnected(name, { manifest: MANIFEST, rental, price });

/** A fetch that records each request's method, path and headers, then passes it on. */
function recordingFetch(log: { method: string; path: string; headers: Headers }[], inner: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    log.push({ method: init?.method ?? "GET", path: url.pathname, headers: new Headers(init?.headers) });
    return inner(input, init);
  };
}

/** A fetch that answers `status` for the first `times` requests to `path`, then passes them on. */
function failingFetch(path: string, status: number, times: number): typeof fetch {
  let failed = 0;
  return async (input, init) => {
    if (new URL(String(input)).pathname === path && failed < times) {
      failed++;
      const code = status === 503 ? "service_unavailable" : "internal_error";
      return new Response(JSON.stringify({ error: { code, message: "temporarily unavailable", status, request_id: `req_test${failed}` } }), { status, headers: { "content-type": "application/json" } });
    }
    return fetch(input, init);
  };
}

/** A fetch whose first /v1/execute/stream response body is cut right after its first event. */
function cuttingFetch(): typeof fetch {
  let cut = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (cut || new URL(String(input)).pathname !== "/v1/execute/stream" || response.body === null || !response.ok) return response;
    cut = true;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent) {
          await reader.cancel();
          controller.error(new TypeError("terminated"));
          return;
        }
        while (!text.includes("\n\n")) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += decoder.decode(chunk.value, { stream: true });
        }
        controller.enqueue(new TextEncoder().encode(text.slice(0, text.indexOf("\n\n") + 2)));
        sent = true;
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** A minimal EIP-1193 provider over a local account. */
function providerOf(account: Account, calls: { method: string; params: unknown }[]): Eip1193Provider {
  return {
    async request({ method, params }) {
      calls.push({ method, params });
      if (method === "eth_requestAccounts" || method === "eth_accounts") return [account.address];
      if (method === "personal_sign") {
        const [message, address] = params as [Hex, string];
        if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error("unknown account");
        return account.signMessage({ message: { raw: message } });
      }
      throw new Error(`unsupported method ${method}`);
    },
  };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent } });
  baseUrl = world.url;
  oneTime = await publishConnected("sdk-one-time", "one_time");
  // A price above 2^53 wei with an odd last digit: a float would round it.
  perQuery = await publishConnected("sdk-per-query", "per_query", "0.012345678901234567");
  unrented = await publishConnected("sdk-unrented", "one_time");
  renter = await world.account();
  await world.rent(renter, oneTime);
  await world.rent(renter, perQuery, { deposit: perQuery.priceWei * 3n });
  client = new AgentRentalClient({ baseUrl });
  await client.signIn(renter);
}, 120_000);

afterAll(() => world?.close());

describe("authentication", () => {
  it("signs in with a viem account and uses the JWT", async () => {
    const fresh = new AgentRentalClient({ baseUrl });
    const token = await fresh.signIn(renter);
    expect(token.wallet).toBe(renter.address);
    expect(token.token.split(".")).toHaveLength(3);
    expect(token.expires_at).toBeGreaterThan(Date.now() / 1000 + 3000);
    const { credentials } = await fresh.credentials.list();
    expect(credentials.map((c) => c.listing_id)).toContain(oneTime.listing_id);
  });

  it("signs in with a minimal EIP-1193 provider (personal_sign with hex-encoded message and address)", async () => {
    const calls: { method: string; params: unknown }[] = [];
    const fresh = new AgentRentalClient({ baseUrl });
    const token = await fresh.signIn(providerOf(renter, calls));
    expect(token.wallet).toBe(renter.address);
    const sign = calls.find((c) => c.method === "personal_sign")!;
    expect((sign.params as string[])[0]).toMatch(/^0x[0-9a-f]+$/);
    expect((sign.params as string[])[1]).toBe(renter.address);
    expect((await fresh.credentials.list()).total).toBe(2);
  });

  it("renews the JWT before its expiry on the next call, signing again", async () => {
    const calls: { method: string; params: unknown }[] = [];
    // A margin longer than the token's life: every call finds the token due for renewal.
    const fresh = new AgentRentalClient({ baseUrl, tokenRefreshMarginSeconds: 7200 });
    await fresh.signIn(providerOf(renter, calls));
    await Promise.all([fresh.credentials.list(), fresh.credentials.list()]);
    await fresh.listings.get(oneTime.listing_id);
    expect(calls.filter((c) => c.method === "personal_sign")).toHaveLength(3);
  });

  it("creates, lists and revokes an API key; the revoked key gets AuthError invalid_api_key", async () => {
    const created = await client.keys.create("sdk key", renter);
    expect(created.key).toMatch(/^svc_test_/);
    expect(created).toMatchObject({ label: "sdk key", revoked: false });
    const keyClient = new AgentRentalClient({ baseUrl, apiKey: created.key });
    expect((await keyClient.keys.list()).map((k) => k.key_id)).toContain(created.key_id);
    expect(await keyClient.credentials.verify(oneTime.listing_id)).toMatchObject({ valid: true });
    const revoked = await client.keys.revoke(created.key_id);
    expect(revoked).toMatchObject({ key_id: created.key_id, revoked: true });
    const error = await keyClient.listings.search().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(AgentRentalError);
    expect(error).toMatchObject({ code: "invalid_api_key", status: 401 });
  });

  it("creates a key with an EIP-1193 provider as the signer", async () => {
    const created = await client.keys.create("provider key", providerOf(renter, []));
    expect(created.key).toMatch(/^svc_test_/);
    await client.keys.revoke(created.key_id);
  });

  it("throws AuthError unauthorized without credentials, with the request id", async () => {
    const error = (await new AgentRentalClient({ baseUrl }).listings.search().catch((e: unknown) => e)) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: "unauthorized", status: 401, name: "AuthError" });
    expect(error.requestId).toMatch(/\S/);
  });
});

describe("listings and credentials", () => {
  it("searches and gets listings", async () => {
    const found = await client.listings.search({ category: "research", limit: 100 });
    expect(found).toMatchObject({ limit: 100, offset: 0 });
    expect(found.listings.map((l) => l.id)).toEqual(expect.arrayContaining([oneTime.listing_id, perQuery.listing_id, unrented.listing_id]));
    const perQueryOnly = await client.listings.search({ rental_model: "per_query" });
    expect(perQueryOnly.listings.map((l) => l.id)).toEqual([perQuery.listing_id]);
    const listing = await client.listings.get(oneTime.listing_id);
    expect(listing).toMatchObject({ id: oneTime.listing_id, status: "active", on_chain_id: oneTime.onChainId, rental_model: "one_time", price_eth: 0.001 });
  });

  it("lists and verifies credentials", async () => {
    const { credentials, total } = await client.credentials.list({ status: "active", limit: 10 });
    expect(total).toBe(2);
    expect(credentials.map((c) => [c.listing_id, c.rental_model]).sort()).toEqual([
      [oneTime.listing_id, "one_time"],
      [perQuery.listing_id, "per_query"],
    ].sort());
    expect(await client.credentials.verify(oneTime.listing_id)).toMatchObject({ listing_id: oneTime.listing_id, status: "active", valid: true, on_chain_verified: true, on_chain_listing_id: oneTime.onChainId });
    expect(await client.credentials.verify(unrented.listing_id)).toMatchObject({ status: "not_found", valid: false, on_chain_verified: false });
  });

  it("throws NotFoundError for an unknown listing and an unknown run", async () => {
    const listing = await client.listings.get(`lst_${"ab".repeat(32)}`).catch((e: unknown) => e);
    expect(listing).toBeInstanceOf(NotFoundError);
    expect(listing).toMatchObject({ code: "listing_not_found", status: 404 });
    expect(await client.runs.get("run_nope").catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
  });
});

describe("consent requests and connected apps", () => {
  it("reads an app's sign-in request, approves it with a limit, then lists the app, changes its limit and revokes it", async () => {
    const app = await registerClient(baseUrl, { client_name: "SDK consent app" });
    const started = await startAuthorization(baseUrl, app, { spend_limit: "ETH:2000000000000000:day" });
    const request = await client.consentRequests.get(started.requestId!);
    expect(request).toMatchObject({ request_id: started.requestId, client: { client_id: app.client_id, name: "SDK consent app", kind: "registered" } });
    expect(request.scopes.map((s) => s.scope)).toEqual(["tasks:run"]);
    expect(request.proposed_spend_limits).toEqual([expect.objectContaining({ currency: "ETH", period: "day" })]);
    expect(String(request.proposed_spend_limits[0]!.amount)).toBe("2000000000000000");

    const decision = await client.consentRequests.approve(started.requestId!, { spendLimits: [{ period: "day", amount: "1000000000000000" }] });
    expect(new URL(decision.redirect_to).origin).toBe(new URL(baseUrl).origin);
    expect(await client.consentRequests.approve(started.requestId!).catch((e: unknown) => e)).toMatchObject({ code: "request_decided", status: 409 });

    const approved = (await client.apps.list()).find((a) => a.client_id === app.client_id);
    expect(approved).toMatchObject({ name: "SDK consent app", spend_limits: [expect.objectContaining({ period: "day" })] });
    expect(String(approved!.spend_limits[0]!.amount)).toBe("1000000000000000");
    const changed = await client.apps.setSpendLimits(approved!.app_id, [{ period: "month", amount: "5000000000000000" }]);
    expect(changed.spend_limits.map((l) => [l.period, String(l.amount)])).toEqual([["month", "5000000000000000"]]);
    expect(await client.apps.revoke(approved!.app_id)).toMatchObject({ app_id: approved!.app_id });
    expect((await client.apps.list()).some((a) => a.app_id === approved!.app_id)).toBe(false);
  });

  it("denies a request (nothing is granted) and throws NotFoundError for an unknown one", async () => {
    const app = await registerClient(baseUrl, { client_name: "SDK denied app" });
    const started = await startAuthorization(baseUrl, app);
    expect((await client.consentRequests.deny(started.requestId!)).redirect_to).toMatch(/^http/);
    expect((await client.apps.list()).some((a) => a.client_id === app.client_id)).toBe(false);
    const unknown = await client.consentRequests.get("nope").catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ code: "request_not_found", status: 404 });
  });
});

describe("execute", () => {
  it("runs a one-time rental: the Run with cost_wei 0n, readable again with runs.get", async () => {
    const run = await client.execute({ agent_id: oneTime.agent_id, task: "summarise", input: { topic: "tides" } });
    expect(run).toMatchObject({ agent_id: oneTime.agent_id, status: "completed", output: { findings: ["done: summarise"] } });
    expect(run.cost_wei).toBe(0n);
    expect(typeof run.duration_ms).toBe("number");
    const detail = await client.runs.get(run.run_id);
    expect(detail).toMatchObject({ run_id: run.run_id, status: "completed", rental_model: "one_time", settlement: "none" });
    expect(detail.cost_wei).toBe(0n);
  });

  it("runs a per-query rental: cost_wei is the exact price as a bigint (above 2^53)", async () => {
    expect(perQuery.priceWei > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    const run = await client.execute({ agent_id: perQuery.agent_id, task: "charge me" });
    expect(run.status).toBe("completed");
    expect(run.cost_wei).toBe(perQuery.priceWei);
    expect((await client.runs.get(run.run_id)).cost_wei).toBe(perQuery.priceWei);
  });

  it("runs an uploaded input by its content address", async () => {
    const stored = await client.inputs.upload(JSON.stringify({ topic: "kelp" }));
    expect(stored.input_uri).toMatch(/^ipfs:\/\//);
    const bytes = await client.inputs.upload(new TextEncoder().encode(JSON.stringify({ topic: "kelp" })));
    expect(bytes.input_uri).toBe(stored.input_uri);
    expect((await client.execute({ agent_id: oneTime.agent_id, task: "from file", input_uri: stored.input_uri })).status).toBe("completed");
  });

  it("sends the given Idempotency-Key, and the same key returns the first run", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const recorded = new AgentRentalClient({ baseUrl, fetch: recordingFetch(log) });
    await recorded.signIn(renter);
    const first = await recorded.execute({ agent_id: oneTime.agent_id, task: "only once" }, { idempotencyKey: "sdk-once-1" });
    const again = await recorded.execute({ agent_id: oneTime.agent_id, task: "only once" }, { idempotencyKey: "sdk-once-1" });
    expect(again.run_id).toBe(first.run_id);
    expect(deliveries().filter((d) => d.task === "only once")).toHaveLength(1);
    await recorded.execute({ agent_id: oneTime.agent_id, task: "random key" });
    const keys = log.filter((l) => l.path === "/v1/execute").map((l) => l.headers.get("idempotency-key"));
    expect(keys.slice(0, 2)).toEqual(["sdk-once-1", "sdk-once-1"]);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("throws AccessError credential_not_found with the contract error for a listing not rented", async () => {
    const error = (await client.execute({ agent_id: unrented.agent_id, task: "x" }).catch((e: unknown) => e)) as AccessError;
    expect(error).toBeInstanceOf(AccessError);
    expect(error).toMatchObject({ code: "credential_not_found", status: 403, onChainError: { contract: "Marketplace", error: "CredentialNotFound" } });
    expect(error.requestId).toMatch(/^req_/);
  });
});

describe("executeStream", () => {
  it("yields output events, then done with the Run", async () => {
    const events = await collect(client.executeStream({ agent_id: oneTime.agent_id, task: "stream it" }));
    expect(events.slice(0, -1)).toEqual([
      { type: "output", delta: "alpha ", id: "6" },
      { type: "output", delta: "beta ", id: "11" },
      { type: "output", delta: "gamma", id: "16" },
    ]);
    const done = events.at(-1)!;
    expect(done).toMatchObject({ type: "done", run: { status: "completed", agent_id: oneTime.agent_id, output: { findings: ["alpha", "beta", "gamma"] } } });
    if (done.type !== "done") throw new Error("no done event");
    expect(done.run.cost_wei).toBe(0n);
  });

  it("streams a per-query run with the exact cost in done", async () => {
    const events = await collect(client.executeStream({ agent_id: perQuery.agent_id, task: "stream paid" }));
    const done = events.at(-1)!;
    if (done.type !== "done") throw new Error("no done event");
    expect(done.run.status).toBe("completed");
    expect(done.run.cost_wei).toBe(perQuery.priceWei);
  });

  it("stops when the signal is aborted, and the run goes on server side", async () => {
    const gate = hold("drip slowly");
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const iteration = (async () => {
      for await (const event of client.executeStream({ agent_id: oneTime.agent_id, task: "drip slowly" }, { signal: controller.signal })) {
        seen.push(event);
        if (event.type === "output") controller.abort();
      }
    })();
    await expect(iteration).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual([{ type: "output", delta: "one ", id: "4" }]);
    gate.open();
    const runId = deliveries().find((d) => d.task === "drip slowly")!.runId;
    await expect.poll(async () => (await client.runs.get(runId)).status, { timeout: 10_000 }).toBe("completed");
  });

  it("refuses an already aborted signal before sending anything", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const recorded = new AgentRentalClient({ baseUrl, apiKey: "svc_test_unused", fetch: recordingFetch(log) });
    const stream = recorded.executeStream({ agent_id: oneTime.agent_id, task: "never sent" }, { signal: AbortSignal.abort() });
    await expect(stream.next()).rejects.toMatchObject({ name: "AbortError" });
    expect(log).toHaveLength(0);
  });

  it("resumes a dropped connection with Last-Event-ID and yields the remaining events exactly once", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const resuming = new AgentRentalClient({ baseUrl, fetch: recordingFetch(log, cuttingFetch()), retryBaseDelayMs: 10 });
    await resuming.signIn(renter);
    const events = await collect(resuming.executeStream({ agent_id: oneTime.agent_id, task: "stream once more" }));
    const outputs = events.filter((e) => e.type === "output");
    expect(outputs[0]).toEqual({ type: "output", delta: "alpha ", id: "6" });
    expect(outputs.map((e) => e.delta).join("")).toBe("alpha beta gamma");
    expect(outputs.at(-1)!.id).toBe("16");
    expect(events.filter((e) => e.type === "done")).toHaveLength(1);
    const done = events.at(-1)!;
    if (done.type !== "done") throw new Error("no done event");
    expect(done.run.status).toBe("completed");
    const resume = log.find((l) => l.path === `/v1/runs/${done.run.run_id}/events`)!;
    expect(resume.headers.get("last-event-id")).toBe("6");
    expect(deliveries().filter((d) => d.task === "stream once more")).toHaveLength(1);
  });

  it("with resumes: 0, a dropped connection ends the iteration with stream_interrupted after the events it delivered, and the caller resumes with runs.events", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const own = new AgentRentalClient({ baseUrl, fetch: recordingFetch(log, cuttingFetch()), retryBaseDelayMs: 10 });
    await own.signIn(renter);
    let runId: string | undefined;
    const seen: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of own.executeStream({ agent_id: oneTime.agent_id, task: "stream resumed by the caller" }, { resumes: 0, onRunId: (id) => (runId = id) })) seen.push(event);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentRentalError);
    expect(error).toMatchObject({ code: "stream_interrupted", status: 0 });
    expect(seen).toEqual([{ type: "output", delta: "alpha ", id: "6" }]);
    // Nothing was resumed by the client itself.
    expect(log.filter((l) => l.path.endsWith("/events"))).toEqual([]);
    const rest = await collect(own.runs.events(runId!, { lastEventId: "6", resumes: 0 }));
    expect(rest.filter((e) => e.type === "output").map((e) => e.delta).join("")).toBe("beta gamma");
    expect(rest.at(-1)).toMatchObject({ type: "done", run: { run_id: runId, status: "completed" } });
  });

  it("follows a run's events from an offset with runs.events", async () => {
    const events = await collect(client.executeStream({ agent_id: oneTime.agent_id, task: "stream for replay" }));
    const done = events.at(-1)!;
    if (done.type !== "done") throw new Error("no done event");
    const replay = await collect(client.runs.events(done.run.run_id, { lastEventId: "11" }));
    expect(replay).toMatchObject([{ type: "output", delta: "gamma", id: "16" }, { type: "done", run: { run_id: done.run.run_id } }]);
  });

  it("throws a refusal as a typed error before any event", async () => {
    const error = await collect(client.executeStream({ agent_id: unrented.agent_id, task: "x" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccessError);
    expect(error).toMatchObject({ code: "credential_not_found" });
  });
});

describe("rate limits and retries", () => {
  it("throws RateLimitError with retryAfter for the 21st concurrent run; retryOn429 waits and retries", async () => {
    const crowded = await publishConnected("sdk-crowded", "one_time");
    const crowd = await world.account();
    await world.rent(crowd, crowded);
    const crowdClient = new AgentRentalClient({ baseUrl });
    await crowdClient.signIn(crowd);
    const gate = hold("hold the slot");
    const inFlight = Array.from({ length: 20 }, () => crowdClient.execute({ agent_id: crowded.agent_id, task: "hold the slot" }));
    await expect.poll(() => gate.arrived, { timeout: 20_000 }).toBe(20);
    const error = (await crowdClient.execute({ agent_id: crowded.agent_id, task: "one too many" }).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: "rate_limit_exceeded", status: 429, retryAfter: 1 });
    const patientLog: { method: string; path: string; headers: Headers }[] = [];
    const patientAnswers: number[] = [];
    const answered: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (new URL(String(input)).pathname === "/v1/execute") patientAnswers.push(response.status);
      return response;
    };
    const patient = new AgentRentalClient({ baseUrl, retryOn429: true, retries: 3, fetch: recordingFetch(patientLog, answered) });
    await patient.signIn(crowd);
    const waiting = patient.execute({ agent_id: crowded.agent_id, task: "patient" });
    // The slots are freed only once the patient client has been refused (429), so it must retry.
    await expect.poll(() => patientAnswers, { timeout: 20_000 }).toContain(429);
    gate.open();
    expect((await Promise.all(inFlight)).every((r) => r.status === "completed")).toBe(true);
    expect(await waiting).toMatchObject({ status: "completed", output: { findings: ["done: patient"] } });
    const attempts = patientLog.filter((l) => l.path === "/v1/execute");
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(attempts.map((a) => a.headers.get("idempotency-key"))).size).toBe(1);
  });

  it("retries execute after 503 twice, under one Idempotency-Key, then answers the run", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const flaky = new AgentRentalClient({ baseUrl, fetch: recordingFetch(log, failingFetch("/v1/execute", 503, 2)), retryBaseDelayMs: 10 });
    await flaky.signIn(renter);
    const run = await flaky.execute({ agent_id: oneTime.agent_id, task: "after two failures" });
    expect(run.status).toBe("completed");
    const attempts = log.filter((l) => l.path === "/v1/execute");
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers.get("idempotency-key"))).size).toBe(1);
    expect(deliveries().filter((d) => d.task === "after two failures")).toHaveLength(1);
  });

  it("gives up after `retries` and throws the 503 as ApiError", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const flaky = new AgentRentalClient({ baseUrl, fetch: recordingFetch(log, failingFetch("/v1/listings", 503, 5)), retries: 1, retryBaseDelayMs: 10 });
    await flaky.signIn(renter);
    const error = await flaky.listings.search().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(log.filter((l) => l.path === "/v1/listings")).toHaveLength(2);
  });

  it("retries a GET after a 500", async () => {
    const flaky = new AgentRentalClient({ baseUrl, fetch: failingFetch(`/v1/listings/${oneTime.listing_id}`, 500, 1), retryBaseDelayMs: 10 });
    await flaky.signIn(renter);
    expect((await flaky.listings.get(oneTime.listing_id)).id).toBe(oneTime.listing_id);
  });

  it("does not retry a 400, nor a POST without an Idempotency-Key", async () => {
    const log: { method: string; path: string; headers: Headers }[] = [];
    const flaky = new AgentRentalClient({ baseUrl, fetch: recordingFetch(log, failingFetch("/v1/keys/challenge", 503, 1)), retryBaseDelayMs: 10 });
    await flaky.signIn(renter);
    const bad = await flaky.execute({ agent_id: oneTime.agent_id, task: "x", timeout_seconds: 0 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad).toMatchObject({ code: "invalid_request", status: 400 });
    expect(log.filter((l) => l.path === "/v1/execute")).toHaveLength(1);
    const unavailable = await flaky.keys.create("not retried", renter).catch((e: unknown) => e);
    expect(unavailable).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(log.filter((l) => l.path === "/v1/keys/challenge")).toHaveLength(1);
  });
});
