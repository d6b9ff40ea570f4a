// The run figures, recorded by the execute routes around a run: started (and how long it took from the
// request's arrival to the agent being called), then completed or failed by reason, its duration, its
// charge, and the sandbox pool's depth at that moment.
import type { Metrics } from "../adapters/metrics/port.ts";
import type { Services } from "./services.ts";
import type { Admission } from "../execution/admission.ts";
import type { RunResponse } from "../execution/perform.ts";

/** An admitted run: counted, and its start of execution timed from the request's arrival (`receivedAt`,
 * performance.now() when the request came in; absent when unknown). */
export function runStarted(metrics: Metrics, admission: Admission, receivedAt: number | undefined): void {
  metrics.count("RunsStarted");
  if (receivedAt !== undefined) metrics.observe("StartOfExecution", admission.startedAt - receivedAt);
}

/** A finished run, as its Run reads. A charge left pending is counted when the settlement pass lands it
 * (its lag is SettlementLag), not here. */
export function runFinished(services: Services, response: RunResponse, settlementPending: boolean): void {
  const { metrics } = services;
  if (response.status === "completed") metrics.count("RunsCompleted");
  else metrics.count("RunsFailed", 1, { reason: response.error?.code ?? "unknown" });
  metrics.observe("RunDuration", response.duration_ms);
  if (settlementPending) metrics.count("SettlementsDeferred");
  else if (response.cost_wei > 0n) metrics.charged(response.cost_wei);
  if (response.error?.code === "settlement_refused") metrics.count("SettlementsRefused");
  const pool = services.sandboxStats();
  if (pool) {
    metrics.gauge("SandboxIdle", pool.idle);
    metrics.gauge("SandboxBusy", pool.busy);
  }
}
