import type { Principal } from "../auth/principal.ts";
import type { Services } from "../services.ts";

/** allowed; limited (429); fail_open (the limiter's store was unreachable and the route admits);
 * unavailable (the store was unreachable and the route refuses: 503). */
export type RateLimitOutcome = "allowed" | "limited" | "fail_open" | "unavailable";

/** Hono context variables shared by every route. */
export interface AppEnv {
  Variables: {
    requestId: string;
    services: Services;
    principal: Principal;
    /** When the request arrived (performance.now()), set by the access log. */
    receivedAt?: number;
    /** The run this request started or follows, set by the execute routes (for the access log). */
    runId?: string;
    /** What rate limiting decided for this request, set by the rate-limit middleware (the most severe
     * outcome when two rules applied). */
    rateLimit?: RateLimitOutcome;
    /** Applies the task execution rule to a run of the listing, on routes that declare it (set by the
     * rate-limit middleware; see limitExecution). */
    limitExecution?: (listingId: string, perListingLimit?: number | null) => Promise<void>;
    /** Set on routes that speak JSON-RPC (the A2A endpoint): every error of the request, the platform's
     * included, is rendered as a JSON-RPC error object answering this id (null until the body is read). */
    jsonRpc?: { id: string | number | null };
  };
}
