// A run as the API writes it: the Run of POST /v1/execute and of a stream's `done` event, and the
// RunDetail of GET /v1/runs/{run_id}. cost_wei is written as an exact JSON integer (wei exceed 2^53),
// which JSON.stringify cannot do for a bigint.
import type { RunResponse } from "../execution/perform.ts";
import type { RunRecord } from "../execution/runs/run.ts";

/** The Run of a stored record. A run whose charge is not confirmed shows no output. */
export function responseOf(record: RunRecord): RunResponse {
  const withheld = record.settlement === "pending" || record.settlement === "refused";
  return {
    run_id: record.run_id,
    agent_id: record.agent_id,
    status: record.status === "running" ? "failed" : record.status,
    output: withheld ? null : (record.output ?? null),
    cost_wei: BigInt(record.cost_wei),
    duration_ms: record.duration_ms ?? 0,
    ...(record.error ? { error: record.error } : {}),
  };
}

/** Serialises a Run with cost_wei as an exact JSON integer, plus `extra` members. */
export function runJson(response: RunResponse, extra: Record<string, unknown> = {}): string {
  const { cost_wei, ...rest } = response;
  const body = JSON.stringify({ ...rest, cost_wei: "__COST__", ...extra });
  return body.replace('"__COST__"', cost_wei.toString());
}

/** The Run of a finished stored record, with `settlement: "pending"` while its charge is unconfirmed. */
export function finishedRunJson(record: RunRecord): string {
  return runJson(responseOf(record), record.settlement === "pending" ? { settlement: "pending" } : {});
}

/** The run as its renter sees it (RunDetail). */
export function runDetailJson(record: RunRecord): string {
  const base = responseOf(record);
  return runJson(
    { ...base, output: record.status === "running" ? null : base.output },
    {
      listing_id: record.listing_id,
      status: record.status,
      rental_model: record.rental_model,
      settlement: record.settlement,
      settlement_tx: record.settlement_tx ?? null,
      created_at: record.created_at,
      finished_at: record.finished_at ?? null,
      receipt: record.receipt ?? null,
    },
  );
}
