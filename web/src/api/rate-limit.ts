// A 429 is waited out, as the SDK's `retryOn429` does: the dashboard's reads retry after the answer's
// Retry-After (not an error box), and the page says it is waiting (RateLimitBanner, ui/RateLimitBanner.tsx).
import { AgentRentalError } from "@agent-rental/sdk";

/** How many 429s in a row a read waits out before it shows the refusal. */
export const RATE_LIMIT_ATTEMPTS = 6;
/** The longest single wait (a Retry-After beyond it is waited in parts). */
export const RATE_LIMIT_MAX_WAIT_MS = 120_000;

export function isRateLimited(error: unknown): error is AgentRentalError {
  return error instanceof AgentRentalError && error.status === 429;
}

/** Milliseconds to wait before asking again after `error` (a 429). */
export function rateLimitWaitMs(error: AgentRentalError): number {
  return Math.min(RATE_LIMIT_MAX_WAIT_MS, Math.max(1, error.retryAfter ?? 1) * 1000);
}

/** TanStack Query's `retry`: a 429 is waited out; a refusal (other 4xx) is an answer; network errors
 * and 5xx are retried twice. */
export function retryRead(failures: number, error: unknown): boolean {
  if (isRateLimited(error)) return failures < RATE_LIMIT_ATTEMPTS;
  return failures < 2 && !(error instanceof AgentRentalError && error.status >= 400 && error.status < 500);
}

/** TanStack Query's `retryDelay`: a 429's Retry-After, else its default backoff (1 s, 2 s, 4 s … 30 s). */
export function retryReadDelay(failures: number, error: unknown): number {
  if (isRateLimited(error)) return rateLimitWaitMs(error);
  return Math.min(1000 * 2 ** failures, 30_000);
}
