// A run's output, replayed from its record from an offset into its streamed text, and followed while
// the run is in flight elsewhere (its record is polled for new output): how a client that lost its
// stream gets the rest of its run. The API layer turns these into Server-Sent Events (src/api/run-events.ts).
import type { Services } from "../services.ts";
import { releasedText, type RunRecord } from "./run.ts";
import { getRun } from "./run.store.ts";

export type RunTailEvent =
  /** Output after the previous event; `offset` is where the text now ends. */
  | { type: "output"; delta: string; offset: number }
  /** The run ended; `run` is its record. */
  | { type: "done"; run: RunRecord };

/** The events of `runId` after `from` (an offset; "done": only the end). Ends after "done", when the
 * run has no record, or when `timeoutMs` runs out while it is still running. */
export async function* tailRun(services: Services, runId: string, from: number | "done", options: { pollMs?: number; timeoutMs: number }): AsyncGenerator<RunTailEvent> {
  const deadline = Date.now() + options.timeoutMs;
  let offset = from === "done" ? Number.POSITIVE_INFINITY : from;
  for (;;) {
    const record = await getRun(services.tables, runId);
    if (!record) return;
    const text = releasedText(record);
    if (text.length > offset) {
      yield { type: "output", delta: text.slice(offset), offset: text.length };
      offset = text.length;
    }
    if (record.status !== "running") {
      yield { type: "done", run: record };
      return;
    }
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}
