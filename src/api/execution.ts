// What the two execute routes share besides their schemas (src/api/schemas/execution.ts): admission
// with the route's HTTP side (the Idempotency-Key header and the execution rate rule the routes
// declare), and the refusals both declare.
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { admitRun, type AdmissionResult, type ExecuteRequest } from "../execution/admission.ts";
import { claimOf, findIdempotentRun, parseIdempotencyKey, requestHash } from "../execution/idempotency/protocol.ts";
import { idempotencyStore } from "../execution/idempotency/idempotency.store.ts";
import { limitExecution } from "./middleware/rate-limit.ts";
import type { RouteErrors } from "./openapi.ts";

/** What both execute routes can refuse, from admission (the credential, the balance, the listing) and
 * the Idempotency-Key. */
export const EXECUTE_ERRORS = {
  400: ["invalid_request", "invalid_listing_id"],
  402: ["spend_limit_reached"],
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
