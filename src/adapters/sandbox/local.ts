// The local sandbox adapter: every run gets a fresh Node child process that serves exactly that run and
// exits. Processes are pre-started (a warm pool, replenished as runs take them) so a run does not wait
// for a spawn; a process is never handed a second run. Each child runs under Node's permission model
// with an empty environment and a memory cap, and is killed (SIGKILL) when its run's time is spent.
// See docs/design/sandbox.md for the guarantees and their limits.
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseBoundedJson, TOO_DEEP_OUTPUT } from "../../protocols/bounded-json.ts";
import { ndjsonLine, ndjsonLines } from "../../protocols/ndjson.ts";
import { MAX_MESSAGE_LINE_BYTES, type SandboxMessage } from "../../protocols/runner.ts";
import type { RunEvent, RunResult, RunSpec, SandboxPool, SandboxStats } from "./port.ts";

export const BOOTSTRAP_PATH = join(dirname(fileURLToPath(import.meta.url)), "bootstrap.cjs");

export interface LocalSandboxPoolOptions {
  /** Idle pre-started sandboxes kept ready at rest (0 disables pre-starting). */
  warm: number;
  /** Upper bound the idle target may grow to when runs find the pool empty (default: `warm`). */
  maxWarm?: number;
  /** The Node binary (default: `process.execPath`). */
  nodePath?: string;
  /** Directories (or files) a sandbox may read: where entries and their imports live. A pre-started
   * sandbox can serve only entries inside one of them; any other entry gets a freshly spawned sandbox
   * that may read the entry's own directory. Default: none. */
  allowFsRead?: string[];
  /** Heap cap of pre-started sandboxes in MiB (default 128); a run asking for another cap gets a freshly
   * spawned sandbox. */
  memoryMb?: number;
  /** An entry module pre-started sandboxes load before they are ready (the agent runtime), so a run of
   * that entry starts without importing it. It must lie inside `allowFsRead`. Default: none. */
  preload?: string;
  /** At most this many sandboxes starting at once (default: 2 × CPU count, at least 4). */
  maxStarting?: number;
  /** How a sandbox's memory is capped (default: "rlimit" where util-linux's `prlimit` exists, else
   * "heap-flag"). See MemoryCap. */
  memoryCap?: MemoryCap;
}

/**
 * - "rlimit": the process's data segment (RLIMIT_DATA, set by `prlimit` before Node starts) is capped at
 *   `memoryMb` plus NODE_BASELINE_MB for Node itself: V8's heap, Buffers and ArrayBuffers all count, and
 *   no V8 flag is changed, so V8 keeps using Node's embedded code cache (see docs/design/sandbox.md).
 * - "heap-flag": `--max-old-space-size=<memoryMb>`: V8's old generation only, and a non-default V8 flag,
 *   which makes V8 compile Node's internals from source in every sandbox.
 * A sandbox allowed native addons always gets the heap flag (isolated-vm sizes its isolates itself).
 */
export type MemoryCap = "rlimit" | "heap-flag";

/** What Node and a preloaded agent runtime occupy of the data segment before a run allocates anything
 * (an idle sandbox with the runtime loaded: ~72 MiB), with room for V8's young generation. */
export const NODE_BASELINE_MB = 128;

const PRLIMIT_PATHS = ["/usr/bin/prlimit", "/bin/prlimit"];

function findPrlimit(): string | undefined {
  for (const path of PRLIMIT_PATHS) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface LocalSandboxPool extends SandboxPool {
  /** Pids of the idle pre-started sandboxes (for measuring their memory). */
  idlePids(): number[];
}

/** What V8 prints on stderr when the heap cap (or, under RLIMIT_DATA, the memory it may map) is reached. */
const OOM_MARKERS = ["JavaScript heap out of memory", "Reached heap limit", "Fatal process out of memory", "Allocation failed", "std::bad_alloc", "terminate called"];
const STDERR_KEEP = 16_384;
const DECAY_INTERVAL_MS = 10_000;

type ChildMessage = SandboxMessage;

interface Sandbox {
  proc: ChildProcess;
  pid: number;
  /** Resolves true once the bootstrap said ready, false if the process died first. */
  ready: Promise<boolean>;
  /** Resolves once the process has exited and its stdio is closed. */
  closed: Promise<void>;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stderr: string;
  assigned: boolean;
  /** Its memory is capped by RLIMIT_DATA (else by V8's heap flag). */
  rlimit: boolean;
  onMessage?: (message: ChildMessage) => void;
  /** A line too deeply nested to read (bounded-json.ts): the run's result is taken to be unreadable. */
  onUnreadable?: (message: string) => void;
}

/** Signals a process raises on itself when an allocation fails under RLIMIT_DATA: V8's fatal-error path
 * and C++'s terminate abort (SIGABRT, or a trap), and a failed allocation used unchecked faults. The
 * pool's own kills are SIGKILL. An entry that signals itself only changes how its own run is reported. */
const ALLOCATION_FAILURE_SIGNALS = new Set<NodeJS.Signals>(["SIGABRT", "SIGSEGV", "SIGBUS", "SIGTRAP", "SIGILL"]);

/** The run ended because it ran out of memory: V8 or the C++ runtime said so on stderr (which may be cut
 * short when two threads abort at once), or, under RLIMIT_DATA, the process died of an allocation
 * failure's signal. */
function outOfMemory(sandbox: Sandbox): boolean {
  if (OOM_MARKERS.some((marker) => sandbox.stderr.includes(marker))) return true;
  return sandbox.rlimit && sandbox.exitSignal !== null && ALLOCATION_FAILURE_SIGNALS.has(sandbox.exitSignal);
}

function fsReadFlags(paths: readonly string[]): string[] {
  return [BOOTSTRAP_PATH, ...paths].map((path) => `--allow-fs-read=${resolve(path)}`);
}

interface Launch {
  nodePath: string;
  /** prlimit's path when memory is capped with RLIMIT_DATA. */
  prlimit: string | undefined;
}

function startSandbox(launch: Launch, allowFsRead: readonly string[], memoryMb: number, allowAddons = false, preload?: string): Sandbox {
  // A native addon runs outside the permission model's reach, so addons are allowed per run, never in a
  // pre-started sandbox. isolated-vm (the addon the runtime loads) crashes with Node's startup snapshot
  // on Node >= 20, hence --no-node-snapshot with it.
  const addonFlags = allowAddons ? ["--allow-addons", "--no-node-snapshot"] : [];
  const rlimit = launch.prlimit !== undefined && !allowAddons;
  const heapFlag = rlimit ? [] : [`--max-old-space-size=${memoryMb}`];
  const nodeArgs = ["--permission", ...fsReadFlags(allowFsRead), ...addonFlags, ...heapFlag, BOOTSTRAP_PATH, ...(preload ? [preload] : [])];
  // prlimit sets the limit and execs Node in the same process (the pid is the sandbox's).
  const [command, args] = rlimit ? [launch.prlimit!, [`--data=${(memoryMb + NODE_BASELINE_MB) * 1024 * 1024}`, launch.nodePath, ...nodeArgs]] : [launch.nodePath, nodeArgs];
  // env: {} — nothing of the parent's environment; cwd "/" so the service's directory is not disclosed.
  // fd 0: the run message in; fd 1: ignored (the entry's console output); fd 2: read for OOM only;
  // fd 3: the sandbox's messages out (bootstrap.cjs describes the protocol).
  const proc = spawn(command, args, { env: {}, cwd: "/", stdio: ["pipe", "ignore", "pipe", "pipe"] });
  const sandbox: Sandbox = {
    proc,
    pid: proc.pid ?? -1,
    ready: Promise.resolve(false),
    closed: Promise.resolve(),
    exitCode: null,
    exitSignal: null,
    stderr: "",
    assigned: false,
    rlimit,
  };
  proc.stdin!.on("error", () => {
    // EPIPE when the sandbox died before reading its run; reported through its exit
  });
  // stderr is read only to recognise a heap exhaustion; it is never logged or returned (it may hold
  // whatever the entry printed).
  proc.stderr!.on("data", (chunk: Buffer) => {
    if (sandbox.stderr.length < STDERR_KEEP) sandbox.stderr += chunk.toString("utf8");
  });
  sandbox.closed = new Promise<void>((resolveClosed) => {
    proc.once("close", (code, signal) => {
      sandbox.exitCode = code;
      sandbox.exitSignal = signal;
      resolveClosed();
    });
    proc.once("error", () => {
      // spawn failure (e.g. a wrong nodePath): no "close" follows when the process never started.
      if (proc.pid === undefined) resolveClosed();
    });
  });
  sandbox.ready = new Promise<boolean>((resolveReady) => {
    const messages = proc.stdio[3] as NodeJS.ReadableStream | null;
    const decoder = new TextDecoder();
    const deliver = (line: Uint8Array) => {
      // Bounded before anything recurses over it (the result is serialised and schema-checked later).
      const parsed = parseBoundedJson(decoder.decode(line), { maxChars: MAX_MESSAGE_LINE_BYTES });
      if (!parsed.ok) {
        // Deltas are flat strings: only a result (the agent's output) can nest this deep.
        if (parsed.reason === "too_deep") sandbox.onUnreadable?.(TOO_DEEP_OUTPUT);
        return; // otherwise not ours (the entry wrote to fd 3 itself); ignored
      }
      const message = parsed.value as ChildMessage;
      if (message?.t === "ready") resolveReady(true);
      else sandbox.onMessage?.(message);
    };
    // A line past the bound is not this protocol: the sandbox is killed.
    const lines = ndjsonLines(deliver, MAX_MESSAGE_LINE_BYTES);
    messages?.on("data", (chunk: Buffer) => {
      if (!lines.push(chunk)) kill(sandbox);
    });
    messages?.on("error", () => kill(sandbox));
    void sandbox.closed.then(() => resolveReady(false));
  });
  return sandbox;
}

function kill(sandbox: Sandbox): void {
  if (sandbox.proc.exitCode === null && sandbox.proc.signalCode === null) {
    try {
      sandbox.proc.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

function within(path: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep));
}

function failed(code: NonNullable<RunResult["error"]>["code"], message: string, startedAt: number, t0: number, pid?: number): RunResult {
  return { status: "failed", error: { code, message }, durationMs: performance.now() - t0, startedAt, ...(pid !== undefined && pid > 0 ? { pid } : {}) };
}

/** Sends the run to a ready sandbox, streams its output, kills it at the deadline and resolves once the
 * process is gone. */
function execute(sandbox: Sandbox, spec: RunSpec, deadline: number, onEvent: ((event: RunEvent) => void) | undefined, startedAt: number, t0: number): Promise<RunResult> {
  sandbox.assigned = true;
  let result: Extract<ChildMessage, { t: "result" }> | undefined;
  let unreadable: string | undefined;
  let timedOut = false;
  sandbox.onUnreadable = (message) => {
    if (result) return;
    unreadable = message;
    result = { t: "result", ok: false, message };
    kill(sandbox);
  };
  sandbox.onMessage = (message) => {
    if (result) return;
    if (message?.t === "output" && typeof message.delta === "string") {
      try {
        onEvent?.({ type: "output", delta: message.delta });
      } catch {
        // a failing listener must not take the run down
      }
    } else if (message?.t === "result") {
      result = message;
      kill(sandbox);
    }
  };
  const timer = setTimeout(() => {
    if (!result) {
      timedOut = true;
      kill(sandbox);
    }
  }, Math.max(0, deadline - Date.now()));
  let line: string | undefined;
  try {
    line = ndjsonLine({ runId: spec.runId, entry: resolve(spec.entry), payload: spec.payload, deadline });
  } catch {
    line = undefined;
  }
  if (line === undefined) {
    kill(sandbox);
    return sandbox.closed.then(() => {
      clearTimeout(timer);
      return failed("entry_error", "the payload is not JSON-serialisable", startedAt, t0, sandbox.pid);
    });
  }
  sandbox.proc.stdin!.end(line);
  return sandbox.closed.then(() => {
    clearTimeout(timer);
    const base = { durationMs: performance.now() - t0, startedAt, pid: sandbox.pid };
    const invokedAt = typeof result?.invokedAt === "number" ? { entryInvokedAt: result.invokedAt } : {};
    if (result?.ok === true) return { status: "completed", output: result.output, ...base, ...invokedAt };
    if (unreadable !== undefined) return { status: "failed", error: { code: "invalid_output", message: unreadable }, ...base };
    if (result) return { status: "failed", error: { code: "entry_error", message: String(result.message) }, ...base, ...invokedAt };
    if (timedOut) return { status: "failed", error: { code: "timeout", message: `the run exceeded its ${spec.timeoutMs} ms timeout and was killed` }, ...base };
    if (outOfMemory(sandbox)) {
      return { status: "failed", error: { code: "out_of_memory", message: `the run exceeded its ${spec.memoryMb} MiB memory` }, ...base };
    }
    const how = sandbox.exitSignal ? `signal ${sandbox.exitSignal}` : `code ${sandbox.exitCode}`;
    return { status: "failed", error: { code: "crashed", message: `the sandbox exited (${how}) without a result` }, ...base };
  });
}

function validate(spec: RunSpec): void {
  if (typeof spec.runId !== "string" || spec.runId === "") throw new TypeError("runId is required");
  if (typeof spec.entry !== "string" || !isAbsolute(spec.entry)) throw new TypeError("entry must be an absolute path");
  if (!Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0) throw new TypeError("timeoutMs must be a positive number");
  if (!Number.isInteger(spec.memoryMb) || spec.memoryMb < 8) throw new TypeError("memoryMb must be an integer of at least 8");
  if (spec.allowAddons !== undefined && typeof spec.allowAddons !== "boolean") throw new TypeError("allowAddons must be a boolean");
}

/** A run waiting for a pre-started sandbox: given one, or failed when none can start. */
type Waiter = { give(sandbox: Sandbox): void; fail(error: Error): void };

/** Joins `waiters`: resolves with the sandbox it is given, or undefined once `deadline` passes (and it
 * leaves the line); rejects when it is failed. */
function waitInLine(waiters: Waiter[], deadline: number): Promise<Sandbox | undefined> {
  return new Promise<Sandbox | undefined>((resolveAcquire, rejectAcquire) => {
    const waiter: Waiter = {
      give: (sandbox) => {
        clearTimeout(timer);
        resolveAcquire(sandbox);
      },
      fail: (error) => {
        clearTimeout(timer);
        rejectAcquire(error);
      },
    };
    const timer = setTimeout(() => {
      const at = waiters.indexOf(waiter);
      if (at >= 0) waiters.splice(at, 1);
      resolveAcquire(undefined);
    }, Math.max(0, deadline - Date.now()));
    waiters.push(waiter);
  });
}

/** Whether `sandbox` started (true) or could not (false), or "expired" when `deadline` came first. */
async function readyBy(sandbox: Sandbox, deadline: number): Promise<boolean | "expired"> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"expired">((resolveExpired) => {
    timer = setTimeout(() => resolveExpired("expired"), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([sandbox.ready, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The pool's settings, its options' defaults applied. */
function poolSettings(options: LocalSandboxPoolOptions) {
  const warm = Math.max(0, Math.floor(options.warm));
  const launch: Launch = { nodePath: options.nodePath ?? process.execPath, prlimit: (options.memoryCap ?? "rlimit") === "rlimit" ? findPrlimit() : undefined };
  return {
    launch,
    allowFsRead: (options.allowFsRead ?? []).map((path) => resolve(path)),
    memoryMb: options.memoryMb ?? 128,
    preload: options.preload === undefined ? undefined : resolve(options.preload),
    warm,
    maxWarm: Math.max(warm, Math.floor(options.maxWarm ?? warm)),
    maxStarting: Math.max(1, options.maxStarting ?? Math.max(4, 2 * availableParallelism())),
  };
}

export function createLocalSandboxPool(options: LocalSandboxPoolOptions): LocalSandboxPool {
  const { launch, allowFsRead, memoryMb, preload, warm, maxWarm, maxStarting } = poolSettings(options);

  const all = new Set<Sandbox>();
  const idle: Sandbox[] = [];
  let startingWarm = 0;
  let startingCold = 0;
  let busy = 0;
  const waiters: Waiter[] = [];
  let closed = false;
  let warmTarget = warm;
  let missedSinceDecay = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  const counters = { warmHits: 0, warmMisses: 0, spawned: 0 };

  const track = (sandbox: Sandbox): Sandbox => {
    all.add(sandbox);
    counters.spawned++;
    void sandbox.closed.then(() => {
      all.delete(sandbox);
      const at = idle.indexOf(sandbox);
      if (at >= 0) {
        // an idle sandbox died on its own: replace it
        idle.splice(at, 1);
        replenish();
      }
    });
    return sandbox;
  };

  function replenish(): void {
    if (closed || retryTimer) return;
    while (startingWarm < maxStarting && idle.length + startingWarm < warmTarget + waiters.length) spawnWarm();
  }

  function spawnWarm(): void {
    const sandbox = track(startSandbox(launch, allowFsRead, memoryMb, false, preload));
    startingWarm++;
    void sandbox.ready.then((ok) => {
      startingWarm--;
      if (closed) return kill(sandbox);
      if (!ok) {
        // A sandbox that cannot start: fail one waiting run rather than retry forever, and back off.
        failures++;
        waiters.shift()?.fail(new Error("a sandbox failed to start"));
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          replenish();
        }, Math.min(5_000, 50 * 2 ** Math.min(failures, 7)));
        retryTimer.unref();
        return;
      }
      failures = 0;
      const waiter = waiters.shift();
      if (waiter) waiter.give(sandbox);
      else idle.push(sandbox);
      replenish();
    });
  }

  const decay = setInterval(() => {
    if (!missedSinceDecay && warmTarget > warm) {
      warmTarget--;
      if (idle.length > warmTarget) kill(idle.shift()!);
    }
    missedSinceDecay = false;
  }, DECAY_INTERVAL_MS);
  decay.unref();

  /** A ready pre-started sandbox, or undefined when the deadline passes first. */
  function acquireWarm(deadline: number): Promise<Sandbox | undefined> {
    const ready = idle.shift();
    if (ready) {
      counters.warmHits++;
      // Start the replacement after this run's message is on its way: spawn() blocks the event loop for
      // a few milliseconds, which must not sit between the call and the entry.
      setImmediate(replenish);
      return Promise.resolve(ready);
    }
    counters.warmMisses++;
    missedSinceDecay = true;
    warmTarget = Math.min(maxWarm, warmTarget + 1);
    const waiting = waitInLine(waiters, deadline);
    replenish();
    return waiting;
  }

  async function acquireCold(spec: RunSpec, deadline: number): Promise<Sandbox | undefined> {
    const reads = [...allowFsRead, dirname(resolve(spec.entry))];
    const sandbox = track(startSandbox(launch, reads, spec.memoryMb, spec.allowAddons === true));
    startingCold++;
    const outcome = await readyBy(sandbox, deadline);
    startingCold--;
    if (outcome === true && !closed) return sandbox;
    kill(sandbox);
    await sandbox.closed;
    if (outcome === false && !closed) throw new Error("a sandbox failed to start");
    return undefined;
  }

  async function run(spec: RunSpec, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    if (closed) throw new Error("the sandbox pool is closed");
    validate(spec);
    const t0 = performance.now();
    const startedAt = performance.timeOrigin + t0;
    const deadline = startedAt + spec.timeoutMs;
    const entry = resolve(spec.entry);
    const fitsWarm = spec.memoryMb === memoryMb && spec.allowAddons !== true && within(entry, allowFsRead);
    let sandbox: Sandbox | undefined;
    try {
      sandbox = fitsWarm ? await acquireWarm(deadline) : await acquireCold(spec, deadline);
    } catch (error) {
      if (closed) throw new Error("the sandbox pool is closed");
      return failed("crashed", error instanceof Error ? error.message : String(error), startedAt, t0);
    }
    if (closed) {
      if (sandbox) kill(sandbox);
      throw new Error("the sandbox pool is closed");
    }
    if (!sandbox) return failed("timeout", `the run exceeded its ${spec.timeoutMs} ms timeout before a sandbox was ready`, startedAt, t0);
    busy++;
    try {
      return await execute(sandbox, spec, deadline, onEvent, startedAt, t0);
    } finally {
      busy--;
    }
  }

  const stats = (): SandboxStats => ({ idle: idle.length, starting: startingWarm + startingCold, busy, ...counters, warmTarget });

  async function close(): Promise<void> {
    closed = true;
    clearInterval(decay);
    if (retryTimer) clearTimeout(retryTimer);
    for (const waiter of waiters.splice(0)) waiter.fail(new Error("the sandbox pool is closed"));
    idle.length = 0;
    const everyone = [...all];
    for (const sandbox of everyone) kill(sandbox);
    await Promise.all(everyone.map((sandbox) => sandbox.closed));
  }

  replenish();
  return { run, stats, close, idlePids: () => idle.map((sandbox) => sandbox.pid) };
}
