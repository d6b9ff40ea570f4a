// Admission of a run paid by x402 instead of a credential (decision 0166, docs/design/currencies.md): the
// listing's offer, the PAYMENT-SIGNATURE header read (400 when it is no payment), the execution rate rule,
// the payment checked against the offer and the chain (402 with @x402/evm's reason), the authorization
// reserved for this run (of identical payments one gets the run, a replay none), a concurrency slot, and
// the run recorded (`paid_by: "x402"`, `market: "token"`, the payer as its wallet). Nothing is charged
// here: a completed run's payment goes to the settler (perform.ts). When a step refuses, nothing is held.
import type { Address } from "viem";
import type { Services } from "./services.ts";
import { ApiError } from "../errors.ts";
import { readTokenAuthorization } from "../chain/read-token-authorization.ts";
import type { Admission, ExecuteRequest } from "../execution/admission.ts";
import { loadAgentLogic } from "../execution/agent-logic.ts";
import type { ExecutionAccess } from "../execution/access.ts";
import { acquireLease } from "../execution/leases/leases.ts";
import { concurrencySlots } from "../execution/leases/concurrency.store.ts";
import { RUNS_PER_LISTING } from "../execution/limits.ts";
import { newRunId, type RunRecord } from "../execution/runs/run.ts";
import { createRun, finishRun, recordRenterRun, runKey, runningIndex } from "../execution/runs/run.store.ts";
import { readListingSecret } from "../listings/secrets.ts";
import { agentKind } from "../execution/agents/kinds.ts";
import { readPaymentSignature, type Eip3009Payment } from "./headers.ts";
import { paymentRequiredError, x402OfferOf, type X402Offer } from "./offer.ts";
import { putRunPayment, releasePayment, reservePayment, type RunX402Payment } from "./payment.store.ts";
import { checkPayment, checkPaymentState, PAYMENT_REFUSALS } from "./verify.ts";


export interface PaidAdmission {
  admission: Admission;
  payment: RunX402Payment;
}

export interface PaidAdmitOptions {
  /** The PAYMENT-SIGNATURE header as sent. */
  header: string;
  /** The URL the payment is for (PAYMENT-REQUIRED's `resource.url`). */
  resourceUrl: string;
  /** Applies the execution rate rule for the listing and the payer. */
  rateLimit(listingId: string, payer: Address): Promise<void>;
  delivery: "stream" | "sync";
  /** The run's id, when the protocol named the task before it was paid (A2A's x402 extension: the
   * payment-required task's id); a fresh one otherwise. An id already taken refuses the run. */
  runId?: string;
  /** The A2A context the run belongs to, when the client named one. */
  contextId?: string;
}

/** A day after the authorization's window, the reservation's record may go (nothing can settle it then). */
const KEEP_AFTER_WINDOW_SECONDS = 86_400;

/** The offer of `agentId`, or undefined when it is not sold by x402 (the caller answers 401 as without it). */
export { x402OfferOf };

/**
 * Admits a run paid by the payment in `options.header` for `offer`'s listing, or throws: 400
 * invalid_request (no payment), 402 payment_required (refused, with the reason), 403 listing_paused,
 * 429 (rate, slots), 503 (the chain could not be read).
 */
export async function admitPaidRun(services: Services, offer: X402Offer, request: ExecuteRequest, options: PaidAdmitOptions): Promise<PaidAdmission> {
  if (request.input !== undefined && request.input_uri !== undefined) throw new ApiError("invalid_request", "Send either input or input_uri, not both.");
  const payment = readPaymentSignature(options.header);
  const payer = payment.authorization.from.toLowerCase() as Address;
  await options.rateLimit(offer.listingId, payer);
  if (offer.paused) throw new ApiError("listing_paused", "The listing is paused by its creator; no executions until it resumes.", { onChainError: { contract: "TokenMarketplace", error: "ListingNotActive" } });
  const refuse = (reason: string, message: string) => paymentRequiredError(offer, options.resourceUrl, reason, message);
  await checkOnChain(services, offer, payment, refuse);

  const logic = await loadAgentLogic(services, offer.agent as ExecutionAccess["agent"]);
  const manifestTimeoutMs = logic.manifest.timeout_seconds * 1000;
  const timeoutMs = Math.min(manifestTimeoutMs, request.timeout_seconds === undefined ? manifestTimeoutMs : request.timeout_seconds * 1000);
  const runId = options.runId ?? newRunId();
  const token = offer.token.address.toLowerCase() as Address;
  const { nonce, validAfter, validBefore } = payment.authorization;
  const ttl = Number(validBefore) + KEEP_AFTER_WINDOW_SECONDS;
  // One run per authorization: identical payments however close, and any replay, stop here.
  if (!(await reservePayment(services.tables, { token, payer, nonce, run_id: runId, ttl }))) {
    throw refuse(PAYMENT_REFUSALS.nonceUsed, `The authorization's nonce ${nonce} was already presented for another run.`);
  }
  const slots = concurrencySlots(services.tables, offer.onChainId);
  try {
    const slot = await acquireLease(slots, runId, { limit: RUNS_PER_LISTING, expiresAt: Date.now() + timeoutMs + 60_000 });
    if (slot !== "acquired") throw new ApiError("rate_limit_exceeded", `${RUNS_PER_LISTING} runs of this listing are already in flight; retry when one finishes.`, { headers: { "Retry-After": "1" } });
    const x402: RunX402Payment = { token, payer, network: offer.requirements.network, validAfter, validBefore, nonce, signature: payment.signature };
    await putRunPayment(services.tables, runId, { validAfter, validBefore, nonce, signature: payment.signature }, ttl);
    const chargeRef = await services.chargeRefs.next();
    const run: RunRecord = {
      ...runKey(runId),
      run_id: runId,
      agent_id: offer.agent.agent_id,
      listing_id: offer.listingId,
      on_chain_id: offer.onChainId,
      wallet: payer,
      rental_model: "per_query",
      price_wei: offer.amount.toString(),
      charge_ref: String(chargeRef),
      market: "token",
      currency: { symbol: offer.token.symbol, address: offer.token.address, decimals: offer.token.decimals },
      paid_by: "x402",
      delivery: options.delivery,
      status: "running",
      cost_wei: "0",
      settlement: "none",
      streamed: "",
      priority: request.priority ?? "standard",
      timeout_ms: timeoutMs,
      created_at: new Date().toISOString(),
      ...(options.contextId ? { context_id: options.contextId } : {}),
      ...runningIndex(runId, Date.now(), timeoutMs),
    };
    try {
      await Promise.all([createRun(services.tables, run), recordRenterRun(services.tables, run)]);
    } catch (error) {
      await finishRun(services.tables, runId, { status: "failed", output: null, streamed: "", error: { code: "internal_error", message: "The run could not be started; it was not charged." }, cost_wei: "0", duration_ms: 0, settlement: "none", finished_at: new Date().toISOString() }).catch(() => undefined);
      throw error;
    }
    const secret = readListingSecret(services, offer.listingId, agentKind((offer.agent as ExecutionAccess["agent"]).kind).secret, offer.agent as unknown as Record<string, unknown>);
    secret.catch(() => undefined);
    const access: ExecutionAccess = { listingId: offer.listingId, onChainId: offer.onChainId, agent: offer.agent as ExecutionAccess["agent"], rentalModel: "per_query", priceWei: offer.amount, balanceWei: 0n, market: "token", currency: { symbol: offer.token.symbol, address: offer.token.address, decimals: offer.token.decimals } };
    return { admission: { run, access, logic, request, timeoutMs, startedAt: performance.now(), secret }, payment: x402 };
  } catch (error) {
    await slots.remove(runId).catch(() => undefined);
    await releasePayment(services.tables, token, payer, nonce, runId).catch(() => undefined);
    throw error;
  }
}

/** The payment against the offer and the chain's time, then the nonce and the payer's balance. */
async function checkOnChain(services: Services, offer: X402Offer, payment: Eip3009Payment, refuse: (reason: string, message: string) => ApiError): Promise<void> {
  const state = await readTokenAuthorization(services.chain, { token: offer.token.address as Address, authorizer: payment.authorization.from, nonce: payment.authorization.nonce }).catch((error: unknown) => {
    throw new ApiError("service_unavailable", "The chain could not be reached to check the payment; retry.", { cause: error, headers: { "Retry-After": "1" } });
  });
  // The time the transfer will run at: the latest block's, or ours when the chain has been idle (a chain
  // that mines per transaction stamps its next block with the time it is mined, not its last block's).
  const now = Math.max(state.chainTime, Math.floor(Date.now() / 1000));
  const checked = await checkPayment(payment, offer.requirements, now);
  if (!checked.ok) throw refuse(checked.reason, checked.message);
  const onChain = checkPaymentState(payment, state);
  if (!onChain.ok) throw refuse(onChain.reason, onChain.message);
}
