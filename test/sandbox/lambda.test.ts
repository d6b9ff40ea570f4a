// The cloud sandbox: the runner's core (serveRun) writing the sandbox protocol, the runner's Lambda entry,
// and the Lambda pool against a local HTTP server that speaks Lambda's InvokeWithResponseStream wire
// protocol (application/vnd.amazon.eventstream frames: PayloadChunk events, then InvokeComplete).
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLambdaSandboxPool } from "../../src/adapters/sandbox/lambda.ts";
import type { RunEvent, RunSpec, SandboxPool } from "../../src/adapters/sandbox/port.ts";
import type { EntryIo } from "../../src/protocols/runner.ts";
import { serveRun, type RunnerEntry } from "../../src/runtime/runner-core.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs serveRun and returns the lines it wrote, parsed. */
async function serve(event: unknown, entry: RunnerEntry): Promise<{ outcome: string; lines: Record<string, unknown>[]; raw: string }> {
  let raw = "";
  const outcome = await serveRun(event, (line) => void (raw += line), entry);
  return { outcome, raw, lines: raw.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("serveRun (the runner's core)", () => {
  it("writes each emitted delta as an output line, in order, then the result", async () => {
    const seen: { runId?: string; deadline?: number; payload?: unknown } = {};
    const deadline = Date.now() + 5_000;
    const { outcome, lines, raw } = await serve({ runId: "run-a", payload: { parts: ["a", "é", "\n", "c"] }, deadline }, (async (payload: { parts: string[] }, io: EntryIo) => {
      Object.assign(seen, { runId: io.runId, deadline: io.deadline, payload });
      for (const part of payload.parts) {
        io.emit(part);
        await sleep(1);
      }
      return { joined: payload.parts.join("") };
    }) as RunnerEntry);
    expect(outcome).toBe("completed");
    expect(seen).toEqual({ runId: "run-a", deadline, payload: { parts: ["a", "é", "\n", "c"] } });
    expect(raw.endsWith("\n")).toBe(true);
    expect(lines.slice(0, 4)).toEqual([
      { t: "output", delta: "a" },
      { t: "output", delta: "é" },
      { t: "output", delta: "\n" },
      { t: "output", delta: "c" },
    ]);
    expect(lines).toHaveLength(5);
    expect(lines[4]).toMatchObject({ t: "result", ok: true, output: { joined: "aé\nc" } });
    expect(lines[4]!.invokedAt).toEqual(expect.any(Number));
  });

  it("reports a throw as a failed result with the entry's message", async () => {
    const { outcome, lines } = await serve({ runId: "run-b", payload: null, deadline: Date.now() + 5_000 }, ((_p: unknown, io: EntryIo) => {
      io.emit("partial");
      throw new Error("the model refused");
    }) as RunnerEntry);
    expect(outcome).toBe("failed");
    expect(lines).toEqual([{ t: "output", delta: "partial" }, { t: "result", ok: false, message: "the model refused", invokedAt: expect.any(Number) }]);
  });

  it("reports an output that is not JSON as a failed result", async () => {
    const { outcome, lines } = await serve({ runId: "run-c", payload: null, deadline: Date.now() + 5_000 }, (() => ({ big: 1n })) as RunnerEntry);
    expect(outcome).toBe("failed");
    expect(lines).toEqual([{ t: "result", ok: false, message: "the entry's output is not JSON-serialisable", invokedAt: expect.any(Number) }]);
  });

  it("refuses an invocation that is not a run", async () => {
    for (const event of [null, "x", { payload: {} }, { runId: "", deadline: Date.now() + 1000 }, { runId: "r", deadline: "soon" }]) {
      const { outcome, lines } = await serve(event, (() => "never") as RunnerEntry);
      expect(outcome).toBe("failed");
      expect(lines).toEqual([{ t: "result", ok: false, message: "the invocation is not a run (runId and deadline are required)" }]);
    }
  });

  it("stops at the deadline: no result, and nothing emitted afterwards is written", async () => {
    let late: (() => void) | undefined;
    const started = Date.now();
    const { outcome, lines } = await serve({ runId: "run-d", payload: null, deadline: Date.now() + 150 }, (async (_p: unknown, io: EntryIo) => {
      io.emit("early");
      late = () => io.emit("late");
      await new Promise(() => undefined);
    }) as RunnerEntry);
    expect(outcome).toBe("timeout");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    late?.();
    expect(lines).toEqual([{ t: "output", delta: "early" }]);
  });

  it("does not start a run whose deadline has passed", async () => {
    let called = false;
    const { outcome, lines } = await serve({ runId: "run-e", payload: null, deadline: Date.now() - 1 }, (() => {
      called = true;
    }) as RunnerEntry);
    expect(outcome).toBe("timeout");
    expect(called).toBe(false);
    expect(lines).toEqual([]);
  });
});

describe("functions/runner.ts (the Lambda entry)", () => {
  it("streams the agent runtime's answer for an invocation: a payload without an agent fails with the runtime's reason", async () => {
    const global = globalThis as { awslambda?: unknown };
    const before = global.awslambda;
    global.awslambda = { streamifyResponse: (handler: unknown) => handler };
    try {
      const { handler } = (await import("../../functions/runner.ts")) as unknown as { handler: (event: unknown, stream: PassThrough, context: unknown) => Promise<void> };
      const stream = new PassThrough();
      let raw = "";
      stream.on("data", (chunk: Buffer) => void (raw += chunk.toString("utf8")));
      const ended = once(stream, "end");
      await handler({ runId: "run-entry", payload: { task: "hello" }, deadline: Date.now() + 10_000 }, stream, {});
      await ended;
      const lines = raw.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([{ t: "result", ok: false, message: "the run payload has no agent", invokedAt: expect.any(Number) }]);
    } finally {
      global.awslambda = before;
    }
  });
});

// ---- the Lambda pool against a local InvokeWithResponseStream endpoint ----

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString("utf8"),
  (text) => new Uint8Array(Buffer.from(text, "utf8")),
);

function frame(eventType: "PayloadChunk" | "InvokeComplete", body: Uint8Array): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: eventType },
      ":message-type": { type: "string", value: "event" },
      ":content-type": { type: "string", value: eventType === "PayloadChunk" ? "application/octet-stream" : "application/json" },
    },
    body,
  });
}

const chunk = (text: string | Uint8Array) => frame("PayloadChunk", typeof text === "string" ? new Uint8Array(Buffer.from(text, "utf8")) : text);
const complete = (fields: { ErrorCode?: string; ErrorDetails?: string } = {}) => frame("InvokeComplete", new Uint8Array(Buffer.from(JSON.stringify(fields), "utf8")));
const line = (message: unknown) => JSON.stringify(message) + "\n";

interface Call {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: { runId: string; payload: unknown; deadline: number };
  /** Resolves when the caller's connection for this call closed. */
  closed: Promise<void>;
}

type Behaviour = (call: Call, res: ServerResponse) => void | Promise<void>;

let server: Server;
let endpoint: string;
let behaviour: Behaviour;
let calls: Call[];
let pool: SandboxPool;
let counter = 0;

function startStream(res: ServerResponse): void {
  res.writeHead(200, { "Content-Type": "application/vnd.amazon.eventstream", "X-Amz-Executed-Version": "$LATEST", "x-amzn-RequestId": "00000000-0000-4000-8000-000000000000" });
}

function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  return { runId: `run-${++counter}`, entry: "/srv/dist/runtime/agent.mjs", payload: { task: "t" }, timeoutMs: 10_000, memoryMb: 128, ...overrides };
}

function newClient(): LambdaClient {
  return new LambdaClient({ region: "us-east-1", endpoint, credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" }, maxAttempts: 1 });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const call: Call = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: JSON.parse(Buffer.concat(parts).toString("utf8")) as Call["body"],
        closed: new Promise((resolveClosed) => res.once("close", () => resolveClosed())),
      };
      calls.push(call);
      void Promise.resolve(behaviour(call, res)).catch(() => res.destroy());
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

beforeEach(async () => {
  calls = [];
  await pool?.close();
  pool = createLambdaSandboxPool({ functionName: "agent-rental-test-Runner", region: "us-east-1", client: newClient() });
});

afterAll(async () => {
  await pool?.close();
});

async function run(s: RunSpec, events: RunEvent[] = []) {
  const result = await pool.run(s, (event) => events.push(event));
  return { result, events };
}

describe("createLambdaSandboxPool", () => {
  it("invokes the runner with TenantId = run id and the run as the payload, streams the deltas in order and returns the output", async () => {
    // The endpoint runs the real runner core and cuts its bytes into small chunks that split lines and
    // multi-byte characters, as a network may.
    behaviour = async (call, res) => {
      let bytes = Buffer.alloc(0);
      await serveRun(call.body, (text) => void (bytes = Buffer.concat([bytes, Buffer.from(text, "utf8")])), (async (payload: { parts: string[] }, io: EntryIo) => {
        for (const part of payload.parts) io.emit(part);
        return { joined: payload.parts.join(""), runId: io.runId };
      }) as RunnerEntry);
      startStream(res);
      for (let at = 0; at < bytes.length; at += 7) {
        res.write(chunk(new Uint8Array(bytes.subarray(at, at + 7))));
        await sleep(1);
      }
      res.end(complete());
    };
    const parts = ["Hello", ", ", "wörld", " ☃", "\n", "{\"json\": true}", "x".repeat(100)];
    const s = spec({ payload: { parts } });
    const { result, events } = await run(s);

    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.method).toBe("POST");
    expect(call.path).toBe("/2021-11-15/functions/agent-rental-test-Runner/response-streaming-invocations");
    expect(call.headers["x-amz-tenant-id"]).toBe(s.runId);
    expect(call.headers["x-amz-invocation-type"]).toBe("RequestResponse");
    expect(call.body).toEqual({ runId: s.runId, payload: { parts }, deadline: expect.any(Number) });
    expect(call.body.deadline).toBeCloseTo(result.startedAt + s.timeoutMs, 0);

    expect(events).toEqual(parts.map((delta) => ({ type: "output", delta })));
    expect(result).toMatchObject({ status: "completed", output: { joined: parts.join(""), runId: s.runId } });
    expect(result.entryInvokedAt).toEqual(expect.any(Number));
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.pid).toBeUndefined();
    expect(pool.stats()).toMatchObject({ busy: 0, spawned: 1, idle: 0 });
  });

  it("maps the runner's failed result to entry_error with the entry's message", async () => {
    behaviour = (_call, res) => {
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "thinking" }) + line({ t: "result", ok: false, message: "the model gave an empty answer", invokedAt: 1 })));
      res.end(complete());
    };
    const { result, events } = await run(spec());
    expect(events).toEqual([{ type: "output", delta: "thinking" }]);
    expect(result).toMatchObject({ status: "failed", error: { code: "entry_error", message: "the model gave an empty answer" }, entryInvokedAt: 1 });
  });

  it("fails a result line nested 20,000 levels deep as invalid_output, and reads one exactly 64 deep", async () => {
    const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    behaviour = (_call, res) => {
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "a" }) + `{"t":"result","ok":true,"output":${deep(20_000)}}\n`));
      res.end(complete());
    };
    const { result, events } = await run(spec());
    expect(events).toEqual([{ type: "output", delta: "a" }]);
    expect(result).toMatchObject({ status: "failed", error: { code: "invalid_output", message: "the agent's output nests deeper than 64 levels of arrays and objects; the service reads at most 64" } });

    behaviour = (_call, res) => {
      startStream(res);
      res.write(chunk(`{"t":"result","ok":true,"output":${deep(63)}}\n`));
      res.end(complete());
    };
    expect((await run(spec())).result).toMatchObject({ status: "completed" });
  });

  it("ignores lines that are not messages and anything after the result", async () => {
    behaviour = (_call, res) => {
      startStream(res);
      res.write(chunk("not json\n" + line({ t: "output", delta: "a" }) + line({ t: "result", ok: true, output: 42 }) + line({ t: "output", delta: "late" })));
      res.end(complete());
    };
    const { result, events } = await run(spec());
    expect(events).toEqual([{ type: "output", delta: "a" }]);
    expect(result).toMatchObject({ status: "completed", output: 42 });
  });

  it("times out at the deadline: the request is abandoned and the deltas so far were delivered", async () => {
    let callClosed: Promise<void> | undefined;
    behaviour = (call, res) => {
      callClosed = call.closed;
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "first" })));
      // and then nothing: the run outlives its timeout
    };
    const started = performance.now();
    // Room for the first event on a loaded machine before the timeout.
    const { result, events } = await run(spec({ timeoutMs: 1_000 }));
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: "failed", error: { code: "timeout", message: "the run exceeded its 1000 ms timeout and was stopped" } });
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3_000);
    expect(events).toEqual([{ type: "output", delta: "first" }]);
    await callClosed;
    expect(pool.stats().busy).toBe(0);
  });

  it("reports a function error (InvokeComplete with an ErrorCode) as crashed, without the error's details", async () => {
    behaviour = (_call, res) => {
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "partial" })));
      res.end(complete({ ErrorCode: "Unhandled", ErrorDetails: JSON.stringify({ errorType: "TypeError", errorMessage: "boom with sk-live-secret", trace: ["at x"] }) }));
    };
    const { result, events } = await run(spec());
    expect(events).toEqual([{ type: "output", delta: "partial" }]);
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ code: "crashed", message: "the runner ended with an error (Unhandled: TypeError) without a result" });
    expect(JSON.stringify(result)).not.toContain("sk-live-secret");
  });

  it("reports a runner that ran out of memory as out_of_memory", async () => {
    behaviour = (_call, res) => {
      startStream(res);
      res.end(complete({ ErrorCode: "Unhandled", ErrorDetails: JSON.stringify({ errorType: "Runtime.OutOfMemory", errorMessage: "Runtime exited with error: signal: killed" }) }));
    };
    const { result } = await run(spec());
    expect(result.error).toEqual({ code: "out_of_memory", message: "the run exceeded the runner's memory" });
  });

  it("reports a stream that ends without a result as crashed", async () => {
    behaviour = (_call, res) => {
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "a" }) + '{"t":"result","ok":tr'));
      res.end(complete());
    };
    const { result, events } = await run(spec());
    expect(events).toEqual([{ type: "output", delta: "a" }]);
    expect(result.error).toEqual({ code: "crashed", message: "the runner ended without a result" });
  });

  it("reports a connection lost mid-stream as crashed", async () => {
    behaviour = async (_call, res) => {
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "a" })));
      await sleep(20);
      res.socket?.destroy();
    };
    const { result, events } = await run(spec());
    expect(events).toEqual([{ type: "output", delta: "a" }]);
    expect(result.error).toEqual({ code: "crashed", message: "the connection to the runner was lost before a result" });
  });

  it("reports an invoke the service refuses as crashed (named), and a payload too large as entry_error", async () => {
    behaviour = (_call, res) => {
      res.writeHead(429, { "Content-Type": "application/json", "x-amzn-ErrorType": "TooManyRequestsException" });
      res.end(JSON.stringify({ message: "Rate Exceeded.", Type: "User", Reason: "ReservedFunctionConcurrentInvocationLimitExceeded" }));
    };
    expect((await run(spec())).result.error).toEqual({ code: "crashed", message: "the runner could not be invoked (TooManyRequestsException)" });

    behaviour = (_call, res) => {
      res.writeHead(413, { "Content-Type": "application/json", "x-amzn-ErrorType": "RequestTooLargeException" });
      res.end(JSON.stringify({ message: "Request must be smaller than 6291456 bytes for the InvokeFunction operation", Type: "User" }));
    };
    expect((await run(spec())).result.error).toEqual({ code: "entry_error", message: "the payload is larger than the runner accepts" });
    expect(pool.stats().spawned).toBe(0);
  });

  it("refuses a payload that is not JSON without invoking the runner", async () => {
    behaviour = (_call, res) => void res.end();
    const { result } = await run(spec({ payload: { n: 1n } }));
    expect(result.error).toEqual({ code: "entry_error", message: "the payload is not JSON-serialisable" });
    expect(calls).toHaveLength(0);
  });

  it("runs concurrently, each run its own tenant", async () => {
    behaviour = async (call, res) => {
      startStream(res);
      await sleep(30);
      res.write(chunk(line({ t: "output", delta: call.body.runId }) + line({ t: "result", ok: true, output: call.body.runId })));
      res.end(complete());
    };
    const specs = [spec(), spec(), spec(), spec()];
    const running = specs.map((s) => run(s));
    await sleep(10);
    expect(pool.stats().busy).toBe(4);
    const results = await Promise.all(running);
    results.forEach(({ result, events }, i) => {
      expect(result.output).toBe(specs[i]!.runId);
      expect(events).toEqual([{ type: "output", delta: specs[i]!.runId }]);
    });
    expect(calls.map((call) => call.headers["x-amz-tenant-id"]).sort()).toEqual(specs.map((s) => s.runId).sort());
  });

  it("close() ends the runs under way as crashed, and later runs are refused", async () => {
    let callClosed: Promise<void> | undefined;
    behaviour = (call, res) => {
      callClosed = call.closed;
      startStream(res);
      res.write(chunk(line({ t: "output", delta: "a" })));
    };
    const running = run(spec());
    while (calls.length === 0) await sleep(5);
    await sleep(20);
    await pool.close();
    const { result, events } = await running;
    expect(events).toEqual([{ type: "output", delta: "a" }]);
    expect(result.error).toEqual({ code: "crashed", message: "the sandbox pool was closed during the run" });
    await callClosed;
    await expect(pool.run(spec())).rejects.toThrow(/closed/);
  });

  it("checks the run spec like every sandbox pool", async () => {
    await expect(pool.run(spec({ runId: "" }))).rejects.toThrow(/runId/);
    await expect(pool.run(spec({ timeoutMs: 0 }))).rejects.toThrow(/timeoutMs/);
    expect(() => createLambdaSandboxPool({ functionName: "", region: "us-east-1" })).toThrow(/functionName/);
  });
});
