// A run: one task executed for one renter, recorded when it is admitted and updated as it streams,
// finishes, settles and is logged on-chain. Its record, its ids, and what a renter may see of it;
// run.store.ts keeps it in the `runs` table.
import { randomBytes } from "node:crypto";
import { keccak256, toHex, type Address } from "viem";
import type { FinishedRunStatus, RentalModel, RunFailureCode, RunStatus, SettlementState } from "@agent-rental/core/vocabulary";
import { chargeRefHex, parseChargeRef } from "../money/charge-refs.ts";

/** Why a run failed: a code of the vocabulary (RUN_FAILURE_CODES) and a sentence for the renter. */
export interface RunFailure {
  code: RunFailureCode;
  message: string;
}

export type { RunStatus, SettlementState };
/** The run log: `pending` until a batch holding the run's receipt is logged on-chain. */
export type RunLogState = "pending" | "batching" | "logged";

export interface RunReceiptReference {
  /** The contract's batch index (RunsLogged event). */
  batch_index: number;
  /** The Merkle root logged for the batch. */
  root: `0x${string}`;
  /** The run's receipt leaf (the contract's runReceiptLeaf). */
  leaf: `0x${string}`;
  /** Sibling hashes from the leaf to the root (sorted-pair tree), for verifyRunReceipt. */
  proof: `0x${string}`[];
  /** The logRuns transaction. */
  tx_hash: `0x${string}`;
}

export interface RunRecord {
  pk: string; // run#<run_id>
  sk: "run";
  run_id: string;
  agent_id: string;
  listing_id: string;
  /** The on-chain listing id (bytes32). */
  on_chain_id: `0x${string}`;
  /** The renter's wallet, lower-case. */
  wallet: Address;
  rental_model: RentalModel;
  /** The listing's price the run was admitted at (wei, decimal string): the most its settlement may
   * charge, even if the creator raises the price while it runs. */
  price_wei?: string;
  /** A per-query run's dense charge reference (decimal string), given at admission: the `runRef` its
   * charge carries on-chain (money/charge-refs.ts). Absent on runs admitted before there were any. */
  charge_ref?: string;
  /** "token" when the listing lives on the TokenMarketplace (priced in a token: `price_wei` is then in
   * the token's smallest unit); absent for the Marketplace (ETH). */
  market?: "token";
  /** A token run's currency (the listing's token: symbol, address, decimals), recorded at admission;
   * absent for ETH. */
  currency?: { symbol: string; address: `0x${string}` | null; decimals: number };
  /** "x402" when the run was paid by an x402 payment instead of a credential; absent otherwise. */
  paid_by?: "x402";
  /** The spending limits' holds of a per-query run admitted through a key or app with limits
   * (money/spend-ledger.store.ts): turned into spending when it is charged, given back when it is not. */
  spend_holds?: string[];
  status: RunStatus;
  /** The final output, once finished (a failed run's partial output is its streamed text). */
  output?: unknown;
  /** The text streamed so far (saved while the run is in flight; complete once finished): what a
   * resumed stream replays. Event ids are offsets into it. */
  streamed?: string;
  /** How the run's output leaves the service: `stream` (deltas are sent as the agent produces them, so
   * they are delivered output) or `sync` (nothing leaves before the run ends). Absent on older records:
   * read as stream, the mode that releases output as it is produced. */
  delivery?: "stream" | "sync";
  /** standard or priority. */
  priority?: "standard" | "priority";
  /** The A2A context the run belongs to, when the client named one (A2A's contextId); absent otherwise
   * (the run is then its own context). */
  context_id?: string;
  timeout_ms?: number;
  /** Why a failed run failed: {code, message}. */
  error?: RunFailure;
  /** Wei charged, as a decimal string (bigint-safe). */
  cost_wei: string;
  duration_ms?: number;
  /** A stream's time to its first output (ms from admission to its first non-empty delta); absent when
   * it sent none, and on a synchronous run. The creator analytics' time to first output. */
  first_output_ms?: number;
  settlement: SettlementState;
  settlement_tx?: `0x${string}`;
  created_at: string;
  finished_at?: string;
  /** The run log's state; the receipt once logged. */
  log_state?: RunLogState;
  receipt?: RunReceiptReference;
  /** While the run log holds the run in a batch: the batch id. */
  log_batch?: string;
  /** The run's place in gsi1, which says what is left to do with it (run.store.ts). */
  gsi1pk?: string;
  gsi1sk?: string;
}

/** How a run ends (finishRun): everything the end of a run records at once. */
export interface RunFinish {
  status: FinishedRunStatus;
  output: unknown;
  streamed: string;
  error?: RunFailure;
  cost_wei: string;
  duration_ms: number;
  first_output_ms?: number;
  settlement: SettlementState;
  settlement_tx?: `0x${string}`;
  finished_at: string;
}

/** A settlement that completed after the run's response (the settlement pass). */
export interface SettlementPatch {
  settlement: SettlementState;
  cost_wei?: string;
  settlement_tx?: `0x${string}`;
  status?: "failed";
  error?: RunFailure;
}

/** How long past its own timeout a run may stay `running` before the stale-run sweep finishes it: far
 * longer than any request lives after its agent's timeout (settlement and the finishing retries). */
export const STALE_AFTER_TIMEOUT_MS = 5 * 60_000;

/** Run ids: "run_" + 32 lower-case hex characters (128 random bits). */
export const RUN_ID = /^run_[0-9a-f]{32}$/;

/** The run's bytes32 reference on-chain (consumeQuery's runRef, the receipt leaf's runId). */
export function runRef(runId: string): `0x${string}` {
  return keccak256(toHex(runId));
}

/** The bytes32 reference a per-query run is charged under: its dense charge reference, or, for a run
 * recorded without one (admitted before they existed), `runRef(run_id)` as it was charged then. */
export function chargeRefOf(run: Pick<RunRecord, "run_id" | "charge_ref">): `0x${string}` {
  const ref = parseChargeRef(run.charge_ref);
  return ref === undefined ? runRef(run.run_id) : chargeRefHex(ref);
}

export function newRunId(): string {
  return `run_${randomBytes(16).toString("hex")}`;
}

/** Output kept per run (streamed text, and the final output serialized), in UTF-16 code units / bytes. */
export const MAX_OUTPUT_CHARS = 128 * 1024;

/**
 * The output text of a run a renter may see (a resumed stream, GET /v1/runs/{run_id}/events). A
 * per-query run that was not streamed releases nothing before it is charged: its text would otherwise be
 * output that reached the renter unpaid (docs/reference/execution.md, "What a run charges").
 */
export function releasedText(record: RunRecord): string {
  const text = record.streamed ?? "";
  if (record.rental_model !== "per_query" || (record.delivery ?? "stream") === "stream") return text;
  return record.status !== "running" && record.settlement === "settled" ? text : "";
}
