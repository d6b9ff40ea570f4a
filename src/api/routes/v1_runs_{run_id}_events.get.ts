// GET /v1/runs/{run_id}/events: a run's event stream (SSE), replayed from Last-Event-ID and followed
// while the run is in flight: how a client that lost its stream gets the rest of its run.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../../errors.ts";
import { RUN_ID } from "../../execution/runs/run.ts";
import { getRun } from "../../execution/runs/run.store.ts";
import { parseLastEventId, runEvents } from "../run-events.ts";
import { requestHeader } from "../openapi.ts";
import { answerAs, defineRoute } from "../route.ts";
import { runEventStream } from "../schemas/run-events.ts";

export const route = defineRoute({
  method: "get",
  path: "/v1/runs/{run_id}/events",
  operationId: "streamRunEvents",
  tag: "Runs",
  access: "bearer",
  oauthScope: "tasks:run",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Stream a run's events",
  description: "The run's `output` events after Last-Event-ID (an offset; omit it for all), then its `done` event. Follows the run while it is in flight.",
  parameters: [requestHeader("LastEventId")],
  request: { params: z.object({ run_id: z.string() }) },
  responses: {
    200: { description: "The event stream: `output` events after Last-Event-ID, then one `done` event", content: runEventStream },
  },
  errors: { 404: ["not_found"] },
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const services = c.get("services");
    const runId = c.req.valid("param").run_id;
    const record = RUN_ID.test(runId) ? await getRun(services.tables, runId) : null;
    if (!record || record.wallet !== c.get("principal").wallet.toLowerCase()) throw new ApiError("not_found", `No run ${runId} for this wallet.`);
    const from = parseLastEventId(c.req.header("last-event-id"));
    c.header("Cache-Control", "no-cache");
    return answerAs(route, streamSSE(c, async (stream) => {
      for await (const event of runEvents(services, runId, from, { timeoutMs: 310_000 })) {
        if (stream.aborted) return;
        await stream.writeSSE(event);
      }
    }));
  });
}
