// A run as the API writes it: the Run of POST /v1/execute and of a stream's `done` event, the
// RunDetail of GET /v1/runs/{run_id}, and the RunSummary of GET /v1/runs. cost_wei is an exact JSON integer (wei exceed 2^53), which
// JSON.stringify cannot write for a bigint. It is handed to JSON.stringify as JSON.rawJSON of its
// digits, which the serialiser writes as they are, so no text of the body is ever searched or edited:
// whatever the agent's output holds (a renter chooses it through any agent that echoes its input),
// it is serialised as data, and the cost is the only raw value in the body.
import type { RunResponse } from "../execution/perform.ts";
import type { RunFailure, RunRecord } from "../execution/runs/run.ts";
import { ETH, type Currency } from "../listings/currency.ts";

// JSON.rawJSON (JSON.parse source text access) is in V8 since Node 21: Node 22, which the project runs
// on and Lambda's nodejs22.x runtime. TypeScript's ES2023 library does not declare it yet.
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
if (typeof rawJSON !== "function") throw new Error("JSON.rawJSON is missing: the API needs Node 22 or later (the project's own Node, node_modules/.bin/node).");

/**
 * A wei amount that JSON.stringify writes as an exact JSON integer: its decimal digits, unquoted.
 * Typed as the `number` the response schemas declare (`z.number().int()`), which is what it is on the
 * wire.
 *
 * @example JSON.stringify({ cost_wei: exactInteger(12345678900000000n) }) // '{"cost_wei":12345678900000000}'
 */
export function exactInteger(value: bigint): number {
  return rawJSON!(value.toString()) as number;
}

/** The Run's body (RunSchema). */
export interface RunBody {
  run_id: string;
  agent_id: string;
  status: RunResponse["status"];
  output: unknown;
  duration_ms: number;
  error?: RunFailure;
  cost_wei: number;
  settlement?: "pending";
}

/** The run as its renter sees it (RunDetail). */
export interface RunDetailBody extends Omit<RunBody, "status" | "settlement"> {
  listing_id: string;
  status: RunRecord["status"];
  rental_model: RunRecord["rental_model"];
  settlement: RunRecord["settlement"];
  settlement_tx: string | null;
  created_at: string;
  finished_at: string | null;
  receipt: NonNullable<RunRecord["receipt"]> | null;
  /** The listing's currency: cost_wei is in its smallest unit (decision 0165). */
  currency: Currency;
}

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

/** The Run's body, with `settlement: "pending"` when its charge is not confirmed yet. */
export function runBody(response: RunResponse, settlementPending = false): RunBody {
  const { cost_wei, ...rest } = response;
  return { ...rest, cost_wei: exactInteger(cost_wei), ...(settlementPending ? { settlement: "pending" as const } : {}) };
}

/** The Run of a finished stored record, with `settlement: "pending"` while its charge is unconfirmed. */
export function finishedRunBody(record: RunRecord): RunBody {
  return runBody(responseOf(record), record.settlement === "pending");
}

/** The run as its renter sees it (RunDetail): its output stays null while it runs. */
export function runDetailBody(record: RunRecord): RunDetailBody {
  const { status: _status, cost_wei, ...base } = responseOf(record);
  return {
    ...base,
    output: record.status === "running" ? null : base.output,
    cost_wei: exactInteger(cost_wei),
    listing_id: record.listing_id,
    status: record.status,
    rental_model: record.rental_model,
    settlement: record.settlement,
    settlement_tx: record.settlement_tx ?? null,
    created_at: record.created_at,
    finished_at: record.finished_at ?? null,
    receipt: record.receipt ?? null,
    // A token run records its currency at admission; every other run is in ETH.
    currency: record.currency ?? ETH,
  };
}

/** A run as listed (RunSummary): the RunDetail without its output. */
export function runSummaryBody(record: RunRecord): Omit<RunDetailBody, "output"> {
  const { output: _output, ...summary } = runDetailBody(record);
  return summary;
}
