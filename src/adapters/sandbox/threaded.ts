// The local sandbox pool on a thread of its own. Starting a sandbox is a spawn(), which forks the calling
// process and waits for the child's exec: several milliseconds during which that thread's event loop
// stands still. In the API process that thread would be the one admitting requests, so the pool
// (local.ts, unchanged) lives in a worker thread and the API talks to it by message: a run's spec goes
// in, its output events and result come back. Same guarantees as local.ts (a fresh process per run,
// never reused); only where the spawns happen differs.
import { Worker } from "node:worker_threads";
import type { LocalSandboxPool, LocalSandboxPoolOptions } from "./local.ts";
import type { RunEvent, RunResult, RunSpec, SandboxStats } from "./port.ts";

/** Worker → pool messages (pool-worker.ts sends them). */
export type PoolWorkerMessage =
  | { t: "event"; id: number; event: RunEvent }
  | { t: "result"; id: number; result: RunResult }
  | { t: "rejected"; id: number; message: string }
  | { t: "state"; stats: SandboxStats; idlePids: number[] }
  | { t: "closed" };

/** Pool → worker messages. */
export type PoolRequest = { t: "run"; id: number; spec: RunSpec } | { t: "close" };

const WORKER_URL = new URL("./pool-worker.ts", import.meta.url);

const EMPTY_STATS: SandboxStats = { idle: 0, starting: 0, busy: 0, warmHits: 0, warmMisses: 0, spawned: 0, warmTarget: 0 };

interface Pending {
  resolve(result: RunResult): void;
  reject(error: Error): void;
  onEvent?: (event: RunEvent) => void;
  startedAt: number;
}

/**
 * The local sandbox pool (createLocalSandboxPool's options and behaviour), run on a worker thread so
 * that starting sandboxes never blocks the caller's event loop. `stats()` and `idlePids()` report the
 * worker's state as of its last report (it reports every change within a few milliseconds).
 *
 * @example
 * const pool = createThreadedSandboxPool({ warm: 2, maxWarm: 8, allowFsRead: [runtimeDir], preload: runtimeEntry });
 * const result = await pool.run({ runId, entry: runtimeEntry, payload, timeoutMs: 60_000, memoryMb: 128 }, (e) => send(e.delta));
 */
export function createThreadedSandboxPool(options: LocalSandboxPoolOptions): LocalSandboxPool {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let stats = { ...EMPTY_STATS, warmTarget: options.warm };
  let idlePids: number[] = [];
  let closed = false;
  let closing: Promise<void> | undefined;
  let worker: Worker | undefined;
  let workerClosed: (() => void) | undefined;

  const failAll = (message: string) => {
    for (const [id, run] of pending) {
      pending.delete(id);
      const now = performance.timeOrigin + performance.now();
      run.resolve({ status: "failed", error: { code: "crashed", message }, durationMs: now - run.startedAt, startedAt: run.startedAt });
    }
  };

  function start(): Worker {
    // Plain Node options: the worker loads the pool's TypeScript with Node's own type stripping, whatever
    // loader the host process was started with.
    const thread = new Worker(WORKER_URL, { workerData: options, execArgv: [], env: {}, stdout: false, stderr: false });
    thread.on("message", (message: PoolWorkerMessage) => {
      switch (message.t) {
        case "event":
          try {
            pending.get(message.id)?.onEvent?.(message.event);
          } catch {
            // a failing listener must not take the run down
          }
          return;
        case "result":
          pending.get(message.id)?.resolve(message.result);
          settled(message.id);
          return;
        case "rejected":
          pending.get(message.id)?.reject(new Error(message.message));
          settled(message.id);
          return;
        case "state":
          stats = message.stats;
          idlePids = message.idlePids;
          return;
        case "closed":
          workerClosed?.();
          return;
      }
    });
    thread.on("error", () => undefined);
    // Like local.ts's timers, an idle pool does not keep its process alive; a run in flight does.
    thread.unref();
    thread.once("exit", () => {
      if (worker === thread) worker = undefined;
      workerClosed?.();
      // Runs in flight when the thread stopped have lost their sandboxes (killed with it or orphaned
      // and killed at their deadline): each ends failed, never hangs.
      failAll("the sandbox pool stopped during the run");
    });
    return thread;
  }

  function settled(id: number): void {
    pending.delete(id);
    if (pending.size === 0) worker?.unref();
  }

  worker = start();

  async function run(spec: RunSpec, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    if (closed) throw new Error("the sandbox pool is closed");
    const startedAt = performance.timeOrigin + performance.now();
    worker ??= start();
    const id = nextId++;
    return new Promise<RunResult>((resolve, reject) => {
      pending.set(id, { resolve, reject, ...(onEvent ? { onEvent } : {}), startedAt });
      worker!.ref();
      try {
        worker!.postMessage({ t: "run", id, spec } satisfies PoolRequest);
      } catch {
        // structured clone refused the payload (a function, a symbol, ...): it could never reach a sandbox
        settled(id);
        resolve({ status: "failed", error: { code: "entry_error", message: "the payload is not JSON-serialisable" }, durationMs: 0, startedAt });
      }
    });
  }

  function close(): Promise<void> {
    closed = true;
    closing ??= (async () => {
      const thread = worker;
      if (!thread) return;
      thread.ref();
      await new Promise<void>((resolve) => {
        workerClosed = resolve;
        thread.postMessage({ t: "close" } satisfies PoolRequest);
      });
      await thread.terminate();
      failAll("the sandbox pool is closed");
    })();
    return closing;
  }

  return { run, stats: () => ({ ...stats }), close, idlePids: () => [...idlePids] };
}
