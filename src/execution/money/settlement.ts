// Per-query settlement, right before a completed run's result is returned. The run's charge (its dense
// charge reference, the price it was admitted at) is handed to the settler through the settlement queue;
// the settler alone sends with the protocol authority's key, many charges per transaction, one batch per
// block (src/execution/settler/). The request waits for the block that holds its charge (this process's
// settlement watcher follows the chain's blocks) and releases the result when it is seen, never before.
// The contract charges a reference at most once, so a charge handed over twice is never charged twice;
// the charged amount is read from the QueryConsumed event, never assumed.
//
// The rule when the charge does not land (docs/reference/execution.md):
// - the contract refused it (the creator revoked the credential or closed the listing mid-run, or the
//   balance no longer covers the price): the run is not paid, so its result is never released; the run
//   reads failed with cost 0;
// - no block held it within SETTLEMENT_WAIT_MS (the chain or the queue could not be reached, the settler
//   is behind): the result is kept, withheld, and the run recorded pending; the settlement pass resolves
//   it from the chain (handing the charge over again while the chain has not seen it) until it lands or
//   is refused; the reservation keeps the funds meanwhile. GET /v1/runs/{run_id} releases the output once
//   the run is settled.
import pRetry from "p-retry";
import type { Address, Hex } from "viem";
import type { Services } from "../services.ts";
import { getQueryConsumed } from "../../chain/get-query-consumed.ts";
import { getChargeOutcomes, type ChargeDecision } from "../../chain/get-charge-outcomes.ts";
import { chargeRefOf, type RunRecord } from "../runs/run.ts";
import { correctSettlement, getRun, updateSettlement } from "../runs/run.store.ts";
import { deletePendingSettlement, listPendingSettlements, markRequeued, putPendingSettlement, type PendingSettlement } from "./settlement.store.ts";
import { holdReservation, releaseReservation, settleReservation, SETTLEMENT_WINDOW_MS } from "./ledger.ts";
import { holdSpend, releaseSpend, settleSpend } from "./spend.ts";
import { alertAfterCharge } from "../../alerts/raise.ts";
import { chargeMessageBody } from "./charge-message.ts";
import { runPayment } from "../../x402/payment.store.ts";
import { adjustRunOutcome } from "../../analytics/adjust.ts";
import { recordSettledRun } from "../../analytics/record.ts";
import type { SettledRunFact } from "../../analytics/rollups.ts";

export type ChargeOutcome =
  | { outcome: "charged"; costWei: bigint; txHash?: `0x${string}` }
  | { outcome: "refused"; contractError: string }
  | { outcome: "unavailable" };

/** What an earlier charge of `ref` took (a run whose end was never recorded). Throws when the chain cannot be read. */
export async function earlierCharge(services: Services, onChainId: `0x${string}`, wallet: Address, ref: `0x${string}`): Promise<{ price: bigint; txHash: `0x${string}` } | undefined> {
  const charge = await getQueryConsumed(services.chain, { listingId: onChainId, buyer: wallet, runRef: ref, fromBlock: services.config.MARKETPLACE_DEPLOY_BLOCK });
  return charge && { price: charge.priceWei, txHash: charge.transactionHash };
}

/** A run to charge: `priceWei` is the price it was admitted at, the most the contract may take for it. */
export interface ChargeableRun {
  runId: string;
  onChainId: `0x${string}`;
  wallet: Address;
  priceWei: bigint;
  /** The bytes32 reference the run is charged under (chargeRefOf). */
  chargeRef: Hex;
  /** The holds of the spending limits the run counts against (RunRecord.spend_holds). */
  spendHolds?: string[];
  /** After this time (milliseconds since the epoch) the settler no longer sends the charge: the stale-run
   * sweep may then finish the run from what the chain says. Absent for a finished run's charge. */
  notAfter?: number;
  /** "token": the listing lives on the TokenMarketplace (RunRecord.market). */
  market?: "token";
  /** An x402 payment's signed authorization (RunRecord.paid_by "x402"): settled by settlePayments
   * instead of a balance charge; `wallet` is its payer and `priceWei` its value. */
  payment?: { validAfter: string; validBefore: string; nonce: Hex; signature: Hex };
}

/** A charge's settlement: its outcome, the first block its charge could be in (when known), and whether
 * the settler was handed the charge. */
export interface Settlement {
  outcome: ChargeOutcome;
  fromBlock: bigint | undefined;
  handed: boolean;
}

function outcomeOf(decision: ChargeDecision | undefined): ChargeOutcome {
  if (!decision) return { outcome: "unavailable" };
  return decision.kind === "charged" ? { outcome: "charged", costWei: decision.priceWei, txHash: decision.txHash } : { outcome: "refused", contractError: decision.contractError };
}

/**
 * Records that a finished run's settlement is final, for the creator analytics: the single place a
 * run's settled outcome leaves the settlement (the synchronous path once its run is recorded, and the
 * settlement pass when it records a pending run's outcome). Counted once per run, keyed by the run, so
 * two passes recording the same run, or a re-settlement after a reorg, count it once. Returns at once:
 * the roll-ups are written in the background (src/analytics/record.ts).
 */
export function settlementRecorded(services: Pick<Services, "tables" | "logger">, run: SettledRunRecord): void {
  const fact = settledRunFact(run);
  if (fact) recordSettledRun(services.tables, services.logger, fact);
}

type SettledRunRecord = Pick<RunRecord, "run_id" | "on_chain_id" | "wallet" | "rental_model" | "status" | "error" | "duration_ms" | "first_output_ms" | "cost_wei" | "finished_at">;

/** What a finished run's settlement adds to the analytics (undefined for a run not finished). */
function settledRunFact(run: SettledRunRecord): SettledRunFact | undefined {
  if ((run.status !== "completed" && run.status !== "failed") || !run.finished_at) return undefined;
  return {
    run_id: run.run_id,
    on_chain_id: run.on_chain_id,
    wallet: run.wallet,
    rental_model: run.rental_model,
    status: run.status,
    ...(run.status === "failed" && run.error ? { failure_code: run.error.code } : {}),
    duration_ms: run.duration_ms ?? 0,
    ...(run.first_output_ms === undefined ? {} : { first_output_ms: run.first_output_ms }),
    cost_wei: BigInt(run.cost_wei || "0"),
    finished_at: run.finished_at,
  };
}

/** Hands a run's charge to the settler. False when the queue could not take it (the caller records the
 * run pending; the settlement pass hands it over again). */
export async function requestCharge(services: Services, run: ChargeableRun, fromBlock: bigint | undefined): Promise<boolean> {
  const body = chargeMessageBody({
    v: 1,
    run_id: run.runId,
    listing: run.onChainId,
    buyer: run.wallet,
    ref: run.chargeRef,
    max_price: run.priceWei.toString(),
    ...(fromBlock === undefined ? {} : { since_block: fromBlock.toString() }),
    ...(run.notAfter === undefined ? {} : { not_after: run.notAfter }),
    ...(run.market ? { market: run.market } : {}),
    ...(run.payment ? { payment: { valid_after: run.payment.validAfter, valid_before: run.payment.validBefore, nonce: run.payment.nonce, signature: run.payment.signature } } : {}),
  });
  try {
    await pRetry(() => services.queue.send(services.config.SETTLEMENT_QUEUE_URL, body), { retries: 2, minTimeout: 50, maxTimeout: 400 });
    return true;
  } catch (error) {
    services.logger.error("charge not handed to the settler; the run's settlement stays pending", { run_id: run.runId, cause: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

/** The reservation ledger follows a charge's outcome. Its write is retried and never turns a landed charge
 * into an error: a reservation left behind only keeps the renter's funds held until it expires (never
 * overspends). */
async function followLedger(services: Services, run: Pick<ChargeableRun, "runId" | "onChainId" | "wallet" | "priceWei" | "spendHolds" | "market">, outcome: ChargeOutcome): Promise<void> {
  const follow: () => Promise<unknown> =
    outcome.outcome === "charged"
      ? () => Promise.all([settleReservation(services, run.onChainId, run.wallet, run.runId), settleSpend(services, run.spendHolds, run.runId, run.priceWei)])
      : outcome.outcome === "refused"
        ? () => Promise.all([releaseReservation(services, run.onChainId, run.wallet, run.runId), releaseSpend(services, run.spendHolds, run.runId, run.priceWei)])
        : () => Promise.all([holdReservation(services, run.onChainId, run.wallet, run.runId, Date.now() + SETTLEMENT_WINDOW_MS), holdSpend(services, run.spendHolds, run.runId, Date.now() + SETTLEMENT_WINDOW_MS)]);
  await pRetry(follow, { retries: 5, minTimeout: 100, maxTimeout: 2_000 }).catch((error: unknown) =>
    services.logger.error("reservation ledger not updated after settlement", { run_id: run.runId, outcome: outcome.outcome, cause: error instanceof Error ? error.message : String(error) }),
  );
  // What the charge crossed (a limit's 80% or 100%, a low balance) is alerted in the background, once
  // the limits' windows hold it as spent.
  if (outcome.outcome === "charged") alertAfterCharge(services, run);
}

/** Settlement lag: from the run's end (when its charge was deferred) to the charge resolved. */
function observeLag(services: Services, since: unknown): void {
  if (typeof since === "string") services.metrics.observe("SettlementLag", Date.now() - Date.parse(since));
}

/**
 * Charges a finished run: hands its charge to the settler and waits (up to SETTLEMENT_WAIT_MS) for the
 * block that holds it. The ledger follows the outcome.
 */
export async function settleRun(services: Services, run: ChargeableRun): Promise<Settlement> {
  const fromBlock = await services.settlementWatcher.from();
  const handed = await requestCharge(services, run, fromBlock);
  const decision = handed ? await services.settlementWatcher.wait(run.chargeRef, fromBlock, services.config.SETTLEMENT_WAIT_MS) : undefined;
  const outcome = outcomeOf(decision);
  // An x402 run holds no balance reservation and no spending limit: nothing to follow.
  if (!run.payment) await followLedger(services, run, outcome);
  return { outcome, fromBlock, handed };
}

/** The price a run was admitted at, from its record: undefined when the record holds none (a record
 * written before the admission price was recorded). */
function admittedPrice(run: RunRecord): bigint | undefined {
  return typeof run.price_wei === "string" && /^[1-9][0-9]*$/.test(run.price_wei) ? BigInt(run.price_wei) : undefined;
}

/**
 * A pending charge whose run has no admission price is refused here, without a transaction: the only
 * cap the service could pass is a guess, and a guess is either the listing's current price (which a
 * creator may have raised after admission: the very charge the cap exists to stop) or nothing (which
 * the contract refuses, PriceTooLow). The run is settled as refused (free, result withheld), its
 * reservation given back, and the refusal logged for the operator.
 */
async function refuseUnpriced(services: Services, run: RunRecord): Promise<void> {
  services.logger.error("pending settlement refused: the run has no admitted price, so no charge is sent", { run_id: run.run_id, listing_id: run.listing_id });
  services.metrics.count("SettlementsRefused");
  await Promise.all([releaseReservation(services, run.on_chain_id, run.wallet, run.run_id), releaseSpend(services, run.spend_holds, run.run_id, BigInt(run.price_wei ?? "0"))]).catch((error: unknown) =>
    services.logger.error("reservation not given back", { run_id: run.run_id, cause: error instanceof Error ? error.message : String(error) }),
  );
  await updateSettlement(services.tables, run.run_id, {
    settlement: "refused",
    status: "failed",
    cost_wei: "0",
    error: { code: "settlement_refused", message: "The price this run was admitted at is not recorded, so it cannot be charged safely; it is not charged and its result is not released." },
  });
  await deletePendingSettlement(services.tables, run.run_id);
}

/** Queues a run whose charge was not seen landing for the settlement pass; `fromBlock` is the first block
 * its charge can be in, when known; `handed` whether the settler was given the charge (if not, the pass
 * hands it over at once). */
export async function markSettlementPending(services: Services, runId: string, fromBlock?: bigint, handed = true): Promise<void> {
  await putPendingSettlement(services.tables, runId, new Date().toISOString(), fromBlock, handed);
}

/** A pending charge the chain has not decided is handed to the settler again at most this often (the
 * first hand-over may still be in the queue or in a block being mined). */
export const REQUEUE_AFTER_MS = 30_000;

/**
 * Resolves the settlements left pending from what the chain decided: a charged run is settled (its output
 * released), a refused one fails free; a charge the chain has not seen is handed to the settler again
 * (every REQUEUE_AFTER_MS at most). Sends nothing itself: only the settler sends.
 */
export async function settlePendingRuns(services: Services): Promise<{ settled: number; refused: number; pending: number }> {
  const tally = { settled: 0, refused: 0, pending: 0 };
  const open: { item: PendingSettlement; run: RunRecord; priceWei: bigint; ref: Hex }[] = [];
  for (const item of await listPendingSettlements(services.tables)) {
    const run = await getRun(services.tables, item.run_id);
    if (!run || run.settlement !== "pending") {
      await deletePendingSettlement(services.tables, item.run_id);
      continue;
    }
    const priceWei = admittedPrice(run);
    if (priceWei === undefined) {
      await refuseUnpriced(services, run);
      tally.refused++;
      continue;
    }
    open.push({ item, run, priceWei, ref: chargeRefOf(run) });
  }
  if (open.length === 0) {
    services.metrics.gauge("SettlementsPending", 0);
    return tally;
  }

  // One search for every pending charge, from the earliest block any of them can be in.
  let decisions: Map<Hex, ChargeDecision> | undefined;
  try {
    const head = await services.chain.client.getBlockNumber({ cacheTime: 0 });
    const fromBlock = open.reduce((min, { item }) => {
      const from = item.from_block === undefined ? services.config.MARKETPLACE_DEPLOY_BLOCK : BigInt(item.from_block);
      return from < min ? from : min;
    }, head);
    decisions = await getChargeOutcomes(services.chain, { refs: open.map((o) => o.ref), fromBlock, toBlock: head });
  } catch (error) {
    services.logger.warn("pending settlements not resolved: the chain could not be read", { cause: error instanceof Error ? error.message : String(error) });
  }

  for (const { item, run, priceWei, ref } of open) {
    const decision = decisions?.get(ref.toLowerCase() as Hex);
    if (!decision) {
      tally.pending++;
      // A charge never handed over goes at once; one handed over is given time to land first.
      const last = item.handed === false && item.requeued_at === undefined ? Number.NaN : Date.parse(item.requeued_at ?? item.since ?? "");
      // The chain answered and holds no decision: hand the charge over again (it is idempotent).
      if (decisions && !(Date.now() - last < REQUEUE_AFTER_MS)) {
        const fromBlock = item.from_block === undefined ? undefined : BigInt(item.from_block);
        const payment = run.paid_by === "x402" ? await runPayment(services.tables, run.run_id).catch(() => undefined) : undefined;
        const charge: ChargeableRun = { runId: run.run_id, onChainId: run.on_chain_id, wallet: run.wallet, priceWei, chargeRef: ref, ...(run.market ? { market: run.market } : {}), ...(payment ? { payment } : {}) };
        if (await requestCharge(services, charge, fromBlock)) {
          await markRequeued(services.tables, run.run_id, new Date().toISOString());
        }
      }
      continue;
    }
    const outcome = outcomeOf(decision);
    if (run.paid_by !== "x402") await followLedger(services, { runId: run.run_id, onChainId: run.on_chain_id, wallet: run.wallet, priceWei, ...(run.spend_holds ? { spendHolds: run.spend_holds } : {}), ...(run.market ? { market: run.market } : {}) }, outcome);
    // Each outcome is recorded, counted and timed once: a pass that finds the run's settlement already
    // recorded (another pass, in this process or another, took it first) only clears its pending item.
    if (outcome.outcome === "charged") {
      if (await updateSettlement(services.tables, run.run_id, { settlement: "settled", cost_wei: outcome.costWei.toString(), ...(outcome.txHash ? { settlement_tx: outcome.txHash } : {}) })) {
        settlementRecorded(services, { ...run, cost_wei: outcome.costWei.toString() });
        services.metrics.charged(outcome.costWei);
        observeLag(services, item.since);
        tally.settled++;
      }
    } else if (outcome.outcome === "refused") {
      const recorded = await updateSettlement(services.tables, run.run_id, {
        settlement: "refused",
        status: "failed",
        cost_wei: "0",
        error: { code: "settlement_refused", message: `The charge for this run was refused by the contract (${outcome.contractError}); its result is not released.` },
      });
      if (recorded) {
        settlementRecorded(services, { ...run, status: "failed", cost_wei: "0", error: { code: "settlement_refused", message: "" } });
        services.metrics.count("SettlementsRefused");
        observeLag(services, item.since);
        tally.refused++;
      }
    }
    await deletePendingSettlement(services.tables, run.run_id);
  }
  services.metrics.gauge("SettlementsPending", tally.pending);
  return tally;
}

/** What the chain finally decided for a run's charge, once its block is final. */
export type FinalCharge = { outcome: "charged"; costWei: bigint; txHash: Hex } | { outcome: "refused"; contractError: string };

/**
 * The one place a settled run's record follows its charge after a reorganisation: the charge landed
 * again in another transaction (its `settlement_tx` and cost follow), or was refused when it was sent
 * again (the run reads `settlement: refused`, cost 0; its output had been released at inclusion, which
 * only a creator's revocation or closing between the two blocks can cause: logged as an error). What
 * follows a run's settlement (figures, analytics) hooks here and where a run is first settled.
 */
export async function resettleRun(services: Services, runId: string, charge: FinalCharge): Promise<void> {
  const corrected =
    charge.outcome === "charged"
      ? await correctSettlement(services.tables, runId, { settlement: "settled", cost_wei: charge.costWei.toString(), settlement_tx: charge.txHash })
      : await correctSettlement(services.tables, runId, { settlement: "refused", cost_wei: "0" });
  if (!corrected) return;
  // The creator's figures follow the corrected charge (counted once, however often this is called).
  const run = await getRun(services.tables, runId);
  const fact = run ? settledRunFact(run) : undefined;
  if (fact) {
    await adjustRunOutcome(services.tables, fact).catch((error: unknown) =>
      services.logger.warn("analytics not adjusted to a reorganised charge; a rebuild corrects them", { run_id: runId, cause: error instanceof Error ? error.message : String(error) }),
    );
  }
  if (charge.outcome === "refused") services.logger.error("a reorganised charge was refused when it was sent again: the run's output was released unpaid", { run_id: runId, contract_error: charge.contractError });
  else services.logger.info("run's charge corrected after a reorganisation", { run_id: runId, settlement_tx: charge.txHash });
}
