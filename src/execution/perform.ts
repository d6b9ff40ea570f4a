// Performing an admitted run: the input resolved and checked, the agent called through its kind's port
// (agents/), the output checked against what the listing promises, a per-query run settled
// (money/settlement.ts), the run recorded, and the admission's holds given back on every path.
import pRetry from "p-retry";
import type { Services } from "./services.ts";
import { recordRunOutcome } from "../listings/stats.ts";
import { scrub } from "../runtime/errors.ts";
import type { Admission } from "./admission.ts";
import { describeSchemaErrors, type AgentLogic } from "./agent-logic.ts";
import { agentKind } from "./agents/kinds.ts";
import type { AgentOutcome } from "./agents/port.ts";
import { emptyInputFor, resolveInput } from "./input.ts";
import { concurrencySlots } from "./leases/concurrency.store.ts";
import { releaseReservation } from "./money/ledger.ts";
import { releaseSpend } from "./money/spend.ts";
import { markSettlementPending, settlementRecorded, settleRun } from "./money/settlement.ts";
import { chargeRefOf, MAX_OUTPUT_CHARS, STALE_AFTER_TIMEOUT_MS, type RunFailure, type RunRecord } from "./runs/run.ts";
import { finishRun, saveStreamedText } from "./runs/run.store.ts";
import { markPaymentSettled, releasePayment, type RunX402Payment } from "../x402/payment.store.ts";
import type { FinishedRunStatus } from "@agent-rental/core/vocabulary";

/** How often the text streamed so far is saved while a run is in flight (for resuming streams). */
const STREAM_SAVE_MS = 250;

/** The Run the API returns (cost_wei exact as a bigint; serialised as a JSON integer by the API layer). */
export interface RunResponse {
  run_id: string;
  agent_id: string;
  status: FinishedRunStatus;
  output: unknown;
  cost_wei: bigint;
  duration_ms: number;
  error?: RunFailure;
}

export interface PerformOptions {
  /** Receives each piece of output as the agent produces it. */
  onDelta?: (delta: string) => void;
  stream: boolean;
  /** The x402 payment the run was admitted with (x402/admission.ts): settled by the settler only when the
   * run completed, given back otherwise. Such a run delivers nothing before it is paid (no deltas). */
  payment?: RunX402Payment;
}

export interface PerformResult {
  response: RunResponse;
  /** The transaction that settled the run's x402 payment, when it did. */
  settlementTx?: `0x${string}`;
  /** The charge could not be confirmed yet: the output is withheld until it is (money/settlement.ts). */
  settlementPending: boolean;
}

/** A charge handed over for a run still recorded as running is not sent this close to the time the
 * stale-run sweep may finish that run from what the chain says (so no charge lands after the sweep). */
const CHARGE_MARGIN_BEFORE_SWEEP_MS = 60_000;

/** The last moment the settler may send the charge of `run`, which has not recorded its end yet. */
function chargeNotAfter(run: RunRecord): number {
  return Date.parse(run.created_at) + (run.timeout_ms ?? 0) + STALE_AFTER_TIMEOUT_MS - CHARGE_MARGIN_BEFORE_SWEEP_MS;
}

/** Writes that record a run's end are retried for this long before the run is left to the sweeps. */
const FINISH_RETRIES = { retries: 6, minTimeout: 100, maxTimeout: 4_000, factor: 2 } as const;

/** `write`, retried with backoff (a storage blip must not leave a run running or a hold taken); never
 * throws: a write that still fails is logged, and the holds it meant to release expire on their own. */
async function durably(services: Services, what: string, runId: string, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await pRetry(write, FINISH_RETRIES);
    return true;
  } catch (error) {
    services.logger.error(`${what} failed after retries`, { run_id: runId, cause: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

/** The agent's answer checked against what the listing promises: size, then the output schema. A check
 * that throws (an answer too deep or too odd to serialise or validate) fails the run; it never escapes. */
function checkOutput(logic: AgentLogic, outcome: AgentOutcome, overflow: boolean): AgentOutcome {
  if (outcome.status !== "completed") return outcome;
  let size: number;
  try {
    size = overflow ? Number.POSITIVE_INFINITY : JSON.stringify(outcome.output ?? null).length;
  } catch {
    return { status: "failed", error: { code: "invalid_output", message: "The agent's output could not be read (it is nested too deeply or is not JSON)." } };
  }
  if (size > MAX_OUTPUT_CHARS) return { status: "failed", error: { code: "output_too_large", message: `The agent's output exceeds ${MAX_OUTPUT_CHARS} characters.` } };
  try {
    if (!logic.validateOutput(outcome.output)) {
      return { status: "failed", error: { code: "invalid_output", message: `The agent's output does not match its declared output schema: ${describeSchemaErrors(logic.validateOutput)}.` } };
    }
  } catch {
    return { status: "failed", error: { code: "invalid_output", message: "The agent's output could not be checked against its declared output schema." } };
  }
  return outcome;
}

/**
 * Runs an admitted task to its end: agent, output check, settlement, record. Never throws: a failure of
 * any step is a failed run, and the admission's holds (the listing slot, a per-query reservation) are
 * given back on every path.
 *
 * What a per-query run charges (docs/reference/execution.md): output that reaches the renter is paid for, and output
 * that is not paid for does not reach the renter. A completed run is charged. A failed run is charged
 * only when part of its output was already delivered, which happens only on a stream (the deltas sent
 * before the failure); a failed synchronous run releases no output and is free.
 */
/** What a run streamed (deltas) and what of it reached the renter, kept while the agent runs; a
 * stream's text (and an unpaid run's, see releasedText) is saved as it grows. */
function collectOutput(services: Services, admission: Admission, options: PerformOptions) {
  const { run, access } = admission;
  const payment = options.payment;
  const perQuery = access.rentalModel === "per_query";
  const state = { streamed: "", overflow: false, delivered: false, firstOutputMs: undefined as number | undefined };
  let saved = "";
  let saving: Promise<void> | undefined;
  const save = () => {
    if (saving || state.streamed === saved) return;
    const text = state.streamed;
    saving = saveStreamedText(services.tables, run.run_id, text)
      .then(() => void (saved = text))
      .catch(() => undefined)
      .finally(() => void (saving = undefined));
  };
  // A synchronous per-query run keeps its text to itself until it is paid (see releasedText).
  // (An x402 run delivers nothing before it is paid, streamed or not: it is kept as a synchronous one.)
  const delivers = options.stream && !payment;
  const saver = delivers || !perQuery ? setInterval(save, STREAM_SAVE_MS) : undefined;
  const onDelta = (delta: string) => {
    if (state.overflow) return;
    if (state.streamed.length + delta.length > MAX_OUTPUT_CHARS) {
      state.overflow = true;
      return;
    }
    state.streamed += delta;
    if (options.stream && delta.length > 0 && !payment) {
      state.delivered = true;
      state.firstOutputMs ??= Math.round(performance.now() - admission.startedAt);
    }
    try {
      if (!payment) options.onDelta?.(delta);
    } catch {
      // a disconnected client does not stop the run
    }
  };
  return { state, delivers, onDelta, stop: () => saver && clearInterval(saver) };
}

/** The agent's outcome for the admitted task: its input resolved and checked, the agent run, its output
 * checked; a failure's reason scrubbed of the listing's secret. Never throws. */
async function agentOutcome(services: Services, admission: Admission, options: PerformOptions, output: ReturnType<typeof collectOutput>, secretForScrub: () => Promise<string | null>): Promise<AgentOutcome> {
  const { access, logic } = admission;
  let outcome: AgentOutcome;
  try {
    const input = await resolveInput(services, admission.request);
    // An omitted input is checked as the empty value of the schema's type (so a schema that requires
    // fields refuses it), and reaches the agent as no input.
    if (!input.ok) outcome = { status: "failed", error: { code: "invalid_input", message: input.message } };
    else if (!logic.validateInput(input.input === null ? emptyInputFor(logic.manifest.input_schema) : input.input)) {
      outcome = { status: "failed", error: { code: "invalid_input", message: `The input does not match the agent's input schema: ${describeSchemaErrors(logic.validateInput)}.` } };
    } else {
      outcome = await agentKind(access.agent.kind).run(services, {
        runId: admission.run.run_id,
        agentId: access.agent.agent_id,
        listingId: access.listingId,
        manifest: logic.manifest,
        task: admission.request.task,
        input: input.input,
        timeoutMs: admission.timeoutMs,
        secret: admission.secret,
        stream: options.stream,
        onDelta: output.onDelta,
      });
    }
    outcome = checkOutput(logic, outcome, output.state.overflow);
  } catch (error) {
    services.logger.error("run failed unexpectedly", { run_id: admission.run.run_id, cause: scrub(error instanceof Error ? error.message : String(error), [await secretForScrub()]) });
    outcome = { status: "failed", error: { code: "internal_error", message: "The run failed on the service's side. Retry." } };
  } finally {
    output.stop();
  }
  // The runtime and the webhook client already keep the run's secret out of their reasons; a reason is
  // scrubbed once more here, where the service itself holds the secret, before it is stored or returned.
  if (outcome.status === "failed") return { status: "failed", error: { code: outcome.error.code, message: scrub(outcome.error.message, [await secretForScrub()]) } };
  return outcome;
}

/** Where a run's charge stands once performRun has tried it. */
interface ChargeState {
  costWei: bigint;
  settlement: RunRecord["settlement"];
  settlementTx?: `0x${string}`;
  settlementPending: boolean;
  chargeFromBlock?: bigint;
  chargeHanded: boolean;
}

/** A per-query run's charge: released when nothing chargeable came of it, else settled (charged,
 * refused, or pending). A refusal turns the outcome into a failure whose result is not released. */
async function chargeRun(services: Services, admission: Admission, payment: RunX402Payment | undefined, outcome: AgentOutcome, delivered: boolean, release: () => Promise<unknown>): Promise<{ outcome: AgentOutcome; charge: ChargeState }> {
  const { run, access } = admission;
  const charge: ChargeState = { costWei: 0n, settlement: "none", settlementPending: false, chargeHanded: true };
  const chargeable = outcome.status === "completed" || delivered;
  if (!chargeable) {
    await durably(services, "reservation release", run.run_id, release);
    return { outcome, charge };
  }
  const settled = await settleRun(services, {
    runId: run.run_id,
    onChainId: access.onChainId,
    wallet: run.wallet,
    priceWei: access.priceWei,
    chargeRef: chargeRefOf(run),
    notAfter: chargeNotAfter(run),
    ...(run.spend_holds ? { spendHolds: run.spend_holds } : {}),
    ...(run.market ? { market: run.market } : {}),
    ...(payment ? { payment: { validAfter: payment.validAfter, validBefore: payment.validBefore, nonce: payment.nonce, signature: payment.signature } } : {}),
  });
  const result = settled.outcome;
  charge.chargeFromBlock = settled.fromBlock;
  charge.chargeHanded = settled.handed;
  if (result.outcome === "charged") {
    charge.costWei = result.costWei;
    charge.settlement = "settled";
    if (result.txHash) charge.settlementTx = result.txHash;
    if (payment && result.txHash) await durably(services, "x402 payment record", run.run_id, () => markPaymentSettled(services.tables, payment.token, payment.payer, payment.nonce, run.run_id, result.txHash!));
    return { outcome, charge };
  }
  if (result.outcome === "refused") {
    charge.settlement = "refused";
    return { outcome: { status: "failed", error: { code: "settlement_refused", message: `The charge for this run was refused by the contract (${result.contractError}); its result is not released.` } }, charge };
  }
  charge.costWei = access.priceWei;
  charge.settlement = "pending";
  charge.settlementPending = true;
  return { outcome, charge };
}

/** The run's end recorded: its record (output, cost, settlement), the analytics when it is final, a
 * pending settlement's mark, the listing's slot given back, the listing's figures. */
async function recordRunEnd(services: Services, admission: Admission, end: { outcome: AgentOutcome; charge: ChargeState; released: unknown; streamed: string; durationMs: number; firstOutputMs: number | undefined; finishedAt: string }): Promise<void> {
  const { run, access } = admission;
  const { outcome, charge, durationMs, firstOutputMs, finishedAt } = end;
  let finish: Awaited<ReturnType<typeof finishRun>> | undefined;
  const recordedRun = await durably(services, "run record", run.run_id, async () =>
    (finish = await finishRun(services.tables, run.run_id, {
      status: outcome.status,
      output: charge.settlement === "refused" ? null : end.released,
      streamed: end.streamed,
      ...(outcome.status === "failed" ? { error: outcome.error } : {}),
      cost_wei: charge.costWei.toString(),
      duration_ms: durationMs,
      ...(firstOutputMs === undefined ? {} : { first_output_ms: firstOutputMs }),
      settlement: charge.settlement,
      ...(charge.settlementTx ? { settlement_tx: charge.settlementTx } : {}),
      finished_at: finishedAt,
    })),
  );
  // A run settled now (or needing no settlement) is final: the analytics count it. A pending one is
  // counted when the settlement pass records its outcome.
  if (recordedRun && finish === "finished" && !charge.settlementPending) {
    settlementRecorded(services, { ...run, status: outcome.status, ...(outcome.status === "failed" ? { error: outcome.error } : {}), duration_ms: durationMs, ...(firstOutputMs === undefined ? {} : { first_output_ms: firstOutputMs }), cost_wei: charge.costWei.toString(), finished_at: finishedAt });
  }
  if (charge.settlementPending) await durably(services, "pending settlement record", run.run_id, () => markSettlementPending(services, run.run_id, charge.chargeFromBlock, charge.chargeHanded));
  await durably(services, "listing slot release", run.run_id, () => concurrencySlots(services.tables, access.onChainId).remove(run.run_id));
  await recordRunOutcome(services.tables, { run_id: run.run_id, on_chain_id: access.onChainId, wallet: run.wallet, status: outcome.status, finished_at: finishedAt }).catch((error: unknown) =>
    services.logger.warn("listing figures not updated", { run_id: run.run_id, cause: error instanceof Error ? error.message : String(error) }),
  );
}

export async function performRun(services: Services, admission: Admission, options: PerformOptions): Promise<PerformResult> {
  const { run, access } = admission;
  const perQuery = access.rentalModel === "per_query";
  const payment = options.payment;
  // What a run's holds are given back by: an x402 payment's reservation (the authorization is never
  // sent), or the balance's reservation and the spending limits' holds.
  const release = () =>
    payment
      ? releasePayment(services.tables, payment.token, payment.payer, payment.nonce, run.run_id)
      : Promise.all([releaseReservation(services, access.onChainId, run.wallet, run.run_id), releaseSpend(services, run.spend_holds, run.run_id, access.priceWei)]);
  const output = collectOutput(services, admission, options);
  const secretForScrub = () => admission.secret.catch(() => null);

  let outcome: AgentOutcome = { status: "failed", error: { code: "internal_error", message: "The run failed on the service's side. Retry." } };
  let charge: ChargeState = { costWei: 0n, settlement: "none", settlementPending: false, chargeHanded: true };
  try {
    outcome = await agentOutcome(services, admission, options, output, secretForScrub);
    if (perQuery) ({ outcome, charge } = await chargeRun(services, admission, payment, outcome, output.state.delivered, release));
  } catch (error) {
    // Only a defect reaches here (every step above turns its own failures into outcomes); the run still
    // ends failed and its holds are still given back below.
    services.logger.error("run could not be finished normally", { run_id: run.run_id, cause: scrub(error instanceof Error ? error.message : String(error), [await secretForScrub()]) });
    outcome = { status: "failed", error: { code: "internal_error", message: "The run failed on the service's side. Retry." } };
    if (perQuery && charge.settlement === "none") await durably(services, "reservation release", run.run_id, release);
  }
  const durationMs = Math.round(performance.now() - admission.startedAt);
  const { streamed, firstOutputMs } = output.state;
  const { settlement } = charge;

  // What the renter receives: a completed run's output; a failed run's partial text, unless the run is
  // per-query and that text was not paid for. Nothing at all while a charge is unconfirmed or refused.
  const paid = settlement === "settled";
  // (A stream's text is exactly what it delivered: paid for, or empty.)
  const released = outcome.status === "completed" ? outcome.output : !perQuery || paid || output.delivers ? streamed : null;
  const finishedAt = new Date().toISOString();
  await recordRunEnd(services, admission, {
    outcome,
    charge,
    released,
    // A synchronous per-query run's text is kept only once paid (releasedText reads it then).
    streamed: !perQuery || output.delivers || paid || settlement === "pending" ? streamed : "",
    durationMs,
    firstOutputMs,
    finishedAt,
  });
  return {
    response: {
      run_id: run.run_id,
      agent_id: run.agent_id,
      status: outcome.status,
      output: settlement === "pending" || settlement === "refused" ? null : released,
      cost_wei: charge.costWei,
      duration_ms: durationMs,
      ...(outcome.status === "failed" ? { error: outcome.error } : {}),
    },
    settlementPending: charge.settlementPending,
    ...(charge.settlementTx ? { settlementTx: charge.settlementTx } : {}),
  };
}
