// A streamed run: POST /v1/execute/stream read with fetch (EventSource cannot POST or send a bearer
// header) and parsed by eventsource-parser. A stream that stops or drops resumes from its last event
// id: GET /v1/runs/{run_id}/events once the run id is known (X-Run-Id), otherwise the same request
// again with the same Idempotency-Key and Last-Event-ID.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { apiUrl, toApiError, ApiError } from "./client.ts";
import type { Run } from "./types.ts";

export interface StreamHandlers {
  onRunId(runId: string): void;
  onDelta(delta: string, eventId: string | undefined): void;
  onDone(run: Run): void;
}

export interface StreamRequest {
  base: string;
  token: string;
  body: { agent_id: string; task: string; input?: unknown };
  idempotencyKey: string;
  runId: string | null;
  lastEventId: string | null;
  signal: AbortSignal;
}

/** Reads one connection's worth of events. Resolves true once `done` arrived, false if the stream ended early. */
export async function readRunStream(req: StreamRequest, on: StreamHandlers): Promise<boolean> {
  const headers: Record<string, string> = { authorization: `Bearer ${req.token}`, accept: "text/event-stream" };
  if (req.lastEventId) headers["last-event-id"] = req.lastEventId;
  let res: Response;
  try {
    res = req.runId
      ? await fetch(apiUrl(req.base, `/v1/runs/${encodeURIComponent(req.runId)}/events`), { headers, signal: req.signal })
      : await fetch(apiUrl(req.base, "/v1/execute/stream"), {
          method: "POST",
          headers: { ...headers, "content-type": "application/json", "idempotency-key": req.idempotencyKey },
          body: JSON.stringify(req.body),
          signal: req.signal,
        });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    return false;
  }
  if (!res.ok) throw await toApiError(res);
  const runId = res.headers.get("x-run-id");
  if (runId) on.onRunId(runId);
  if (!res.body) return false;
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      if (value.event === "output") {
        const data = JSON.parse(value.data) as { delta?: string };
        if (data.delta) on.onDelta(data.delta, value.id);
      } else if (value.event === "done") {
        const run = JSON.parse(value.data) as Run;
        on.onRunId(run.run_id);
        on.onDone(run);
        return true;
      } else if (value.event === "error") {
        const body = JSON.parse(value.data) as { error?: { code: string; message: string; status: number; request_id?: string } };
        if (body.error) throw new ApiError(body.error, null);
      }
    }
  } catch (error) {
    if ((error as Error).name === "AbortError" || error instanceof ApiError) throw error;
    return false;
  } finally {
    reader.releaseLock();
  }
}
