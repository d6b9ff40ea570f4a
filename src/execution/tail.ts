// A run's stream, replayed from its record: what a client that lost its connection receives when it
// comes back with Last-Event-ID (event ids are offsets into the streamed text; the terminal event's id
// is "done"). While the run is still in flight elsewhere, its record is polled for new output.
import type { Services } from "../services.ts";
import { getRun, releasedText } from "./runs.ts";
import { responseOf, runJson } from "./execute.ts";

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

export function outputEvent(delta: string, offset: number): StreamEvent {
  return { event: "output", data: JSON.stringify({ delta }), id: String(offset) };
}

export async function* tailRun(services: Services, runId: string, from: number | "done", options: { pollMs?: number; timeoutMs: number }): AsyncGenerator<StreamEvent> {
  const deadline = Date.now() + options.timeoutMs;
  let offset = from === "done" ? Number.POSITIVE_INFINITY : from;
  for (;;) {
    const record = await getRun(services.tables, runId);
    if (!record) return;
    const text = releasedText(record);
    if (text.length > offset) {
      yield outputEvent(text.slice(offset), text.length);
      offset = text.length;
    }
    if (record.status !== "running") {
      yield { event: "done", data: runJson(responseOf(record), record.settlement === "pending" ? { settlement: "pending" } : {}), id: "done" };
      return;
    }
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}
