// What the two execute routes share besides their schemas (src/api/schemas/execution.ts): admission
// with the route's HTTP side (the Idempotency-Key header and the execution rate rule the routes
// declare), and the refusals both declare.
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { admitRun, type AdmissionResult, type ExecuteRequest } from "../execution/admission.ts";
import { claimOf, findIdempotentRun, parseIdempotencyKey, requestHash } from "../execution/idempotency/protocol.ts";
import { idempotencyStore } from "../execution/idempotency/idempotency.store.ts";
import { enforceRule, limitExecution } from "./middleware/rate-limit.ts";
import type { RouteErrors } from "./openapi.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import { executionKey, executionRule } from "../adapters/ratelimit/policy.ts";
import { apiBaseOf } from "../a2a/card.ts";
import { admitPaidRun, x402OfferOf, type PaidAdmission } from "../x402/admission.ts";
import { paymentResponseHeader, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from "../x402/headers.ts";
import type { PerformResult } from "../execution/perform.ts";

/** What both execute routes can refuse, from admission (the credential, the balance, the listing) and
 * the Idempotency-Key. */
export const EXECUTE_ERRORS = {
  400: ["invalid_request", "invalid_listing_id"],
  402: ["spend_limit_reached", "payment_required"],
  403: ["credential_not_found", "credential_expired", "insufficient_balance", "listing_paused", "credential_revoked", "listing_closed", "price_not_agreed"],
  404: ["listing_not_found"],
  409: ["idempotency_key_reused"],
  429: ["rate_limit_exceeded"],
} as const satisfies RouteErrors;

export async function admitFromRequest(c: Context<AppEnv>, endpoint: string, body: ExecuteRequest): Promise<AdmissionResult> {
  const services = c.get("services");
  const principal = c.get("principal");
  const key = parseIdempotencyKey(c.req.header("idempotency-key"));
  const idempotency = key === undefined ? undefined : { key, bodyHash: requestHash(endpoint, body) };
  if (idempotency) {
    const keys = idempotencyStore(services.tables);
    const existing = await findIdempotentRun(keys, principal.wallet, idempotency.key, idempotency.bodyHash);
    if (existing) return { kind: "existing", runId: existing, claim: claimOf(keys, principal.wallet, idempotency.key, existing) };
  }
  return admitRun(services, principal, body, {
    ...(idempotency ? { idempotency } : {}),
    delivery: endpoint === "execute/stream" ? "stream" : "sync",
    rateLimit: (listingId) => limitExecution(c, listingId),
  });
}

/** Whether the request came without a bearer token, to be paid by x402 (the authentication let it
 * through only with a PAYMENT-SIGNATURE header; route.ts `payableBy`). */
export function paidByX402(c: Context<AppEnv>): boolean {
  return (c.get("principal") as Principal | undefined) === undefined;
}

/** Admits a run paid by the request's PAYMENT-SIGNATURE (src/x402/admission.ts). A listing not sold by
 * x402 is answered 401, as any request without a bearer token. */
export async function admitPaidFromRequest(c: Context<AppEnv>, endpoint: string, body: ExecuteRequest): Promise<PaidAdmission> {
  const services = c.get("services");
  const offer = await x402OfferOf(services, body.agent_id);
  if (!offer) throw new ApiError("unauthorized", "Missing Authorization header: send Authorization: Bearer <API key, JWT or access token> (this listing is not paid by x402).");
  return admitPaidRun(services, offer, body, {
    header: c.req.header(PAYMENT_SIGNATURE_HEADER) ?? "",
    resourceUrl: new URL(c.req.path, apiBaseOf(services)).toString(),
    delivery: endpoint === "execute/stream" ? "stream" : "sync",
    rateLimit: async (listingId, payer) => {
      await enforceRule(c, services.rateLimiter, executionKey(listingId, payer), executionRule(), "closed");
    },
  });
}

/** PAYMENT-RESPONSE on the answer of a run whose payment settled (x402 v2: success, transaction, network,
 * payer), encoded by @x402/core. Nothing for a run whose payment did not settle. */
export function setPaymentResponse(c: Context<AppEnv>, paid: PaidAdmission, result: PerformResult): void {
  if (!result.settlementTx) return;
  c.header(PAYMENT_RESPONSE_HEADER, paymentResponseHeader({ success: true, transaction: result.settlementTx, network: paid.payment.network as `${string}:${string}`, payer: paid.payment.payer }));
}
