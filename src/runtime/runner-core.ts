// The cloud runner's core: serves one run the way a local sandbox process does (see
// src/adapters/sandbox/bootstrap.cjs), writing the same messages (src/protocols/runner.ts), one NDJSON
// line each, to the response stream of the runner function instead of to a file descriptor. At the
// run's deadline nothing more is written and no result is sent: the caller reports the timeout, as it
// does when a local sandbox is killed.
// functions/runner.ts wires it to Lambda; keeping it free of Lambda lets it be driven directly.
import { ndjsonLine } from "../protocols/ndjson.ts";
import type { EntryIo, RunnerInvocation, RunnerMessage } from "../protocols/runner.ts";

/** The entry the runner serves (the agent runtime's `run`). */
export type RunnerEntry = (payload: never, io: EntryIo) => unknown;

/** How a served run ended: with a result line written, or at its deadline without one. */
export type RunnerOutcome = "completed" | "failed" | "timeout";

const MAX_MESSAGE_CHARS = 2000;

function invocation(event: unknown): RunnerInvocation | undefined {
  if (event === null || typeof event !== "object") return undefined;
  const { runId, payload, deadline } = event as Partial<RunnerInvocation>;
  if (typeof runId !== "string" || runId === "" || typeof deadline !== "number" || !Number.isFinite(deadline)) return undefined;
  return { runId, payload, deadline };
}

/**
 * Runs `entry` for the invocation `event` and writes its messages, one JSON line each, with `write`.
 * Never rejects for a failure of the run (that is an `ok:false` result); resolves once the result is
 * written, or at the deadline.
 *
 * @example
 * const outcome = await serveRun({ runId, payload, deadline: Date.now() + 60_000 }, (line) => stream.write(line), run);
 */
export async function serveRun(event: unknown, write: (line: string) => unknown, entry: RunnerEntry): Promise<RunnerOutcome> {
  let open = true;
  const send = (message: RunnerMessage): void => {
    if (open) write(ndjsonLine(message));
  };
  const spec = invocation(event);
  if (!spec) {
    send({ t: "result", ok: false, message: "the invocation is not a run (runId and deadline are required)" });
    return "failed";
  }
  const remaining = spec.deadline - Date.now();
  if (remaining <= 0) return "timeout";

  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolveExpired) => {
    timer = setTimeout(() => resolveExpired("timeout"), remaining);
  });
  let invokedAt: number | undefined;
  const served = (async (): Promise<RunnerOutcome> => {
    try {
      const io: EntryIo = Object.freeze({
        runId: spec.runId,
        deadline: spec.deadline,
        emit: (delta: string) => send({ t: "output", delta: String(delta) }),
      });
      invokedAt = performance.timeOrigin + performance.now();
      const output = await entry(spec.payload as never, io);
      let line: string;
      try {
        line = ndjsonLine({ t: "result", ok: true, output, invokedAt } satisfies RunnerMessage);
      } catch {
        send({ t: "result", ok: false, message: "the entry's output is not JSON-serialisable", invokedAt });
        return "failed";
      }
      if (open) write(line);
      return "completed";
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      send({ t: "result", ok: false, message: String(text).slice(0, MAX_MESSAGE_CHARS), ...(invokedAt !== undefined ? { invokedAt } : {}) });
      return "failed";
    }
  })();
  try {
    const outcome = await Promise.race([served, expired]);
    // Past the deadline the run may still be going: nothing it emits from now on reaches the caller.
    open = false;
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}
