// A run's Server-Sent Events: `output` events whose ids are offsets into the run's output, then one
// `done` event (id "done") with the Run. What POST /v1/execute/stream sends as the run goes, and what a
// client that lost its stream gets back with Last-Event-ID (the same request with its Idempotency-Key,
// or GET /v1/runs/{run_id}/events).
import type { Services } from "../services.ts";
import { tailRun } from "../execution/runs/tail.ts";
import { finishedRunBody, type RunBody } from "./run-json.ts";

export interface StreamEvent {
  event: "output" | "done";
  data: string;
  id: string;
}

/** Parses a Last-Event-ID header: an output offset, or "done" (nothing more to send). */
export function parseLastEventId(header: string | undefined): number | "done" {
  if (header === undefined || header.trim() === "") return 0;
  if (header.trim() === "done") return "done";
  const offset = Number(header.trim());
  return Number.isSafeInteger(offset) && offset >= 0 ? offset : 0;
}

/** An `output` event: `delta`, and the offset where the output now ends. */
export function outputEvent(delta: string, offset: number): StreamEvent {
  return { event: "output", data: JSON.stringify({ delta }), id: String(offset) };
}

/** The `done` event carrying the Run (cost_wei exact: see run-json.ts). */
export function doneEvent(run: RunBody): StreamEvent {
  return { event: "done", data: JSON.stringify(run), id: "done" };
}

/** The stored run's events after `from`, followed while it is in flight (up to `timeoutMs`). */
export async function* runEvents(services: Services, runId: string, from: number | "done", options: { timeoutMs: number; pollMs?: number }): AsyncGenerator<StreamEvent> {
  for await (const event of tailRun(services, runId, from, options)) {
    yield event.type === "output" ? outputEvent(event.delta, event.offset) : doneEvent(finishedRunBody(event.run));
  }
}
