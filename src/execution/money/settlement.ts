// Per-query settlement: consumeQuery by the protocol authority, right before a completed run's result is
// returned. The contract charges a run at most once (runRef), so a retried settlement never charges
// twice; the charged amount is read from the QueryConsumed event, never assumed.
//
// The rule when the authority's transaction fails (docs/reference/execution.md):
// - the contract refused it (the creator revoked the credential or closed the listing mid-run, or the
//   balance no longer covers the price): the run is not paid, so its result is never released; the run
//   reads failed with cost 0;
// - the chain could not be reached: the result is kept, withheld, and the charge retried (by the request
//   for a short while, then by the settlement pass) until it lands or is refused; the reservation keeps
//   the funds meanwhile. GET /v1/runs/{run_id} releases the output once the run is settled.
import pRetry from "p-retry";
import type { Address } from "viem";
import type { Services } from "../../services.ts";
import { consumeQuery } from "../../chain/consume-query.ts";
import { getQueryConsumed } from "../../chain/get-query-consumed.ts";
import { AuthorityRevertError, AuthorityUnavailableError } from "../../chain/authority.ts";
import { runRef, type RunRecord } from "../runs/run.ts";
import { getRun, updateSettlement } from "../runs/run.store.ts";
import { deletePendingSettlement, listPendingSettlements, putPendingSettlement } from "./settlement.store.ts";
import { holdReservation, releaseReservation, settleReservation, SETTLEMENT_WINDOW_MS } from "./ledger.ts";

export type ChargeOutcome =
  | { outcome: "charged"; costWei: bigint; txHash?: `0x${string}` }
  | { outcome: "refused"; contractError: string }
  | { outcome: "unavailable" };

/** What an earlier charge of `ref` took (a retry whose first attempt landed, or a run whose end was
 * never recorded). Throws when the chain cannot be read. */
export async function earlierCharge(services: Services, onChainId: `0x${string}`, wallet: Address, ref: `0x${string}`): Promise<{ price: bigint; txHash: `0x${string}` } | undefined> {
  const charge = await getQueryConsumed(services.chain, { listingId: onChainId, buyer: wallet, runRef: ref, fromBlock: services.config.MARKETPLACE_DEPLOY_BLOCK });
  return charge && { price: charge.priceWei, txHash: charge.transactionHash };
}

/** One attempt to charge a run. */
/** A run to charge: `priceWei` is the price it was admitted at, the most the contract may take for it. */
export interface ChargeableRun {
  runId: string;
  onChainId: `0x${string}`;
  wallet: Address;
  priceWei: bigint;
}

export async function chargeRun(services: Services, run: ChargeableRun): Promise<ChargeOutcome> {
  if (!services.authority) return { outcome: "unavailable" };
  const ref = runRef(run.runId);
  try {
    // The admission price caps the charge: a price raised while the run ran never reaches it.
    const { receipt, charged, priceWei } = await consumeQuery(services.authority, { listingId: run.onChainId, buyer: run.wallet, runRef: ref, maxPrice: run.priceWei });
    if (charged && priceWei !== undefined) return { outcome: "charged", costWei: priceWei, txHash: receipt.transactionHash };
    const earlier = await earlierCharge(services, run.onChainId, run.wallet, ref);
    if (earlier) return { outcome: "charged", costWei: earlier.price, txHash: earlier.txHash };
    return { outcome: "unavailable" };
  } catch (error) {
    if (error instanceof AuthorityRevertError) return { outcome: "refused", contractError: error.contractError };
    if (error instanceof AuthorityUnavailableError) return { outcome: "unavailable" };
    services.logger.error("settlement failed unexpectedly", { run_id: run.runId, cause: error instanceof Error ? error.message : String(error) });
    return { outcome: "unavailable" };
  }
}

/** Charges with a few bounded retries (the request waits for these); the ledger follows the outcome. */
export async function settleRun(services: Services, run: ChargeableRun, attempts = 3): Promise<ChargeOutcome> {
  let outcome: ChargeOutcome = { outcome: "unavailable" };
  for (let attempt = 0; attempt < attempts; attempt++) {
    outcome = await chargeRun(services, run);
    if (outcome.outcome !== "unavailable") break;
    await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
  }
  // The ledger follows the chain. Its write is retried and never turns a landed charge into an error:
  // a reservation left behind only keeps the renter's funds held until it expires (never overspends).
  const follow: () => Promise<unknown> =
    outcome.outcome === "charged"
      ? () => settleReservation(services, run.onChainId, run.wallet, run.runId)
      : outcome.outcome === "refused"
        ? () => releaseReservation(services, run.onChainId, run.wallet, run.runId)
        : () => holdReservation(services, run.onChainId, run.wallet, run.runId, Date.now() + SETTLEMENT_WINDOW_MS);
  await pRetry(follow, { retries: 5, minTimeout: 100, maxTimeout: 2_000 }).catch((error: unknown) =>
    services.logger.error("reservation ledger not updated after settlement", { run_id: run.runId, outcome: outcome.outcome, cause: error instanceof Error ? error.message : String(error) }),
  );
  return outcome;
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
  await releaseReservation(services, run.on_chain_id, run.wallet, run.run_id).catch((error: unknown) =>
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

/** Queues a run whose charge could not be confirmed for the settlement pass. */
export async function markSettlementPending(services: Services, runId: string): Promise<void> {
  await putPendingSettlement(services.tables, runId, new Date().toISOString());
}

/** Retries the settlements left pending (the chain was unreachable when the run finished). */
export async function settlePendingRuns(services: Services): Promise<{ settled: number; refused: number; pending: number }> {
  const tally = { settled: 0, refused: 0, pending: 0 };
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
    const outcome = await settleRun(services, { runId: run.run_id, onChainId: run.on_chain_id, wallet: run.wallet, priceWei }, 1);
    if (outcome.outcome === "unavailable") {
      tally.pending++;
      continue;
    }
    // Settlement lag: from the run's end (when its charge was deferred) to the charge resolved.
    if (typeof item.since === "string") services.metrics.observe("SettlementLag", Date.now() - Date.parse(item.since));
    if (outcome.outcome === "charged") services.metrics.charged(outcome.costWei);
    else services.metrics.count("SettlementsRefused");
    if (outcome.outcome === "charged") {
      await updateSettlement(services.tables, run.run_id, { settlement: "settled", cost_wei: outcome.costWei.toString(), ...(outcome.txHash ? { settlement_tx: outcome.txHash } : {}) });
      tally.settled++;
    } else {
      await updateSettlement(services.tables, run.run_id, {
        settlement: "refused",
        status: "failed",
        cost_wei: "0",
        error: { code: "settlement_refused", message: `The charge for this run was refused by the contract (${outcome.contractError}); its result is not released.` },
      });
      tally.refused++;
    }
    await deletePendingSettlement(services.tables, run.run_id);
  }
  services.metrics.gauge("SettlementsPending", tally.pending);
  return tally;
}
