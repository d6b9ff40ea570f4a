// The cloud sandbox adapter: every run is one invocation of the runner function (functions/runner.ts)
// with `InvokeWithResponseStream` and `TenantId = runId`. The runner is configured with tenant isolation
// (PER_TENANT), so an execution environment (a Firecracker microVM) only ever serves invocations of one
// tenant id: with a fresh run id per run, no environment serves two runs. The runner streams back the
// local sandbox's protocol (src/protocols/runner.ts), newline-delimited JSON inside the event stream's
// PayloadChunks (src/runtime/runner-core.ts writes it). The runner has the agent runtime built in: `spec.entry` names the local
// bundle and is not sent; the runner's memory is the function's (stacks/runner.ts), not `spec.memoryMb`.
// See docs/design/sandbox.md, "In the cloud: the runner function".
import type { InvokeWithResponseStreamResponseEvent, LambdaClient } from "@aws-sdk/client-lambda";
import { parseBoundedJson, TOO_DEEP_OUTPUT } from "../../protocols/bounded-json.ts";
import { ndjsonLines } from "../../protocols/ndjson.ts";
import { MAX_MESSAGE_LINE_BYTES, type RunnerMessage } from "../../protocols/runner.ts";
import type { RunErrorCode, RunEvent, RunResult, RunSpec, SandboxPool, SandboxStats } from "./port.ts";

export interface LambdaSandboxPoolOptions {
  /** The runner function's name or ARN (`RUNNER_FUNCTION_NAME`). */
  functionName: string;
  region: string;
  /** A configured client (for another endpoint or credentials); default: a client for `region`. */
  client?: LambdaClient;
}

/**
 * The runner ends a run at the deadline by its own clock. A stream that ends without a result this
 * close to the deadline by ours is that timeout, whatever the clocks' offset.
 */
const DEADLINE_SKEW_MS = 1_000;
/** The reference of a Lambda error code or type we repeat in a message: a plain identifier, or nothing. */
const ERROR_NAME = /^[A-Za-z0-9._-]{1,64}$/;

type Sdk = typeof import("@aws-sdk/client-lambda");

/** How the invocation ended, before it is turned into a RunResult. */
type Ending =
  | { kind: "stream-end"; errorCode?: string; errorType?: string }
  | { kind: "invoke-error"; error: unknown }
  | { kind: "stream-error" }
  | { kind: "malformed" }
  | { kind: "deadline" }
  | { kind: "closed" };

/** A run under way: how to end it, and its result. */
interface InFlight {
  close(): void;
  settled: Promise<RunResult>;
}

function validate(spec: RunSpec): void {
  if (typeof spec.runId !== "string" || spec.runId === "") throw new TypeError("runId is required");
  if (!Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0) throw new TypeError("timeoutMs must be a positive number");
  if (!Number.isInteger(spec.memoryMb) || spec.memoryMb < 8) throw new TypeError("memoryMb must be an integer of at least 8");
}

function errorName(error: unknown): string | undefined {
  const name = error instanceof Error ? error.name : undefined;
  return name && ERROR_NAME.test(name) ? name : undefined;
}

/** The `errorType` Lambda puts in a function error's details (`{"errorType":..,"errorMessage":..}`); the
 * details themselves are never repeated (they may hold anything the run had). */
function detailsType(details: string | undefined): string | undefined {
  if (!details) return undefined;
  try {
    const type = (JSON.parse(details) as { errorType?: unknown })?.errorType;
    return typeof type === "string" && ERROR_NAME.test(type) ? type : undefined;
  } catch {
    return undefined;
  }
}

/** A run's result from how its invocation ended and what the runner sent: its result message, or
 * that an answer was too deep to read. */
function resultOf(ending: Ending, seen: { result: Extract<RunnerMessage, { t: "result" }> | undefined; unreadable: boolean; timeoutMs: number; t0: number; startedAt: number; deadline: number }): RunResult {
  const { result, deadline } = seen;
  const base = { durationMs: performance.now() - seen.t0, startedAt: seen.startedAt };
  const invokedAt = typeof result?.invokedAt === "number" ? { entryInvokedAt: result.invokedAt } : {};
  if (result?.ok === true) return { status: "completed", output: result.output, ...base, ...invokedAt };
  if (seen.unreadable) return { status: "failed", error: { code: "invalid_output", message: TOO_DEEP_OUTPUT }, ...base };
  if (result) return { status: "failed", error: { code: "entry_error", message: String(result.message) }, ...base, ...invokedAt };
  const timedOut = { status: "failed" as const, error: { code: "timeout" as const, message: `the run exceeded its ${seen.timeoutMs} ms timeout and was stopped` }, ...base };
  const crashed = (message: string): RunResult => ({ status: "failed", error: { code: "crashed", message }, ...base });
  switch (ending.kind) {
    case "closed":
      return crashed("the sandbox pool was closed during the run");
    case "deadline":
      return timedOut;
    case "malformed":
      return crashed("the runner sent a malformed response");
    case "stream-error":
      return Date.now() >= deadline - DEADLINE_SKEW_MS ? timedOut : crashed("the connection to the runner was lost before a result");
    case "invoke-error": {
      const name = errorName(ending.error);
      if (name === "RequestTooLargeException" || name === "SerializedRequestEntityTooLargeException") {
        return { status: "failed", error: { code: "entry_error", message: "the payload is larger than the runner accepts" }, ...base };
      }
      return crashed(`the runner could not be invoked${name ? ` (${name})` : ""}`);
    }
    case "stream-end": {
      const reported = `${ending.errorCode ?? ""} ${ending.errorType ?? ""}`;
      if (Date.now() >= deadline - DEADLINE_SKEW_MS || /timedout|timeout/i.test(reported)) return timedOut;
      if (/outofmemory/i.test(reported)) return { status: "failed", error: { code: "out_of_memory", message: "the run exceeded the runner's memory" }, ...base };
      const reason = [ending.errorCode, ending.errorType].filter((part) => part !== undefined && ERROR_NAME.test(part)).join(": ");
      return crashed(`the runner ended${reason ? ` with an error (${reason})` : ""} without a result`);
    }
  }
}

export function createLambdaSandboxPool(options: LambdaSandboxPoolOptions): SandboxPool {
  const functionName = options.functionName;
  if (typeof functionName !== "string" || functionName === "") throw new TypeError("functionName is required");
  let sdkLoading: Promise<Sdk> | undefined;
  // The SDK is loaded with the first run, not with the service: a process that runs nothing never pays
  // for it.
  const sdk = () => (sdkLoading ??= import("@aws-sdk/client-lambda"));
  let client: LambdaClient | undefined = options.client;
  const ownClient = options.client === undefined;
  const inFlight = new Set<InFlight>();
  let closed = false;
  const counters = { spawned: 0 };

  async function invoke(spec: RunSpec, body: Uint8Array, controller: AbortController, onMessage: (message: RunnerMessage) => boolean, onUnreadable: () => void): Promise<Ending> {
    const { LambdaClient: Client, InvokeWithResponseStreamCommand } = await sdk();
    client ??= new Client({ region: options.region });
    if (controller.signal.aborted) return { kind: "deadline" };
    let stream: AsyncIterable<InvokeWithResponseStreamResponseEvent> | undefined;
    try {
      const response = await client.send(
        new InvokeWithResponseStreamCommand({ FunctionName: functionName, TenantId: spec.runId, InvocationType: "RequestResponse", Payload: body }),
        { abortSignal: controller.signal },
      );
      stream = response.EventStream;
    } catch (error) {
      return { kind: "invoke-error", error };
    }
    counters.spawned++;
    if (!stream) return { kind: "stream-end" };
    let done = false;
    const decoder = new TextDecoder();
    const deliver = (line: Uint8Array) => {
      // Bounded before anything recurses over it (the result is serialised and schema-checked later).
      const parsed = parseBoundedJson(decoder.decode(line), { maxChars: Number.MAX_SAFE_INTEGER });
      if (!parsed.ok) {
        // Deltas are flat strings: only a result (the agent's output) can nest this deep.
        if (parsed.reason === "too_deep" && !done) {
          done = true;
          onUnreadable();
        }
        return; // otherwise not a message of the protocol; ignored, as the local sandbox ignores it
      }
      if (!done) done = onMessage(parsed.value as RunnerMessage);
    };
    const lines = ndjsonLines(deliver, MAX_MESSAGE_LINE_BYTES);
    try {
      for await (const event of stream) {
        const chunk = event.PayloadChunk?.Payload;
        if (chunk && chunk.byteLength > 0) {
          if (!lines.push(chunk)) {
            controller.abort();
            return { kind: "malformed" };
          }
        } else if (event.InvokeComplete) {
          const { ErrorCode, ErrorDetails } = event.InvokeComplete;
          const errorType = detailsType(ErrorDetails);
          return { kind: "stream-end", ...(ErrorCode ? { errorCode: ErrorCode } : {}), ...(errorType ? { errorType } : {}) };
        }
      }
    } catch {
      return controller.signal.aborted ? { kind: "deadline" } : { kind: "stream-error" };
    }
    return { kind: "stream-end" };
  }

  async function run(spec: RunSpec, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    if (closed) throw new Error("the sandbox pool is closed");
    validate(spec);
    const t0 = performance.now();
    const startedAt = performance.timeOrigin + t0;
    const deadline = startedAt + spec.timeoutMs;
    const failed = (code: RunErrorCode, message: string): RunResult => ({ status: "failed", error: { code, message }, durationMs: performance.now() - t0, startedAt });
    let body: Uint8Array;
    try {
      body = new TextEncoder().encode(JSON.stringify({ runId: spec.runId, payload: spec.payload, deadline }));
    } catch {
      return failed("entry_error", "the payload is not JSON-serialisable");
    }

    const controller = new AbortController();
    let result: Extract<RunnerMessage, { t: "result" }> | undefined;
    let unreadable = false;
    const onUnreadable = () => void (unreadable = true);
    const onMessage = (message: RunnerMessage): boolean => {
      if (message?.t === "output" && typeof message.delta === "string") {
        try {
          onEvent?.({ type: "output", delta: message.delta });
        } catch {
          // a failing listener must not take the run down
        }
        return false;
      }
      if (message?.t === "result") {
        result = message;
        return true;
      }
      return false;
    };

    const toResult = (ending: Ending): RunResult => resultOf(ending, { result, unreadable, timeoutMs: spec.timeoutMs, t0, startedAt, deadline });

    let closing = false;
    let timer: NodeJS.Timeout | undefined;
    const stopped = new Promise<Ending>((resolveStopped) => {
      timer = setTimeout(() => resolveStopped({ kind: "deadline" }), Math.max(0, deadline - Date.now()));
      controller.signal.addEventListener("abort", () => {
        if (closing) resolveStopped({ kind: "closed" });
      });
    });
    const invocation = invoke(spec, body, controller, onMessage, onUnreadable).catch((): Ending => ({ kind: "stream-error" }));
    const entry: InFlight = {
      close: () => {
        closing = true;
        controller.abort();
      },
      settled: (async () => {
        const ending = await Promise.race([invocation, stopped]);
        clearTimeout(timer);
        // A deadline or a close abandons the request (the runner itself stops at the same deadline);
        // the result is whatever had arrived by then.
        if (!controller.signal.aborted && ending.kind === "deadline") controller.abort();
        return toResult(ending);
      })().finally(() => inFlight.delete(entry)),
    };
    inFlight.add(entry);
    return entry.settled;
  }

  function stats(): SandboxStats {
    return { idle: 0, starting: 0, busy: inFlight.size, warmHits: 0, warmMisses: 0, spawned: counters.spawned, warmTarget: 0 };
  }

  async function close(): Promise<void> {
    closed = true;
    const runs = [...inFlight];
    for (const entry of runs) entry.close();
    await Promise.all(runs.map((entry) => entry.settled));
    if (ownClient) client?.destroy();
  }

  return { run, stats, close };
}
