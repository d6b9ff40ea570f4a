// The Server-Sent Events of a run, as the OpenAPI document describes them (POST /v1/execute/stream and
// GET /v1/runs/{run_id}/events). OpenAPI 3.1 has no schema for the items of a stream, so the response's
// schema is the union of the events, each with its SSE fields (event, id, data), and the description
// says how they are framed.
import { z } from "@hono/zod-openapi";
import { RunSchema } from "./execution.ts";

const OutputEventSchema = z
  .object({
    event: z.literal("output"),
    id: z.string().openapi({ description: "The offset into the output after this delta (send it as Last-Event-ID to resume)", example: "42" }),
    data: z.object({ delta: z.string().openapi({ description: "The next piece of the agent's output" }) }),
  })
  .openapi("OutputEvent", { description: "A piece of the run's output, sent as it is produced." });

const DoneEventSchema = z
  .object({
    event: z.literal("done"),
    id: z.literal("done"),
    data: RunSchema,
  })
  .openapi("DoneEvent", {
    description:
      "The last event: the Run, as POST /v1/execute answers it (completed or failed). With `settlement: \"pending\"` the output is null until the per-task charge lands (then GET /v1/runs/{run_id} returns it).",
  });

export const RunEventSchema = z.discriminatedUnion("event", [OutputEventSchema, DoneEventSchema]).openapi("RunEvent", {
  description:
    "One event of a run's stream (text/event-stream): each is framed as `event: <event>`, `id: <id>` and `data: <data as one line of JSON>` lines followed by a blank line. Zero or more `output` events, then one `done` event, then the stream ends.",
});

/** The content of a run's event stream response. */
export const runEventStream = { "text/event-stream": { schema: RunEventSchema } };
