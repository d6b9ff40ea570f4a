// Admission: every check before any agent work, in order, with nothing held and nothing charged when one
// refuses. The listing is resolved, its state and the caller's credential read live from the chain
// (access.ts), the execution rate rule applied, an Idempotency-Key claimed, a per-query run reserved
// against the balance (money/ledger.ts), a concurrency slot taken (leases/), and the run recorded
// (runs/run.store.ts). The synchronous and streaming routes, and the remote MCP endpoint, all come
// through here; performing the admitted run is perform.ts.
import type { Address } from "viem";
import type { Services } from "./services.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import { readListingSecret } from "../listings/secrets.ts";
import { checkExecutionAccess, type ExecutionAccess } from "./access.ts";
import { loadAgentLogic, type AgentLogic } from "./agent-logic.ts";
import { agentKind } from "./agents/kinds.ts";
import { claimIdempotencyKey, claimOf, releaseIdempotencyKey, type ExistingRun } from "./idempotency/protocol.ts";
import { idempotencyStore } from "./idempotency/idempotency.store.ts";
import { acquireLease } from "./leases/leases.ts";
import { concurrencySlots } from "./leases/concurrency.store.ts";
import { RUNS_PER_LISTING } from "./limits.ts";
import { releaseReservation, reserveRun, SETTLEMENT_WINDOW_MS } from "./money/ledger.ts";
import { releaseSpend, reserveSpend, spendLimitsOf } from "./money/spend.ts";
import type { SpendHold } from "./money/spend-ledger.store.ts";
import { newRunId, type RunRecord } from "./runs/run.ts";
import { createRun, finishRun, recordRenterRun, runKey, runningIndex, RunIdTakenError } from "./runs/run.store.ts";

export interface ExecuteRequest {
  agent_id: string;
  task: string;
  input?: string | Record<string, unknown>;
  input_uri?: string;
  priority?: "standard" | "priority";
  timeout_seconds?: number;
}

export interface Admission {
  run: RunRecord;
  access: ExecutionAccess;
  logic: AgentLogic;
  request: ExecuteRequest;
  timeoutMs: number;
  startedAt: number;
  /** The listing's secret the run needs (the provider key of a declarative agent, the webhook secret of a
   * connected one), read while the admission's writes are under way. Settles to null when none is set,
   * and rejects only with a storage failure (awaited, that fails the run as internal_error). */
  secret: Promise<string | null>;
}

export type AdmissionResult =
  | { kind: "admitted"; admission: Admission }
  /** An earlier request with the same Idempotency-Key claimed it for `runId`. Its run record may not
   * exist yet while that request is still being admitted; `claim` is what follows it (claimedRun). */
  | ({ kind: "existing" } & ExistingRun);

export interface AdmitOptions {
  idempotency?: { key: string; bodyHash: string };
  /** Applies the execution rate rule for the resolved listing (the route owns the HTTP side of it). */
  rateLimit(listingId: string): Promise<void>;
  /** How the output will leave the service (default sync): deltas of a stream are delivered output. */
  delivery?: "stream" | "sync";
  /** The A2A context the run belongs to, when the client named one (recorded on the run). */
  contextId?: string;
}

/**
 * Every check before any agent work, in order: the listing is resolved, its state and the caller's
 * credential read live from the chain, the execution rate rule applied, a concurrency slot taken, and a
 * per-query run reserved against the balance. When any step refuses, nothing is held and nothing
 * charged. A request whose Idempotency-Key already started a run gets that run instead.
 */
export async function admitRun(services: Services, principal: Principal, request: ExecuteRequest, options: AdmitOptions): Promise<AdmissionResult> {
  if (request.input !== undefined && request.input_uri !== undefined) throw new ApiError("invalid_request", "Send either input or input_uri, not both.");
  const access = await checkExecutionAccess(services, principal.wallet, request.agent_id);
  await options.rateLimit(access.listingId);
  const logic = await loadAgentLogic(services, access.agent);
  const manifestTimeoutMs = logic.manifest.timeout_seconds * 1000;
  const requestedMs = request.timeout_seconds === undefined ? manifestTimeoutMs : request.timeout_seconds * 1000;
  const timeoutMs = Math.min(manifestTimeoutMs, requestedMs);
  const runId = newRunId();
  const holdUntil = Date.now() + timeoutMs + 60_000;
  const wallet = principal.wallet;
  const idempotency = options.idempotency;
  const keys = idempotencyStore(services.tables);
  // The key is claimed before any hold is taken, so a request racing its own retry never meets the
  // first one's reservation or slot as a refusal: one of them claims the key, the other follows its run.
  if (idempotency) {
    const owner = await claimIdempotencyKey(keys, wallet, idempotency.key, idempotency.bodyHash, runId);
    if (owner !== runId) return { kind: "existing", runId: owner, claim: claimOf(keys, wallet, idempotency.key, owner) };
  }
  const releaseKey = async () => {
    if (!idempotency) return;
    // A key left claimed would make every retry with it wait CLAIM_TO_RUN_MS for a run that never comes.
    await releaseIdempotencyKey(keys, wallet, idempotency.key, runId).catch((error: unknown) =>
      services.logger.warn("idempotency key not given back", { run_id: runId, cause: error instanceof Error ? error.message : String(error) }),
    );
  };

  // The run's secret is needed only once the agent is called, but reading it (the sealed blob, the key
  // unwrap) takes as long as the writes below: start it now, beside them. A refused admission drops it.
  const secret = readListingSecret(services, access.listingId, agentKind(access.agent.kind).secret, access.agent as unknown as Record<string, unknown>);
  secret.catch(() => undefined);
  const perQuery = access.rentalModel === "per_query";
  // The reservation comes before the slot: a balance that cannot cover the run is a lasting refusal
  // (403), a full listing a passing one (429).
  // The key's or app's spending limits hold the run's price beside the balance's reservation (in
  // parallel: the limit check adds no round trip); when either refuses, the other is given back.
  let spendHolds: SpendHold[] = [];
  if (perQuery) {
    const expiresAt = holdUntil + SETTLEMENT_WINDOW_MS;
    const reservation = reserveRun(services, { onChainId: access.onChainId, wallet, runId, priceWei: access.priceWei, expiresAt, market: access.market, capped: access.capped });
    // The limit's hold starts once the reservation's first request is on its way (a turn of the event
    // loop: every request prepared in this one has been written by then). Both requests are prepared
    // (marshalled, signed) on this one thread; the reservation is the longer chain (a read, the chain's
    // balance, a write), so the hold's preparation belongs in its first wait, not before its first send.
    // Held against the limits in the listing's currency only (a token run never counts against ETH's).
    const holding = spendLimitsOf(principal)
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => reserveSpend(services, principal, { runId, priceWei: access.priceWei, currency: access.currency, expiresAt }))
      : Promise.resolve<SpendHold[]>([]);
    const [balance, spend] = await Promise.allSettled([reservation, holding]);
    if (spend.status === "fulfilled") spendHolds = spend.value;
    if (balance.status === "rejected" || spend.status === "rejected") {
      if (balance.status === "fulfilled") await releaseReservation(services, access.onChainId, wallet, runId, access.market).catch(() => undefined);
      await releaseSpend(services, spendHolds, runId, access.priceWei).catch(() => undefined);
      await releaseKey();
      // The balance's refusal first: a balance that cannot pay is what the renter must fix first.
      throw balance.status === "rejected" ? balance.reason : (spend as PromiseRejectedResult).reason;
    }
  }
  const slots = concurrencySlots(services.tables, access.onChainId);
  try {
    const slot = await acquireLease(slots, runId, { limit: RUNS_PER_LISTING, expiresAt: holdUntil });
    if (slot !== "acquired") {
      throw new ApiError("rate_limit_exceeded", `${RUNS_PER_LISTING} runs of this listing are already in flight; retry when one finishes.`, { headers: { "Retry-After": "1" } });
    }
    // A per-query run's charge reference is fixed, and stored with the run, before anything can charge it.
    const chargeRef = perQuery ? await services.chargeRefs.next() : undefined;
    const run: RunRecord = {
      ...runKey(runId),
      run_id: runId,
      agent_id: access.agent.agent_id,
      listing_id: access.listingId,
      on_chain_id: access.onChainId,
      wallet: principal.wallet.toLowerCase() as Address,
      rental_model: access.rentalModel,
      price_wei: access.priceWei.toString(),
      // A listing on the TokenMarketplace: its charge goes there, and its amounts are in its token.
      ...(access.market === "token" ? { market: "token" as const, currency: access.currency } : {}),
      ...(chargeRef === undefined ? {} : { charge_ref: String(chargeRef) }),
      ...(spendHolds.length > 0 ? { spend_holds: spendHolds } : {}),
      delivery: options.delivery ?? "sync",
      status: "running",
      cost_wei: "0",
      settlement: "none",
      streamed: "",
      priority: request.priority ?? "standard",
      ...(options.contextId ? { context_id: options.contextId } : {}),
      timeout_ms: timeoutMs,
      created_at: new Date().toISOString(),
      // Indexed while it runs, so a run whose end was never recorded is found and finished (runs/stale-runs.ts).
      ...runningIndex(runId, Date.now(), timeoutMs),
    };
    try {
      // The run, and its entry among the renter's runs of the listing (A2A's ListTasks), side by side.
      await Promise.all([createRun(services.tables, run), recordRenterRun(services.tables, run)]);
    } catch (error) {
      if (error instanceof RunIdTakenError) {
        // A request following this one's Idempotency-Key gave up waiting and barred the run id.
        throw new ApiError("service_unavailable", "This request took too long to start its run and was given up; nothing ran and nothing was charged. Retry.", { headers: { "Retry-After": "1" } });
      }
      // The put may have landed even so: a record left running would never finish.
      await finishRun(services.tables, runId, { status: "failed", output: null, streamed: "", error: { code: "internal_error", message: "The run could not be started; it was not charged." }, cost_wei: "0", duration_ms: 0, settlement: "none", finished_at: new Date().toISOString() }).catch(() => undefined);
      throw error;
    }
    return { kind: "admitted", admission: { run, access, logic, request, timeoutMs, startedAt: performance.now(), secret } };
  } catch (error) {
    if (perQuery) await releaseReservation(services, access.onChainId, wallet, runId, access.market).catch(() => undefined);
    await releaseSpend(services, spendHolds, runId, access.priceWei).catch(() => undefined);
    await slots.remove(runId).catch(() => undefined);
    await releaseKey();
    throw error;
  }
}
