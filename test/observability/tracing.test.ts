// The tracer wrapper of the Lambda handlers, with tracing enabled and no AWS: a child process is given
// the environment Lambda gives a function with active tracing (the execution environment, the trace
// header, the daemon's address), and this test plays the X-Ray daemon, a UDP socket, to read the
// segment documents the X-Ray SDK sends. Off Lambda (this process) tracing is off and the wrapper only
// passes the handler's result through.
import { spawn } from "node:child_process";
import dgram from "node:dgram";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { traced, tracer } from "../../src/observability/tracing.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const TRACE = { root: "1-65f0a1b2-0123456789abcdef01234567", parent: "53995c3f42cd8ad8" };

/** Runs `script` (ESM, top-level await) in a Node process with `env` added; resolves with its stdout. */
function runChild(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe("the tracer wrapper", () => {
  it("adds a `## name` subsegment per invocation under the Lambda trace, annotated with the cold start and the service, and records a thrown error on it", async () => {
    const daemon = dgram.createSocket("udp4");
    const documents: Record<string, unknown>[] = [];
    daemon.on("message", (message) => {
      // Each datagram is a header line, then one segment document.
      const [, body] = message.toString().split("\n");
      if (body) documents.push(JSON.parse(body) as Record<string, unknown>);
    });
    await new Promise<void>((resolve) => daemon.bind(0, "127.0.0.1", () => resolve()));
    try {
      const { port } = daemon.address();
      const out = await runChild(
        `const { traced } = await import(${JSON.stringify(join(root, "src/observability/tracing.ts"))});
         const handler = traced("api", async (event) => ({ echoed: event }));
         console.log(JSON.stringify(await handler("first")));
         console.log(JSON.stringify(await handler("second")));
         try { await traced("failing", async () => { throw new Error("the handler broke"); })(); } catch (error) { console.log(JSON.stringify({ threw: error.message })); }`,
        {
          AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
          AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
          AWS_LAMBDA_FUNCTION_NAME: "agents-api",
          LAMBDA_TASK_ROOT: root,
          _X_AMZN_TRACE_ID: `Root=${TRACE.root};Parent=${TRACE.parent};Sampled=1`,
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
          AWS_XRAY_CONTEXT_MISSING: "LOG_ERROR",
          POWERTOOLS_SERVICE_NAME: "agents-traced",
        },
      );
      // The wrapper hands the handler's result and error through unchanged.
      expect(out.trim().split("\n").map((line) => JSON.parse(line) as unknown)).toEqual([{ echoed: "first" }, { echoed: "second" }, { threw: "the handler broke" }]);
      await until("the three subsegments at the daemon", () => documents.length >= 3, 10_000);
      expect(documents).toHaveLength(3);
      const [first, second, failing] = documents;
      for (const doc of documents) expect(doc).toMatchObject({ type: "subsegment", trace_id: TRACE.root, parent_id: TRACE.parent, annotations: { Service: "agents-traced" } });
      expect(first).toMatchObject({ name: "## api", annotations: { ColdStart: true } });
      expect(second).toMatchObject({ name: "## api", annotations: { ColdStart: false } });
      expect(first!.fault).toBeUndefined();
      expect(typeof first!.end_time).toBe("number");
      expect(failing).toMatchObject({ name: "## failing", fault: true, cause: { exceptions: [{ message: "the handler broke", type: "Error" }] } });
    } finally {
      daemon.close();
    }
  }, 30_000);

  it("is off outside Lambda and only passes the handler's result through", async () => {
    expect(tracer.isTracingEnabled()).toBe(false);
    expect(await traced("local", async (n: number) => n * 2)(21)).toBe(42);
  });
});
