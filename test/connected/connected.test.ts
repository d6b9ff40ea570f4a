// Calling a connected agent against a real HTTPS server on 127.0.0.1 (a CA made by the test with
// openssl). Every delivery is checked with the `standardwebhooks` library, as a creator would check it.
import { randomBytes } from "node:crypto";
import type http from "node:http";
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEgressGuard, type EgressGuard, type EgressGuardOptions } from "../../src/adapters/egress/guard.ts";
import { callConnectedAgent, type ConnectedCall, type ConnectedResult } from "../../src/execution/agents/webhook.ts";
import { signWebhook } from "../../src/execution/agents/webhook-signature.ts";
import { startHttpsServer, type HttpsTestServer } from "../support/https-server.ts";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const KEY_PART = SECRET.slice("whsec_".length);
const LISTING_ID = `lst_${"ab".repeat(32)}`;

interface Delivery {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The payload as `standardwebhooks` verified it, or the verification error. */
  verified: { ok: true; payload: unknown } | { ok: false; error: string };
}
type Route = (req: http.IncomingMessage, res: http.ServerResponse, delivery: Delivery) => void;

let server: HttpsTestServer;
const routes = new Map<string, Route>();
const deliveries: Delivery[] = [];
const guards: EgressGuard[] = [];
/** Every signature the server received, to prove none reaches a message. */
const signaturesSeen = new Set<string>();
let runCounter = 0;

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const stringHeaders = Object.fromEntries(Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
    let verified: Delivery["verified"];
    try {
      verified = { ok: true, payload: new Webhook(SECRET).verify(body, stringHeaders) };
    } catch (error) {
      verified = { ok: false, error: String(error) };
    }
    const signature = stringHeaders["webhook-signature"];
    if (signature !== undefined) {
      signaturesSeen.add(signature);
      signaturesSeen.add(signature.slice("v1,".length));
    }
    const delivery: Delivery = { path: req.url ?? "/", method: req.method ?? "", headers: req.headers, body, verified };
    deliveries.push(delivery);
    const route = routes.get(delivery.path);
    if (route === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    route(req, res, delivery);
  });
}

function route(path: string, fn: Route): string {
  routes.set(path, fn);
  return path;
}

function json(res: http.ServerResponse, status: number, value: unknown, contentType = "application/json"): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function startEvents(res: http.ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.flushHeaders();
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function guard(options: EgressGuardOptions = { ca: server.ca, allowHosts: ["127.0.0.1"] }): EgressGuard {
  const g = createEgressGuard(options);
  guards.push(g);
  return g;
}

/** A failed run's message never carries the secret, its key or a signature. */
function expectNoSecrets(result: ConnectedResult): void {
  if (result.status !== "failed") return;
  const message = result.error.message;
  expect(message).not.toContain(SECRET);
  expect(message).not.toContain(KEY_PART);
  for (const signature of signaturesSeen) expect(message).not.toContain(signature);
}

async function call(path: string, overrides: Partial<ConnectedCall> = {}): Promise<{ result: ConnectedResult; deltas: string[]; runId: string }> {
  const deltas: string[] = [];
  const runId = `run_${++runCounter}_${randomBytes(4).toString("hex")}`;
  const result = await callConnectedAgent({
    guard: guard(),
    url: `${server.url}${path}`,
    secret: SECRET,
    runId,
    agentId: "summariser-abcd1234",
    listingId: LISTING_ID,
    task: "Summarise the text",
    input: { text: "hello world" },
    timeoutMs: 5_000,
    stream: false,
    onDelta: (delta) => deltas.push(delta),
    ...overrides,
  });
  expectNoSecrets(result);
  return { result, deltas, runId };
}

function deliveriesTo(path: string): Delivery[] {
  return deliveries.filter((d) => d.path === path);
}

function failure(result: ConnectedResult): { code: string; message: string } {
  expect(result.status).toBe("failed");
  if (result.status !== "failed") throw new Error("expected a failed result");
  return result.error;
}

beforeAll(async () => {
  server = await startHttpsServer(handler);
});

afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.dispatcher.destroy().catch(() => undefined)));
});

afterAll(async () => {
  await server.stop();
});

describe("the delivery", () => {
  it("is a signed POST with the run, that standardwebhooks verifies", async () => {
    const path = route("/deliver", (_req, res) => json(res, 200, { output: { summary: "hi" } }));
    const before = Math.floor(Date.now() / 1000);
    const { result, runId } = await call(path, { stream: true });
    const after = Math.floor(Date.now() / 1000);
    expect(result).toEqual({ status: "completed", output: { summary: "hi" } });

    const [delivery, ...others] = deliveriesTo(path);
    expect(others).toEqual([]);
    expect(delivery!.method).toBe("POST");
    expect(delivery!.verified.ok).toBe(true);
    const headers = delivery!.headers;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers.accept).toBe("application/json, text/event-stream");
    expect(headers["webhook-id"]).toBe(runId);
    const timestamp = Number(headers["webhook-timestamp"]);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(after);
    expect(headers["webhook-signature"]).toBe(signWebhook(SECRET, runId, timestamp, delivery!.body));
    expect(headers.authorization).toBeUndefined();
    expect(headers.cookie).toBeUndefined();

    const body = JSON.parse(delivery!.body) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["agent_id", "deadline", "input", "listing_id", "run_id", "stream", "task", "timeout_ms", "type"]);
    expect(body).toMatchObject({ type: "run.requested", run_id: runId, agent_id: "summariser-abcd1234", listing_id: LISTING_ID, task: "Summarise the text", input: { text: "hello world" }, timeout_ms: 5_000, stream: true });
    const deadline = Date.parse(body.deadline as string);
    expect(deadline).toBeGreaterThanOrEqual(before * 1000 + 5_000);
    expect(deadline).toBeLessThanOrEqual((after + 1) * 1000 + 5_000);
    expect((delivery!.verified as { payload: unknown }).payload).toEqual(body);
  });

  it("sends a missing input as null and a string input as a string", async () => {
    const path = route("/inputs", (_req, res) => json(res, 200, { output: "ok" }));
    await call(path, { input: null });
    await call(path, { input: "free text" });
    const [first, second] = deliveriesTo(path).map((d) => JSON.parse(d.body) as { input: unknown });
    expect(first!.input).toBeNull();
    expect(second!.input).toBe("free text");
    expect(deliveriesTo(path).every((d) => d.verified.ok)).toBe(true);
  });

  it("refuses an unusable secret without sending anything", async () => {
    const path = route("/bad-secret", (_req, res) => json(res, 200, { output: "never" }));
    const { result } = await call(path, { secret: "whsec_c2hvcnQ=" });
    expect(failure(result).code).toBe("agent_not_configured");
    expect(failure(result).message).not.toContain("c2hvcnQ");
    expect(deliveriesTo(path)).toEqual([]);
  });
});

describe("a JSON answer", () => {
  it("completes with the output value", async () => {
    const path = route("/json-object", (_req, res) => json(res, 200, { output: { findings: [{ title: "a", severity: "low" }] } }));
    const { result, deltas } = await call(path);
    expect(result).toEqual({ status: "completed", output: { findings: [{ title: "a", severity: "low" }] } });
    expect(deltas).toEqual([]);
  });

  it("keeps a string output a string (also with a +json type and a charset)", async () => {
    const path = route("/json-string", (_req, res) => json(res, 200, { output: '{"not": "parsed"}' }, "application/vnd.agent+json; charset=utf-8"));
    const { result } = await call(path);
    expect(result).toEqual({ status: "completed", output: '{"not": "parsed"}' });
  });

  it("fails with the agent's own error report", async () => {
    const path = route("/json-error", (_req, res) => json(res, 200, { error: { message: "The document\nis empty." } }));
    const error = failure((await call(path)).result);
    expect(error).toEqual({ code: "agent_error", message: "The agent reported an error: The document is empty." });
  });

  it("fails on a body that is not JSON, without quoting it", async () => {
    const path = route("/json-invalid", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"output": "private detail');
    });
    const error = failure((await call(path)).result);
    expect(error.code).toBe("agent_invalid_response");
    expect(error.message).not.toContain("private detail");
  });

  it("fails on JSON without an output member, and on a content type that is neither JSON nor events", async () => {
    const noOutput = route("/json-no-output", (_req, res) => json(res, 200, { result: "x" }));
    expect(failure((await call(noOutput)).result).code).toBe("agent_invalid_response");
    const array = route("/json-array", (_req, res) => json(res, 200, ["x"]));
    expect(failure((await call(array)).result).code).toBe("agent_invalid_response");
    const html = route("/html", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>login page</html>");
    });
    const error = failure((await call(html)).result);
    expect(error.code).toBe("agent_invalid_response");
    expect(error.message).toContain("text/html");
    expect(error.message).not.toContain("login page");
  });
});

describe("an answer nested deeper than the service reads", () => {
  const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  const raw = (body: string, contentType = "application/json"): Route => (_req, res) => {
    res.writeHead(200, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
    res.end(body);
  };

  it("fails a JSON answer nested 20,000 levels deep as invalid_output, without a RangeError", async () => {
    const path = route("/deep-json", raw(`{"output":${deep(20_000)}}`));
    expect(failure((await call(path)).result)).toEqual({ code: "invalid_output", message: "The agent's output nests deeper than 64 levels of arrays and objects; the service reads at most 64." });
  });

  it("fails a stream whose result event is nested 20,000 deep, and treats a deep output event as malformed", async () => {
    const result = route("/deep-result", raw(`event: result\ndata: {"output":${deep(20_000)}}\n\n`, "text/event-stream"));
    expect(failure((await call(result)).result).code).toBe("invalid_output");
    const output = route("/deep-output", raw(`event: output\ndata: {"delta":${deep(20_000)}}\n\n`, "text/event-stream"));
    expect(failure((await call(output)).result).code).toBe("agent_invalid_response");
  });

  it("reads an answer exactly 64 levels deep (the output 63 inside its envelope)", async () => {
    const path = route("/deep-enough", raw(`{"output":${deep(63)}}`));
    const { result } = await call(path);
    expect(result.status).toBe("completed");
  });

  it("fails an answer whose JSON is longer than 1,048,576 characters as output_too_large", async () => {
    const path = route("/long-json", raw(JSON.stringify({ output: "x".repeat(1_048_576) })));
    expect(failure((await call(path)).result).code).toBe("output_too_large");
  });
});

describe("a streamed answer", () => {
  it("passes deltas on as they arrive, before the agent sends the rest", async () => {
    const timeline: string[] = [];
    const firstSeen = deferred();
    const path = route("/stream", (_req, res) => {
      startEvents(res);
      res.write(sse("output", { delta: "Hel" }));
      void firstSeen.promise.then(() => {
        timeline.push("server: sending the rest");
        res.write(sse("output", { delta: "lo" }));
        res.end(sse("result", { output: { text: "Hello" } }));
      });
    });
    const { result, deltas } = await call(path, {
      stream: true,
      onDelta: (delta) => {
        timeline.push(`delta: ${delta}`);
        if (delta === "Hel") firstSeen.resolve();
      },
    });
    expect(result).toEqual({ status: "completed", output: { text: "Hello" } });
    expect(deltas).toEqual([]);
    expect(timeline).toEqual(["delta: Hel", "server: sending the rest", "delta: lo"]);
    expect(deliveriesTo(path)[0]!.verified.ok).toBe(true);
  });

  it("completes with the streamed text when the stream ends cleanly without a result event", async () => {
    const path = route("/stream-no-result", (_req, res) => {
      startEvents(res);
      res.write(": connected\r\n\r\n");
      res.write('event: output\r\ndata: {"delta":"one "}\r\n\r\n');
      res.write("event: progress\ndata: 50\n\n"); // an event type of the agent's own: ignored
      res.write('data: {"delta": "ignored: unnamed events are not output"}\n\n');
      res.write('event: output\rdata: {"delta":\rdata: "two "}\r\r');
      res.write('event:output\ndata:{"delta":"three"}\n\n');
      res.end();
    });
    const { result, deltas } = await call(path);
    expect(deltas).toEqual(["one ", "two ", "three"]);
    expect(result).toEqual({ status: "completed", output: "one two three" });
  });

  it("decodes UTF-8 split across writes and a leading byte-order mark", async () => {
    const path = route("/stream-utf8", (_req, res) => {
      startEvents(res);
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sse("output", { delta: "naïve — ✓" })), Buffer.from(sse("result", { output: "done" }))]);
      const cut = bytes.indexOf(Buffer.from("✓")) + 1; // inside the three bytes of ✓
      res.write(bytes.subarray(0, cut));
      setImmediate(() => res.end(bytes.subarray(cut)));
    });
    const { result, deltas } = await call(path);
    expect(deltas).toEqual(["naïve — ✓"]);
    expect(result).toEqual({ status: "completed", output: "done" });
  });

  it("fails with the agent's error event, after the output already passed on", async () => {
    const path = route("/stream-error", (_req, res) => {
      startEvents(res);
      res.write(sse("output", { delta: "Working… " }));
      res.end(sse("error", { message: "Upstream quota exhausted." }));
    });
    const { result, deltas } = await call(path);
    expect(deltas).toEqual(["Working… "]);
    expect(failure(result)).toEqual({ code: "agent_error", message: "The agent reported an error: Upstream quota exhausted." });
  });

  it("fails as cut when the connection drops mid-stream", async () => {
    const firstSeen = deferred();
    const path = route("/stream-cut", (_req, res) => {
      startEvents(res);
      res.write(sse("output", { delta: "partial " }));
      void firstSeen.promise.then(() => res.socket?.destroy());
    });
    const seen: string[] = [];
    const { result } = await call(path, {
      onDelta: (delta) => {
        seen.push(delta);
        firstSeen.resolve();
      },
    });
    expect(seen).toEqual(["partial "]);
    const error = failure(result);
    expect(error.code).toBe("agent_stream_cut");
    expect(error.message).toContain("8 characters of output had arrived");
  });

  it("fails when the stream ends inside an unfinished event, or with nothing at all", async () => {
    const unfinished = route("/stream-unfinished", (_req, res) => {
      startEvents(res);
      res.end('event: result\ndata: {"output": "x"}\n');
    });
    expect(failure((await call(unfinished)).result).code).toBe("agent_invalid_response");
    const empty = route("/stream-empty", (_req, res) => {
      startEvents(res);
      res.end(": nothing to say\n\n");
    });
    expect(failure((await call(empty)).result).code).toBe("agent_invalid_response");
    const malformed = route("/stream-malformed", (_req, res) => {
      startEvents(res);
      res.end("event: output\ndata: not json\n\n");
    });
    expect(failure((await call(malformed)).result).code).toBe("agent_invalid_response");
  });
});

describe("refusals and failures", () => {
  it("fails on a non-2xx answer, naming the status and nothing of the body", async () => {
    const path = route("/status-500", (_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("Traceback: /srv/agent/secret_config.py line 3");
    });
    const error = failure((await call(path)).result);
    expect(error).toEqual({ code: "agent_http_error", message: "The agent's endpoint answered HTTP 500." });
    const notFound = failure((await call("/no-such-route")).result);
    expect(notFound).toEqual({ code: "agent_http_error", message: "The agent's endpoint answered HTTP 404." });
  });

  it("does not follow a redirect: the signed request reaches the registered URL only", async () => {
    let targetHits = 0;
    const target = route("/redirect-target", (_req, res) => {
      targetHits += 1;
      json(res, 200, { output: "moved" });
    });
    const path = route("/redirect", (_req, res) => {
      res.writeHead(302, { location: target });
      res.end();
    });
    const temporary = route("/redirect-307", (_req, res) => {
      res.writeHead(307, { location: `${server.url}${target}` });
      res.end();
    });
    for (const from of [path, temporary]) {
      const error = failure((await call(from)).result);
      expect(error.code).toBe("agent_http_error");
      expect(error.message).toContain("redirect");
      expect(error.message).not.toContain(target);
    }
    expect(targetHits).toBe(0);
    expect(deliveriesTo(target)).toEqual([]);
    expect(deliveriesTo(path)).toHaveLength(1);
  });

  it("times out when the agent never answers, at the run's timeout", async () => {
    const arrived = deferred();
    const path = route("/hang", () => arrived.resolve()); // never answers
    const started = performance.now();
    const { result } = await call(path, { timeoutMs: 300 });
    const elapsed = performance.now() - started;
    await arrived.promise;
    expect(failure(result)).toEqual({ code: "timeout", message: "The agent did not answer within 300 ms." });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(3_000);
  });

  it("times out when a stream stalls, keeping what was streamed", async () => {
    const path = route("/stall", (_req, res) => {
      startEvents(res);
      res.write(sse("output", { delta: "slow " }));
    });
    // Room for the handshake and the first event on a loaded machine (this process serves both ends).
    const { result, deltas } = await call(path, { timeoutMs: 1_500 });
    expect(deltas).toEqual(["slow "]);
    const error = failure(result);
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("5 characters of output had arrived");
  });

  it("refuses a private address with the production guard, before any connection", async () => {
    const path = route("/private", (_req, res) => json(res, 200, { output: "never" }));
    const before = server.connections;
    const { result } = await call(path, { guard: guard({}) });
    const error = failure(result);
    expect(error.code).toBe("egress_refused");
    expect(error.message).toContain("loopback");
    expect(error.message).not.toContain("127.0.0.1");
    expect(error.message).not.toContain(String(server.port));
    expect(server.connections).toBe(before);
    expect(deliveriesTo(path)).toEqual([]);
  });

  it("refuses a non-HTTPS URL", async () => {
    const { result } = await callConnectedAgent({
      guard: guard({}),
      url: "http://agent.example.com/run",
      secret: SECRET,
      runId: "run_plain",
      agentId: "a",
      listingId: LISTING_ID,
      task: "t",
      input: null,
      timeoutMs: 1_000,
      stream: false,
    }).then((r) => ({ result: r }));
    expect(failure(result).code).toBe("egress_refused");
    expect(failure(result).message).not.toContain("agent.example.com");
  });

  it("reports an endpoint it cannot reach: an untrusted certificate, a closed port", async () => {
    const path = route("/untrusted", (_req, res) => json(res, 200, { output: "never" }));
    const untrusted = failure((await call(path, { guard: guard({ allowHosts: ["127.0.0.1"] }) })).result);
    expect(untrusted).toEqual({ code: "agent_unreachable", message: "The agent's endpoint could not be reached (TLS certificate not trusted)." });

    const closed = await startHttpsServer(() => undefined);
    const closedUrl = `${closed.url}/run`;
    await closed.stop();
    const refused = failure((await call("/", { url: closedUrl })).result);
    expect(refused).toEqual({ code: "agent_unreachable", message: "The agent's endpoint could not be reached (connection refused)." });
  });

  it("reports a TLS handshake that never completes as unreachable, at the guard's connect timeout", async () => {
    const silent = net.createServer(() => undefined); // accepts TCP, never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const accepted: net.Socket[] = [];
    silent.on("connection", (socket) => accepted.push(socket));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const started = performance.now();
      const { result } = await call("/", { url: `https://127.0.0.1:${port}/run`, timeoutMs: 10_000, guard: guard({ ca: server.ca, allowHosts: ["127.0.0.1"], connectTimeoutMs: 200 }) });
      expect(failure(result)).toEqual({ code: "agent_unreachable", message: "The agent's endpoint could not be reached (connection timed out)." });
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("stops when the signal aborts: before sending, while waiting, mid-stream", async () => {
    const never = route("/abort-before", (_req, res) => json(res, 200, { output: "never" }));
    const early = new AbortController();
    early.abort();
    expect(failure((await call(never, { signal: early.signal })).result).code).toBe("cancelled");
    expect(deliveriesTo(never)).toEqual([]);

    const arrived = deferred();
    const waiting = route("/abort-waiting", () => arrived.resolve());
    const controller = new AbortController();
    void arrived.promise.then(() => controller.abort());
    const started = performance.now();
    const { result } = await call(waiting, { signal: controller.signal, timeoutMs: 10_000 });
    expect(failure(result)).toEqual({ code: "cancelled", message: "The run was cancelled before the agent answered." });
    expect(performance.now() - started).toBeLessThan(5_000);

    const midStream = new AbortController();
    const streaming = route("/abort-stream", (_req, res) => {
      startEvents(res);
      res.write(sse("output", { delta: "abc" }));
    });
    const streamed = await call(streaming, { signal: midStream.signal, timeoutMs: 10_000, onDelta: () => midStream.abort() });
    expect(failure(streamed.result)).toEqual({ code: "cancelled", message: "The run was cancelled before the agent finished (3 characters of output had arrived)." });
  });

  it("caps the response at the guard's limit, declared or streamed", async () => {
    const capped = () => guard({ ca: server.ca, allowHosts: ["127.0.0.1"], maxResponseBytes: 1024 });
    const declared = route("/big-json", (_req, res) => json(res, 200, { output: "x".repeat(4096) }));
    const error = failure((await call(declared, { guard: capped() })).result);
    expect(error).toEqual({ code: "output_too_large", message: "The agent's response exceeded the 1024 bytes the service reads." });

    const streamed = route("/big-stream", (_req, res) => {
      startEvents(res);
      let sent = 0;
      const next = () => {
        if (res.destroyed || sent >= 64) return void res.end();
        sent += 1;
        res.write(sse("output", { delta: "y".repeat(100) }), () => setImmediate(next));
      };
      next();
    });
    const { result, deltas } = await call(streamed, { guard: capped() });
    expect(failure(result).code).toBe("output_too_large");
    expect(deltas.join("").length).toBeLessThan(1024);
  });

  it("keeps the secret and the signature out of an agent's error message", async () => {
    const echo: Route = (_req, res, delivery) => {
      const signature = String(delivery.headers["webhook-signature"]);
      json(res, 200, { error: { message: `bad signature ${signature} for ${SECRET} (key ${KEY_PART})` } });
    };
    const path = route("/echo-secret", echo);
    const error = failure((await call(path)).result);
    expect(error.code).toBe("agent_error");
    expect(error.message).toBe("The agent reported an error: bad signature [redacted] for [redacted] (key [redacted])");

    const streamed = route("/echo-secret-stream", (_req, res, delivery) => {
      startEvents(res);
      res.end(sse("error", { message: `signed with ${String(delivery.headers["webhook-signature"]).slice(3)}` }));
    });
    expect(failure((await call(streamed)).result).message).toBe("The agent reported an error: signed with [redacted]");
  });

  it("bounds and cleans an agent's error message", async () => {
    const path = route("/long-error", (_req, res) => {
      startEvents(res);
      res.end(`event: error\ndata: ${JSON.stringify({ message: `\u001b[31mred\u202e${"z".repeat(2000)}` })}\n\n`);
    });
    const error = failure((await call(path)).result);
    expect(error.code).toBe("agent_error");
    expect(error.message).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(error.message.length).toBeLessThanOrEqual("The agent reported an error: ".length + 500);
  });
});
