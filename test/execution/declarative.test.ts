// Declarative agents end to end through the API: POST /v1/execute(/stream) → admission → a fresh
// pre-started sandbox running the bundled agent runtime → the local model server speaking the OpenAI
// chat-completions and Anthropic messages wire protocols → output validation and the Run. Also: each
// listing's provider key reaches its own listing's model requests only (in its provider's auth header),
// and never another listing's, a self-hosted endpoint, a response, an error or a log line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { stop as stopEsbuild } from "esbuild";
import { buildRuntime } from "../../scripts/build-runtime.ts";
import { createLocalSandboxPool, type LocalSandboxPool } from "../../src/adapters/sandbox/local.ts";
import { createLogger } from "../../src/logger.ts";
import { startModelServer, type ModelServer, type RecordedRequest } from "../../local/model-server.ts";
import type { Account } from "../support/chain-actions.ts";
import { createKey, signIn } from "../support/auth.ts";
import { startWorld, type App, type PublishedAgent, type World } from "../support/world.ts";

const KEY_A = "sk-creator-a-0123456789abcdef";
const KEY_B = "sk-creator-b-fedcba9876543210";
let world: World;
let ctx: World["ctx"];
let app: App;
let models: ModelServer;
let pool: LocalSandboxPool;
/** When set, the services run declarative agents here instead of `pool` (to fail one run's sandbox). */
let poolOverride: LocalSandboxPool | undefined;
let outDir: string;
let renterKey: string;
let renter: Account;
const logLines: string[] = [];
/** Every response the API gave in this file (method, path, status, headers, body; SSE text included). */
const apiResponses: string[] = [];

const SCHEMA_FINDINGS = { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"], additionalProperties: false };

async function publishDeclarative(name: string, model: Record<string, unknown>, providerKey: string | null, outputSchema: Record<string, unknown> = { type: "string" }): Promise<PublishedAgent> {
  const listing = await world.publish(
    { name, category: "research", description: "A declarative test agent", model, system_prompt: "You are a careful analyst.", input_schema: { type: "object" }, output_schema: outputSchema, timeout_seconds: 20 },
    { rental: "one_time" },
  );
  if (providerKey) {
    const { token } = await world.creator();
    const res = await app.request(`/v1/listings/${listing.listing_id}/provider-key`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ provider_key: providerKey }) });
    expect(res.status).toBe(200);
  }
  await world.rent(renter, listing);
  return listing;
}

/** Makes `target.request` keep the text of every response (read whole, then handed on unchanged). */
function recordResponses(target: App): void {
  const request = target.request;
  target.request = (async (...args: Parameters<typeof request>) => {
    const res = await request(...args);
    const text = await res.text();
    const [input, init] = args;
    apiResponses.push(`${init?.method ?? "GET"} ${String(input)} → ${res.status}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${text}`);
    return new Response([101, 204, 205, 304].includes(res.status) ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof request;
}

/** Keeps whatever is written to stdout, stderr or the console until the returned function is called. */
function captureProcessOutput(into: string[]): () => void {
  const restore: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      into.push(Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk));
      return (write as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => void (stream.write = write));
  }
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      into.push(args.map((a) => (typeof a === "string" ? a : inspect(a, { depth: 8 }))).join(" "));
      original.apply(console, args);
    };
    restore.push(() => void (console[level] = original));
  }
  return () => restore.reverse().forEach((undo) => undo());
}

/** A secret and what counts as a trace of it: the whole, or any 8 characters of it in a row (the
 * runtime's scrub removes such runs; providers quote key prefixes and suffixes). */
function traces(secret: string): string[] {
  return [secret, ...Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))];
}
const carries = (text: string, pieces: readonly string[]) => pieces.some((piece) => text.includes(piece));

/** Where a recorded model request carries a trace of a secret: header names, "path", "body". */
function placesIn(request: RecordedRequest, pieces: readonly string[]): string[] {
  const places = Object.entries(request.headers).filter(([, value]) => carries(value, pieces)).map(([name]) => name);
  if (carries(request.path, pieces)) places.push("path");
  if (carries(typeof request.body === "string" ? request.body : JSON.stringify(request.body ?? null), pieces)) places.push("body");
  return places;
}

function execute(body: unknown, path = "/v1/execute") {
  return app.request(path, { method: "POST", headers: { authorization: `Bearer ${renterKey}`, "content-type": "application/json" }, body: JSON.stringify(body) });
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "exec-runtime-"));
  const { entry } = await buildRuntime({ outDir });
  models = await startModelServer();
  pool = createLocalSandboxPool({ warm: 1, allowFsRead: [outDir], preload: entry, memoryMb: 128 });
  world = await startWorld({
    serve: false,
    env: { ALLOW_PRIVATE_AGENT_HOSTS: "true", PROVIDER_A_BASE_URL: models.openaiBaseUrl, PROVIDER_B_BASE_URL: models.anthropicBaseUrl, LOG_LEVEL: "debug" },
    // Every log line of the service, to check no key is ever written.
    adapters: { logger: createLogger("debug", (line) => logLines.push(line)), runtimeEntry: entry },
  });
  ({ ctx, app } = world);
  // Replaced after creation: the services keep the pool an adapter gives them, and a test swaps it.
  ctx.services.sandbox = () => poolOverride ?? pool;
  recordResponses(app);
  renter = await world.account();
  renterKey = (await createKey(app, renter, (await signIn(app, renter)).token)).key;
});

afterAll(async () => {
  await world?.close();
  await pool?.close();
  await models?.stop();
  await stopEsbuild();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("declarative agents through the API", () => {
  it("runs provider_a (OpenAI chat completions) and streams its text", async () => {
    const listing = await publishDeclarative("openai-writer", { provider: "provider_a", model: "gpt-test" }, KEY_A);
    const res = await execute({ agent_id: listing.agent_id, task: "Write about solar power", input: { region: "EU" } }, "/v1/execute/stream");
    expect(res.status).toBe(200);
    const text = await res.text();
    const deltas = [...text.matchAll(/event: output\ndata: (.*)\nid: (\d+)/g)].map((m) => (JSON.parse(m[1]!) as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(1);
    const done = JSON.parse(/event: done\ndata: (.*)\n/.exec(text)![1]!) as { status: string; output: string; cost_wei: number };
    expect(done).toMatchObject({ status: "completed", cost_wei: 0 });
    expect(done.output).toBe(deltas.join(""));
    expect(done.output).toContain("Write about solar power");
    const request = models.requests().find((r) => r.provider === "openai" && JSON.stringify(r.body).includes("solar power"))!;
    expect(request.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(JSON.stringify(request.body)).toContain("You are a careful analyst.");
    expect(JSON.stringify(request.body)).toContain("EU");
  });

  it("runs provider_b (Anthropic messages) to a structured output schema, validated", async () => {
    const listing = await publishDeclarative("anthropic-analyst", { provider: "provider_b", model: "claude-test" }, KEY_B, SCHEMA_FINDINGS);
    const res = await execute({ agent_id: listing.agent_id, task: "List the risks" });
    const run = (await res.json()) as { status: string; output: { findings: string[] } };
    expect(run.status).toBe("completed");
    expect(Array.isArray(run.output.findings)).toBe(true);
    const request = models.requests().find((r) => r.provider === "anthropic" && JSON.stringify(r.body).includes("List the risks"))!;
    expect(request.headers["x-api-key"]).toBe(KEY_B);
  });

  it("runs a self_hosted OpenAI-compatible endpoint", async () => {
    const listing = await publishDeclarative("self-hosted-agent", { provider: "self_hosted", endpoint_url: models.openaiBaseUrl, model: "local-llm" }, null);
    const run = (await (await execute({ agent_id: listing.agent_id, task: "Hello self hosted" })).json()) as { status: string; output: string };
    expect(run).toMatchObject({ status: "completed", output: "Echo: Hello self hosted" });
  });

  it("fails with a reason, never the key, when the provider refuses; and when the output breaks the schema", async () => {
    const listing = await publishDeclarative("flaky-provider", { provider: "provider_a", model: "gpt-test" }, KEY_A);
    const run = (await (await execute({ agent_id: listing.agent_id, task: "please [[error:429]]" })).json()) as { status: string; error: { code: string; message: string } };
    expect(run).toMatchObject({ status: "failed", error: { code: "agent_error" } });
    expect(run.error.message).toMatch(/429/);
    const strict = await publishDeclarative("strict-output", { provider: "provider_a", model: "gpt-test" }, KEY_A, SCHEMA_FINDINGS);
    const bad = (await (await execute({ agent_id: strict.agent_id, task: 'answer [[json {"findings": 3}]]' })).json()) as { status: string; error: { code: string } };
    expect(bad).toMatchObject({ status: "failed", error: { code: "invalid_output" } });
  });

  it("scrubs the run's key from a reason the sandbox gives, before it is stored, returned or logged", async () => {
    // A runtime that fails quoting its key (the real runtime scrubs its own reasons; the service does it
    // again where it holds the key, so a runtime defect cannot leak it).
    const leaky = join(outDir, "leaky-agent.mjs");
    writeFileSync(leaky, 'export async function run(payload, io) { io.emit("partial "); throw new Error(`provider said: key ${payload.agent.apiKey} is not allowed`); }\n');
    const key = `sk-leak-${randomBytes(24).toString("base64url")}`;
    const listing = await publishDeclarative("leaky-runtime", { provider: "provider_a", model: "gpt-test" }, key);
    const real = ctx.services.runtimeEntry;
    ctx.services.runtimeEntry = leaky;
    let sync: Response;
    let streamed: string;
    try {
      sync = await execute({ agent_id: listing.agent_id, task: "leak it" });
      streamed = await (await execute({ agent_id: listing.agent_id, task: "leak it, streamed" }, "/v1/execute/stream")).text();
    } finally {
      ctx.services.runtimeEntry = real;
    }
    const run = (await sync.json()) as { run_id: string; status: string; error: { code: string; message: string } };
    expect(run).toMatchObject({ status: "failed", error: { code: "agent_error" } });
    expect(run.error.message).toContain("provider said: key [redacted] is not allowed");
    expect(streamed).toContain("[redacted]");
    const stored = await (await app.request(`/v1/runs/${run.run_id}`, { headers: { authorization: `Bearer ${renterKey}` } })).text();
    expect(stored).toContain("[redacted]");
    for (const text of [JSON.stringify(run), streamed, stored, logLines.join("\n")]) expect(carries(text, traces(key))).toBe(false);
  });

  it("refuses a run whose creator set no provider key, and kills a run at its timeout", async () => {
    const unkeyed = await publishDeclarative("no-key-yet", { provider: "provider_a", model: "gpt-test" }, null);
    const refused = (await (await execute({ agent_id: unkeyed.agent_id, task: "x" })).json()) as { status: string; error: { code: string } };
    expect(refused).toMatchObject({ status: "failed", error: { code: "agent_not_configured" } });
    const slow = await publishDeclarative("slow-model", { provider: "provider_a", model: "gpt-test" }, KEY_A);
    const run = (await (await execute({ agent_id: slow.agent_id, task: "take your time [[slow:30000]]", timeout_seconds: 1 })).json()) as { status: string; error: { code: string } };
    expect(run).toMatchObject({ status: "failed", error: { code: "timeout" } });
    await expect.poll(() => pool.stats().busy, { timeout: 5000 }).toBe(0);
  });

  it("keeps each listing's provider key to its own model requests, and out of every other request, response, error and log line", async () => {
    // Keys of this test alone (random, and sharing no 8 characters with each other), so that it checks
    // everything it needs by itself: run alone, or after the tests above.
    const keyA = `sk-A-${randomBytes(24).toString("base64url")}`;
    const keyB = `sk-ant-B-${randomBytes(24).toString("base64url")}`;
    const secrets = { A: traces(keyA), B: traces(keyB) };
    // The earlier tests' keys: their whole or the part those tests always checked.
    const earlier = [KEY_A, KEY_A.slice(3, 15), KEY_B, KEY_B.slice(3, 15)];
    const everyTrace = [...secrets.A, ...secrets.B, ...earlier];
    // A self-hosted endpoint of its own: every request it receives belongs to the self_hosted runs.
    const selfHosted = await startModelServer();
    const stray: string[] = [];
    const since = { requests: models.requests().length, logs: logLines.length, responses: apiResponses.length };
    const stopCapture = captureProcessOutput(stray);
    try {
      const listings = {
        A: await publishDeclarative("key-holder-a", { provider: "provider_a", model: "gpt-test" }, keyA),
        B: await publishDeclarative("key-holder-b", { provider: "provider_b", model: "claude-test" }, keyB),
        S: await publishDeclarative("keyless-self-hosted", { provider: "self_hosted", endpoint_url: selfHosted.openaiBaseUrl, model: "local-llm" }, null),
      };
      type Who = keyof typeof listings;
      interface Case { who: Who; label: string; stream: boolean; directive?: string; closedPool?: boolean; fails?: { code: string; message: RegExp } }
      interface Ran extends Case { marker: string; run: { run_id: string; status: string; output: unknown; error?: { code: string; message: string } } }
      const nonce = randomBytes(4).toString("hex");
      const renter = { authorization: `Bearer ${renterKey}` };

      const runCase = async (c: Case): Promise<Ran> => {
        // The marker names the run in every model request it makes (the task travels in the body).
        const marker = `run#${nonce}#${c.label}#`;
        const task = `Summarise ${marker}${c.directive ? ` ${c.directive}` : ""}`;
        let closed: LocalSandboxPool | undefined;
        if (c.closedPool) {
          // A pool that cannot give a sandbox: the run fails on the service's side, which logs why.
          closed = createLocalSandboxPool({ warm: 0, allowFsRead: [outDir], memoryMb: 128 });
          await closed.close();
          poolOverride = closed;
        }
        let res: Response;
        try {
          res = await execute({ agent_id: listings[c.who].agent_id, task, input: { note: "keys stay home" } }, c.stream ? "/v1/execute/stream" : "/v1/execute");
        } finally {
          if (closed) poolOverride = undefined;
        }
        expect(res.status, c.label).toBe(200);
        const text = await res.text();
        const run = (c.stream ? JSON.parse(/event: done\ndata: (.*)\n/.exec(text)![1]!) : JSON.parse(text)) as Ran["run"];
        if (c.fails) {
          expect(run, c.label).toMatchObject({ status: "failed", error: { code: c.fails.code } });
          expect(run.error!.message, c.label).toMatch(c.fails.message);
        } else {
          expect(run, c.label).toMatchObject({ status: "completed" });
          expect(String(run.output), c.label).toContain(marker);
        }
        // The stored Run and (streamed) its event replay are responses too.
        const stored = (await (await app.request(`/v1/runs/${run.run_id}`, { headers: renter })).json()) as Ran["run"];
        expect(stored, c.label).toMatchObject({ run_id: run.run_id, status: run.status });
        if (c.stream) expect((await app.request(`/v1/runs/${run.run_id}/events`, { headers: renter })).status, c.label).toBe(200);
        for (const error of [run.error, stored.error]) {
          if (error) expect(carries(error.message, everyTrace), `${c.label}: error message ${JSON.stringify(error.message)}`).toBe(false);
        }
        return { ...c, marker, run };
      };

      // One at a time, the providers interleaved (sandboxes are never handed a second run), then all at
      // once. The failures are ones the SDK does not retry, or retries at once (Retry-After: 0).
      const sequential: Case[] = [
        { who: "A", label: "a-sync", stream: false },
        { who: "B", label: "b-sync", stream: false },
        { who: "S", label: "s-sync", stream: false },
        { who: "A", label: "a-rate-limited", stream: false, directive: "[[error:429]]", fails: { code: "agent_error", message: /429/ } },
        { who: "B", label: "b-stream-cut", stream: true, directive: "one two three four five six [[stream-cut]]", fails: { code: "agent_error", message: /cut off/ } },
        { who: "S", label: "s-not-found", stream: false, directive: "[[error:404]]", fails: { code: "agent_error", message: /404/ } },
        { who: "A", label: "a-no-sandbox", stream: false, closedPool: true, fails: { code: "internal_error", message: /./ } },
      ];
      const concurrent: Case[] = [
        { who: "A", label: "a-stream", stream: true },
        { who: "B", label: "b-stream", stream: true },
        { who: "S", label: "s-stream", stream: true },
        { who: "A", label: "a-refused-stream", stream: true, directive: "[[error:401]]", fails: { code: "agent_error", message: /401/ } },
        { who: "B", label: "b-overloaded", stream: false, directive: "[[error:529]]", fails: { code: "agent_error", message: /529/ } },
      ];
      const ran: Ran[] = [];
      for (const c of sequential) ran.push(await runCase(c));
      ran.push(...(await Promise.all(concurrent.map(runCase))));

      // Every model request of the test, each attributed to exactly one run by its marker.
      const ownerOf = (request: RecordedRequest) => {
        const body = typeof request.body === "string" ? request.body : JSON.stringify(request.body ?? null);
        const owners = ran.filter((r) => body.includes(r.marker));
        expect(owners.map((r) => r.label), `${request.method} ${request.path} belongs to exactly one run of this test`).toHaveLength(1);
        return owners[0]!;
      };
      const providerRequests = models.requests().slice(since.requests);
      const selfHostedRequests = selfHosted.requests();
      for (const request of providerRequests) {
        const owner = ownerOf(request);
        expect(owner.who, `${owner.label} reached the providers' server`).not.toBe("S");
        const own = owner.who as "A" | "B";
        const header = own === "A" ? "authorization" : "x-api-key";
        expect(request.provider, owner.label).toBe(own === "A" ? "openai" : "anthropic");
        expect(request.headers[header], `${owner.label}: its own key, in its provider's header`).toBe(own === "A" ? `Bearer ${keyA}` : keyB);
        // Its own key there and nowhere else; the other listing's (and the earlier tests') nowhere.
        expect(placesIn(request, secrets[own]), `${owner.label}: where its own key appears`).toEqual([header]);
        expect(placesIn(request, [...secrets[own === "A" ? "B" : "A"], ...earlier]), `${owner.label}: where another key appears`).toEqual([]);
      }
      for (const request of selfHostedRequests) {
        const owner = ownerOf(request);
        expect(owner.who, `${owner.label} reached the self-hosted endpoint`).toBe("S");
        expect(placesIn(request, everyTrace), `${owner.label}: where a key appears`).toEqual([]);
        expect(request.headers.authorization, owner.label).toBeUndefined();
        expect(request.headers["x-api-key"], owner.label).toBeUndefined();
      }
      // Every run that reached its model was seen, at the server it belongs to; the failed sandbox's run reached none.
      for (const r of ran) {
        const seen = [...providerRequests, ...selfHostedRequests].filter((request) => ownerOf(request) === r).length;
        if (r.closedPool) expect(seen, r.label).toBe(0);
        else expect(seen, r.label).toBeGreaterThan(0);
      }
      expect(providerRequests.filter((request) => ownerOf(request).who === "A").length).toBeGreaterThan(0);
      expect(providerRequests.filter((request) => ownerOf(request).who === "B").length).toBeGreaterThan(0);
      expect(selfHostedRequests.length).toBeGreaterThan(0);

      // Responses (the key settings, runs, streams, stored runs, replays) and log lines of the test: there
      // are some, and no trace of a key is in any (nor in those of the tests above).
      const logs = logLines.slice(since.logs);
      expect(logs.length, "the service wrote log lines during the test").toBeGreaterThan(0);
      const noSandbox = ran.find((r) => r.closedPool)!;
      expect(logs.some((line) => line.includes("run failed unexpectedly") && line.includes(noSandbox.run.run_id)), "the failed sandbox's run was logged").toBe(true);
      expect(apiResponses.length - since.responses).toBeGreaterThan(ran.length);
      expect(apiResponses.slice(since.responses).filter((text) => text.includes("/provider-key")).length).toBe(2);
      for (const [what, texts] of [["response", apiResponses], ["log line", logLines], ["process output", stray]] as const) {
        for (const text of texts) expect(carries(text, everyTrace), `a ${what} carries a key: ${text.slice(0, 2000)}`).toBe(false);
      }
    } finally {
      stopCapture();
      poolOverride = undefined;
      await selfHosted.stop();
    }
  }, 90_000);
});
