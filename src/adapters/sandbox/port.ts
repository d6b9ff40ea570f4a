// The sandbox port: how the execution domain runs one piece of untrusted agent code in a fresh,
// isolated sandbox and gets back its result and its streamed output. Locally a fresh child process per
// run (local.ts); in the cloud the runner function with tenant isolation. No adapter ever hands one
// sandbox two runs.
import type { FinishedRunStatus } from "@agent-rental/core/vocabulary";

/** One run. Everything the entry needs (input, the provider key for this run) travels in `payload`;
 * nothing reaches the sandbox through its environment or its command line. */
export interface RunSpec {
  runId: string;
  /** Absolute path of a plain ES module (.mjs) that exports `run(payload, io)` (EntryModule in
   * src/protocols/runner.ts). */
  entry: string;
  /** Any JSON value; delivered to the entry as its first argument. */
  payload: unknown;
  /** Wall-clock budget from the `run()` call; the sandbox is killed (SIGKILL) when it is spent. */
  timeoutMs: number;
  /** Memory cap of the sandbox in MiB: what a run may allocate beyond Node's own baseline (locally
   * RLIMIT_DATA where available, else V8's `--max-old-space-size`; see local.ts). */
  memoryMb: number;
  /** The entry may load native addons (`--allow-addons`; the agent runtime's js_eval tool loads
   * isolated-vm). Such a run always gets a sandbox started for it: pre-started sandboxes never allow
   * addons. Default false. */
  allowAddons?: boolean;
}

/** `invalid_output`: the sandbox's result could not be read within the bounds of agent-produced JSON
 * (nested too deeply; see src/protocols/bounded-json.ts). */
export type RunErrorCode = "timeout" | "crashed" | "out_of_memory" | "entry_error" | "invalid_output";

export interface RunError {
  code: RunErrorCode;
  /** For entry_error the entry's own message; otherwise a fixed sentence of ours (no stderr, no stack). */
  message: string;
}

export interface RunResult {
  status: FinishedRunStatus;
  /** The entry's return value (JSON) when completed. */
  output?: unknown;
  error?: RunError;
  /** Wall clock from the `run()` call until the sandbox process was gone, in milliseconds. */
  durationMs: number;
  /** When `run()` was called, epoch milliseconds (`performance.timeOrigin + performance.now()`, fractional:
   * the same clock as `entryInvokedAt`). */
  startedAt: number;
  /** When the sandbox invoked the entry's `run` (the child's `performance.timeOrigin + performance.now()`,
   * epoch milliseconds, fractional); absent when the entry was never invoked. */
  entryInvokedAt?: number;
  /** The operating-system pid of the sandbox that served this run, when one was started. */
  pid?: number;
}

/** Streamed while the run is in flight, in the order the entry emitted them. */
export type RunEvent = { type: "output"; delta: string };

export interface SandboxStats {
  /** Pre-started sandboxes waiting for a run. */
  idle: number;
  /** Sandboxes starting (not yet ready). */
  starting: number;
  /** Sandboxes serving a run. */
  busy: number;
  /** Runs handed a pre-started sandbox that was already idle. */
  warmHits: number;
  /** Runs that had to wait for a sandbox to start. */
  warmMisses: number;
  /** Sandbox processes started since the pool was created. */
  spawned: number;
  /** Current target of idle pre-started sandboxes (between `warm` and `maxWarm`). */
  warmTarget: number;
}

export interface SandboxPool {
  /** Runs `spec` in a fresh sandbox; never rejects for a failure of the run itself (that is a
   * `failed` result). Rejects only when the pool is closed. Resolves after the sandbox process is gone. */
  run(spec: RunSpec, onEvent?: (event: RunEvent) => void): Promise<RunResult>;
  stats(): SandboxStats;
  /** Kills every sandbox (idle or busy; busy runs resolve `failed/crashed`) and waits until all are gone. */
  close(): Promise<void>;
}
