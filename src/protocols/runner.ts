// The protocol between the service and the code that serves one run in a sandbox: what the entry
// module exports and receives, and the messages a sandbox sends back, one NDJSON line each (ndjson.ts).
// The local sandbox (src/adapters/sandbox/local.ts with bootstrap.cjs) and the cloud runner
// (src/runtime/runner-core.ts, read by src/adapters/sandbox/lambda.ts) speak it alike:
//   {"t":"ready"}                                          local only: once, before the run is read
//   {"t":"output","delta":"..."}                           any number, in the order the entry emitted them
//   {"t":"result","ok":true,"output":...,"invokedAt":n}    or
//   {"t":"result","ok":false,"message":"...","invokedAt":n}  once, last
// `invokedAt` is `performance.timeOrigin + performance.now()` taken just before the entry's `run` is
// called (epoch milliseconds).

/** What the sandbox passes to the entry as its second argument. */
export interface EntryIo {
  runId: string;
  /** Epoch milliseconds at which the sandbox will be killed. */
  deadline: number;
  /** Streams a piece of output to the caller (a `{type: "output", delta}` event). */
  emit(delta: string): void;
}

/** The contract of an entry module: `export async function run(payload, io) { return output }`. The
 * return value must be JSON-serialisable; a throw (or a rejected promise) is an `entry_error`. */
export interface EntryModule {
  run(payload: unknown, io: EntryIo): unknown;
}

/** What the service sends the cloud runner for one run. */
export interface RunnerInvocation {
  runId: string;
  /** The entry's first argument: for the agent runtime, an AgentRunPayload. */
  payload: unknown;
  /** Epoch milliseconds at which the run's time is spent. */
  deadline: number;
}

/** A message from the code serving a run. */
export type RunnerMessage =
  | { t: "output"; delta: string }
  | { t: "result"; ok: true; output: unknown; invokedAt?: number }
  | { t: "result"; ok: false; message: string; invokedAt?: number };

/** A message from a local sandbox process: the runner's, plus its readiness. */
export type SandboxMessage = { t: "ready" } | RunnerMessage;

/** A line longer than this (no newline yet) is a protocol violation: the run is abandoned. */
export const MAX_MESSAGE_LINE_BYTES = 32 * 1024 * 1024;
