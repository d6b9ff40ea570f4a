// GET /v1/health: liveness and readiness of the API and the stores it depends on, and the key operating
// figures (docs/guides/operator.md). Public: the figures are aggregates and name no wallet, key or run.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { checkHealth } from "../../health.ts";
import { defineRoute } from "../route.ts";

const Percentiles = z
  .object({ count: z.number().int(), p50: z.number(), p95: z.number(), p99: z.number(), max: z.number() })
  .nullable()
  .openapi("LatencyPercentiles", { description: "Milliseconds; null until something was observed" });

const HealthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    chain_id: z.number().int(),
    marketplace: z.string(),
    checks: z.object({ tables: z.boolean(), chain: z.boolean() }),
    metrics: z
      .object({
        since: z.string().openapi({ description: "When this process started counting: the figures are this process's (one Lambda instance in the cloud)" }),
        runs: z.object({
          started: z.number().int(),
          completed: z.number().int(),
          failed: z.number().int(),
          failed_by_reason: z.record(z.string(), z.number().int()),
          charged: z.number().int(),
          charged_wei: z.string().openapi({ description: "Exact sum of charges, in wei" }),
          settlements_deferred: z.number().int(),
          settlements_refused: z.number().int(),
        }),
        requests: z.object({ total: z.number().int(), by_status_class: z.record(z.string(), z.number().int()) }),
        chain_call_errors: z.number().int(),
        latency_ms: z.object({ start_of_execution: Percentiles, run_duration: Percentiles, settlement_lag: Percentiles, chain_call: Percentiles, request: Percentiles }),
      })
      .openapi({ description: "Counters and latency percentiles since `since` (docs/guides/operator.md)" }),
    sandbox: z.object({ idle: z.number().int(), starting: z.number().int(), busy: z.number().int() }).nullable(),
    queues: z
      .object({ registration: z.number().int().nullable(), registration_dlq: z.number().int().nullable(), settlement: z.number().int().nullable() })
      .openapi({ description: "Messages in each queue, visible and in flight: the registration queue, its dead-letter queue, and the settlement queue (per-task charges the settler has not decided yet)" }),
    settlements: z.object({
      pending: z.number().int().nullable(),
      alarms: z
        .array(z.object({ name: z.enum(["fee_ceiling", "settlement_stalled", "nonce_gap", "deep_reorg"]), since: z.string(), message: z.string() }))
        .nullable()
        .openapi({ description: "The settler's alarms that are on (docs/guides/operator.md, \"What to alarm on at 3 am\"): fee_ceiling, settlement_stalled, nonce_gap, deep_reorg; null when they could not be read" }),
    }),
    authority: z.object({ balance_wei: z.string() }).nullable().openapi({ description: "The protocol authority's ETH balance (its gas), in wei" }),
  })
  .openapi("Health");

export const route = defineRoute({
  method: "get",
  path: "/v1/health",
  operationId: "getHealth",
  tag: "System",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Service health",
  description:
    "Reports whether the API can reach its tables and the chain, this process's run, request and latency figures, and the depths an operator watches (sandbox pool, registration queues, the settlement queue, deferred settlements, the authority's gas balance). Needs no token; names no wallet, key or run.",
  responses: {
    200: { description: "Health", content: { "application/json": { schema: HealthSchema } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => c.json(await checkHealth(c.get("services")), 200));
}
